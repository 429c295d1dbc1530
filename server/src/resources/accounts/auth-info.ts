// A signed-in user's identity: roles, their compiled permissions and the session version, read
// once per version of the accounts (DataVersion.accounts(): a write to a document keeps it).
// createServer hands it to the HTTP layer's authenticate(); login and token renewal ask it whether a user may still have tokens.
import type { AppContext } from '../../context.js';
import { prepared } from '../../db/prepared.js';
import type { AuthInfo } from '../../identity.js';
import { SYSTEM, visibleObjectsTable } from '../objects/read.js';
import { restrictionsExist } from '../permissions/object-perms.js';
import { parsePermissions, permissionSet } from '../permissions/rules.js';

const userRoles = prepared<
  { blocked: unknown; deleted: unknown; status: string; sessionVersion: number; role: string | null; roleId: number | null; permissions: string | null },
  [number]
>((db, p) =>
  db
    .selectFrom('users')
    .innerJoin(visibleObjectsTable(null, SYSTEM, db, { trashed: 'any' }), 'objects.id', 'users.id')
    .leftJoin('roles_users', 'roles_users.user_id', 'users.id')
    .leftJoin('roles', 'roles.id', 'roles_users.role_id')
    .select([
      'users.blocked',
      'objects.deleted',
      'objects.status',
      'users.session_version as sessionVersion',
      'roles.name as role',
      'roles.id as roleId',
      'roles.permissions',
    ])
    .where('users.id', '=', p(0)),
);

/** The user's identity as loadAuthInfo keeps it, when held (undefined: to be read). */
export const knownAuthInfo = (ctx: AppContext, userId: number): AuthInfo | null | undefined => ctx.readCache.peek<AuthInfo | null>(authInfoKey(userId), 'accounts');

const authInfoKey = (userId: number) => `auth-info:${userId}`;

/**
 * Roles and permissions of a user, and whether it may still use tokens (exists, not trashed,
 * not blocked, status `on`). One query, kept in the read cache until a write that may change it
 * (every request of a signed-in client asks); the compiled permissions live as long.
 */
export async function loadAuthInfo(ctx: AppContext, userId: number): Promise<AuthInfo | null> {
  return ctx.readCache.get(authInfoKey(userId), async () => {
    const rows = await userRoles(ctx.db, userId);
    if (!rows.length || Boolean(rows[0].blocked) || Boolean(rows[0].deleted) || rows[0].status !== 'on') return null;
    const roles = rows.filter((r) => r.roleId !== null);
    return Object.freeze({
      userId,
      roles: roles.map((r) => r.role!),
      roleIds: roles.map((r) => Number(r.roleId)),
      isAdmin: roles.some((r) => r.roleId === 1),
      applicationId: null,
      permissions: permissionSet(roles.map((r) => parsePermissions(r.permissions))),
      restrictions: await restrictionsExist(ctx),
      sessionVersion: Number(rows[0].sessionVersion),
    });
  }, 'accounts');
}

