// A list's count and anchors are cached under DataVersion.lists() (with the settings and model
// versions): an edit of an object's content leaves them, a write that may change which objects a
// list holds or their order by id or creation drops them. The publication epoch (what windows
// are compared with) lasts across writes that set no publication bound, so a list's statements
// keep their parameters across an edit. PostgreSQL moves its lists row by triggers on `objects`;
// SQLite counts the statements that may (writesLists, writesWindows) and every commit of another
// connection. Runs on both engines.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AppContext } from '../src/context.js';
import { assignedColumns, writesLists, writesWindows } from '../src/db/dialect/sqlite.js';
import { cacheProbe } from './helpers/cache-probe.js';
import { connectOutside } from './helpers/outside.js';
import { startServer, type TestServer } from './helpers/server.js';
import { onPostgres } from './helpers/test-database.js';

describe('what moves the lists version', () => {
  let s: TestServer;
  let ctx: AppContext;
  let admin = '';

  /** A value cached under the lists version now; `kept()` tells whether it still is. */
  const probe = () => cacheProbe(ctx, 'lists');

  before(async () => {
    s = await startServer();
    ctx = s.server.app.locals.ctx as AppContext;
    admin = await s.adminToken();
  });
  after(() => s?.close());

  /** The epoch's instant once its next bound is read (until then, windows are compared with the clock). */
  async function settledVisibleAt(): Promise<string> {
    for (let i = 0; i < 100; i++) {
      const at = ctx.dataVersion.visibleAt();
      await new Promise((r) => setTimeout(r, 3));
      if (ctx.dataVersion.visibleAt() === at) return at;
    }
    throw new Error('the publication epoch never settled');
  }

  async function made(attributes: Record<string, unknown> = {}): Promise<string> {
    const res = await s.request('POST', '/documents', { token: admin, body: { data: { type: 'documents', attributes: { title: 'Listed', status: 'on', ...attributes } } } });
    assert.equal(res.status, 201, res.text);
    return res.body.data.id as string;
  }

  async function patch(id: string, attributes: Record<string, unknown>) {
    const res = await s.request('PATCH', `/documents/${id}`, { token: admin, body: { data: { id, type: 'documents', attributes } } });
    assert.equal(res.status, 200, res.text);
    return res;
  }

  test('an edit of content keeps them, and the publication epoch: title, description, body, a relation', async () => {
    const id = await made();
    const other = await made({ title: 'Related' });
    const p = await probe();
    const visibleAt = await settledVisibleAt();
    await patch(id, { title: 'Edited', description: 'Described', body: '<p>Body</p>' });
    const rel = await s.request('POST', `/documents/${id}/relationships/see_also`, { token: admin, body: { data: [{ type: 'documents', id: other }] } });
    assert.ok([200, 204].includes(rel.status), rel.text);
    assert.ok(p.kept(), 'an edit of content dropped what lists keep');
    assert.equal(ctx.dataVersion.visibleAt(), visibleAt, 'an edit of content began a new publication epoch');
    // The data moved all the same: the object's read follows the edit.
    assert.equal((await s.request('GET', `/documents/${id}`)).body.data.attributes.title, 'Edited');
  });

  test('writes that may move a member drop them: create, status, trash, restore, window, permission, a type disabled', async () => {
    const id = await made();
    const role = await s.request('POST', '/roles', { token: admin, body: { data: { type: 'roles', attributes: { name: 'lists_probe_readers' } } } });
    assert.equal(role.status, 201, role.text);
    const type = await s.request('POST', '/model/object_types', { token: admin, body: { data: { type: 'object_types', attributes: { name: 'probed_notes', singular: 'probed_note', parent_name: 'objects' } } } });
    assert.equal(type.status, 201, type.text);
    const writes: Array<[string, () => Promise<unknown>]> = [
      ['a document created', () => made()],
      ['a status changed', () => patch(id, { status: 'draft' })],
      ['a status changed back', () => patch(id, { status: 'on' })],
      ['a document trashed', async () => assert.equal((await s.request('DELETE', `/documents/${id}`, { token: admin })).status, 204)],
      ['a document restored', async () => assert.equal((await s.request('PATCH', `/trash/${id}`, { token: admin, body: { data: { id, type: 'documents' } } })).status, 204)],
      ['a publication window set', () => patch(id, { publish_end: '2099-01-01T00:00:00Z' })],
      [
        'an object permission',
        async () => {
          const res = await s.request('POST', '/object_permissions', { token: admin, body: { data: { type: 'object_permissions', attributes: { object_id: Number(id), role_id: Number(role.body.data.id) } } } });
          assert.equal(res.status, 201, res.text);
        },
      ],
      [
        'a type disabled',
        async () => {
          const res = await s.request('PATCH', `/model/object_types/${type.body.data.id}`, { token: admin, body: { data: { id: type.body.data.id, type: 'object_types', attributes: { enabled: false } } } });
          assert.equal(res.status, 200, res.text);
        },
      ],
    ];
    for (const [what, write] of writes) {
      const p = await probe();
      await write();
      assert.ok(!p.kept(), `${what}: what lists keep was kept`);
    }
  });

  test('a publication window set begins a new epoch; an edit after it does not', async () => {
    const id = await made();
    const before = await settledVisibleAt();
    await new Promise((r) => setTimeout(r, 5));
    await patch(id, { publish_start: '2001-01-01T00:00:00Z' });
    const after = await settledVisibleAt();
    assert.ok(after > before, `the epoch did not move after a window was set (${before} → ${after})`);
    await new Promise((r) => setTimeout(r, 5));
    await patch(id, { description: 'After the window' });
    assert.equal(ctx.dataVersion.visibleAt(), after);
  });

  test('a window that opens after an edit shows the object when it opens, and not before', async () => {
    // A bound a second and a half away, then edits of content: the epoch they leave alone still ends at that bound.
    const opens = new Date(Date.now() + 1500).toISOString();
    const id = await made({ title: 'Opens soon', publish_start: opens });
    assert.equal((await s.request('GET', `/documents/${id}`)).status, 404);
    await patch(id, { description: 'Edited while waiting' });
    assert.equal((await s.request('GET', `/documents/${id}`)).status, 404);
    assert.ok(!(await s.request('GET', '/documents?page_size=100&sort=-id')).body.data.some((d: { id: string }) => d.id === id));
    await new Promise((r) => setTimeout(r, Date.parse(opens) - Date.now() + 50));
    assert.equal((await s.request('GET', `/documents/${id}`)).status, 200);
    assert.ok((await s.request('GET', '/documents?page_size=100&sort=-id')).body.data.some((d: { id: string }) => d.id === id), 'the list did not show the object once its window opened');
  });

  test("another process's writes: a status change drops them; an edit of content keeps them on PostgreSQL", async () => {
    const id = Number(await made());
    const outside = await connectOutside(s);
    try {
      let p = await probe();
      await outside.run(`update objects set status = 'off' where id = ?`, [id]);
      // The next request starts by reading the versions.
      await s.request('GET', `/documents/${id}`);
      assert.ok(!p.kept(), "another process's status change kept what lists keep");
      p = await probe();
      await outside.run('update objects set description = ? where id = ?', ['Elsewhere', id]);
      await s.request('GET', `/documents/${id}`);
      // SQLite sees only that another connection committed (its data_version).
      assert.equal(p.kept(), onPostgres, onPostgres ? "another instance's edit of content dropped them" : "another process's commit kept them");
    } finally {
      await outside.close();
    }
  });

  test('which SQLite statements may move a list, or set a publication bound', () => {
    const cases: Array<[string, boolean, boolean]> = [
      ['update "objects" set "modified" = ?, "modified_by" = ?, "title" = ?, "version" = "version" + ? where "id" = ? returning *', false, false],
      ['update "objects" set "body" = ?, "properties" = json_set("properties", \'$.status\', ?) where "id" = ? and "status" = ?', false, false],
      ['update "objects" set "status" = ?, "published" = ? where "id" = ? returning *', true, false],
      ['update "objects" set "deleted" = ?, "modified" = ? where "id" in (?, ?)', true, false],
      ['update "objects" set "publish_end" = ? where "id" = ?', true, true],
      ['update objects set created_by = ? where id = ?', true, false],
      ['update "objects" set "title" = (select "status" from "objects" where "id" = ?), "created" = ? where "id" = ?', true, false],
      ['update "objects" set "title" = (select 1', true, true],
      ['insert into "objects" ("title") values (?) returning *', true, true],
      ['delete from "objects" where "id" = ?', true, true],
      ['delete from "history" where "id" = ?', true, true],
      ['rollback', true, true],
      ['insert into "history" ("resource_id") values (?)', false, false],
      ['insert into "object_perms" ("object_id", "role_id") values (?, ?)', false, false],
      ['update "trees" set "tree_left" = ? where "id" = ?', false, false],
      ['begin immediate', false, false],
      ['commit', false, false],
    ];
    for (const [text, lists, windows] of cases) {
      assert.equal(writesLists(text), lists, `lists: ${text}`);
      assert.equal(writesWindows(text), windows, `windows: ${text}`);
    }
    assert.deepEqual(assignedColumns(' "a" = ?, "b" = coalesce("c", ?) where "status" = ?'), ['a', 'b']);
    assert.equal(assignedColumns(' "a" = ?, (b) = 1'), null);
  });
});
