// /users: accounts, their roles and the relationship writes. Admins manage users; any
// authenticated user reads them and may edit its own profile (see docs/decisions.md).
import type { Request, Response } from 'express';
import type { AppContext } from '../../context.js';
import { badRequest, forbidden } from '../../http/errors.js';
import { resourceInput, sendList, sendNoContent } from '../../http/jsonapi.js';
import { baseUrl } from '../../http/links.js';
import { parseListQuery } from '../../http/query.js';
import type { RouteDef } from '../../http/router.js';
import { membershipRoutes } from '../accounts/memberships.js';
import { pathId, queryIds } from '../../http/params.js';
import { schemaMeta, validateAttributes } from '../accounts/schemas.js';
import { sendAccountResource, serializeWithIncluded, type IncludableRelation } from '../accounts/serialize.js';
import { verifyPassword } from '../auth/passwords.js';
import { listRoles, rolesByUser, ROLE_LIST_SPEC, serializeRole, type RoleRow } from '../roles/service.js';
import { trashObjects } from '../objects/trash.js';
import { createObject, updateObject, type ObjectInput } from '../objects/write.js';
import { getUser, listUsers, serializeUser, USER_LIST_SPEC } from './service.js';

/** Attributes a user may change on its own account; the rest is for admins. */
const SELF_EDITABLE = new Set(['name', 'surname', 'title', 'description', 'lang', 'email', 'password']);

/**
 * PATCH /users/{id} as a pipeline input. Non-admins change only their own profile; a new
 * password needs the current one as `old_password`, so a stolen access token cannot take the
 * account over.
 */
async function userPatch(req: Request, ctx: AppContext, id: number): Promise<ObjectInput> {
  const input = resourceInput(req, 'users', id);
  const isAdmin = req.auth.isAdmin;
  const { old_password: oldPassword, ...attributes } = input.attributes;
  const valid = validateAttributes(ctx, 'users', attributes, false);
  if (!isAdmin) {
    const refused = Object.keys(valid).filter((k) => !SELF_EDITABLE.has(k));
    if (refused.length) throw forbidden(`Only administrators may change ${refused.join(', ')}`);
    if (input.meta.locked !== undefined) throw forbidden('Only administrators may lock or unlock');
  }
  if (typeof valid.password === 'string') {
    if (!isAdmin) {
      if (typeof oldPassword !== 'string') throw badRequest('Changing your password needs "old_password"', 'old_password_required');
      const user = await ctx.db.selectFrom('users').select('password_hash').where('id', '=', id).executeTakeFirst();
      if (!(await verifyPassword(oldPassword, user?.password_hash ?? null))) throw badRequest('"old_password" is wrong', 'wrong_password');
    }
  } else if (oldPassword !== undefined) {
    throw badRequest('"old_password" goes only with a new "password"', 'invalid_data');
  }
  return { attributes, meta: input.meta };
}

export function userRoutes(ctx: AppContext): RouteDef[] {
  const roles: IncludableRelation<RoleRow> = { name: 'roles', type: 'roles', load: (ids) => rolesByUser(ctx.db, ids), serialize: serializeRole };
  const sendOne = async (req: Request, res: Response, id: number, status = 200) => {
    const { include } = parseListQuery(req, { fields: {}, includes: ['roles'] });
    const { resources, included } = await serializeWithIncluded(req, [await getUser(ctx.db, id)], serializeUser, include, roles);
    sendAccountResource(req, res, 'users', resources[0], { status, included });
  };
  return [
    {
      method: 'get',
      path: '/users',
      guard: 'user',
      handler: async (req, res) => {
        const ids = queryIds(req);
        const q = parseListQuery(req, USER_LIST_SPEC);
        const { rows, count } = await listUsers(ctx.db, q, { ids });
        const { resources, included } = await serializeWithIncluded(req, rows, serializeUser, q.include, roles);
        sendList(req, res, resources, { count, page: q.page, pageSize: q.pageSize }, { included, meta: { schema: schemaMeta('users', baseUrl(req)) } });
      },
    },
    {
      method: 'post',
      path: '/users',
      guard: 'admin',
      handler: async (req, res) => {
        const input = resourceInput(req, 'users');
        const id = await createObject(ctx, 'users', { attributes: input.attributes, meta: input.meta }, req.auth);
        await sendOne(req, res, id, 201);
      },
    },
    { method: 'get', path: '/users/:id', guard: 'user', handler: (req, res) => sendOne(req, res, pathId(req)) },
    {
      method: 'patch',
      path: '/users/:id',
      guard: 'user',
      handler: async (req, res) => {
        const id = pathId(req);
        if (!req.auth.isAdmin && req.auth.userId !== id) throw forbidden('Only administrators may change other users');
        await getUser(ctx.db, id);
        await updateObject(ctx, id, await userPatch(req, ctx, id), req.auth, { typeName: 'users' });
        await sendOne(req, res, id);
      },
    },
    {
      method: 'delete',
      path: '/users/:id',
      guard: 'admin',
      handler: async (req, res) => {
        await trashObjects(ctx, [(await getUser(ctx.db, pathId(req))).id], req.auth);
        sendNoContent(res);
      },
    },
    {
      method: 'get',
      path: '/users/:id/roles',
      guard: 'user',
      handler: async (req, res) => {
        const id = pathId(req);
        await getUser(ctx.db, id);
        const q = parseListQuery(req, { ...ROLE_LIST_SPEC, includes: [] });
        const { rows, count } = await listRoles(ctx.db, q, { userId: id });
        sendList(req, res, rows.map((r) => serializeRole(req, r)), { count, page: q.page, pageSize: q.pageSize });
      },
    },
    ...membershipRoutes(ctx, 'user'),
  ];
}
