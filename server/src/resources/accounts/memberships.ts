// Who has which role: the roles_users links, written from either side (/users/{id}/relationships/
// roles or /roles/{id}/relationships/users). The URL's resource missing gives 404, a missing one
// named in the body 400; taking the admin role from the last active admin gives 403.
import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Database } from '../../db/tables.js';
import { nowIso } from '../../db/time.js';
import { badRequest, notFound } from '../../http/errors.js';
import { sendLinks } from '../../http/jsonapi.js';
import type { RouteDef } from '../../http/router.js';
import { ADMIN_ROLE_ID } from '../roles/service.js';
import { assertAnotherAdminRemains, findUserById } from '../users/service.js';
import { pathId, relatedIds } from '../../http/params.js';

export interface MembershipChange {
  /** Which side the URL names: its id is `pathId`, the body names `otherIds`. */
  side: 'user' | 'role';
  pathId: number;
  otherIds: number[];
  action: 'add' | 'remove';
}

export async function changeMemberships(db: Kysely<Database>, change: MembershipChange): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const userExists = async (id: number) => Boolean(await findUserById(trx, id));
    const roleExists = async (id: number) => Boolean(await trx.selectFrom('roles').select('id').where('id', '=', id).executeTakeFirst());
    const [pathExists, otherExists] = change.side === 'user' ? [userExists, roleExists] : [roleExists, userExists];
    const otherKind = change.side === 'user' ? 'role' : 'user';
    if (!(await pathExists(change.pathId))) throw notFound(`No ${change.side} with id ${change.pathId}`);
    for (const id of change.otherIds) if (!(await otherExists(id))) throw badRequest(`No ${otherKind} with id ${id}`, 'invalid_relationship');
    const pairs = change.otherIds.map((other) =>
      change.side === 'user' ? { user_id: change.pathId, role_id: other } : { user_id: other, role_id: change.pathId },
    );
    if (!pairs.length) return;
    if (change.action === 'add') {
      const created = nowIso();
      await trx
        .insertInto('roles_users')
        .values(pairs.map((p) => ({ ...p, created })))
        .onConflict((oc) => oc.columns(['role_id', 'user_id']).doNothing())
        .execute();
      return;
    }
    const losingAdmin = pairs.filter((p) => p.role_id === ADMIN_ROLE_ID).map((p) => p.user_id);
    if (losingAdmin.length) await assertAnotherAdminRemains(trx, losingAdmin);
    for (const p of pairs) await trx.deleteFrom('roles_users').where('user_id', '=', p.user_id).where('role_id', '=', p.role_id).execute();
  });
}

/** POST (add) and DELETE (remove) /users/{id}/relationships/roles or /roles/{id}/relationships/users. */
export function membershipRoutes(ctx: AppContext, side: 'user' | 'role'): RouteDef[] {
  const [own, other] = side === 'user' ? ['users', 'roles'] : ['roles', 'users'];
  return (['post', 'delete'] as const).map((method) => ({
    method,
    path: `/${own}/:id/relationships/${other}`,
    guard: 'admin',
    writes: ['objects', 'roles_users'],
    handler: async (req, res) => {
      const action = method === 'post' ? 'add' : 'remove';
      await changeMemberships(ctx.db, { side, pathId: pathId(req), otherIds: relatedIds(req, other), action });
      sendLinks(req, res);
    },
  }));
}
