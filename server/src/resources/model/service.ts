// What the model writes share — one transaction per write, then the in-memory model reloaded;
// schema revisions; the names the product keeps — and what a removal would lose. The writes
// themselves: object-types.ts, properties.ts, relations.ts, property-types.ts.
import { sql, type Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Database } from '../../db/tables.js';
import { nowIso } from '../../db/time.js';
import { transact } from '../../db/transaction.js';
import { badRequest } from '../../http/errors.js';
import { model, reloadModel, type ObjectType, type PropertyDef, type RelationDef } from '../objects/model.js';
import { SYSTEM, visibleObjects } from '../objects/read.js';

/** Paths the product keeps for itself (contract: Routes reserved by the product). */
export const RESERVED_ROUTES = ['admin', 'auth', 'signup', 'status', 'home', 'model', 'trash', 'streams', 'media', 'files', 'posters', 'poster', 'objects', 'users', 'roles', 'folders', 'applications', 'operations', 'history', 'backups', 'webhooks'];
/** Names of types, properties and relations: lower snake case. */
export const NAME = /^[a-z][a-z0-9_]*$/;

/**
 * Run one model write, then reload the in-memory model. Inside a caller's transaction (a context
 * whose `db` is one: see project.ts) the write joins it and the context's own model is reloaded
 * from it; a failure is left to the caller, which rolls back and reloads.
 */
export async function writeModel<T>(ctx: AppContext, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  const joined = ctx.db.isTransaction;
  try {
    const out = await transact(ctx.db, work);
    if (joined) await reloadModel(ctx);
    return out;
  } catch (err) {
    if (ctx.dialect.errors.isConstraintViolation(err)) throw badRequest('The change conflicts with an existing entry of the model', 'model_conflict');
    throw err;
  } finally {
    if (!joined) await reloadModel(ctx);
  }
}

/** Bump the schema revision of types (and their sub-types) whose schema changed. */
export async function bumpRevision(trx: Transaction<Database>, ctx: AppContext, typeName: string): Promise<void> {
  const ids = [...model(ctx).types.values()].filter((t) => t.lineage.includes(typeName)).map((t) => t.id);
  if (ids.length) await trx.updateTable('object_types').set({ revision: sql`revision + 1`, modified: nowIso() }).where('id', 'in', ids).execute();
}


// ---- what a removal would lose (POST /model/project refuses those removals) ----

const count = (row: { n: unknown } | undefined) => Number(row?.n ?? 0);

/** Objects of the type or its sub-types, trashed ones included. */
export async function objectsOfType(ctx: AppContext, t: ObjectType): Promise<number> {
  const typeIds = [...model(ctx).types.values()].filter((x) => x.lineage.includes(t.name)).map((x) => x.id);
  return count(await visibleObjects(ctx, SYSTEM, ctx.db, { trashed: 'any' }).select((e) => e.fn.countAll().as('n')).where('object_type_id', 'in', typeIds).executeTakeFirst());
}

/** Objects holding a value of the property (trashed ones included). */
export async function valuesOfProperty(ctx: AppContext, p: PropertyDef): Promise<number> {
  const typeIds = [...model(ctx).types.values()].filter((t) => t.lineage.includes(p.objectTypeName)).map((t) => t.id);
  const value = ctx.dialect.json.property('objects.properties', p.name, 'string');
  return count(
    await visibleObjects(ctx, SYSTEM, ctx.db, { trashed: 'any' }).select((e) => e.fn.countAll().as('n')).where('object_type_id', 'in', typeIds).where(value as never, 'is not', null).executeTakeFirst(),
  );
}

/** Links between objects made through the relation. */
export async function linksOfRelation(ctx: AppContext, r: RelationDef): Promise<number> {
  return count(await ctx.db.selectFrom('object_relations').select((e) => e.fn.countAll().as('n')).where('relation_id', '=', r.id).executeTakeFirst());
}

