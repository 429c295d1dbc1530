// Users: rows (an `objects` row of type users plus a `users` row), serialisation, the first
// admin of a new install, and the writes of /users (uniqueness, the last-admin rule, revocation).
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import type { Request } from 'express';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Database } from '../../db/tables.js';
import { answeredInstant, nowIso } from '../../db/time.js';
import { badRequest, forbidden, notFound } from '../../http/errors.js';
import { relationshipLinks, resourceUrl, type Resource } from '../../http/jsonapi.js';
import { listPage, type ColumnRef, type FieldKind, type ListQuery, type ListSpec } from '../../http/query.js';
import { propertyKind } from '../objects/list.js';
import { hashPassword, verifyPassword } from '../auth/passwords.js';
import type { ObjectExtension } from '../objects/extensions.js';
import { inTransaction, whenCommitted, type WriteGuard } from '../objects/pipeline.js';
import { apply } from '../objects/kernel.js';
import { generatedUname } from '../objects/uname.js';
import { relationNamesOf, typeById, typeByName, visibleProperties } from '../objects/model.js';
import { relatedPairs } from '../objects/relations.js';
import type { ObjectRow } from '../objects/rows.js';
import { serializeObjects } from '../objects/serialize.js';
import type { ReadContext } from '../../http/read-context.js';
import { parseJson } from '../objects/write.js';
import { getObjectsByIds, SYSTEM, visibleObjectsTable, type Viewer, type VisibleOptions } from '../objects/read.js';
import { validateAttributes } from '../accounts/schemas.js';
import { containsText } from '../accounts/search.js';
import { accountKey, hasInvisibleCharacters } from './account-key.js';

type Db = Kysely<Database> | Transaction<Database>;

/**
 * User rows as `viewer` reads their objects (readReach: admins every account, a user its own; the
 * server's own lookups read as SYSTEM), active ones unless `opts.trashed` says otherwise.
 */
export function selectUsers(ctx: AppContext, viewer: Viewer, db: Db = ctx.db, opts?: VisibleOptions) {
  return db
    .selectFrom('users')
    .innerJoin(visibleObjectsTable(ctx, viewer, db, opts), 'objects.id', 'users.id')
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
      'objects.version',
      'objects.body',
      'objects.extra',
      'objects.publish_start',
      'objects.publish_end',
      'objects.properties',
      // The providers the user logs in through besides a password (BEdita's external_auth).
      (eb) =>
        eb
          .selectFrom('external_auth')
          .select(ctx.dialect.aggregates.joinedIds(sql.ref('external_auth.auth_provider'), sql.ref('external_auth.auth_provider')).as('p'))
          .whereRef('external_auth.user_id', '=', 'users.id')
          .as('external_auth'),
    ]);
}

export type UserRow = Awaited<ReturnType<ReturnType<typeof selectUsers>['executeTakeFirstOrThrow']>>;

export async function findUserById(ctx: AppContext, viewer: Viewer, db: Db, id: number): Promise<UserRow | undefined> {
  return selectUsers(ctx, viewer, db).where('users.id', '=', id).executeTakeFirst();
}

export function serializeUser(ctx: AppContext, req: Request, u: UserRow): Resource {
  const path = `/users/${u.id}`;
  const type = typeByName(ctx, 'users');
  const stored = (parseJson(u.properties) as Record<string, unknown> | null) ?? {};
  // As any object: the core attributes, the type's own fields and custom properties (hidden ones left out).
  const objectAttributes: Record<string, unknown> = { body: u.body, extra: parseJson(u.extra), publish_start: answeredInstant(u.publish_start), publish_end: answeredInstant(u.publish_end) };
  for (const p of type?.properties ?? []) objectAttributes[p.name] = stored[p.name] ?? null;
  for (const name of type?.hidden ?? []) delete objectAttributes[name];
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
      ...objectAttributes,
    },
    meta: {
      verified: u.verified,
      // As BEdita's users carry their external_auth: the providers they log in through.
      external_auth: (u.external_auth ?? '').split(',').filter(Boolean).map((auth_provider) => ({ auth_provider })),
      locked: Boolean(u.locked),
      created: u.created,
      modified: u.modified,
      published: u.published,
      created_by: u.created_by,
      modified_by: u.modified_by,
    },
    links: { self: resourceUrl(req, path) },
    relationships: {
      roles: relationshipLinks(req, path, 'roles'),
      // Relations whose sides name users, as on any object.
      ...Object.fromEntries(relationNamesOf(ctx, 'users').map((r) => [r.name, relationshipLinks(req, path, r.name)])),
    },
  };
}

/**
 * On a start with no users, create the admin: from FOLIO_ADMIN_USERNAME/PASSWORD, or `admin`
 * with a random password printed once and written to initial-admin-password (mode 0600).
 */
export async function ensureInitialAdmin(ctx: AppContext): Promise<{ created: boolean; username?: string; passwordFile?: string }> {
  const anyUser = (db: Db) => db.selectFrom('users').select('id').limit(1).executeTakeFirst();
  if (await anyUser(ctx.db)) return { created: false };
  const username = ctx.config.adminUsername ?? 'admin';
  const generated = ctx.config.adminPassword === null;
  const password = ctx.config.adminPassword ?? crypto.randomBytes(12).toString('base64url');
  const own = { passwordHash: await hashPassword(password), verified: nowIso(), roleIds: [ADMIN_ROLE_ID] };
  // Instances starting together on an empty database: the look and the create are one
  // transaction, which holds the write lock (SQLite's BEGIN IMMEDIATE, PostgreSQL's advisory
  // lock), so one of them creates the admin and the others find it and go on.
  const created = await inTransaction(ctx, undefined, async (trx) => {
    if (await anyUser(trx)) return false;
    await apply(ctx, { action: 'create', type: 'users', actor: SYSTEM, changes: { attributes: { username, status: 'on' }, own } }, trx);
    return true;
  });
  if (!created) return { created: false };
  if (!generated) return { created: true, username };
  const file = initialPasswordFile(ctx.config.dataDir);
  fs.writeFileSync(file, password + '\n', { mode: 0o600 });
  ctx.log(`Created the admin user "${username}" with password: ${password}`);
  ctx.log(`(also written to ${file}; change it after the first login)`);
  return { created: true, username, passwordFile: file };
}

/** Where the generated first-admin password is kept, while it is still that admin's password. */
export const initialPasswordFile = (dataDir: string) => path.join(dataDir, 'initial-admin-password');

/** The password in initial-admin-password, or null when there is no such file. */
function initialPassword(dataDir: string): string | null {
  try {
    return fs.readFileSync(initialPasswordFile(dataDir), 'utf8').replace(/\r?\n$/, '');
  } catch {
    return null;
  }
}

/**
 * After the users were replaced (a restore): initial-admin-password is removed unless its
 * password is still that of an admin, so the file never holds a password that does not work.
 */
export async function forgetStaleInitialPassword(db: Db, dataDir: string): Promise<void> {
  const password = initialPassword(dataDir);
  if (password === null) return;
  const admins = await db
    .selectFrom('users')
    .innerJoin('roles_users', 'roles_users.user_id', 'users.id')
    .where('roles_users.role_id', '=', ADMIN_ROLE_ID)
    .select('users.password_hash')
    .execute();
  for (const { password_hash } of admins) if (password_hash && (await verifyPassword(password, password_hash))) return;
  fs.rmSync(initialPasswordFile(dataDir), { force: true });
}

// ---------------------------------------------------------------------------------------------
// Users in the object write pipeline: what is special about writing a user is these hooks, so
// /users, /objects, signup, activation and credential change all keep the same rules (unique
// accounts, the last admin, revoked sessions). Passwords are hashed in `validate`, before any
// transaction (hashing takes tens of milliseconds and SQLite serialises transactions); server
// code that has the hash already passes it as `own.passwordHash`.

const ADMIN_ROLE_ID = 1;

/** Columns of the `users` table a write may set, with the attribute each comes from. */
const USER_COLUMNS_WRITTEN = ['username', 'email', 'name', 'surname', 'blocked'] as const;
/** Attributes of the account (the `users` row); every other one is the user's object's, as any object's. */
const ACCOUNT_ATTRIBUTES = new Set(['username', 'password', 'email', 'name', 'surname', 'blocked']);

/**
 * 400 when the username or the email belongs to another user, compared after NFKC
 * normalisation and case folding (`Admin`, `ADMIN` and `ａｄｍｉｎ` are one name).
 */
export async function assertUniqueAccount(db: Db, fields: { username?: unknown; email?: unknown }, excludeId?: number) {
  if (typeof fields.username === 'string') {
    let q = db.selectFrom('users').select('id').where('username_key', '=', accountKey(fields.username));
    if (excludeId !== undefined) q = q.where('id', '!=', excludeId);
    if (await q.executeTakeFirst()) throw badRequest(`The username "${fields.username}" is already used`, 'username_taken');
  }
  if (typeof fields.email === 'string' && fields.email) {
    let q = db.selectFrom('users').select('id').where('email_key', '=', accountKey(fields.email));
    if (excludeId !== undefined) q = q.where('id', '!=', excludeId);
    if (await q.executeTakeFirst()) throw badRequest(`The email "${fields.email}" is already used`, 'email_taken');
  }
}

/** Users who can still administer: admin role, not trashed, not blocked, status on. */
async function activeAdminIds(db: Db): Promise<number[]> {
  const rows = await db
    .selectFrom('roles_users')
    .innerJoin('users', 'users.id', 'roles_users.user_id')
    .innerJoin(visibleObjectsTable(null, SYSTEM, db), 'objects.id', 'users.id')
    .select('users.id')
    .where('roles_users.role_id', '=', ADMIN_ROLE_ID)
    .where('users.blocked', '=', false)
    .where('objects.status', '=', 'on')
    .execute();
  return rows.map((r) => r.id);
}

/** 403 when `userIds` are all the active administrators left (it would lock everyone out). */
export async function assertAnotherAdminRemains(db: Db, userIds: number[]): Promise<void> {
  const admins = await activeAdminIds(db);
  if (admins.length && admins.every((id) => userIds.includes(id))) {
    throw forbidden('This would leave no active administrator', 'last_admin');
  }
}

/** The user (not trashed) or 404. */
export async function getUser(ctx: AppContext, viewer: Viewer, db: Db, id: number): Promise<UserRow> {
  const user = await findUserById(ctx, viewer, db, id);
  if (!user) throw notFound(`No user with id ${id}`);
  return user;
}

/**
 * Sessions of these users end at once: refresh tokens go, and the session version moves on, so
 * access tokens issued before fail their next request (http/auth.ts).
 */
async function revokeSessions(trx: Transaction<Database>, ids: number[]): Promise<void> {
  if (!ids.length) return;
  await trx.deleteFrom('refresh_tokens').where('user_id', 'in', ids).execute();
  await trx
    .updateTable('users')
    .set((eb) => ({ session_version: eb('session_version', '+', 1) }))
    .where('id', 'in', ids)
    .execute();
}

export const usersExtension: ObjectExtension = {
  name: 'users',
  types: ['users'],
  async validate(w, attributes, ctx) {
    const create = w.action === 'create';
    const hashed = typeof w.own.passwordHash === 'string';
    const a = validateAttributes(ctx, 'users', attributes, create && !hashed);
    if (create && typeof a.username !== 'string') throw badRequest('Invalid data: "username" is required', 'invalid_data');
    if (typeof a.username === 'string' && hasInvisibleCharacters(a.username)) {
      throw badRequest('A username cannot hold spaces, control or invisible (format) characters', 'invalid_username');
    }
    for (const key of USER_COLUMNS_WRITTEN) if (a[key] !== undefined) w.own[key] = a[key];
    if (typeof a.email === 'string' || a.email === null) w.own.email = (typeof a.email === 'string' && a.email.trim()) || null;
    if (typeof a.password === 'string') w.own.passwordHash = await hashPassword(a.password);
    const objectAttributes: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(a)) if (!ACCOUNT_ATTRIBUTES.has(key) && value !== undefined) objectAttributes[key] = value;
    if (create) {
      objectAttributes.status ??= 'on';
      objectAttributes.uname ||= generatedUname(w.type.lineage, a.username);
    }
    return objectAttributes;
  },
  async beforeWrite(trx, w, ctx) {
    await assertUniqueAccount(trx, { username: w.own.username, email: w.own.email }, w.before?.id);
    if (w.action !== 'update') return;
    const user = await getUser(ctx, SYSTEM, trx, w.before!.id);
    const status = w.attributes.status;
    if ((w.own.blocked === true && !user.blocked) || (status !== undefined && status !== 'on' && user.status === 'on')) {
      await assertAnotherAdminRemains(trx, [user.id]);
    }
  },
  async afterWrite(trx, w, ctx) {
    const id = w.row!.id;
    const set: Record<string, unknown> = {};
    for (const key of USER_COLUMNS_WRITTEN) if (w.own[key] !== undefined) set[key] = w.own[key];
    if (w.own.verified !== undefined) set.verified = w.own.verified;
    if (w.action === 'create') {
      await trx
        .insertInto('users')
        .values({
          id,
          username: w.own.username as string,
          username_key: accountKey(w.own.username as string),
          email_key: typeof w.own.email === 'string' ? accountKey(w.own.email) : null,
          password_hash: w.own.passwordHash as string,
          email: (w.own.email as string | null | undefined) ?? null,
          name: (w.own.name as string | null | undefined) ?? null,
          surname: (w.own.surname as string | null | undefined) ?? null,
          blocked: (w.own.blocked as boolean | undefined) ?? false,
          num_login_err: 0,
          verified: (w.own.verified as string | null | undefined) ?? null,
        })
        .execute();
      const roleIds = (w.own.roleIds as number[] | undefined) ?? [];
      for (const roleId of roleIds) await trx.insertInto('roles_users').values({ role_id: roleId, user_id: id, created: nowIso() }).execute();
      Object.assign(w.changed, withoutUndefined(set));
      return;
    }
    const before = await getUser(ctx, SYSTEM, trx, id);
    const changed: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(set)) if (value !== before[key as keyof UserRow]) changed[key] = value;
    if (w.own.passwordHash !== undefined) {
      Object.assign(set, { password_hash: w.own.passwordHash, num_login_err: 0 });
      // The generated first-admin password, changed by whatever path: its file goes once committed.
      const initial = initialPassword(ctx.config.dataDir);
      if (initial !== null && before.password_hash && (await verifyPassword(initial, before.password_hash))) {
        const forget = () => fs.rmSync(initialPasswordFile(ctx.config.dataDir), { force: true });
        if (!whenCommitted(ctx, trx, forget)) forget();
      }
      // The change is recorded, never the password.
      changed.credentials_changed = true;
    }
    if (typeof set.username === 'string') set.username_key = accountKey(set.username);
    if (set.email !== undefined) set.email_key = typeof set.email === 'string' ? accountKey(set.email) : null;
    if (Object.keys(set).length) await trx.updateTable('users').set(set).where('id', '=', id).execute();
    // A new password, a block or switching the account off ends every session at once.
    const off = w.attributes.status !== undefined && w.attributes.status !== 'on';
    if (w.own.passwordHash !== undefined || w.own.blocked === true || off) await revokeSessions(trx, [id]);
    Object.assign(w.changed, changed);
  },
  async beforeTrash(trx, ids) {
    await assertAnotherAdminRemains(trx, ids);
  },
  async onTrash(trx, ids) {
    await revokeSessions(trx, ids);
  },
};

const withoutUndefined = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

/**
 * Users are written by admins; a user may update its own account (which attributes is the
 * /users route's rule); server code (signup, actor without user) writes as the system.
 */
export const usersWriteGuard: WriteGuard = ({ action, actor, type, row }) => {
  if (type.name !== 'users' || actor.isAdmin || actor.userId === null) return;
  if ((action === 'update' || action === 'publish') && row?.id === actor.userId) return;
  throw forbidden('Only administrators may manage users');
};

// ---------------------------------------------------------------------------------------------
// Lists: filters and sort only through this column map.

const USER_LIST_SPEC = {
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
  // filter[roles]: users with any of these roles (ids or names), as BEdita clients ask.
  special: ['query', 'roles'],
  includes: ['roles'],
  defaultSort: 'id',
} satisfies ListSpec;

/** Object fields of users beside the account's, as on any object list. */
const OBJECT_FIELDS: Record<string, [FieldKind, string]> = {
  title: ['string', 'objects.title'],
  description: ['string', 'objects.description'],
  body: ['string', 'objects.body'],
  lang: ['string', 'objects.lang'],
  locked: ['boolean', 'objects.locked'],
  published: ['date', 'objects.published'],
  publish_start: ['date', 'objects.publish_start'],
  publish_end: ['date', 'objects.publish_end'],
  created_by: ['integer', 'objects.created_by'],
  modified_by: ['integer', 'objects.modified_by'],
};

/** Filters and sorts of user lists: the account's fields and every object field, custom properties included (hidden ones left out). */
function userListFields(ctx: AppContext): Record<string, [FieldKind, ColumnRef]> {
  const type = typeByName(ctx, 'users');
  const out: Record<string, [FieldKind, ColumnRef]> = {};
  for (const [name, kind] of Object.entries(USER_LIST_SPEC.fields)) out[name] = [kind as FieldKind, USER_COLUMNS[name]];
  Object.assign(out, OBJECT_FIELDS);
  for (const p of type ? visibleProperties(type) : []) {
    const kind = propertyKind(p);
    if (kind && !out[p.name]) out[p.name] = [kind, ctx.dialect.json.property('objects.properties', p.name, kind)];
  }
  for (const name of type?.hidden ?? []) delete out[name];
  return out;
}

export function userListSpec(ctx: AppContext): ListSpec {
  return { ...USER_LIST_SPEC, fields: Object.fromEntries(Object.entries(userListFields(ctx)).map(([name, [kind]]) => [name, kind])), includes: userIncludes(ctx) };
}

/** What user answers may include: their roles, and the objects of the relations whose sides name users. */
export const userIncludes = (ctx: AppContext): string[] => ['roles', ...relationNamesOf(ctx, 'users').map((r) => r.name)];

/**
 * include=<relation> on users: each user's related objects the reader may read, as the
 * relationship's `data` and in `included`, serialised as any object.
 */
export async function includeUserRelations(rc: ReadContext, ctx: AppContext, rows: UserRow[], resources: Resource[], include: string[]): Promise<Resource[]> {
  const usersType = typeByName(ctx, 'users');
  const names = include.filter((name) => name !== 'roles');
  if (!usersType || !names.length) return [];
  const owners = rows.map((r) => ({ id: r.id, object_type_id: usersType.id }));
  const included = new Map<number, ObjectRow>();
  for (const name of names) {
    const pairs = await relatedPairs(ctx, owners, name);
    const related = new Map((await getObjectsByIds(ctx, [...new Set(pairs.map((p) => p.relatedId))], { viewer: rc.viewer })).map((r) => [r.id, r]));
    resources.forEach((resource, i) => {
      const rel = resource.relationships?.[name];
      if (!rel) return;
      rel.data = pairs.filter((p) => p.objectId === rows[i].id && related.has(p.relatedId)).map((p) => ({ id: String(p.relatedId), type: typeById(ctx, related.get(p.relatedId)!.object_type_id)!.name }));
    });
    for (const r of related.values()) included.set(r.id, r);
  }
  return (await serializeObjects(rc, ctx, [...included.values()])).data;
}

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

export async function listUsers(ctx: AppContext, viewer: Viewer, db: Db, q: ListQuery, scope: UserScope = {}): Promise<{ rows: UserRow[]; count: number }> {
  let base = selectUsers(ctx, viewer, db);
  if (scope.ids) base = base.where('users.id', 'in', scope.ids.length ? scope.ids : [-1]);
  if (scope.roleId !== undefined) base = base.where('users.id', 'in', db.selectFrom('roles_users').select('user_id').where('role_id', '=', scope.roleId));
  const roles = q.special.roles;
  if (roles) {
    if (!roles.length) throw badRequest('filter[roles] needs role ids or names', 'invalid_filter');
    const ids = roles.filter((r) => /^\d{1,15}$/.test(r)).map(Number);
    const names = roles.filter((r) => !/^\d{1,15}$/.test(r));
    const members = db
      .selectFrom('roles_users')
      .innerJoin('roles', 'roles.id', 'roles_users.role_id')
      .select('roles_users.user_id')
      .where((eb) => eb.or([eb('roles.id', 'in', ids.length ? ids : [-1]), eb('roles.name', 'in', names.length ? names : [''])]));
    base = base.where('users.id', 'in', members);
  }
  const words = q.special.query?.[0]?.trim();
  if (words) {
    // The account's fields, and the user's object as any object is searched (body, the type's fields, custom properties).
    const expr = ctx.dialect.search.expression(words);
    const account = containsText(['users.username', 'users.name', 'users.surname', 'users.email', 'objects.title'], words);
    base = base.where((eb) => (expr ? eb.or([account, eb('objects.id', 'in', ctx.dialect.search.ids(expr))]) : account));
  }
  return listPage(base, q, Object.fromEntries(Object.entries(userListFields(ctx)).map(([name, [, column]]) => [name, column])), 'users.id');
}

/** Users (not trashed) of many roles at once (for include=users on a page of roles). */
export async function usersByRole(ctx: AppContext, viewer: Viewer, db: Db, roleIds: number[]): Promise<Map<number, UserRow[]>> {
  const out = new Map<number, UserRow[]>(roleIds.map((id) => [id, []]));
  if (!roleIds.length) return out;
  const rows = await selectUsers(ctx, viewer, db)
    .innerJoin('roles_users', 'roles_users.user_id', 'users.id')
    .select('roles_users.role_id as member_of')
    .where('roles_users.role_id', 'in', roleIds)
    .orderBy('users.id')
    .execute();
  for (const { member_of, ...user } of rows) out.get(member_of)?.push(user);
  return out;
}

/** The user (not trashed) with this email, compared as account keys (NFKC, case folded). */
export async function findUserByEmail(ctx: AppContext, db: Db, email: string): Promise<UserRow | undefined> {
  // A lookup of the server's own (a credential change by contact): every account.
  return selectUsers(ctx, SYSTEM, db).where('users.email_key', '=', accountKey(email)).executeTakeFirst();
}
