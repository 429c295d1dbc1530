// /roles: admins read, create, rename and delete roles (the unchangeable admin role excepted),
// set their permissions and give them to users; no one else reads them (403).
import type { Request, Response } from 'express';
import type { AppContext } from '../../context.js';
import { resourceInput, sendList, sendNoContent } from '../../http/jsonapi.js';
import { baseUrl } from '../../http/links.js';
import { parseListQuery } from '../../http/query.js';
import type { RouteDef } from '../../http/router.js';
import { leaveRole, membershipRoutes } from '../accounts/memberships.js';
import { inTransaction } from '../objects/pipeline.js';
import { pathId, queryIds } from '../../http/params.js';
import { schemaMeta, validateAttributes } from '../accounts/schemas.js';
import { sendAccountResource, serializeWithIncluded, type IncludableRelation } from '../accounts/serialize.js';
import { SYSTEM } from '../objects/read.js';
import { listUsers, serializeUser, userListSpec, usersByRole, type UserRow } from '../users/service.js';
import { validatePermissions } from '../permissions/rules.js';
import { assertChangeable, createRole, deleteRole, getRole, listRoles, ROLE_LIST_SPEC, serializeRole, updateRole, type RoleInput } from './service.js';

export function roleRoutes(ctx: AppContext): RouteDef[] {
  /** `permissions` checked against the model (unknown types and actions: 400). */
  const withPermissions = <T extends RoleInput>(a: T): T => (a.permissions === undefined ? a : { ...a, permissions: validatePermissions(ctx, a.permissions) });
  // /roles is for admins only (they read every account): the include reads as the server.
  const users: IncludableRelation<UserRow> = { name: 'users', type: 'users', load: (ids) => usersByRole(ctx, SYSTEM, ctx.db, ids), serialize: (req, u) => serializeUser(ctx, req, u) };
  const sendOne = async (req: Request, res: Response, id: number, status = 200) => {
    const { include } = parseListQuery(req, { fields: {}, includes: ['users'] });
    const { resources, included } = await serializeWithIncluded(req, [await getRole(ctx.db, id)], serializeRole, include, users);
    sendAccountResource(ctx, req, res, 'roles', resources[0], { status, included });
  };
  return [
    {
      method: 'get',
      path: '/roles',
      guard: 'admin',
      handler: async (req, res) => {
        const ids = queryIds(req);
        const q = parseListQuery(req, ROLE_LIST_SPEC);
        const { rows, count } = await listRoles(ctx.db, q, { ids });
        const { resources, included } = await serializeWithIncluded(req, rows, serializeRole, q.include, users);
        sendList(req, res, resources, { count, page: q.page, pageSize: q.pageSize }, { included, meta: { schema: schemaMeta(ctx, 'roles', baseUrl(req)) } });
      },
    },
    {
      method: 'post',
      path: '/roles',
      writes: ['roles'],
      guard: 'admin',
      handler: async (req, res) => {
        const a = validateAttributes<RoleInput & { name: string }>(ctx, 'roles', resourceInput(req, 'roles').attributes, true);
        const id = await createRole(ctx.db, withPermissions(a));
        await sendOne(req, res, id, 201);
      },
    },
    { method: 'get', path: '/roles/:id', guard: 'admin', handler: (req, res) => sendOne(req, res, pathId(req)) },
    {
      method: 'patch',
      path: '/roles/:id',
      writes: ['roles'],
      guard: 'admin',
      handler: async (req, res) => {
        const id = pathId(req);
        const a = validateAttributes<RoleInput>(ctx, 'roles', resourceInput(req, 'roles', id).attributes, false);
        await updateRole(ctx.db, id, withPermissions(a));
        await sendOne(req, res, id);
      },
    },
    {
      method: 'delete',
      path: '/roles/:id',
      writes: ['roles', 'roles_users'],
      guard: 'admin',
      handler: async (req, res) => {
        const id = pathId(req);
        // Its users lose it first, each an update of the user; the delete may still refuse (404, 403).
        await inTransaction(ctx, undefined, async (trx) => {
          assertChangeable(await getRole(trx, id));
          await leaveRole(ctx, trx, id, req.auth);
          await deleteRole(trx, id);
        });
        sendNoContent(res);
      },
    },
    {
      method: 'get',
      path: '/roles/:id/users',
      guard: 'admin',
      handler: async (req, res) => {
        const id = pathId(req);
        await getRole(ctx.db, id);
        const q = parseListQuery(req, { ...userListSpec(ctx), includes: [] });
        const { rows, count } = await listUsers(ctx, req.auth, ctx.db, q, { roleId: id });
        sendList(req, res, rows.map((u) => serializeUser(ctx, req, u)), { count, page: q.page, pageSize: q.pageSize });
      },
    },
    ...membershipRoutes(ctx, 'role'),
  ];
}
