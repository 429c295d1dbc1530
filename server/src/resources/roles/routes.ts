// /roles: admins create, rename and delete roles (the unchangeable admin role excepted) and
// give them to users; any authenticated user reads them.
import type { Request, Response } from 'express';
import type { AppContext } from '../../context.js';
import { resourceInput, resourceUrl, sendLinks, sendList, sendNoContent, sendResource, type Resource } from '../../http/jsonapi.js';
import { baseUrl } from '../../http/links.js';
import { parseListQuery } from '../../http/query.js';
import type { RouteDef } from '../../http/router.js';
import { changeMemberships } from '../accounts/memberships.js';
import { pathId, queryIds, relatedIds } from '../accounts/params.js';
import { schemaMeta, validateAttributes } from '../accounts/schemas.js';
import { getUser, listUsers, serializeUser, USER_LIST_SPEC, usersByRole } from '../users/service.js';
import { createRole, deleteRole, getRole, listRoles, ROLE_LIST_SPEC, serializeRole, updateRole, type RoleRow } from './service.js';

async function serializeRoles(req: Request, ctx: AppContext, rows: RoleRow[], include: string[]) {
  const resources = rows.map((r) => serializeRole(req, r));
  if (!include.includes('users')) return { resources };
  const byRole = await usersByRole(ctx.db, rows.map((r) => r.id));
  const included = new Map<number, Resource>();
  resources.forEach((r, i) => {
    const users = byRole.get(rows[i].id) ?? [];
    r.relationships!.users.data = users.map((u) => ({ id: String(u.id), type: 'users' }));
    for (const u of users) included.set(u.id, serializeUser(req, u));
  });
  return { resources, included: [...included.values()] };
}

export function roleRoutes(ctx: AppContext): RouteDef[] {
  const sendOne = async (req: Request, res: Response, id: number, status = 200) => {
    const { include } = parseListQuery(req, { fields: {}, includes: ['users'] });
    const { resources, included } = await serializeRoles(req, ctx, [await getRole(ctx.db, id)], include);
    const headers = status === 201 ? { Location: resourceUrl(req, `/roles/${id}`) } : undefined;
    sendResource(req, res, resources[0], { status, included, headers, meta: { schema: schemaMeta('roles', baseUrl(req)) } });
  };
  return [
    {
      method: 'get',
      path: '/roles',
      guard: 'user',
      handler: async (req, res) => {
        const ids = queryIds(req);
        const q = parseListQuery(req, ROLE_LIST_SPEC);
        const { rows, count } = await listRoles(ctx.db, q, { ids });
        const { resources, included } = await serializeRoles(req, ctx, rows, q.include);
        sendList(req, res, resources, { count, page: q.page, pageSize: q.pageSize }, { included, meta: { schema: schemaMeta('roles', baseUrl(req)) } });
      },
    },
    {
      method: 'post',
      path: '/roles',
      guard: 'admin',
      handler: async (req, res) => {
        const a = validateAttributes<{ name: string; description?: string | null }>('roles', resourceInput(req, 'roles').attributes, true);
        const id = await createRole(ctx.db, a);
        await sendOne(req, res, id, 201);
      },
    },
    { method: 'get', path: '/roles/:id', guard: 'user', handler: (req, res) => sendOne(req, res, pathId(req)) },
    {
      method: 'patch',
      path: '/roles/:id',
      guard: 'admin',
      handler: async (req, res) => {
        const id = pathId(req);
        const a = validateAttributes<{ name?: string; description?: string | null }>('roles', resourceInput(req, 'roles', id).attributes, false);
        await updateRole(ctx.db, id, a);
        await sendOne(req, res, id);
      },
    },
    {
      method: 'delete',
      path: '/roles/:id',
      guard: 'admin',
      handler: async (req, res) => {
        await deleteRole(ctx.db, pathId(req));
        sendNoContent(res);
      },
    },
    {
      method: 'get',
      path: '/roles/:id/users',
      guard: 'user',
      handler: async (req, res) => {
        const id = pathId(req);
        await getRole(ctx.db, id);
        const q = parseListQuery(req, { ...USER_LIST_SPEC, includes: [] });
        const { rows, count } = await listUsers(ctx.db, q, { roleId: id });
        sendList(req, res, rows.map((u) => serializeUser(req, u)), { count, page: q.page, pageSize: q.pageSize });
      },
    },
    ...(['post', 'delete'] as const).map(
      (method): RouteDef => ({
        method,
        path: '/roles/:id/relationships/users',
        guard: 'admin',
        handler: async (req, res) => {
          const id = pathId(req);
          await changeMemberships(ctx.db, { side: 'role', pathId: id, otherIds: relatedIds(req, 'users'), action: method === 'post' ? 'add' : 'remove' });
          sendLinks(req, res);
        },
      }),
    ),
  ];
}
