// /users: accounts, their roles and the relationship writes. Admins manage users; every user
// reads and edits its own account (profile fields; email and password with the current
// password as `old_password`), and no one else's (see docs/decisions.md, Permissions).
import type { Request, Response } from 'express';
import type { AppContext } from '../../context.js';
import { badRequest, forbidden } from '../../http/errors.js';
import { identifiersInput, resourceInput, sendLinks, sendList, sendNoContent } from '../../http/jsonapi.js';
import { readContext } from '../../http/read-context.js';
import { requireObject } from '../objects/read.js';
import { listRelated } from '../objects/relations.js';
import { baseUrl } from '../../http/links.js';
import { parseListQuery } from '../../http/query.js';
import type { RouteDef } from '../../http/router.js';
import { membershipRoutes, rolesOfRelationships } from '../accounts/memberships.js';
import { pathId, queryIds } from '../../http/params.js';
import { schemaMeta, validateAttributes } from '../accounts/schemas.js';
import { sendAccountResource, serializeWithIncluded, type IncludableRelation } from '../accounts/serialize.js';
import { verifyPassword } from '../auth/passwords.js';
import { listRoles, rolesByUser, ROLE_LIST_SPEC, serializeRole, type RoleRow } from '../roles/service.js';
import { expectedVersion } from '../../http/if-match.js';
import { apply, type ObjectChanges } from '../objects/kernel.js';
import { type ObjectInput } from '../objects/write.js';
import { getUser, includeUserRelations, listUsers, serializeUser, userIncludes, userListSpec } from './service.js';
import { typeByName } from '../objects/model.js';
import { objectWriteInput } from '../objects/schema.js';
import type { AuthInfo } from '../../identity.js';

/** Attributes a user may change on its own account; the rest is for admins. */
const SELF_EDITABLE = new Set(['name', 'surname', 'title', 'description', 'lang', 'email', 'password']);

/** Attributes of one's own account that need the current password: they take the account over. */
const CREDENTIALS = ['email', 'password'];

/**
 * PATCH /users/{id} as a pipeline input. Non-admins change only their own profile. Whoever
 * changes their own email or password (admins too) sends the current password as
 * `old_password`, so a stolen access token cannot take the account over; missing or wrong gives
 * 400 `wrong_password` and nothing changes.
 */
async function userPatch(req: Request, ctx: AppContext, id: number): Promise<ObjectChanges> {
  const input = objectWriteInput(ctx, req, typeByName(ctx, 'users')!, id);
  const roles = rolesOfRelationships(input.relationships);
  if (roles && !req.auth.isAdmin) throw forbidden('Only administrators may change roles');
  const changes = await accountChanges(ctx, { auth: req.auth, id, attributes: input.attributes, meta: input.meta, profileOnly: !req.auth.isAdmin });
  return roles ? { ...changes, parts: { roles } } : changes;
}

export interface AccountPatch {
  auth: AuthInfo;
  /** The account changed. */
  id: number;
  /** As sent, `old_password` included. */
  attributes: Record<string, unknown>;
  meta: Record<string, unknown>;
  /** Only profile fields (non-admins, and everyone on PATCH /auth/user): others give 403. */
  profileOnly: boolean;
}

/** An account update as a pipeline input, checked by the rules above (PATCH /users/{id}, PATCH /auth/user). */
export async function accountChanges(ctx: AppContext, { auth, id, attributes: sent, meta, profileOnly }: AccountPatch): Promise<ObjectInput> {
  const { old_password: oldPassword, ...attributes } = sent;
  const valid = validateAttributes(ctx, 'users', attributes, false);
  if (profileOnly) {
    const refused = Object.keys(valid).filter((k) => !SELF_EDITABLE.has(k));
    if (refused.length) throw forbidden(`Only administrators may change ${refused.join(', ')}`);
    if (meta.locked !== undefined) throw forbidden('Only administrators may lock or unlock');
  }
  const user = await ctx.db.selectFrom('users').select(['password_hash', 'email']).where('id', '=', id).executeTakeFirst();
  const changing = CREDENTIALS.filter((k) => valid[k] !== undefined && (k !== 'email' || (valid.email || null) !== user?.email));
  if (changing.length && auth.userId === id) {
    if (typeof oldPassword !== 'string' || !(await verifyPassword(oldPassword, user?.password_hash ?? null))) {
      throw badRequest(`Changing your ${changing.join(' or ')} needs your current password as "old_password"`, 'wrong_password');
    }
  } else if (oldPassword !== undefined && typeof oldPassword !== 'string') {
    throw badRequest('"old_password" must be a string', 'invalid_data');
  }
  return { attributes, meta };
}

/** 403 unless the caller is an admin or `id` is its own account. */
function assertSelfOrAdmin(req: Request, id: number): void {
  if (!req.auth.isAdmin && req.auth.userId !== id) throw forbidden('Only administrators may read or change other users');
}

export function userRoutes(ctx: AppContext): RouteDef[] {
  const roles: IncludableRelation<RoleRow> = { name: 'roles', type: 'roles', load: (ids) => rolesByUser(ctx.db, ids), serialize: serializeRole };
  const sendOne = async (req: Request, res: Response, id: number, status = 200) => {
    const { include } = parseListQuery(req, { fields: {}, includes: userIncludes(ctx) });
    const user = await getUser(ctx, req.auth, ctx.db, id);
    const { resources, included } = await serializeWithIncluded(req, [user], (r, u) => serializeUser(ctx, r, u), include, roles);
    const objects = await includeUserRelations(readContext(req), ctx, [user], resources, include);
    sendAccountResource(ctx, req, res, 'users', resources[0], { status, included: objects.length ? [...(included ?? []), ...objects] : included, version: user.version });
  };
  return [
    {
      method: 'get',
      path: '/users',
      guard: 'admin',
      handler: async (req, res) => {
        const ids = queryIds(req);
        const q = parseListQuery(req, userListSpec(ctx));
        const { rows, count } = await listUsers(ctx, req.auth, ctx.db, q, { ids });
        const { resources, included } = await serializeWithIncluded(req, rows, (r, u) => serializeUser(ctx, r, u), q.include, roles);
        const objects = await includeUserRelations(readContext(req), ctx, rows, resources, q.include);
        sendList(req, res, resources, { count, page: q.page, pageSize: q.pageSize }, { included: objects.length ? [...(included ?? []), ...objects] : included, meta: { schema: schemaMeta(ctx, 'users', baseUrl(req)) } });
      },
    },
    {
      method: 'post',
      path: '/users',
      writes: ['objects', 'users', 'roles_users'],
      guard: 'admin',
      handler: async (req, res) => {
        const input = objectWriteInput(ctx, req, typeByName(ctx, 'users')!);
        const changes = { attributes: input.attributes, meta: input.meta, parts: { roles: rolesOfRelationships(input.relationships) } };
        const { row: { id } } = await apply(ctx, { action: 'create', type: 'users', actor: req.auth, changes });
        await sendOne(req, res, id, 201);
      },
    },
    {
      method: 'get',
      path: '/users/:id',
      guard: 'user',
      handler: (req, res) => {
        assertSelfOrAdmin(req, pathId(req));
        return sendOne(req, res, pathId(req));
      },
    },
    {
      method: 'patch',
      path: '/users/:id',
      writes: ['objects', 'users', 'roles_users', 'refresh_tokens'],
      guard: 'user',
      handler: async (req, res) => {
        const id = pathId(req);
        assertSelfOrAdmin(req, id);
        await getUser(ctx, req.auth, ctx.db, id);
        // The answer's parameters are checked before the write: a refused request changes nothing.
        parseListQuery(req, { fields: {}, includes: userIncludes(ctx) });
        await apply(ctx, { action: 'update', target: { key: id, type: 'users' }, actor: req.auth, changes: await userPatch(req, ctx, id), expectedVersion: expectedVersion(req) });
        await sendOne(req, res, id);
      },
    },
    {
      method: 'delete',
      path: '/users/:id',
      writes: ['objects', 'refresh_tokens'],
      guard: 'admin',
      handler: async (req, res) => {
        await apply(ctx, { action: 'trash', target: { key: (await getUser(ctx, req.auth, ctx.db, pathId(req))).id, type: 'users' }, actor: req.auth, expectedVersion: expectedVersion(req) });
        sendNoContent(res);
      },
    },
    {
      method: 'get',
      path: '/users/:id/roles',
      guard: 'user',
      handler: async (req, res) => {
        const id = pathId(req);
        assertSelfOrAdmin(req, id);
        await getUser(ctx, req.auth, ctx.db, id);
        // The answer's parameters are checked before the write: a refused request changes nothing.
        parseListQuery(req, { fields: {}, includes: userIncludes(ctx) });
        const q = parseListQuery(req, { ...ROLE_LIST_SPEC, includes: [] });
        const { rows, count } = await listRoles(ctx.db, q, { userId: id });
        sendList(req, res, rows.map((r) => serializeRole(req, r)), { count, page: q.page, pageSize: q.pageSize });
      },
    },
    ...membershipRoutes(ctx, 'user'),
    ...userRelationRoutes(ctx),
  ];
}

/**
 * Relations whose sides name `users` (or `objects`), as on any object: GET /users/{id}/{relation}
 * (the account's owner and admins read them) and POST, PATCH, DELETE
 * /users/{id}/relationships/{relation} through the kernel (admins; a user on its own account as
 * the users' write guard allows). `roles` keeps its own routes, declared before these.
 */
function userRelationRoutes(ctx: AppContext): RouteDef[] {
  const read: RouteDef = {
    method: 'get',
    path: '/users/:id/:relation',
    guard: 'user',
    // A user's history is the history family's, as any object's (/{type}/{id}/history).
    when: (req) => req.path.split('/')[3] !== 'history',
    handler: async (req, res) => {
      assertSelfOrAdmin(req, pathId(req));
      const row = await requireObject(ctx, String(pathId(req)), { typeName: 'users', viewer: req.auth });
      const list = await listRelated(readContext(req), ctx, row, String(req.params.relation));
      sendList(req, res, list.data, list.page, { meta: list.meta, included: list.included.length ? list.included : undefined });
    },
  };
  const modes = { post: 'add', patch: 'replace', delete: 'remove' } as const;
  const writes = (Object.keys(modes) as Array<keyof typeof modes>).map(
    (method): RouteDef => ({
      method,
      path: '/users/:id/relationships/:relation',
      guard: 'user',
      writes: ['objects'],
      handler: async (req, res) => {
        assertSelfOrAdmin(req, pathId(req));
        const relation = { name: String(req.params.relation), items: identifiersInput(req), mode: modes[method] };
        const { written } = await apply(ctx, { action: 'update', target: { key: pathId(req), type: 'users' }, actor: req.auth, changes: { relations: [relation] } });
        sendLinks(req, res, 200, { data: written ?? [] });
      },
    }),
  );
  return [read, ...writes];
}
