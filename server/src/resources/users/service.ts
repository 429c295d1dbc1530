// Users: rows (an `objects` row of type users plus a `users` row), serialisation, the first
// admin of a new install, and the writes of /users (uniqueness, the last-admin rule, revocation).
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import type { Request } from 'express';
import { sql, type Kysely, type SelectQueryBuilder, type Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Database } from '../../db/tables.js';
import { nowIso } from '../../db/time.js';
import { badRequest, forbidden, notFound } from '../../http/errors.js';
import { relationshipLinks, resourceUrl, type Resource } from '../../http/jsonapi.js';
import { applyFilters, applySort, type ListQuery, type ListSpec } from '../../http/query.js';
import { hashPassword } from '../auth/passwords.js';
import { objectExtensions } from '../objects/extensions.js';
import { insertObjectRow } from '../objects/rows.js';
import { containsText } from '../accounts/search.js';
import { uniqueUname } from '../objects/uname.js';

type Db = Kysely<Database> | Transaction<Database>;

export interface NewUser {
  username: string;
  /** The plain password, or its hash when already computed (hash outside transactions). */
  password?: string;
  passwordHash?: string;
  email?: string | null;
  name?: string | null;
  surname?: string | null;
  title?: string | null;
  description?: string | null;
  uname?: string | null;
  status?: string;
  verified?: string | null;
  lang?: string | null;
  blocked?: boolean;
}

export async function insertUser(db: Db, input: NewUser, actorId: number | null): Promise<number> {
  if (input.passwordHash === undefined && input.password === undefined) throw new Error('insertUser needs a password');
  const passwordHash = input.passwordHash ?? (await hashPassword(input.password!));
  const { id } = await insertObjectRow(
    db,
    'users',
    {
      status: input.status ?? 'on',
      uname: input.uname ?? input.username,
      title: input.title ?? null,
      description: input.description ?? null,
      lang: input.lang ?? null,
    },
    actorId,
  );
  await db
    .insertInto('users')
    .values({
      id,
      username: input.username,
      password_hash: passwordHash,
      email: input.email ?? null,
      name: input.name ?? null,
      surname: input.surname ?? null,
      blocked: input.blocked ?? false,
      num_login_err: 0,
      verified: input.verified ?? null,
    })
    .execute();
  return id;
}

export function selectUsers(db: Db) {
  return db
    .selectFrom('users')
    .innerJoin('objects', 'objects.id', 'users.id')
    .select([
      'users.id',
      'users.username',
      'users.email',
      'users.name',
      'users.surname',
      'users.blocked',
      'users.last_login',
      'users.last_login_err',
      'users.num_login_err',
      'users.verified',
      'users.password_hash',
      'objects.uname',
      'objects.title',
      'objects.description',
      'objects.status',
      'objects.lang',
      'objects.locked',
      'objects.deleted',
      'objects.created',
      'objects.modified',
      'objects.created_by',
      'objects.modified_by',
      'objects.published',
    ]);
}

export type UserRow = Awaited<ReturnType<ReturnType<typeof selectUsers>['executeTakeFirstOrThrow']>>;

export async function findUserById(db: Db, id: number): Promise<UserRow | undefined> {
  return selectUsers(db).where('users.id', '=', id).where('objects.deleted', '=', false).executeTakeFirst();
}

export function serializeUser(req: Request, u: UserRow): Resource {
  const path = `/users/${u.id}`;
  return {
    id: String(u.id),
    type: 'users',
    attributes: {
      username: u.username,
      uname: u.uname,
      name: u.name,
      surname: u.surname,
      title: u.title,
      description: u.description,
      email: u.email,
      status: u.status,
      lang: u.lang,
      blocked: Boolean(u.blocked),
      last_login: u.last_login,
      last_login_err: u.last_login_err,
      num_login_err: u.num_login_err,
    },
    meta: {
      verified: u.verified,
      locked: Boolean(u.locked),
      created: u.created,
      modified: u.modified,
      published: u.published,
      created_by: u.created_by,
      modified_by: u.modified_by,
    },
    links: { self: resourceUrl(req, path) },
    relationships: { roles: relationshipLinks(req, path, 'roles') },
  };
}

/**
 * On a start with no users, create the admin: from FOLIO_ADMIN_USERNAME/PASSWORD, or `admin`
 * with a random password printed once and written to initial-admin-password (mode 0600).
 */
export async function ensureInitialAdmin(ctx: AppContext): Promise<{ created: boolean; username?: string; passwordFile?: string }> {
  const any = await ctx.db.selectFrom('users').select('id').limit(1).executeTakeFirst();
  if (any) return { created: false };
  const username = ctx.config.adminUsername ?? 'admin';
  const generated = ctx.config.adminPassword === null;
  const password = ctx.config.adminPassword ?? crypto.randomBytes(12).toString('base64url');
  await ctx.db.transaction().execute(async (trx) => {
    const id = await insertUser(trx, { username, password, status: 'on', verified: nowIso() }, null);
    await trx.insertInto('roles_users').values({ role_id: 1, user_id: id, created: nowIso() }).execute();
  });
  if (!generated) return { created: true, username };
  const file = path.join(ctx.config.dataDir, 'initial-admin-password');
  fs.writeFileSync(file, password + '\n', { mode: 0o600 });
  ctx.log(`Created the admin user "${username}" with password: ${password}`);
  ctx.log(`(also written to ${file}; change it after the first login)`);
  return { created: true, username, passwordFile: file };
}

// ---------------------------------------------------------------------------------------------
// Writes of /users, /signup and /auth/change. Passwords are hashed before a transaction starts
// (hashing takes tens of milliseconds and SQLite serialises transactions).

/** What PATCH, activation and credential change may set (a new password as its hash). */
export interface UserChanges extends Partial<Omit<NewUser, 'password' | 'uname'>> {
  uname?: string;
  locked?: boolean;
}

const ADMIN_ROLE_ID = 1;

/** 400 when the username or the email (compared case-insensitively) belongs to another user. */
export async function assertUniqueAccount(db: Db, fields: { username?: string; email?: string | null }, excludeId?: number) {
  if (fields.username !== undefined) {
    let q = db.selectFrom('users').select('id').where('username', '=', fields.username);
    if (excludeId !== undefined) q = q.where('id', '!=', excludeId);
    if (await q.executeTakeFirst()) throw badRequest(`The username "${fields.username}" is already used`, 'username_taken');
  }
  if (fields.email) {
    let q = db.selectFrom('users').select('id').where(sql<boolean>`lower(email) = ${fields.email.toLowerCase()}`);
    if (excludeId !== undefined) q = q.where('id', '!=', excludeId);
    if (await q.executeTakeFirst()) throw badRequest(`The email "${fields.email}" is already used`, 'email_taken');
  }
}

/** Users who can still administer: admin role, not trashed, not blocked, status on. */
async function activeAdminIds(db: Db): Promise<number[]> {
  const rows = await db
    .selectFrom('roles_users')
    .innerJoin('users', 'users.id', 'roles_users.user_id')
    .innerJoin('objects', 'objects.id', 'users.id')
    .select('users.id')
    .where('roles_users.role_id', '=', ADMIN_ROLE_ID)
    .where('objects.deleted', '=', false)
    .where('users.blocked', '=', false)
    .where('objects.status', '=', 'on')
    .execute();
  return rows.map((r) => r.id);
}

/** 403 when `userId` is the only active administrator (it would lock everyone out). */
export async function assertAnotherAdminRemains(db: Db, userIds: number[]): Promise<void> {
  const admins = await activeAdminIds(db);
  if (admins.length && admins.every((id) => userIds.includes(id))) {
    throw forbidden('This would leave no active administrator', 'last_admin');
  }
}

export async function createUser(ctx: AppContext, input: Omit<NewUser, 'passwordHash'>, actorId: number | null, roleIds: number[] = []): Promise<number> {
  const passwordHash = await hashPassword(input.password!);
  return ctx.db.transaction().execute(async (trx) => {
    await assertUniqueAccount(trx, input);
    const id = await insertUser(trx, { ...input, password: undefined, passwordHash }, actorId);
    for (const roleId of roleIds) await trx.insertInto('roles_users').values({ role_id: roleId, user_id: id, created: nowIso() }).execute();
    return id;
  });
}

/** The user (not trashed) or 404. */
export async function getUser(db: Db, id: number): Promise<UserRow> {
  const user = await findUserById(db, id);
  if (!user) throw notFound(`No user with id ${id}`);
  return user;
}

/**
 * Apply changes in one transaction. A new password or blocking revokes the user's refresh tokens;
 * the last active admin cannot be blocked or switched off.
 */
export async function updateUser(db: Kysely<Database>, id: number, changes: UserChanges, actorId: number | null): Promise<void> {
  await db.transaction().execute((trx) => applyUserChanges(trx, id, changes, actorId));
}

/** updateUser inside the caller's transaction (e.g. with a consumed credential-change token). */
export async function applyUserChanges(trx: Transaction<Database>, id: number, changes: UserChanges, actorId: number | null): Promise<void> {
  const user = await getUser(trx, id);
  if (Boolean(user.locked) && ((changes.status !== undefined && changes.status !== user.status) || (changes.uname !== undefined && changes.uname !== user.uname))) {
    throw forbidden('The user is locked: its status and uname cannot change', 'locked');
  }
  await assertUniqueAccount(trx, { username: changes.username, email: changes.email }, id);
  if ((changes.blocked === true && !user.blocked) || (changes.status !== undefined && changes.status !== 'on')) {
    await assertAnotherAdminRemains(trx, [id]);
  }
  const now = nowIso();
  const objectSet: Record<string, unknown> = { modified: now, modified_by: actorId };
  for (const key of ['title', 'description', 'lang', 'status'] as const) if (changes[key] !== undefined) objectSet[key] = changes[key];
  if (changes.locked !== undefined) objectSet.locked = changes.locked;
  if (changes.status === 'on' && !user.published) objectSet.published = now;
  if (changes.uname !== undefined && changes.uname !== user.uname) objectSet.uname = await uniqueUname(trx, changes.uname, 'user', id);
  await trx.updateTable('objects').set(objectSet).where('id', '=', id).execute();

  const userSet: Record<string, unknown> = {};
  for (const key of ['username', 'email', 'name', 'surname', 'blocked', 'verified'] as const) if (changes[key] !== undefined) userSet[key] = changes[key];
  if (changes.passwordHash !== undefined) Object.assign(userSet, { password_hash: changes.passwordHash, num_login_err: 0 });
  if (Object.keys(userSet).length) await trx.updateTable('users').set(userSet).where('id', '=', id).execute();
  if (changes.passwordHash !== undefined || changes.blocked === true) {
    await trx.deleteFrom('refresh_tokens').where('user_id', '=', id).execute();
  }
}

/** Move a user to the trash (DELETE /users/{id}): its tokens stop working at once. */
export async function trashUser(ctx: AppContext, id: number, actorId: number | null): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const user = await getUser(trx, id);
    if (Boolean(user.locked)) throw forbidden('The user is locked and cannot be deleted', 'locked');
    await assertAnotherAdminRemains(trx, [id]);
    await trx.updateTable('objects').set({ deleted: true, modified: nowIso(), modified_by: actorId }).where('id', '=', id).execute();
    await trx.deleteFrom('refresh_tokens').where('user_id', '=', id).execute();
    for (const ext of objectExtensions(ctx)) {
      if (ext.onTrash && (ext.types.includes('users') || ext.types.includes('objects'))) await ext.onTrash(trx, [id], ctx);
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Lists: filters and sort only through this column map.

export const USER_LIST_SPEC: ListSpec = {
  fields: {
    id: 'integer',
    username: 'string',
    email: 'string',
    name: 'string',
    surname: 'string',
    uname: 'string',
    status: 'string',
    blocked: 'boolean',
    verified: 'date',
    last_login: 'date',
    created: 'date',
    modified: 'date',
  },
  special: ['query'],
  includes: ['roles'],
  defaultSort: 'id',
};

const USER_COLUMNS: Record<string, string> = {
  id: 'users.id',
  username: 'users.username',
  email: 'users.email',
  name: 'users.name',
  surname: 'users.surname',
  uname: 'objects.uname',
  status: 'objects.status',
  blocked: 'users.blocked',
  verified: 'users.verified',
  last_login: 'users.last_login',
  created: 'objects.created',
  modified: 'objects.modified',
};

export interface UserScope {
  ids?: number[];
  roleId?: number;
}

export async function listUsers(db: Db, q: ListQuery, scope: UserScope = {}): Promise<{ rows: UserRow[]; count: number }> {
  const narrow = <T extends SelectQueryBuilder<Database, 'users' | 'objects', any>>(qb: T): T => {
    let out = qb.where('objects.deleted', '=', false);
    if (scope.ids) out = out.where('users.id', 'in', scope.ids.length ? scope.ids : [-1]);
    if (scope.roleId !== undefined) {
      out = out.where('users.id', 'in', db.selectFrom('roles_users').select('user_id').where('role_id', '=', scope.roleId));
    }
    const words = q.special.query?.[0]?.trim();
    if (words) out = out.where(containsText(['users.username', 'users.name', 'users.surname', 'users.email', 'objects.title'], words));
    return applyFilters(out, q.filters, USER_COLUMNS) as T;
  };
  const counted = await narrow(db.selectFrom('users').innerJoin('objects', 'objects.id', 'users.id').select((eb) => eb.fn.countAll<number>().as('n'))).executeTakeFirst();
  const rows = await applySort(narrow(selectUsers(db)), q.sort, USER_COLUMNS, 'users.id').limit(q.pageSize).offset(q.offset).execute();
  return { rows, count: Number(counted?.n ?? 0) };
}

/** Users (not trashed) of many roles at once (for include=users on a page of roles). */
export async function usersByRole(db: Db, roleIds: number[]): Promise<Map<number, UserRow[]>> {
  const out = new Map<number, UserRow[]>(roleIds.map((id) => [id, []]));
  if (!roleIds.length) return out;
  const rows = await selectUsers(db)
    .innerJoin('roles_users', 'roles_users.user_id', 'users.id')
    .select('roles_users.role_id as member_of')
    .where('roles_users.role_id', 'in', roleIds)
    .where('objects.deleted', '=', false)
    .orderBy('users.id')
    .execute();
  for (const { member_of, ...user } of rows) out.get(member_of)?.push(user);
  return out;
}

/** The user (not trashed) with this email, compared case-insensitively. */
export async function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  return selectUsers(db).where(sql<boolean>`lower(users.email) = ${email.toLowerCase()}`).where('objects.deleted', '=', false).executeTakeFirst();
}
