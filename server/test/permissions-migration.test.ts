// Migration 0080-permissions on a database made before it: the roles that exist keep every right
// (their users keep working), new roles get none, and accounts that differed only by case keep
// logging in by their own names.
// postgres pass: not run (migration 0080 run on a SQLite file made before it)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { Kysely, Migrator } from 'kysely';
import { createServer } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openSqlite, sqliteDialect } from '../src/db/dialect/sqlite.js';
import { migrations } from '../src/db/migrations/index.js';
import { hashPassword } from '../src/resources/auth/passwords.js';
import { ADMIN } from './helpers/server.js';

test('0080-permissions gives existing roles every right; new roles none; old case-twins keep their logins', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-migration-'));
  try {
    // The database as it was before: every migration but 0080, one role, a document, users.
    const db = new Kysely<any>({ dialect: openSqlite(path.join(dataDir, 'folio.sqlite')).dialect });
    const before = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < '0080').map(([name, m]) => [name, { up: (d: Kysely<any>) => m.up(d, sqliteDialect) }]));
    const { error } = await new Migrator({ db, provider: { getMigrations: async () => before } }).migrateToLatest();
    assert.equal(error, undefined);
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, '+00:00');
    const role = await db.insertInto('roles').values({ name: 'writers', description: null, unchangeable: false, created: now, modified: now }).returning('id').executeTakeFirstOrThrow();
    const usersType = await db.selectFrom('object_types').select('id').where('name', '=', 'users').executeTakeFirstOrThrow();
    const hash = await hashPassword('password-1');
    const userIds: number[] = [];
    for (const [username, roleId] of [[ADMIN.username, 1], ['Wendy', role.id], ['wendy', role.id]] as const) {
      const o = await db
        .insertInto('objects')
        .values({ object_type_id: usersType.id, status: 'on', uname: `u-${username}-${userIds.length}`, locked: false, deleted: false, created: now, modified: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      await db.insertInto('users').values({ id: o.id, username, password_hash: username === ADMIN.username ? await hashPassword(ADMIN.password) : hash, blocked: false, num_login_err: 0 }).execute();
      await db.insertInto('roles_users').values({ role_id: roleId, user_id: o.id, created: now }).execute();
      userIds.push(Number(o.id));
    }
    await db.destroy();

    const server = await createServer(loadConfig({ FOLIO_DATA_DIR: dataDir, FOLIO_LOGIN_LIMIT: '0' }, { logRequests: false }), { log: () => {} });
    const { url } = await server.listen(0, '127.0.0.1');
    try {
      const call = async (method: string, p: string, token?: string, body?: unknown) => {
        const res = await fetch(url + p, {
          method,
          headers: { Accept: 'application/vnd.api+json', 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return { status: res.status, body: (await res.json().catch(() => null)) as any };
      };
      const login = async (username: string, password: string) => (await call('POST', '/auth', undefined, { username, password })).body?.meta?.jwt as string | undefined;
      const admin = (await login(ADMIN.username, ADMIN.password))!;
      const writers = await call('GET', `/roles/${role.id}`, admin);
      assert.deepEqual(writers.body.data.attributes.permissions, { '*': ['read', 'create', 'update', 'delete', 'publish'] });
      const fresh = await call('POST', '/roles', admin, { data: { type: 'roles', attributes: { name: 'fresh' } } });
      assert.deepEqual(fresh.body.data.attributes.permissions, {});
      // Both case-twins log in by their own names and keep their rights.
      const upper = await login('Wendy', 'password-1');
      const lower = await login('wendy', 'password-1');
      assert.ok(upper && lower);
      assert.equal((await call('GET', '/auth', upper)).body.data.id, String(userIds[1]));
      assert.equal((await call('GET', '/auth', lower)).body.data.id, String(userIds[2]));
      const created = await call('POST', '/documents', lower, { data: { type: 'documents', attributes: { title: 'Still allowed', status: 'on' } } });
      assert.equal(created.status, 201);
      // A new account cannot take either name again.
      const taken = await call('POST', '/users', admin, { data: { type: 'users', attributes: { username: 'WENDY', password: 'password-1' } } });
      assert.equal(taken.status, 400);
    } finally {
      await server.close();
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
