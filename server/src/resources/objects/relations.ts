// Relations between objects: reading the related objects of a relation name (its name from the
// left side, its inverse name from the right) and adding, replacing and removing them.
import type { Request } from 'express';
import { sql, type Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Database } from '../../db/tables.js';
import { badRequest, notFound } from '../../http/errors.js';
import type { ResourceIdentifier } from '../../http/jsonapi.js';
import { concreteTypeNames, relationNamesOf, typeAllowedOn, typeById, type RelationDef } from './model.js';
import { listObjects, type ObjectList } from './list.js';
import { getObjectsByIds } from './read.js';
import { authorizeWrite, changeOf, inTransaction, recordChanges, toActor, type ActorLike } from './pipeline.js';
import { type ObjectRow } from './rows.js';

export interface RelatedPair {
  objectId: number;
  relatedId: number;
  priority: number;
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
      .select([mine, other, prio, 'params'])
      .where('relation_id', '=', g.relation.id)
      .where(mine, 'in', g.ids)
      .orderBy(prio)
      .orderBy('id')
      .execute();
    for (const r of rows as Array<Record<string, unknown>>) {
      out.push({ objectId: Number(r[mine]), relatedId: Number(r[other]), priority: Number(r[prio]), params: r.params === null ? null : JSON.parse(String(r.params)) });
    }
  }
  return out;
}

/**
 * GET /{type}/{id}/{relationName}: the related objects as a list with every list parameter of
 * /objects (default order: the relation's priority), each with `meta.relation`.
 */
export async function listRelated(req: Request, ctx: AppContext, row: ObjectRow, name: string): Promise<ObjectList> {
  const typeName = typeById(ctx, row.object_type_id)!.name;
  const found = relationOfType(ctx, typeName, name);
  if (!found) throw notFound(`Objects of type ${typeName} have no relation "${name}"`, 'unknown_relation');
  const { relation, inverse } = found;
  const [mine, other, prio] = inverse ? (['right_id', 'left_id', 'inv_priority'] as const) : (['left_id', 'right_id', 'priority'] as const);
  const list = await listObjects(req, ctx, {
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
    d.meta = { ...(d.meta ?? {}), relation: { priority: p?.priority ?? null, params: p?.params ?? null } };
  }
  return list;
}

export interface RelationshipItem {
  id: string;
  type: string;
  meta: Record<string, unknown>;
}

function relationMeta(item: RelationshipItem, i: number): { priority?: number; params?: unknown } {
  const rel = item.meta.relation;
  if (rel === undefined || rel === null) return {};
  if (typeof rel !== 'object' || Array.isArray(rel)) throw badRequest(`data[${i}].meta.relation must be an object`, 'invalid_body');
  const { priority, params } = rel as Record<string, unknown>;
  if (priority !== undefined && priority !== null && !Number.isInteger(priority)) throw badRequest(`data[${i}].meta.relation.priority must be an integer`, 'invalid_body');
  if (params !== undefined && params !== null && (typeof params !== 'object' || Array.isArray(params))) {
    throw badRequest(`data[${i}].meta.relation.params must be an object`, 'invalid_body');
  }
  return { priority: (priority as number | null) ?? undefined, params: params ?? undefined };
}

/**
 * Add (POST), replace all (PATCH) or remove (DELETE) the objects related to `row` through
 * `name`. Every related object must exist, have the type sent, and be allowed on the relation's
 * other side (400 otherwise). Returns the identifiers written.
 */
export async function writeRelationships(
  ctx: AppContext,
  row: ObjectRow,
  name: string,
  items: RelationshipItem[],
  mode: 'add' | 'replace' | 'remove',
  actorLike: ActorLike,
  trx?: Transaction<Database>,
): Promise<ResourceIdentifier[]> {
  const actor = toActor(actorLike);
  const typeName = typeById(ctx, row.object_type_id)!.name;
  const found = relationOfType(ctx, typeName, name);
  if (!found) throw notFound(`Objects of type ${typeName} have no relation "${name}"`, 'unknown_relation');
  const { relation, inverse } = found;
  const otherSide = inverse ? relation.left : relation.right;
  const ids = items.map((item, i) => {
    if (!/^\d{1,15}$/.test(item.id)) throw badRequest(`data[${i}].id must be an object id`, 'invalid_body');
    return Number(item.id);
  });
  return inTransaction(ctx, trx, async (db) => {
    // A write to an object's relationships is an update of that object.
    await authorizeWrite(ctx, { action: 'update', actor, type: typeById(ctx, row.object_type_id)!, row, trx: db });
    const written = await relateIn(db);
    const now = await relatedPairs(ctx, [row], name, db);
    await recordChanges(ctx, db, [changeOf('update', row, typeName, actor, { [name]: now.map((p) => String(p.relatedId)) })]);
    return written;
  });

  async function relateIn(db: Transaction<Database>): Promise<ResourceIdentifier[]> {
    const targets = await getObjectsByIds(ctx, ids, { db });
    const byId = new Map(targets.map((t) => [t.id, t]));
    items.forEach((item, i) => {
      const target = byId.get(ids[i]);
      if (!target) throw badRequest(`data[${i}]: no object with id ${item.id}`, 'invalid_relationship');
      const targetType = typeById(ctx, target.object_type_id)!.name;
      if (targetType !== item.type) throw badRequest(`data[${i}]: object ${item.id} is of type ${targetType}, not ${item.type}`, 'invalid_relationship');
      if (mode !== 'remove' && !typeAllowedOn(ctx, targetType, otherSide)) {
        throw badRequest(`data[${i}]: relation "${name}" does not allow objects of type ${targetType}`, 'invalid_relationship');
      }
    });
    const [mine, other, prio] = inverse ? (['right_id', 'left_id', 'inv_priority'] as const) : (['left_id', 'right_id', 'priority'] as const);
    const base = () => db.deleteFrom('object_relations').where('relation_id', '=', relation.id).where(mine, '=', row.id);
    if (mode === 'remove') {
      if (ids.length) await base().where(other, 'in', ids).execute();
      return items.map((it) => ({ id: it.id, type: it.type }));
    }
    if (mode === 'replace') {
      const keep = ids.length ? ids : [-1];
      await base().where(other, 'not in', keep).execute();
    }
    const existing = await db
      .selectFrom('object_relations')
      .select(['id', other, prio])
      .where('relation_id', '=', relation.id)
      .where(mine, '=', row.id)
      .execute();
    let next = existing.reduce((m, r) => Math.max(m, Number((r as Record<string, unknown>)[prio])), 0) + 1;
    const written = new Set<number>();
    for (const [i, item] of items.entries()) {
      const meta = relationMeta(item, i);
      if (written.has(ids[i])) continue;
      written.add(ids[i]);
      const params = meta.params === undefined ? undefined : JSON.stringify(meta.params);
      const current = existing.find((r) => Number((r as Record<string, unknown>)[other]) === ids[i]);
      if (current) {
        const set: Record<string, unknown> = {};
        if (meta.priority !== undefined) set[prio] = meta.priority;
        if (params !== undefined) set.params = params;
        if (Object.keys(set).length) await db.updateTable('object_relations').set(set).where('id', '=', current.id).execute();
        continue;
      }
      const priority = meta.priority ?? next++;
      // The related object's own order of this relation: new ones go last there too.
      const last = await db
        .selectFrom('object_relations')
        .select((e) => e.fn.max(prio === 'priority' ? 'inv_priority' : 'priority').as('n'))
        .where('relation_id', '=', relation.id)
        .where(other, '=', ids[i])
        .executeTakeFirst();
      const otherPriority = Number(last?.n ?? 0) + 1;
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
    return items.map((it) => ({ id: it.id, type: it.type }));
  }
}
