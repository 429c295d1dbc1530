// The write kernel's relations part (kernel.ts runs it): adding, replacing and removing the
// objects related to one object through a relation name, and setting one link's priority and
// params. The object named is already read, version-checked and authorised (a write to its
// relationships is an update of it); every related object is read as the actor reads it, so one
// it may not see answers exactly as a missing one: 404.
import type { ValidateFunction } from 'ajv';
import type { Transaction } from 'kysely';
import type { Database } from '../../db/tables.js';
import type { AppContext } from '../../context.js';
import { ApiError, badRequest, notFound } from '../../http/errors.js';
import type { ResourceIdentifier } from '../../http/jsonapi.js';
import type { KernelWrite, LinkChange, PartOutcome, PartPlan } from './kernel.js';
import { typeAllowedOn, typeById, type RelationDef } from './model.js';
import { getObjectsByIds, requireObject, SYSTEM, visibleObjects } from './read.js';
import { columnsOf, relatedPairs, relationByName, relationOfType } from './relations.js';
import type { ObjectRow } from './rows.js';

export interface RelationshipItem {
  id: string;
  type: string;
  meta: Record<string, unknown>;
}

/**
 * `meta.relation` of an item: BEdita's `priority` and `inv_priority` (the link's two columns,
 * whichever side writes) and `params`, checked against the relation's `params` JSON Schema.
 */
function relationMeta(ctx: AppContext, relation: RelationDef, item: RelationshipItem, i: number): { priority?: number; inv_priority?: number; params?: unknown } {
  const rel = item.meta.relation;
  if (rel === undefined || rel === null) return {};
  if (typeof rel !== 'object' || Array.isArray(rel)) throw badRequest(`data[${i}].meta.relation must be an object`, 'invalid_body');
  const { priority, inv_priority: invPriority, params } = rel as Record<string, unknown>;
  for (const [name, value] of [['priority', priority], ['inv_priority', invPriority]] as const) {
    if (value !== undefined && value !== null && !Number.isInteger(value)) throw badRequest(`data[${i}].meta.relation.${name} must be an integer`, 'invalid_body');
  }
  if (params !== undefined && params !== null) checkRelationParams(ctx, relation, params, `data[${i}].meta.relation.params`);
  return { priority: (priority as number | null) ?? undefined, inv_priority: (invPriority as number | null) ?? undefined, params: params ?? undefined };
}

/** 400 unless `params` is an object that the relation's `params` JSON Schema (when it has one) accepts. */
export function checkRelationParams(ctx: AppContext, relation: RelationDef, params: unknown, field: string): void {
  const fail = (why: string) => new ApiError(400, 'invalid_params', `${field}: ${why}`, undefined, { fields: ['params'] });
  if (typeof params !== 'object' || params === null || Array.isArray(params)) throw fail('an object is expected');
  const validate = relationParamsValidator(ctx, relation);
  if (validate && !validate(params)) throw fail(ctx.schemas.ajv.errorsText(validate.errors, { dataVar: 'params' }));
}

/** The relation's `params` schema compiled (once per text), or null when it has none Ajv compiles. */
function relationParamsValidator(ctx: AppContext, relation: RelationDef): ValidateFunction | null {
  const schema = relation.params;
  if (!schema || typeof schema !== 'object' || Array.isArray(schema) || !Object.keys(schema).length) return null;
  const key = `relation-params:${relation.id}`;
  const text = JSON.stringify(schema);
  const hit = ctx.schemas.compiled.get(key);
  if (hit?.text === text) return hit.validate;
  try {
    const validate = ctx.schemas.ajv.compile(schema as Record<string, unknown>);
    ctx.schemas.compiled.set(key, { revision: '', text, validate });
    return validate;
  } catch {
    // A schema Ajv cannot compile (stored before relations' params were checked) validates nothing.
    return null;
  }
}

/**
 * The object ids of the items: an id, or a uname (BEdita's ResourceName lookup); a uname no
 * object has is 404, as a missing id.
 */
async function itemIds(w: KernelWrite, items: RelationshipItem[]): Promise<number[]> {
  const unames = [...new Set(items.map((item) => item.id).filter((id) => !/^\d{1,15}$/.test(id)))];
  const byUname = new Map<string, number>();
  if (unames.length) {
    if (unames.some((u) => u.length > 255)) throw badRequest('A relationship id must be an object id or uname', 'invalid_body');
    // Who may read them is decided on the ids (resolveAll): this only names them.
    const rows = await visibleObjects(null, SYSTEM, w.trx, { trashed: 'any' }).select(['id', 'uname']).where('uname', 'in', unames).execute();
    for (const r of rows) byUname.set(r.uname, Number(r.id));
  }
  return items.map((item) => {
    if (/^\d{1,15}$/.test(item.id)) return Number(item.id);
    const id = byUname.get(item.id);
    if (id === undefined) throw notFound(`No object "${item.id}"`);
    return id;
  });
}

/**
 * The objects of `ids` as the actor reads them, all of them: the first one missing or hidden
 * answers as its own read would (404; 401/403 when an object permission restricts it).
 */
export async function resolveAll(w: KernelWrite, ids: number[], opts: { trashed?: boolean | 'any' } = {}): Promise<Map<number, ObjectRow>> {
  const rows = await getObjectsByIds(w.ctx, ids, { viewer: w.actor, db: w.trx, trashed: opts.trashed });
  const byId = new Map(rows.map((r) => [r.id, r]));
  for (const id of ids) if (!byId.has(id)) await requireObject(w.ctx, id, { viewer: w.actor, db: w.trx, trashed: opts.trashed });
  return byId;
}

/**
 * Add, replace all or remove the objects related to `w.row` through `name`. Planned: every related
 * object must be readable by the actor (404 otherwise, as a missing one), have the type sent, and
 * be allowed on the relation's other side (400); then, once the command's checks have passed, the
 * links are written.
 */
export async function planRelations(w: KernelWrite, name: string, items: RelationshipItem[], mode: 'add' | 'replace' | 'remove'): Promise<PartPlan> {
  const { ctx } = w;
  const db: Transaction<Database> = w.trx;
  const typeName = w.type.name;
  const found = relationOfType(ctx, typeName, name);
  if (!found) throw notFound(`Objects of type ${typeName} have no relation "${name}"`, 'unknown_relation');
  const { relation, inverse } = found;
  const otherSide = inverse ? relation.left : relation.right;
  items.forEach((item, i) => relationMeta(ctx, relation, item, i));
  const ids = await itemIds(w, items);
  const byId = await resolveAll(w, [...new Set(ids)], { trashed: mode === 'remove' ? 'any' : false });
  items.forEach((item, i) => {
    const targetType = typeById(ctx, byId.get(ids[i])!.object_type_id)!.name;
    if (targetType !== item.type) throw badRequest(`data[${i}]: object ${item.id} is of type ${targetType}, not ${item.type}`, 'invalid_relationship');
    if (mode !== 'remove' && !typeAllowedOn(ctx, targetType, otherSide)) {
      throw badRequest(`data[${i}]: relation "${name}" does not allow objects of type ${targetType}`, 'invalid_relationship');
    }
  });
  return { apply: () => writeRelations(w, { relation, inverse, name, items, ids, mode }) };
}

/** The writes of planRelations. */
async function writeRelations(
  w: KernelWrite,
  { relation, inverse, name, items, ids, mode }: { relation: RelationDef; inverse: boolean; name: string; items: RelationshipItem[]; ids: number[]; mode: 'add' | 'replace' | 'remove' },
): Promise<PartOutcome> {
  const { ctx, row } = w;
  const db: Transaction<Database> = w.trx;
  const [mine, other, prio] = inverse ? (['right_id', 'left_id', 'inv_priority'] as const) : (['left_id', 'right_id', 'priority'] as const);
  const base = () => db.deleteFrom('object_relations').where('relation_id', '=', relation.id).where(mine, '=', row.id);
  const written: ResourceIdentifier[] = items.map((it, i) => ({ id: String(ids[i]), type: it.type }));
  if (mode === 'remove') {
    if (ids.length) await base().where(other, 'in', ids).execute();
  } else {
    if (mode === 'replace') {
      // Links to objects the actor cannot see stay: replacing is "all that I can see".
      const keep = ids.length ? ids : [-1];
      const hidden = await hiddenRelated(w, relation.id, mine, other);
      await base().where(other, 'not in', [...keep, ...hidden]).execute();
    }
    const existing = await db.selectFrom('object_relations').select(['id', other, prio]).where('relation_id', '=', relation.id).where(mine, '=', row.id).execute();
    let next = existing.reduce((m, r) => Math.max(m, Number((r as Record<string, unknown>)[prio])), 0) + 1;
    const done = new Set<number>();
    for (const [i, item] of items.entries()) {
      const meta = relationMeta(ctx, relation, item, i);
      if (done.has(ids[i])) continue;
      done.add(ids[i]);
      const params = meta.params === undefined ? undefined : JSON.stringify(meta.params);
      const current = existing.find((r) => Number((r as Record<string, unknown>)[other]) === ids[i]);
      // The writer's own order and the other side's, as BEdita's columns name them.
      const [own, theirs] = inverse ? [meta.inv_priority, meta.priority] : [meta.priority, meta.inv_priority];
      if (current) {
        const set: Record<string, unknown> = {};
        if (meta.priority !== undefined) set.priority = meta.priority;
        if (meta.inv_priority !== undefined) set.inv_priority = meta.inv_priority;
        if (params !== undefined) set.params = params;
        if (Object.keys(set).length) await db.updateTable('object_relations').set(set).where('id', '=', current.id).execute();
        continue;
      }
      const priority = own ?? next++;
      // The related object's own order of this relation: new ones go last there too.
      const last = await db
        .selectFrom('object_relations')
        .select((e) => e.fn.max(prio === 'priority' ? 'inv_priority' : 'priority').as('n'))
        .where('relation_id', '=', relation.id)
        .where(other, '=', ids[i])
        .executeTakeFirst();
      const otherPriority = theirs ?? Number(last?.n ?? 0) + 1;
      await db
        .insertInto('object_relations')
        .values({
          left_id: inverse ? ids[i] : row.id,
          right_id: inverse ? row.id : ids[i],
          relation_id: relation.id,
          priority: inverse ? otherPriority : priority,
          inv_priority: inverse ? priority : otherPriority,
          params: params ?? null,
        })
        .execute();
    }
  }
  const now = await relatedPairs(ctx, [row], name, db);
  return { written, changed: { [name]: now.map((p) => String(p.relatedId)) } };
}

/** Ids linked to `w.row` through a relation that the actor may not read (kept by a replace). */
async function hiddenRelated(w: KernelWrite, relationId: number, mine: 'left_id' | 'right_id', other: 'left_id' | 'right_id'): Promise<number[]> {
  if (w.actor.isAdmin) return [];
  const linked = await w.trx.selectFrom('object_relations').select(other).where('relation_id', '=', relationId).where(mine, '=', w.row.id).execute();
  const ids = linked.map((l) => Number((l as Record<string, unknown>)[other]));
  if (!ids.length) return [];
  const seen = new Set((await getObjectsByIds(w.ctx, ids, { viewer: w.actor, db: w.trx, trashed: 'any' })).map((r) => r.id));
  return ids.filter((id) => !seen.has(id));
}

/**
 * Set the priority (omitted: last, priorities are never null) and params (omitted: null) of an
 * existing link of `w.row` to an object the actor reads (planned: the object is resolved first).
 */
export async function planLink(w: KernelWrite, link: LinkChange): Promise<PartPlan> {
  if (link.params !== undefined && link.params !== null) checkRelationParams(w.ctx, relationByName(w.ctx, link.name).relation, link.params, 'params');
  await w.resolve(link.relatedId);
  return { apply: async () => ({ changed: await setLink(w, link) }) };
}

async function setLink(w: KernelWrite, link: LinkChange): Promise<Record<string, unknown>> {
  const side = relationByName(w.ctx, link.name);
  const [self, other, prio] = columnsOf(side);
  const found = await w.trx
    .selectFrom('object_relations')
    .select(['id'])
    .where('relation_id', '=', side.relation.id)
    .where(self, '=', w.row.id)
    .where(other, '=', link.relatedId)
    .executeTakeFirst();
  if (!found) throw notFound(`Object ${link.relatedId} is not related to ${w.row.id} by ${side.name}`);
  let priority = link.priority;
  if (priority === undefined) {
    const max = await w.trx
      .selectFrom('object_relations')
      .select((eb) => eb.fn.max(prio).as('m'))
      .where('relation_id', '=', side.relation.id)
      .where(self, '=', w.row.id)
      .executeTakeFirstOrThrow();
    priority = Number(max.m ?? 0) + 1;
  }
  await w.trx.updateTable('object_relations').set({ [prio]: priority, params: link.params === undefined ? null : JSON.stringify(link.params) }).where('id', '=', found.id).execute();
  const now = await relatedPairs(w.ctx, [w.row], side.name, w.trx);
  return { [side.name]: now.map((p) => String(p.relatedId)) };
}
