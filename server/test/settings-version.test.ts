// Reads of the settings tables (object permissions, terms in use, the endpoint policy,
// applications, webhooks) are cached under DataVersion.settings(): a write to an object leaves
// them cached, a write that may change them drops them. PostgreSQL moves its settings row by
// triggers on those tables; SQLite counts the statements that may write them (any delete, a
// rollback, an insert or update of one of them) and every commit of another connection. Runs on
// both engines.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AppContext } from '../src/context.js';
import { writesSettings } from '../src/db/dialect/sqlite.js';
import { cacheProbe } from './helpers/cache-probe.js';
import { connectOutside } from './helpers/outside.js';
import { startServer, type TestServer } from './helpers/server.js';
import { onPostgres } from './helpers/test-database.js';

describe('what moves the settings version', () => {
  let s: TestServer;
  let ctx: AppContext;
  let admin = '';
  const doc = (attributes: Record<string, unknown>) => ({ data: { type: 'documents', attributes: { status: 'on', ...attributes } } });

  before(async () => {
    s = await startServer();
    admin = await s.adminToken();
    ctx = s.server.app.locals.ctx as AppContext;
  });
  after(() => s?.close());

  /** A value cached under the settings version now; `kept()` tells whether it still is. */
  const probe = () => cacheProbe(ctx, 'settings');

  test('writes to objects leave settings reads cached: create, edit, trash, restore', async () => {
    const p = await probe();
    const made = await s.request('POST', '/documents', { token: admin, body: doc({ title: 'Kept settings' }) });
    assert.equal(made.status, 201, made.text);
    const id = made.body.data.id as string;
    assert.equal((await s.request('PATCH', `/documents/${id}`, { token: admin, body: { data: { id, type: 'documents', attributes: { title: 'Kept again' } } } })).status, 200);
    assert.equal((await s.request('DELETE', `/documents/${id}`, { token: admin })).status, 204);
    assert.equal((await s.request('PATCH', `/trash/${id}`, { token: admin, body: { data: { id, type: 'documents' } } })).status, 204);
    assert.ok(p.kept(), 'no settings table was written');
    // Another data version all the same: the object reads follow the writes.
    assert.equal((await s.request('GET', `/documents/${id}`)).body.data.attributes.title, 'Kept again');
  });

  test('a write to a settings table drops them: a new application', async () => {
    const p = await probe();
    const res = await s.request('POST', '/applications', { token: admin, body: { data: { type: 'applications', attributes: { name: `app-${Date.now()}`, description: 'settings probe' } } } });
    assert.equal(res.status, 201, res.text);
    assert.ok(!p.kept());
  });

  test('a permanent delete of an object with an object permission drops them (the permission goes with it: a foreign key cascades)', async () => {
    const role = await s.request('POST', '/roles', { token: admin, body: { data: { type: 'roles', attributes: { name: 'settings_readers' } } } });
    assert.equal(role.status, 201, role.text);
    const made = await s.request('POST', '/documents', { token: admin, body: doc({ title: 'To be purged' }) });
    const id = made.body.data.id as string;
    const perm = await s.request('POST', '/object_permissions', { token: admin, body: { data: { type: 'object_permissions', attributes: { object_id: Number(id), role_id: Number(role.body.data.id) } } } });
    assert.equal(perm.status, 201, perm.text);
    assert.equal((await s.request('DELETE', `/documents/${id}`, { token: admin })).status, 204);
    const p = await probe();
    assert.equal((await s.request('DELETE', `/trash/${id}`, { token: admin })).status, 204);
    assert.ok(!p.kept());
    assert.equal((await s.request('GET', `/object_permissions?filter[object_id]=${id}`, { token: admin })).body.data.length, 0, 'the permission went with its object');
  });

  test("another process's commit drops them (SQLite: it may have written anything)", { skip: onPostgres && 'PostgreSQL moves its settings row by triggers' }, async () => {
    const made = await s.request('POST', '/documents', { token: admin, body: doc({ title: 'Written elsewhere' }) });
    const p = await probe();
    const outside = await connectOutside(s);
    try {
      await outside.run('update objects set title = ? where id = ?', ['Written by another process', Number(made.body.data.id)]);
    } finally {
      await outside.close();
    }
    // The next request starts by reading SQLite's data_version.
    assert.equal((await s.request('GET', `/documents/${made.body.data.id}`)).body.data.attributes.title, 'Written by another process');
    assert.ok(!p.kept());
  });

  test('which SQLite statements may write the settings tables', () => {
    for (const text of [
      'insert into "object_perms" ("object_id", "role_id") values (?, ?)',
      'update "applications" set "enabled" = ? where "id" = ?',
      'delete from "objects" where "id" = ?',
      'delete from "history" where "id" = ?',
      'insert or replace into "objects" ("id") values (?)',
      'rollback',
      'rollback to savepoint "sp1"',
      'with x as (select 1) insert into "objects" select * from x',
      'insert into object_categories (object_id, category_id) values (1, 2)',
    ])
      assert.equal(writesSettings(text), true, text);
    for (const text of [
      'insert into "objects" ("title") values (?) returning *',
      'update "objects" set "title" = ? where "id" = ? returning *',
      'insert into "history" ("resource_id") values (?)',
      'insert into objects_fts(rowid, title) values (1, 2)',
      'begin immediate',
      'commit',
      'savepoint "sp1"',
      'release savepoint "sp1"',
    ])
      assert.equal(writesSettings(text), false, text);
  });
});
