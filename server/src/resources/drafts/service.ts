// Drafts: at most one per object, the pending changes of its attributes, relations and place in
// folders, kept in the `drafts` table beside the live object, which stays as it is until the
// draft is published (publish.ts). Only users who may `update` an object see or change its draft:
// anyone else is answered as a plain read of the object answers (404 when its rights hide the
// object or its draft, 401/403 when an object permission restricts it). A draft lives and goes
// with its object: hidden while the object is in the trash (reads join active objects only), back
// on restore, deleted on purge (the extension below, and the foreign key's cascade).
import type { Selectable, Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Database } from '../../db/tables.js';
import { nowIso } from '../../db/time.js';
import { badRequest, notFound } from '../../http/errors.js';
import { identifiersOf, isPlainObject, type Resource, type ResourceInput } from '../../http/jsonapi.js';
import type { ListQuery, ListSpec } from '../../http/query.js';
import { listPage } from '../../http/query.js';
import type { ReadContext } from '../../http/read-context.js';
import type { AuthInfo } from '../../identity.js';
import type { ObjectExtension } from '../objects/extensions.js';
import { claimAttributeParts } from '../objects/kernel-parts.js';
import type { ObjectChanges } from '../objects/kernel.js';
import { model, relationNamesOf, typeById, typeByName, type ObjectType } from '../objects/model.js';
import type { Actor } from '../objects/pipeline.js';
import { requireObject, visibleObjectsTable } from '../objects/read.js';
import { relatedPairs } from '../objects/relations.js';
import type { ObjectRow } from '../objects/rows.js';
import { validateObjectAttributes } from '../objects/schema.js';
import { serializeObject } from '../objects/serialize.js';
import { reaches, rightsOn } from '../permissions/rules.js';
import type { DraftsTable } from './tables.js';

export type DraftRow = Selectable<DraftsTable>;
type Identifier = { id: string; type: string; meta: Record<string, unknown> };

/** An object with its draft (or none yet), as the one who asked may see it. */
export interface Drafted {
  row: ObjectRow;
  type: ObjectType;
  draft: DraftRow | undefined;
}

/**
 * Whether `actor` may `update` the object (role permissions; admins always). Object permissions
 * were checked by the read that found the row. Users' accounts have no drafts.
 */
export function mayUpdate(actor: Actor, type: ObjectType, row: Pick<ObjectRow, 'created_by'>): boolean {
  if (type.name === 'users') return false;
  return actor.isAdmin || reaches(rightsOn(actor.permissions, type).update, actor.userId, row.created_by);
}

const noDraft = (id: number | string) => notFound(`No draft of object ${id}`);

/** The object `key` and its draft, for a user who may update it; 404/401/403 as a read otherwise. */
export async function editable(ctx: AppContext, viewer: AuthInfo, key: string | number, db = ctx.db): Promise<Drafted> {
  const row = await requireObject(ctx, key, { viewer, db });
  const type = typeById(ctx, row.object_type_id)!;
  if (!mayUpdate(viewer, type, row)) throw noDraft(key);
  const draft = await db.selectFrom('drafts').selectAll().where('object_id', '=', row.id).executeTakeFirst();
  return { row, type, draft };
}

/** Like editable(), with a draft: 404 when the object has none. */
export async function requireDraft(ctx: AppContext, viewer: AuthInfo, key: string | number, db = ctx.db): Promise<Drafted & { draft: DraftRow }> {
  const found = await editable(ctx, viewer, key, db);
  if (!found.draft) throw noDraft(key);
  return found as Drafted & { draft: DraftRow };
}

export const attributesOf = (d: Pick<DraftRow, 'attributes'>) => JSON.parse(d.attributes) as Record<string, unknown>;
export const relationshipsOf = (d: Pick<DraftRow, 'relationships'>) => JSON.parse(d.relationships) as Record<string, Identifier[]>;

/** The relationships a draft of `type` may hold: its relations, and `parents` (folders' place). */
function draftRelationNames(ctx: AppContext, type: ObjectType): Set<string> {
  const names = new Set(relationNamesOf(ctx, type.name).map((r) => r.name));
  if (type.name !== 'folders') names.add('parents');
  return names;
}

/**
 * A PATCH body's changes, checked as a PATCH of the object checks its attributes (an attribute
 * the type lacks or hides: 400 `unknown_attribute`; a bad value: 400 `invalid_data`) and its
 * relationships (a relation the type lacks: 400; identifiers well formed). Rights on the objects
 * they name, and everything a write checks beyond that, are checked when the draft is published.
 */
export function draftInput(ctx: AppContext, type: ObjectType, input: ResourceInput): { attributes: Record<string, unknown>; relationships: Record<string, Identifier[]> } {
  const given = input.attributes;
  // Attributes that extensions take as parts of a write (categories, tags, date ranges) are kept
  // as sent; the rest is validated against the type's schema.
  const claimed = claimAttributeParts(ctx, type, { attributes: given });
  validateObjectAttributes(ctx, type, claimed.attributes ?? {}, true);
  const names = draftRelationNames(ctx, type);
  const relationships: Record<string, Identifier[]> = {};
  for (const [name, value] of Object.entries(input.relationships)) {
    if (!names.has(name)) throw badRequest(`Invalid data: ${type.name} have no relation "${name}"`, 'invalid_data');
    if (!isPlainObject(value) || !('data' in value)) throw badRequest(`relationships.${name} must be an object with "data"`, 'invalid_body');
    relationships[name] = value.data === null ? [] : identifiersOf(value.data).map(({ id, type: t, meta }) => ({ id, type: t, meta: meta ?? {} }));
  }
  return { attributes: given, relationships };
}

/** Create the draft of `found`, or merge `changes` into it (later values win, field by field). */
export async function saveDraft(ctx: AppContext, actor: AuthInfo, found: Drafted, changes: ReturnType<typeof draftInput>): Promise<void> {
  const now = nowIso();
  const { draft, row } = found;
  const attributes = JSON.stringify({ ...(draft ? attributesOf(draft) : {}), ...changes.attributes });
  const relationships = JSON.stringify({ ...(draft ? relationshipsOf(draft) : {}), ...changes.relationships });
  await ctx.db
    .insertInto('drafts')
    .values({ object_id: row.id, attributes, relationships, created: now, modified: now, created_by: actor.userId, modified_by: actor.userId, submitted: null, publish_at: null, publish_by: null })
    .onConflict((oc) => oc.column('object_id').doUpdateSet({ attributes, relationships, modified: now, modified_by: actor.userId }))
    .execute();
}

export async function discardDraft(ctx: AppContext, objectId: number): Promise<void> {
  await ctx.db.deleteFrom('drafts').where('object_id', '=', objectId).execute();
}

/** A draft as the kernel's update command of its object (publish.ts). */
export function draftChanges(draft: DraftRow): ObjectChanges {
  const { parents, ...relations } = relationshipsOf(draft);
  return {
    attributes: attributesOf(draft),
    relations: Object.entries(relations).map(([name, items]) => ({ name, items, mode: 'replace' as const })),
    ...(parents ? { parts: { parents: { mode: 'replace' as const, items: parents.map((p) => ({ id: p.id })) } } } : {}),
  };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * The object as it will be once the draft is published: the live object as `rc` reads it with the
 * draft's attributes and relationships over it, and `meta.draft` (what differs, who, when).
 */
export async function draftView(rc: ReadContext, ctx: AppContext, found: Drafted & { draft: DraftRow }): Promise<Resource> {
  const { data } = await serializeObject(rc, ctx, found.row);
  const attributes = attributesOf(found.draft);
  const relationships = relationshipsOf(found.draft);
  const changed = Object.keys(attributes).filter((k) => !same(data.attributes?.[k], attributes[k]));
  data.attributes = { ...data.attributes, ...attributes };
  for (const [name, items] of Object.entries(relationships)) {
    const before = data.relationships?.[name];
    const ids = (list: unknown) => ([] as Array<{ id: string }>).concat((list as Array<{ id: string }> | null) ?? []).map((i) => String(i.id)).sort();
    // Relations are answered as links: their ids are read (`parents` come with the object).
    const live = before?.data !== undefined ? ids(before.data) : (await relatedPairs(ctx, [found.row], name)).map((p) => String(p.relatedId)).sort();
    if (!same(live, ids(items))) changed.push(name);
    const links = before?.links ?? { self: `${rc.base}/${found.type.name}/${found.row.id}/relationships/${name}`, related: `${rc.base}/${found.type.name}/${found.row.id}/${name}` };
    data.relationships = { ...(data.relationships ?? {}), [name]: { ...(before ?? {}), links, data: items.map(({ id, type }) => ({ id, type })) } };
  }
  const d = found.draft;
  data.meta = {
    ...(data.meta ?? {}),
    draft: { created: d.created, modified: d.modified, created_by: d.created_by, modified_by: d.modified_by, changed, submitted: d.submitted, publish_at: d.publish_at },
  };
  return data;
}

export const DRAFT_LIST_SPEC: ListSpec = {
  fields: { id: 'integer', modified_by: 'integer', created: 'date', modified: 'date' },
  special: ['type', 'submitted'],
  defaultSort: 'id',
};

const COLUMNS: Record<string, string> = {
  id: 'drafts.object_id',
  modified_by: 'drafts.modified_by',
  created: 'drafts.created',
  modified: 'drafts.modified',
};

/**
 * The drafts of active objects the viewer may update, a page at a time: every type's where the
 * viewer's `update` reaches all objects, the own ones where it reaches its own.
 */
export async function listDrafts(ctx: AppContext, viewer: AuthInfo, q: ListQuery): Promise<{ rows: Array<DraftRow & { object_type_id: number }>; count: number }> {
  const types = [...model(ctx).types.values()].filter((t) => !t.isAbstract && t.name !== 'users');
  const all = types.filter((t) => viewer.isAdmin || rightsOn(viewer.permissions, t).update === 'all').map((t) => t.id);
  const own = viewer.isAdmin ? [] : types.filter((t) => rightsOn(viewer.permissions, t).update === 'own').map((t) => t.id);
  let base = ctx.db
    .selectFrom('drafts')
    // Active objects the viewer reads (a trashed object's draft is not listed).
    .innerJoin(visibleObjectsTable(ctx, viewer, ctx.db), 'objects.id', 'drafts.object_id')
    .selectAll('drafts')
    .select('objects.object_type_id')
    .where((eb) =>
      eb.or([
        ...(all.length ? [eb('objects.object_type_id', 'in', all)] : []),
        ...(own.length && viewer.userId !== null ? [eb.and([eb('objects.object_type_id', 'in', own), eb('objects.created_by', '=', viewer.userId)])] : []),
        eb.lit(false),
      ]),
    );
  const typeFilter = q.special.type;
  if (typeFilter?.length) {
    const ids = typeFilter.flatMap((n) => {
      const t = typeByName(ctx, n);
      if (!t) throw badRequest(`filter[type]: unknown object type "${n}"`, 'invalid_filter');
      return types.filter((c) => c.lineage.includes(t.name)).map((c) => c.id);
    });
    base = base.where('objects.object_type_id', 'in', ids.length ? ids : [-1]);
  }
  const submitted = q.special.submitted;
  if (submitted?.length) {
    const v = submitted[0];
    if (!['true', 'false', '1', '0'].includes(v)) throw badRequest('filter[submitted] must be true or false', 'invalid_filter');
    base = base.where('drafts.submitted', v === 'true' || v === '1' ? 'is not' : 'is', null);
  }
  return listPage(base, q, COLUMNS, 'drafts.object_id');
}

/** Ids per statement, far below the databases' variable limits. */
const CHUNK = 5000;

/** Purged objects take their drafts with them (beside the foreign key's cascade). */
export const draftsExtension: ObjectExtension = {
  name: 'drafts',
  types: ['objects'],
  async onPurge(trx: Transaction<Database>, ids: number[]) {
    for (let i = 0; i < ids.length; i += CHUNK) await trx.deleteFrom('drafts').where('object_id', 'in', ids.slice(i, i + CHUNK)).execute();
  },
};
