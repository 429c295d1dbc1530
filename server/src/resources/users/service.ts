// Users: rows (an `objects` row of type users plus a `users` row), serialisation, and the first
// admin of a new install.
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import type { Request } from 'express';
import type { Kysely, Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Database } from '../../db/tables.js';
import { nowIso } from '../../db/time.js';
import { relationshipLinks, resourceUrl, type Resource } from '../../http/jsonapi.js';
import { hashPassword } from '../auth/passwords.js';
import { insertObjectRow } from '../objects/rows.js';

type Db = Kysely<Database> | Transaction<Database>;

export interface NewUser {
  username: string;
  password: string;
  email?: string | null;
  name?: string | null;
  surname?: string | null;
  title?: string | null;
  description?: string | null;
  uname?: string | null;
  status?: string;
  verified?: string | null;
}

export async function insertUser(db: Db, input: NewUser, actorId: number | null): Promise<number> {
  const passwordHash = await hashPassword(input.password);
  const id = await insertObjectRow(
    db,
    'users',
    { status: input.status ?? 'on', uname: input.uname ?? input.username, title: input.title ?? null, description: input.description ?? null },
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
      blocked: false,
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
