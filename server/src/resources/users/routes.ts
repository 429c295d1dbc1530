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
import { pathId, queryIds } from '../accounts/params.js';
import { schemaMeta, validateAttributes } from '../accounts/schemas.js';
import { sendAccountResource, serializeWithIncluded, type IncludableRelation } from '../accounts/serialize.js';
import { hashPassword, verifyPassword } from '../auth/passwords.js';
import { listRoles, rolesByUser, ROLE_LIST_SPEC, serializeRole, type RoleRow } from '../roles/service.js';
import {
  createUser,
  getUser,
  listUsers,
  serializeUser,
  trashUser,
  updateUser,
  USER_LIST_SPEC,
  type UserChanges,
} from './service.js';

/** Attributes a user may change on its own account; the rest is for admins. */
const SELF_EDITABLE = new Set(['name', 'surname', 'title', 'description', 'lang', 'email', 'password']);

const trimmedEmail = (v: unknown) => (typeof v === 'string' ? v.trim() : (v as null | undefined));

async function changesFromRequest(req: Request, ctx: AppContext, id: number): Promise<UserChanges> {
  const input = resourceInput(req, 'users', id);
  const isAdmin = req.auth.isAdmin;
  const attributes = { ...input.attributes };
  const oldPassword = attributes.old_password;
  delete attributes.old_password;
  const valid = validateAttributes('users', attributes, false);
  if (!isAdmin) {
    const refused = Object.keys(valid).filter((k) => !SELF_EDITABLE.has(k));
    if (refused.length) throw forbidden(`Only administrators may change ${refused.join(', ')}`);
    if (input.meta.locked !== undefined) throw forbidden('Only administrators may lock or unlock');
  }
  const changes: UserChanges = {};
  for (const key of ['username', 'name', 'surname', 'title', 'description', 'lang', 'status', 'uname', 'blocked'] as const) {
    if (valid[key] !== undefined) (changes as Record<string, unknown>)[key] = valid[key];
  }
  if (valid.email !== undefined) changes.email = trimmedEmail(valid.email) || null;
  if (input.meta.locked !== undefined) {
    if (typeof input.meta.locked !== 'boolean') throw badRequest('meta.locked must be true or false', 'invalid_data');
    changes.locked = input.meta.locked;
  }
  if (typeof valid.password === 'string') {
    // Someone holding only a stolen access token must not be able to take the account over.
    if (!isAdmin) {
      if (typeof oldPassword !== 'string') throw badRequest('Changing your password needs "old_password"', 'old_password_required');
      const user = await ctx.db.selectFrom('users').select('password_hash').where('id', '=', id).executeTakeFirst();
      if (!(await verifyPassword(oldPassword, user?.password_hash ?? null))) throw badRequest('"old_password" is wrong', 'wrong_password');
    }
    changes.passwordHash = await hashPassword(valid.password);
  } else if (oldPassword !== undefined) {
    throw badRequest('"old_password" goes only with a new "password"', 'invalid_data');
  }
  return changes;
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
        const a = validateAttributes('users', input.attributes, true);
        const id = await createUser(
          ctx,
          {
            username: a.username as string,
            password: a.password as string,
            email: trimmedEmail(a.email) || null,
            name: a.name as string | null,
            surname: a.surname as string | null,
            title: a.title as string | null,
            description: a.description as string | null,
            uname: (a.uname as string | undefined) ?? null,
            status: (a.status as string | undefined) ?? 'on',
            lang: a.lang as string | null | undefined,
            blocked: a.blocked as boolean | undefined,
          },
          req.auth.userId,
        );
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
        await updateUser(ctx.db, id, await changesFromRequest(req, ctx, id), req.auth.userId);
        await sendOne(req, res, id);
      },
    },
    {
      method: 'delete',
      path: '/users/:id',
      guard: 'admin',
      handler: async (req, res) => {
        await trashUser(ctx, pathId(req), req.auth.userId);
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
