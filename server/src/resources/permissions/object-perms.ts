// Object permissions: admins restrict an object to roles (`meta.perms.roles`); on a folder the
// restriction covers everything placed below it too (`inherited: true`). A viewer passes a
// restriction with any one of its roles; every restriction on an object (its own and each folder
// above any of its placements) must be passed. Admins always pass.
//
// Restrictions are few (an admin sets each one); what a viewer may not see is one SQL condition
// built from them — the restricted objects none of whose roles the viewer has, and the tree
// nodes under those — that lists, counts and single reads all use, so a page never walks the
// tree once per object.
import type { ExpressionBuilder, Kysely, Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Database } from '../../db/tables.js';
import { nowIso } from '../../db/time.js';
import { badRequest } from '../../http/errors.js';
import { objectsBelow } from '../folders/service.js';

type Db = Kysely<Database> | Transaction<Database>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyEb = ExpressionBuilder<any, any>;

/** Restricted objects that none of `roleIds` opens, as a subquery of object ids. */
function blockedSources(eb: AnyEb, roleIds: readonly number[]) {
  const q = eb.selectFrom('object_perms').select('object_perms.object_id');
  if (!roleIds.length) return q;
  return q.where('object_perms.object_id', 'not in', eb.selectFrom('object_perm_roles').select('object_perm_roles.object_id').where('object_perm_roles.role_id', 'in', [...roleIds]));
}

/**
 * Every object a viewer with `roleIds` may not see because of object permissions: the blocked
 * restricted objects and every object placed below a blocked folder (one pass over the tree).
 */
export function blockedIds(eb: AnyEb, roleIds: readonly number[]) {
  return blockedSources(eb, roleIds).union(objectsBelow(eb, blockedSources(eb, roleIds)));
}

/**
 * Whether any object permission exists (kept until the next write to object permissions: most sites have none). Inside
 * a unit of work the transaction is asked, uncached: on SQLite the database's one connection is
 * the transaction's until it ends, so a read through `ctx.db` would wait for it forever.
 */
export function restrictionsExist(ctx: AppContext, db: Db = ctx.db): Promise<boolean> {
  const anyRestriction = async () => Boolean(await db.selectFrom('object_perms').select('object_id').limit(1).executeTakeFirst());
  return db === ctx.db ? ctx.readCache.get(RESTRICTIONS_KEY, anyRestriction, 'settings') : anyRestriction();
}
const RESTRICTIONS_KEY = 'object-perms:exist';

/** restrictionsExist's answer when it is known without reading (every request asks). */
export const knownRestrictions = (ctx: AppContext): boolean | undefined => ctx.readCache.peek<boolean>(RESTRICTIONS_KEY, 'settings');

/** Which of `ids` a viewer with `roleIds` may not see because of object permissions. */
export async function blockedAmong(db: Db, roleIds: readonly number[], ids: number[]): Promise<Set<number>> {
  if (!ids.length) return new Set();
  const rows = await db
    .selectFrom((eb) => blockedIds(eb, roleIds).as('blocked'))
    .select('blocked.object_id')
    .where('blocked.object_id', 'in', [...new Set(ids)])
    .execute();
  return new Set(rows.map((r) => Number(r.object_id)));
}

export interface ObjectPerms {
  roles: string[];
  inherited: boolean;
}

/**
 * `meta.perms` of objects: their own restriction, else the one of the nearest restricted folder
 * above them (`inherited: true`); objects with none are absent from the map.
 */
export async function permsOf(db: Db, ids: number[]): Promise<Map<number, ObjectPerms>> {
  const out = new Map<number, ObjectPerms>();
  if (!ids.length) return out;
  const own = await db.selectFrom('object_perms').select('object_id').where('object_id', 'in', ids).execute();
  const inherited = await db
    .selectFrom('object_perms')
    .innerJoin('trees as top', 'top.object_id', 'object_perms.object_id')
    .innerJoin('trees as node', (join) =>
      join.onRef('node.root_id', '=', 'top.root_id').onRef('node.tree_left', '>', 'top.tree_left').onRef('node.tree_right', '<', 'top.tree_right'),
    )
    .select(['node.object_id as id', 'top.object_id as source', 'top.depth_level as depth'])
    .where('node.object_id', 'in', ids)
    .orderBy('top.depth_level', 'desc')
    .execute();
  const sourceOf = new Map<number, { source: number; inherited: boolean }>();
  for (const r of own) sourceOf.set(Number(r.object_id), { source: Number(r.object_id), inherited: false });
  for (const r of inherited) if (!sourceOf.has(Number(r.id))) sourceOf.set(Number(r.id), { source: Number(r.source), inherited: true });
  if (!sourceOf.size) return out;
  const sources = [...new Set([...sourceOf.values()].map((s) => s.source))];
  const names = await db
    .selectFrom('object_perm_roles')
    .innerJoin('roles', 'roles.id', 'object_perm_roles.role_id')
    .select(['object_perm_roles.object_id', 'roles.name'])
    .where('object_perm_roles.object_id', 'in', sources)
    .orderBy('roles.name')
    .execute();
  const rolesOf = new Map<number, string[]>();
  for (const n of names) rolesOf.set(Number(n.object_id), [...(rolesOf.get(Number(n.object_id)) ?? []), n.name]);
  for (const [id, s] of sourceOf) out.set(id, { roles: rolesOf.get(s.source) ?? [], inherited: s.inherited });
  return out;
}

/** `meta.perms` of a request: `{roles: [names]}` (or null / an empty list: no restriction). */
export function parsePermsMeta(value: unknown): string[] {
  if (value === null) return [];
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw badRequest('"meta.perms" must be an object {roles: [role names]}', 'invalid_data');
  const roles = (value as Record<string, unknown>).roles;
  if (roles === undefined || roles === null) return [];
  if (!Array.isArray(roles) || !roles.every((r) => typeof r === 'string')) throw badRequest('"meta.perms.roles" must be a list of role names', 'invalid_data');
  return [...new Set(roles as string[])];
}

/** Restrict `objectId` to the roles named (400 for an unknown one), or lift its restriction. */
export async function writeObjectPerms(trx: Transaction<Database>, objectId: number, roleNames: string[], actorId: number | null): Promise<void> {
  await trx.deleteFrom('object_perms').where('object_id', '=', objectId).execute();
  if (!roleNames.length) return;
  const roles = await trx.selectFrom('roles').select(['id', 'name']).where('name', 'in', roleNames).execute();
  const missing = roleNames.filter((n) => !roles.some((r) => r.name === n));
  if (missing.length) throw badRequest(`"meta.perms.roles": no role named "${missing[0]}"`, 'invalid_data');
  await trx.insertInto('object_perms').values({ object_id: objectId, created: nowIso(), created_by: actorId }).execute();
  await trx
    .insertInto('object_perm_roles')
    .values(roles.map((r) => ({ object_id: objectId, role_id: Number(r.id) })))
    .execute();
}
