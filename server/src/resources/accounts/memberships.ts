// Who has which role: the roles_users links, written from either side (/users/{id}/relationships/
// roles or /roles/{id}/relationships/users; POST adds, DELETE removes, PATCH replaces). A user's
// roles are part of the user: every change of them is an update of that user through the write
// kernel (the `roles` part below), by admins only — recorded in its history, moving its version,
// firing `objects.update`. The URL's resource missing gives 404, a missing one named in the body
// 400; taking the admin role from the last active admin gives 403.
import type { Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Database } from '../../db/tables.js';
import { nowIso } from '../../db/time.js';
import { badRequest, forbidden, notFound } from '../../http/errors.js';
import { expectedVersion } from '../../http/if-match.js';
import { sendLinks } from '../../http/jsonapi.js';
import { pathId, relatedIds } from '../../http/params.js';
import type { RouteDef } from '../../http/router.js';
import { apply, SYSTEM, type PartHandler } from '../objects/kernel.js';
import { inTransaction, type Actor } from '../objects/pipeline.js';
import { ADMIN_ROLE_ID } from '../roles/service.js';
import { assertAnotherAdminRemains, findUserById, usersByRole } from '../users/service.js';

type Mode = 'add' | 'remove' | 'replace';

/** The `roles` part of a user's update: role ids to add, remove, or to be exactly the user's. */
export interface RolesPart {
  mode: Mode;
  ids: number[];
}

declare module '../objects/kernel.js' {
  interface ObjectParts {
    roles?: RolesPart;
  }
}

async function roleIdsOf(trx: Transaction<Database>, userId: number): Promise<number[]> {
  const rows = await trx.selectFrom('roles_users').select('role_id').where('user_id', '=', userId).orderBy('role_id').execute();
  return rows.map((r) => Number(r.role_id));
}

/** 400 naming the first of `ids` that is no role. */
async function assertRolesExist(trx: Transaction<Database>, ids: number[]): Promise<void> {
  if (!ids.length) return;
  const found = new Set((await trx.selectFrom('roles').select('id').where('id', 'in', ids).execute()).map((r) => Number(r.id)));
  const missing = ids.find((id) => !found.has(id));
  if (missing !== undefined) throw badRequest(`No role with id ${missing}`, 'invalid_relationship');
}

/**
 * The users extension's `roles` part: the user's roles written, by an administrator (or the
 * server itself: signup's roles on activation). Its change record names the roles it has after.
 */
export const rolesPart: PartHandler<RolesPart> = async (w, part) => {
  if (!w.actor.isAdmin) throw forbidden('Only administrators may change roles', 'forbidden');
  const { trx, row } = w;
  const ids = [...new Set(part.ids)];
  await assertRolesExist(trx, ids);
  const before = await roleIdsOf(trx, row.id);
  const adding = part.mode === 'remove' ? [] : ids.filter((id) => !before.includes(id));
  const removing = part.mode === 'add' ? [] : part.mode === 'remove' ? ids.filter((id) => before.includes(id)) : before.filter((id) => !ids.includes(id));
  if (!adding.length && !removing.length) return {};
  if (removing.includes(ADMIN_ROLE_ID)) await assertAnotherAdminRemains(trx, [row.id]);
  if (removing.length) await trx.deleteFrom('roles_users').where('user_id', '=', row.id).where('role_id', 'in', removing).execute();
  if (adding.length) await trx.insertInto('roles_users').values(adding.map((id) => ({ role_id: id, user_id: row.id, created: nowIso() }))).execute();
  return { changed: { roles: (await roleIdsOf(trx, row.id)).map(String) } };
};

/**
 * `relationships.roles` of a POST or PATCH of /users ({data: [{type: 'roles', id}]}): the user's
 * roles, replaced (the `roles` part); undefined when not sent.
 */
export function rolesOfRelationships(relationships: Record<string, unknown>): RolesPart | undefined {
  const rel = relationships.roles as { data?: unknown } | undefined;
  if (rel === undefined) return undefined;
  const invalid = () => badRequest('"relationships.roles" must be {data: [{type: "roles", id}]}', 'invalid_body');
  if (!rel || typeof rel !== 'object' || !Array.isArray(rel.data)) throw invalid();
  const ids = rel.data.map((item: unknown) => {
    const { type, id } = (item ?? {}) as { type?: unknown; id?: unknown };
    if (type !== 'roles' || !/^\d{1,15}$/.test(String(id))) throw invalid();
    return Number(id);
  });
  return { mode: 'replace', ids };
}

/** Change the roles of one user: an update of the user (the kernel's unit of work, or the caller's). */
export async function changeUserRoles(ctx: AppContext, userId: number, part: RolesPart, actor: Actor, opts: { trx?: Transaction<Database>; expected?: ReturnType<typeof expectedVersion> } = {}) {
  await apply(ctx, { action: 'update', target: { key: userId, type: 'users' }, actor, changes: { parts: { roles: part } }, expectedVersion: opts.expected }, opts.trx);
}

/**
 * Change the users of one role: one update of each user whose roles change, in one unit of work.
 * PATCH (replace) makes the role's users exactly those named.
 */
async function changeRoleUsers(ctx: AppContext, roleId: number, userIds: number[], mode: Mode, actor: Actor): Promise<void> {
  await inTransaction(ctx, undefined, async (trx) => {
    if (!(await trx.selectFrom('roles').select('id').where('id', '=', roleId).executeTakeFirst())) throw notFound(`No role with id ${roleId}`);
    const named = [...new Set(userIds)];
    for (const id of named) if (!(await findUserById(ctx, SYSTEM, trx, id))) throw badRequest(`No user with id ${id}`, 'invalid_relationship');
    const members = (await trx.selectFrom('roles_users').select('user_id').where('role_id', '=', roleId).execute()).map((r) => Number(r.user_id));
    const leaving = mode === 'replace' ? members.filter((id) => !named.includes(id)) : [];
    for (const id of named) await changeUserRoles(ctx, id, { mode: mode === 'remove' ? 'remove' : 'add', ids: [roleId] }, actor, { trx });
    for (const id of leaving) await changeUserRoles(ctx, id, { mode: 'remove', ids: [roleId] }, actor, { trx });
  });
}

/**
 * A role about to be deleted leaves its users first: an update of each active one (recorded,
 * versioned), in the caller's unit of work.
 */
export async function leaveRole(ctx: AppContext, trx: Transaction<Database>, roleId: number, actor: Actor): Promise<void> {
  const members = (await usersByRole(ctx, SYSTEM, trx, [roleId])).get(roleId) ?? [];
  for (const user of members) await changeUserRoles(ctx, user.id, { mode: 'remove', ids: [roleId] }, actor, { trx });
}

/** POST (add), DELETE (remove) and PATCH (replace) /users/{id}/relationships/roles or /roles/{id}/relationships/users. */
export function membershipRoutes(ctx: AppContext, side: 'user' | 'role'): RouteDef[] {
  const [own, other] = side === 'user' ? ['users', 'roles'] : ['roles', 'users'];
  const modes = { post: 'add', delete: 'remove', patch: 'replace' } as const;
  return (Object.keys(modes) as Array<keyof typeof modes>).map((method) => ({
    method,
    path: `/${own}/:id/relationships/${other}`,
    guard: 'admin',
    writes: ['objects', 'roles_users'],
    handler: async (req, res) => {
      const id = pathId(req);
      const ids = relatedIds(req, other);
      if (side === 'user') {
        if (!(await findUserById(ctx, req.auth, ctx.db, id))) throw notFound(`No user with id ${id}`);
        await changeUserRoles(ctx, id, { mode: modes[method], ids }, req.auth, { expected: expectedVersion(req) });
      } else await changeRoleUsers(ctx, id, ids, modes[method], req.auth);
      sendLinks(req, res);
    },
  }));
}
