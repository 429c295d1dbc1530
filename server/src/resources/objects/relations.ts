// Relations between objects: reading the related objects of a relation name (its name from the
// left side, its inverse name from the right) and adding, replacing and removing them.
import type { ReadContext } from '../../http/read-context.js';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Database } from '../../db/tables.js';
import { badRequest, notFound } from '../../http/errors.js';
import { concreteTypeNames, model, relationNamesOf, typeAllowedOn, typeById, type RelationDef } from './model.js';
import { listObjects, type ObjectList } from './list.js';
import { getObjectsByIds, visibleObjectsTable, type Viewer } from './read.js';
import { type ObjectRow } from './rows.js';

type Db = Kysely<Database> | Transaction<Database>;

export interface RelatedPair {
  objectId: number;
  relatedId: number;
  /** The order on the object's own side (its `priority` when on the left, `inv_priority` on the right). */
  priority: number;
  /** The link's columns as BEdita's `meta.relation` shows them, whichever side reads. */
  columns: { priority: number; inv_priority: number };
  params: unknown;
}

/** The relation called `name` on objects of `typeName`, and whether that name is its inverse. */
export function relationOfType(ctx: AppContext, typeName: string, name: string): { relation: RelationDef; inverse: boolean } | undefined {
  return relationNamesOf(ctx, typeName).find((r) => r.name === name);
}

/** Related ids of `rows` through relation name `name`, by priority (rows whose type lacks it get none). */
export async function relatedPairs(ctx: AppContext, rows: Array<Pick<ObjectRow, 'id' | 'object_type_id'>>, name: string, db = ctx.db): Promise<RelatedPair[]> {
  const groups = new Map<string, { relation: RelationDef; inverse: boolean; ids: number[] }>();
  for (const row of rows) {
    const r = relationOfType(ctx, typeById(ctx, row.object_type_id)?.name ?? '', name);
    if (!r) continue;
    const key = `${r.relation.id}:${r.inverse}`;
    const g = groups.get(key) ?? { ...r, ids: [] };
    g.ids.push(row.id);
    groups.set(key, g);
  }
  const out: RelatedPair[] = [];
  for (const g of groups.values()) {
    const [mine, other, prio] = g.inverse ? (['right_id', 'left_id', 'inv_priority'] as const) : (['left_id', 'right_id', 'priority'] as const);
    const rows = await db
      .selectFrom('object_relations')
      .select([mine, other, 'priority', 'inv_priority', 'params'])
      .where('relation_id', '=', g.relation.id)
      .where(mine, 'in', g.ids)
      .orderBy(prio)
      .orderBy('id')
      .execute();
    for (const r of rows as Array<Record<string, unknown>>) {
      out.push({
        objectId: Number(r[mine]),
        relatedId: Number(r[other]),
        priority: Number(r[prio]),
        columns: { priority: Number(r.priority), inv_priority: Number(r.inv_priority) },
        params: r.params === null ? null : JSON.parse(String(r.params)),
      });
    }
  }
  return out;
}

/**
 * GET /{type}/{id}/{relationName}: the related objects as a list with every list parameter of
 * /objects (default order: the relation's priority), each with `meta.relation`.
 */
export async function listRelated(rc: ReadContext, ctx: AppContext, row: ObjectRow, name: string): Promise<ObjectList> {
  const typeName = typeById(ctx, row.object_type_id)!.name;
  const found = relationOfType(ctx, typeName, name);
  if (!found) throw notFound(`Objects of type ${typeName} have no relation "${name}"`, 'unknown_relation');
  const { relation, inverse } = found;
  const [mine, other, prio] = inverse ? (['right_id', 'left_id', 'inv_priority'] as const) : (['left_id', 'right_id', 'priority'] as const);
  const list = await listObjects(rc, ctx, {
    types: concreteTypeNames(ctx).filter((t) => typeAllowedOn(ctx, t, inverse ? relation.left : relation.right)),
    extraWhere: (eb) =>
      eb('objects.id', 'in', eb.selectFrom('object_relations').select(`object_relations.${other}`).where('object_relations.relation_id', '=', relation.id).where(`object_relations.${mine}`, '=', row.id)),
    sorts: {
      priority: sql`(select ${sql.ref(prio)} from object_relations where relation_id = ${relation.id} and ${sql.ref(mine)} = ${row.id} and ${sql.ref(other)} = objects.id)`,
    },
    defaultSort: 'priority',
  });
  const pairs = new Map((await relatedPairs(ctx, [row], name)).map((p) => [String(p.relatedId), p]));
  for (const d of list.data) {
    const p = pairs.get(d.id);
    d.meta = { ...(d.meta ?? {}), relation: { priority: p?.columns.priority ?? null, inv_priority: p?.columns.inv_priority ?? null, params: p?.params ?? null } };
  }
  return list;
}

// ---- by relation name, for views that name relations without a type (the legacy layout) ----

export interface RelationSide {
  relation: RelationDef;
  name: string;
  /** The object is on the left side (name) or the right side (inverse name). */
  inverse: boolean;
}

/** A relation by its name or inverse name (from the model); 400 when none has it. */
export function relationByName(ctx: AppContext, name: string): RelationSide {
  const relation = model(ctx).relations.find((r) => r.name === name || r.inverseName === name);
  if (!relation) throw badRequest(`Unknown relation "${name}"`, 'unknown_relation');
  return { relation, name, inverse: relation.name !== name };
}

export const columnsOf = (side: RelationSide) =>
  side.inverse ? (['right_id', 'left_id', 'inv_priority'] as const) : (['left_id', 'right_id', 'priority'] as const);

/** Ids related to `id` through any relation, from either side. */
export async function relatedIdsEitherSide(db: Db, id: number): Promise<number[]> {
  const rows = await db
    .selectFrom('object_relations')
    .select(sql<number>`case when left_id = ${id} then right_id else left_id end`.as('other'))
    .where((eb) => eb.or([eb('left_id', '=', id), eb('right_id', '=', id)]))
    .execute();
  return rows.map((r) => Number(r.other));
}

/** Links of `objectId` through `side` to objects the viewer sees, with priority and params. */
function visibleLinks(ctx: AppContext, db: Db, objectId: number, side: RelationSide, viewer: Viewer) {
  const [self, other, prio] = columnsOf(side);
  return db
    .selectFrom('object_relations')
    .innerJoin(visibleObjectsTable(ctx, viewer, db), 'objects.id', `object_relations.${other}`)
    .select([`object_relations.${other} as related_id`, `object_relations.${prio} as priority`, 'object_relations.params'])
    .where(`object_relations.${self}`, '=', objectId)
    .where('object_relations.relation_id', '=', side.relation.id);
}

const parseParams = (text: string | null): unknown => {
  if (text === null || text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
};

/** A page of the objects related to `objectId` through `side`, by priority. */
export async function relatedPage(ctx: AppContext, db: Db, objectId: number, side: RelationSide, page: { pageSize: number; offset: number }, viewer: Viewer) {
  const base = visibleLinks(ctx, db, objectId, side, viewer);
  const total = await db.selectFrom(base.as('l')).select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow();
  const links = await base.orderBy('priority').orderBy('related_id').limit(page.pageSize).offset(page.offset).execute();
  const ids = links.map((l) => Number(l.related_id));
  const byId = new Map((await getObjectsByIds(ctx, ids, { db, viewer })).map((r) => [r.id, r]));
  return { rows: ids.map((id) => byId.get(id)).filter((r): r is ObjectRow => !!r), total: Number(total.n) };
}

/** Priority and params of one link; 404 when `relatedId` is not related (or not visible). */
export async function relationLink(ctx: AppContext, db: Db, objectId: number, side: RelationSide, relatedId: number, viewer: Viewer) {
  const link = await visibleLinks(ctx, db, objectId, side, viewer).where('objects.id', '=', relatedId).executeTakeFirst();
  if (!link) throw notFound(`Object ${relatedId} is not related to ${objectId} by ${side.name}`);
  return { priority: link.priority === null ? null : Number(link.priority), params: parseParams(link.params) };
}

/** Visible related counts per relation name (both sides) of a page of objects. */
export async function relationCounts(ctx: AppContext, db: Db, ids: number[], viewer: Viewer): Promise<Map<number, Record<string, number>>> {
  const out = new Map<number, Record<string, number>>(ids.map((id) => [id, {}]));
  if (!ids.length) return out;
  const count = async (self: 'left_id' | 'right_id', other: 'left_id' | 'right_id', nameCol: 'relations.name' | 'relations.inverse_name') => {
    const rows = await db
      .selectFrom('object_relations')
      .innerJoin('relations', 'relations.id', 'object_relations.relation_id')
      .innerJoin(visibleObjectsTable(ctx, viewer, db), 'objects.id', `object_relations.${other}`)
      .select([`object_relations.${self} as object_id`, `${nameCol} as name`, sql<number>`count(*)`.as('n')])
      .where(`object_relations.${self}`, 'in', ids)
      .groupBy([`object_relations.${self}`, nameCol])
      .execute();
    for (const row of rows) out.get(Number(row.object_id))![row.name] = Number(row.n);
  };
  await count('left_id', 'right_id', 'relations.name');
  await count('right_id', 'left_id', 'relations.inverse_name');
  return out;
}

