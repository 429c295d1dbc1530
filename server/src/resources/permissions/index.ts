// The permissions family, wired into the object pipeline: the write guard of role and object
// permissions, `meta.perms` of objects (read for everyone who sees the object, written by
// admins), and the check of FOLIO_SIGNUP_ROLES. Reads are decided in objects/read.ts.
import type { AppContext } from '../../context.js';
import { forbidden } from '../../http/errors.js';
import type { RouteDef } from '../../http/router.js';
import type { ObjectExtension } from '../objects/extensions.js';
import type { Family } from '../family.js';
import type { WriteGuard } from '../objects/pipeline.js';
import { blockedAmong, knownRestrictions, parsePermsMeta, permsOf, restrictionsExist, writeObjectPerms } from './object-perms.js';
import { objectPermissionsRoutes } from './object-permissions-routes.js';
import { needsPublish, reaches, rightsOn, type Action } from './rules.js';

const VERBS = { create: 'create', update: 'change', delete: 'delete', publish: 'publish or unpublish', restore: 'restore', purge: 'delete for good' } as const;

/**
 * Role permissions and object permissions on every object write, from every entry point. Users'
 * accounts keep their own guard (admins; each user its own account: users/service.ts). Beside
 * the action's own right, a write that changes what anonymous clients see (needsPublish: an
 * object or translation `on` before or after it) needs `publish`: 403 `publish_required`.
 */
export const permissionsWriteGuard: WriteGuard = async ({ action, actor, type, row, after, translation, trx }) => {
  if (actor.isAdmin || type.name === 'users') return;
  const refuse = () => forbidden(`You may not ${VERBS[action]} ${type.name}${row ? ` (object ${row.id})` : ''}`, 'forbidden');
  // Deleting for good is for admins; taking back from the trash needs the right that put it there.
  if (action === 'purge') throw refuse();
  const rights = rightsOn(actor.permissions, type);
  // A new object is its creator's own.
  const may = (a: Action) => (row ? reaches(rights[a], actor.userId, row.created_by) : rights[a] !== null);
  if (action !== 'publish' && !may(action === 'restore' ? 'delete' : action)) throw refuse();
  if (row && (await blockedAmong(trx, actor.roleIds ?? [], [row.id])).size) throw forbidden(`Object ${row.id} is restricted to other roles`, 'restricted');
  const publishing =
    action === 'publish' ||
    needsPublish(action === 'create' || action === 'restore' ? null : row, action === 'delete' ? null : (after ?? row)) ||
    (translation !== undefined && needsPublish(translation.before, translation.after));
  if (publishing && !may('publish')) {
    throw forbidden(`Changing what anonymous clients see of ${type.name}${row ? ` (object ${row.id})` : ''} needs the right to publish: a published object, or a status set to or from "on"`, 'publish_required');
  }
};

/** `meta.perms` of objects: read for everyone who sees the object, written by admins. */
function objectPermsExtension(ctx: AppContext): ObjectExtension {
  return {
    name: 'object-perms',
    types: ['objects'],
    // Its hooks check and write the written object's own permissions.
    ownRowsOnly: true,
    async beforeWrite(_trx, w) {
      if (w.meta?.perms !== undefined && !w.actor.isAdmin) throw forbidden('Only administrators may set object permissions', 'perms_admin_only');
    },
    async afterWrite(trx, w) {
      if (w.meta?.perms === undefined) return;
      const roles = parsePermsMeta(w.meta.perms);
      await writeObjectPerms(trx, w.row!.id, roles, w.actor.userId);
      w.changed.perms = { roles };
    },
    decorate(_req, _ctx, items) {
      // No object permission anywhere (most sites): nothing to add, nothing to wait for.
      if (knownRestrictions(ctx) === false) return;
      return (async () => {
        if (!(await restrictionsExist(ctx))) return;
        const perms = await permsOf(ctx.db, items.map((i) => i.id));
        for (const item of items) {
          const p = perms.get(item.id);
          if (p) item.resource.meta = { ...(item.resource.meta ?? {}), perms: p };
        }
      })();
    },
  };
}

export const permissionsFamily: Family = {
  name: 'permissions',
  kernel: (ctx) => ({ guards: [permissionsWriteGuard], extensions: [objectPermsExtension(ctx)] }),
  routes: permissionsRoutes,
};

function permissionsRoutes(ctx: AppContext): RouteDef[] {
  const signupRoles = ctx.config.signupRoles;
  if (signupRoles.length) {
    ctx.tasks.run('check FOLIO_SIGNUP_ROLES', async () => {
      const found = await ctx.db.selectFrom('roles').select('name').where('name', 'in', signupRoles).execute();
      const missing = signupRoles.filter((n) => !found.some((r) => r.name === n));
      if (missing.length) ctx.log(`FOLIO_SIGNUP_ROLES names roles that do not exist (yet): ${missing.join(', ')}`);
    });
  }
  return objectPermissionsRoutes(ctx);
}
