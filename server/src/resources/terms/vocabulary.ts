// /model/categories and /model/tags (BEdita 5's CategoriesController / TagsController over
// CategoriesTable / TagsTable): the terms themselves, admins write. A category belongs to an
// object type (`type`), its name unique within it; tags are global. `label` is `labels.default`.
// Removing a term takes it off every object (as BEdita's cascade): a model change, like removing a
// custom property, not an object write.
import type { Request } from 'express';
import type { AppContext } from '../../context.js';
import type { CategoriesTable } from './tables.js';
import type { Selectable } from 'kysely';
import { nowIso } from '../../db/time.js';
import { transact } from '../../db/transaction.js';
import { badRequest, conflict, notFound } from '../../http/errors.js';
import { byNumericId, crudRoutes, pagedList } from '../../http/crud.js';
import { sendList, type Resource } from '../../http/jsonapi.js';
import { booleanInput } from '../../http/input-values.js';
import { readContext } from '../../http/read-context.js';
import { listObjects, type ListOptions } from '../objects/list.js';
import { baseUrl } from '../../http/links.js';
import { listPage, type ListSpec } from '../../http/query.js';
import type { RouteDef } from '../../http/router.js';
import { typeById, typeByName } from '../objects/model.js';
import { containsText } from '../accounts/search.js';
import { isObject } from './attributes.js';
import { TERM_NAME } from './service.js';

/** A stored term; categories also carry their place in their type's tree (BEdita's nested set). */
type Row = Selectable<CategoriesTable> & { tree_left?: number; tree_right?: number };
type Kind = 'categories' | 'tags';

function parseLabels(text: string | null, label: string): Record<string, string> {
  try {
    const v = text ? JSON.parse(text) : null;
    if (isObject(v)) return v as Record<string, string>;
  } catch {
    // stored before labels existed: the plain label only
  }
  return { default: label };
}

function serialize(ctx: AppContext, kind: Kind, req: Request, row: Row): Resource {
  const labels = parseLabels(row.labels, row.label);
  const attributes: Record<string, unknown> = { name: row.name, label: labels.default ?? row.label ?? null, labels };
  if (kind === 'categories') {
    // `type` as the contract names it; `object_type_name` as BEdita 5 shows it.
    attributes.type = attributes.object_type_name = row.object_type_id === null ? null : (typeById(ctx, Number(row.object_type_id))?.name ?? null);
    attributes.parent_id = row.parent_id === null ? null : Number(row.parent_id);
    attributes.tree_left = row.tree_left ?? null;
    attributes.tree_right = row.tree_right ?? null;
  }
  attributes.enabled = Boolean(row.enabled);
  return {
    id: String(row.id),
    type: kind,
    attributes,
    meta: { created: row.created, modified: row.modified ?? row.created },
    links: { self: `${baseUrl(req)}/model/${kind}/${row.id}` },
  };
}

const ALLOWED: Record<Kind, string[]> = {
  categories: ['name', 'label', 'labels', 'type', 'object_type_name', 'parent_id', 'enabled'],
  tags: ['name', 'label', 'labels', 'enabled'],
};

interface TermWrite {
  name?: string;
  labels?: Record<string, string>;
  object_type_id?: number;
  parent_id?: number | null;
  enabled?: boolean;
}

async function validate(ctx: AppContext, kind: Kind, input: Record<string, unknown>, before: Row | null): Promise<TermWrite> {
  // BEdita's clients name a category's type `object_type_name`.
  const { object_type_name: typeName, ...attributes } = input;
  if (typeName !== undefined && attributes.type === undefined) attributes.type = typeName;
  for (const key of Object.keys(attributes)) if (!ALLOWED[kind].includes(key)) throw badRequest(`Unknown attribute "${key}" of ${kind}`, 'invalid_data');
  const out: TermWrite = {};
  if (attributes.name !== undefined || !before) {
    if (typeof attributes.name !== 'string' || !TERM_NAME.test(attributes.name)) {
      throw badRequest('name must be lower case letters, digits, - and _ (2 to 51 characters, starting with a letter or digit)', 'invalid_data');
    }
    out.name = attributes.name;
  }
  if (attributes.labels !== undefined) {
    const labels = attributes.labels === null ? {} : attributes.labels;
    if (!isObject(labels) || !Object.values(labels).every((v) => typeof v === 'string' && v.length <= 255)) throw badRequest('labels must map languages to labels', 'invalid_data');
    out.labels = labels as Record<string, string>;
  }
  if (attributes.label !== undefined) {
    if (attributes.label !== null && (typeof attributes.label !== 'string' || attributes.label.length > 255)) throw badRequest('label must be a string', 'invalid_data');
    const labels = { ...(out.labels ?? (before ? parseLabels(before.labels, before.label) : {})) };
    if (attributes.label) labels.default = attributes.label as string;
    else delete labels.default;
    out.labels = labels;
  }
  if (attributes.enabled !== undefined) {
    // `1`/`0` (and "1"/"0" of a PHP form) are booleans, as BEdita reads them.
    const enabled = booleanInput(attributes.enabled);
    if (enabled === undefined) throw badRequest('enabled must be true or false', 'invalid_data');
    out.enabled = enabled;
  }
  if (kind === 'categories') {
    if (attributes.type !== undefined || !before) {
      const type = typeof attributes.type === 'string' ? typeByName(ctx, attributes.type) : undefined;
      if (!type) throw badRequest(`type must name an object type${typeof attributes.type === 'string' ? ` ("${attributes.type}" is none)` : ''}`, 'invalid_data');
      out.object_type_id = type.id;
    }
    // `""` is no parent, as a PHP form sends a root category's.
    const parentId = attributes.parent_id === '' ? null : attributes.parent_id;
    if (parentId !== undefined && parentId !== null) {
      const id = Number(parentId);
      const parent = Number.isInteger(id) ? await ctx.db.selectFrom('categories').selectAll().where('id', '=', id).executeTakeFirst() : undefined;
      const typeId = out.object_type_id ?? before?.object_type_id ?? null;
      if (!parent || Number(parent.object_type_id) !== Number(typeId)) throw badRequest('parent_id must be a category of the same type', 'invalid_data');
      // No cycle: the new parent must not be the category or below it.
      for (let p: Row | undefined = parent; p && before; p = p.parent_id === null ? undefined : await ctx.db.selectFrom('categories').selectAll().where('id', '=', Number(p.parent_id)).executeTakeFirst()) {
        if (Number(p.id) === Number(before.id)) throw badRequest('parent_id cannot be the category itself or one below it', 'invalid_data');
      }
      out.parent_id = id;
    } else if (parentId === null) out.parent_id = null;
  }
  return out;
}

async function save(ctx: AppContext, kind: Kind, write: TermWrite, before: Row | null): Promise<number> {
  const name = write.name ?? before!.name;
  const typeId = kind === 'categories' ? (write.object_type_id ?? before?.object_type_id ?? null) : null;
  let clash = ctx.db.selectFrom(kind).select('id').where('name', '=', name);
  if (kind === 'categories') clash = ctx.db.selectFrom('categories').select('id').where('name', '=', name).where('object_type_id', '=', Number(typeId));
  if (before) clash = clash.where('id', '<>', Number(before.id));
  if (await clash.executeTakeFirst()) throw conflict(`A ${kind === 'tags' ? 'tag' : 'category'} named "${name}" exists${kind === 'categories' ? ' for this type' : ''}`, 'name_taken');
  const labels = write.labels ?? (before ? parseLabels(before.labels, before.label) : { default: name });
  const values: Record<string, unknown> = { name, labels: JSON.stringify(labels), label: labels.default ?? name, modified: nowIso() };
  if (write.enabled !== undefined) values.enabled = write.enabled;
  if (kind === 'categories') {
    values.object_type_id = typeId;
    if (write.parent_id !== undefined) values.parent_id = write.parent_id;
  }
  try {
    if (before) {
      await ctx.db.updateTable(kind).set(values).where('id', '=', Number(before.id)).execute();
      return Number(before.id);
    }
    const row = await ctx.db.insertInto(kind).values({ ...values, created: values.modified } as never).returning('id').executeTakeFirstOrThrow();
    return Number(row.id);
  } catch (err) {
    if (ctx.dialect.errors.isConstraintViolation(err)) throw conflict(`A ${kind === 'tags' ? 'tag' : 'category'} named "${name}" exists`, 'name_taken');
    throw err;
  }
}

const SPECS: Record<Kind, ListSpec> = {
  categories: { fields: { id: 'integer', name: 'string', label: 'string', enabled: 'boolean', parent_id: 'integer', created: 'date', modified: 'date' }, special: ['type', 'roots', 'query'], defaultSort: 'id' },
  tags: { fields: { id: 'integer', name: 'string', label: 'string', enabled: 'boolean', created: 'date', modified: 'date' }, special: ['query'], defaultSort: 'id' },
};

/**
 * Every category's place in its type's tree as a nested set (BEdita's TreeBehavior on
 * `tree_left`/`tree_right`): numbered per type from 1, roots and siblings in id order. Derived from
 * `parent_id` on read (cached until the next write), so no write has to renumber the table.
 */
function categoryTree(ctx: AppContext): Promise<Map<number, { left: number; right: number }>> {
  return ctx.readCache.get('categories:tree', async () => {
    const rows = await ctx.db.selectFrom('categories').select(['id', 'parent_id', 'object_type_id']).orderBy('id').execute();
    const children = new Map<number | null, typeof rows>();
    for (const r of rows) {
      const parent = r.parent_id === null ? null : Number(r.parent_id);
      children.set(parent, [...(children.get(parent) ?? []), r]);
    }
    const out = new Map<number, { left: number; right: number }>();
    const counters = new Map<number | null, number>();
    const visit = (r: (typeof rows)[number], type: number | null) => {
      const left = (counters.get(type) ?? 0) + 1;
      counters.set(type, left);
      for (const child of children.get(Number(r.id)) ?? []) if (!out.has(Number(child.id))) visit(child, type);
      const right = counters.get(type)! + 1;
      counters.set(type, right);
      out.set(Number(r.id), { left, right });
    };
    for (const root of children.get(null) ?? []) visit(root, root.object_type_id === null ? null : Number(root.object_type_id));
    return out;
  });
}

/** Rows with their tree numbers (categories); tags as they are. */
async function withTree(ctx: AppContext, kind: Kind, rows: Row[]): Promise<Row[]> {
  if (kind !== 'categories') return rows;
  const tree = await categoryTree(ctx);
  return rows.map((r) => ({ ...r, tree_left: tree.get(Number(r.id))?.left, tree_right: tree.get(Number(r.id))?.right }));
}

/** A tag as a row of the categories' shape (no type, no parent). */
const asRow = (r: object): Row => ({ object_type_id: null, parent_id: null, ...r }) as Row;

export type TermKind = Kind;
export type TermRow = Row;

/** One category or tag by id (404 when unknown). */
export async function getTerm(ctx: AppContext, kind: Kind, id: number): Promise<Row> {
  const row = await ctx.db.selectFrom(kind).selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound(`No such ${kind === 'tags' ? 'tag' : 'category'}`);
  return (await withTree(ctx, kind, [asRow(row)]))[0];
}

/** Every category or tag, by id. */
export async function allTerms(ctx: AppContext, kind: Kind): Promise<Row[]> {
  return (await ctx.db.selectFrom(kind).selectAll().orderBy('id').execute()).map(asRow);
}

/** A term's labels (language → label) as stored. */
export const termLabels = (row: Row): Record<string, string> => parseLabels(row.labels, row.label);

/** Create a category or tag from API attributes (checked as POST /model/{kind} checks them). */
export async function createTerm(ctx: AppContext, kind: Kind, attributes: Record<string, unknown>): Promise<Row> {
  const write = await validate(ctx, kind, attributes, null);
  return getTerm(ctx, kind, await save(ctx, kind, write, null));
}

export async function updateTerm(ctx: AppContext, kind: Kind, row: Row, attributes: Record<string, unknown>): Promise<Row> {
  const write = await validate(ctx, kind, attributes, row);
  return getTerm(ctx, kind, await save(ctx, kind, write, row));
}

/** Remove a term: it goes off every object (and a category's children become roots). */
export async function removeTerm(ctx: AppContext, kind: Kind, row: Row): Promise<void> {
  await transact(ctx.db, async (trx) => {
    if (kind === 'categories') await trx.updateTable('categories').set({ parent_id: null }).where('parent_id', '=', Number(row.id)).execute();
    await trx.deleteFrom(kind).where('id', '=', Number(row.id)).execute();
  });
}

/** How many objects carry the term. */
export async function termUses(ctx: AppContext, kind: Kind, id: number): Promise<number> {
  const row =
    kind === 'categories'
      ? await ctx.db.selectFrom('object_categories').select((e) => e.fn.countAll<number>().as('n')).where('category_id', '=', id).executeTakeFirst()
      : await ctx.db.selectFrom('object_tags').select((e) => e.fn.countAll<number>().as('n')).where('tag_id', '=', id).executeTakeFirst();
  return Number(row?.n ?? 0);
}

function termRoutes(ctx: AppContext, kind: Kind): RouteDef[] {
  const get = (id: number) => getTerm(ctx, kind, id);
  const columns = Object.fromEntries(Object.keys(SPECS[kind].fields).map((f) => [f, `${kind}.${f}`]));
  return crudRoutes<Row>({
    path: `/model/${kind}`,
    type: kind,
    writes: [kind],
    // Reads as the rest of the model's (signed-in users); writes for admins.
    guards: { read: 'user', write: 'admin' },
    list: pagedList(
      SPECS[kind],
      async (q) => {
        let base = ctx.db.selectFrom(kind).selectAll();
        if (kind === 'categories') {
          if (q.special.type) {
            const ids = q.special.type.map((name) => typeByName(ctx, name)?.id ?? -1);
            base = ctx.db.selectFrom('categories').selectAll().where('categories.object_type_id', 'in', ids);
          }
          if (q.special.roots) base = base.where(('categories.parent_id' as never) as 'id', 'is', null);
        }
        // q / filter[query]: BEdita's simple search over name and label.
        const words = q.special.query?.[0]?.trim();
        if (words) base = base.where(containsText([`${kind}.name`, `${kind}.label`], words) as never);
        const { rows, count } = await listPage(base, q, columns, `${kind}.id`);
        return { rows: await withTree(ctx, kind, rows.map(asRow)), count };
      },
      (req, row) => serialize(ctx, kind, req, row),
    ),
    find: byNumericId(get),
    idOf: (row) => Number(row.id),
    create: async (attributes) => ({ row: await createTerm(ctx, kind, attributes) }),
    update: (row, attributes) => updateTerm(ctx, kind, row, attributes),
    remove: (row) => removeTerm(ctx, kind, row),
    serialize: (req, row) => serialize(ctx, kind, req, row),
  });
}

/**
 * GET /model/categories/{id}/object_categories and /model/tags/{id}/object_tags: the objects that
 * carry the term, those the reader may read, with the list parameters of any object list.
 */
function termObjectsRoute(ctx: AppContext, kind: Kind): RouteDef {
  const link = kind === 'categories' ? 'object_categories' : 'object_tags';
  return {
    method: 'get',
    path: `/model/${kind}/:id/${link}`,
    guard: 'user',
    handler: async (req, res) => {
      const term = await byNumericId((id) => getTerm(ctx, kind, id))(String(req.params.id), req);
      const carriers = (eb: Parameters<NonNullable<ListOptions['extraWhere']>>[0]) =>
        kind === 'categories'
          ? eb('objects.id', 'in', eb.selectFrom('object_categories').select('object_categories.object_id').where('object_categories.category_id', '=', Number(term.id)))
          : eb('objects.id', 'in', eb.selectFrom('object_tags').select('object_tags.object_id').where('object_tags.tag_id', '=', Number(term.id)));
      const list = await listObjects(readContext(req), ctx, { extraWhere: carriers });
      sendList(req, res, list.data, list.page, { meta: list.meta, included: list.included.length ? list.included : undefined });
    },
  };
}

export const vocabularyRoutes = (ctx: AppContext): RouteDef[] => [
  ...termRoutes(ctx, 'categories'),
  termObjectsRoute(ctx, 'categories'),
  ...termRoutes(ctx, 'tags'),
  termObjectsRoute(ctx, 'tags'),
];
