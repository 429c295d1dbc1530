// The one write pipeline and the one read path: every entry point that writes objects reaches the
// pipeline's hook points (write guards, observers in the transaction and after the commit), the
// type rules hold on every path (the last admin, locks), and caches follow every write.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { forbidden } from '../src/http/errors.js';
import type { ObjectChange } from '../src/resources/objects/changes.js';
import { expectError, startServer, type TestServer } from './helpers/server.js';

const LEGACY = 'application/json, text/javascript';

describe('one write pipeline', () => {
  let s: TestServer;
  let admin: string;
  const recorded: ObjectChange[] = [];
  let failRecord = false;
  const committed: ObjectChange[] = [];
  let refuse: ((c: { action: string; type: string; id?: number }) => boolean) | null = null;

  const doc = (attributes: Record<string, unknown>) => ({ data: { type: 'documents', attributes } });
  const create = async (attributes: Record<string, unknown>) => {
    const r = await s.request('POST', '/documents', { token: admin, body: doc(attributes) });
    assert.equal(r.status, 201, r.text);
    return Number(r.body.data.id);
  };
  /** Changes that reached afterCommit since `mark`, as [action, type, id]. */
  const since = (mark: number) => committed.slice(mark).map((c) => [c.action, c.typeName, c.id] as const);

  before(async () => {
    s = await startServer();
    admin = await s.adminToken();
    // A test observer and guard on the pipeline's hook points (as history, webhooks and
    // permissions plug in): the real server, the real hooks.
    s.server.ctx.objects.observers.push({
      name: 'test',
      async record(_trx, changes) {
        if (failRecord) throw new Error('the test observer fails');
        recorded.push(...changes);
      },
      afterCommit(changes) {
        committed.push(...changes);
      },
    });
    s.server.ctx.objects.guards.push(({ action, type, row }) => {
      if (refuse?.({ action, type: type.name, id: row?.id })) {
        throw forbidden('Refused by the test guard');
      }
    });
  });
  after(() => s.close());

  test('every entry point reports its writes to the observers after the commit', async () => {
    let mark = committed.length;
    const id = await create({ title: 'Pipeline doc', body: '<p>x</p>' });
    assert.deepEqual(since(mark), [['create', 'documents', id]]);
    const created = committed[mark];
    assert.equal(created.changed.title, 'Pipeline doc');
    assert.equal(created.changed.status, 'draft');
    assert.equal(created.userId, 1);

    mark = committed.length;
    assert.equal((await s.request('PATCH', `/documents/${id}`, { token: admin, body: { data: { id: String(id), type: 'documents', attributes: { title: 'Renamed' } } } })).status, 200);
    assert.deepEqual(since(mark), [['update', 'documents', id]]);
    assert.deepEqual(committed[mark].changed, { title: 'Renamed' });

    // Relationships, folders, trash, restore and purge, through their own endpoints.
    const other = await create({ title: 'Other' });
    mark = committed.length;
    const rel = await s.request('POST', `/documents/${id}/relationships/see_also`, { token: admin, body: { data: [{ type: 'documents', id: String(other) }] } });
    assert.equal(rel.status, 200, rel.text);
    assert.deepEqual(since(mark), [['update', 'documents', id]]);
    assert.deepEqual(committed[mark].changed, { see_also: [String(other)] });

    const folder = await s.request('POST', '/folders', { token: admin, body: { data: { type: 'folders', attributes: { title: 'F', status: 'on' } } } });
    const folderId = Number(folder.body.data.id);
    mark = committed.length;
    assert.equal((await s.request('POST', `/folders/${folderId}/relationships/children`, { token: admin, body: { data: [{ type: 'documents', id: String(id) }] } })).status, 200);
    assert.deepEqual(since(mark), [['update', 'documents', id]]);
    assert.deepEqual(committed[mark].changed, { parents: [String(folderId)] });

    mark = committed.length;
    assert.equal((await s.request('DELETE', `/objects/${other}`, { token: admin })).status, 204);
    assert.equal((await s.request('PATCH', `/trash/${other}`, { token: admin, body: { data: { id: String(other), type: 'documents' } } })).status, 204);
    assert.equal((await s.request('DELETE', `/documents/${other}`, { token: admin })).status, 204);
    assert.equal((await s.request('DELETE', `/trash/${other}`, { token: admin })).status, 204);
    assert.deepEqual(since(mark), [
      ['trash', 'documents', other],
      ['restore', 'documents', other],
      ['trash', 'documents', other],
      ['remove', 'documents', other],
    ]);

    // Users through /users, atomic operations, the legacy writer.
    mark = committed.length;
    const user = await s.request('POST', '/users', { token: admin, body: { data: { type: 'users', attributes: { username: 'piper', password: 'piper-secret-1' } } } });
    assert.equal(user.status, 201, user.text);
    const userChange = committed[mark];
    assert.deepEqual([userChange.action, userChange.typeName], ['create', 'users']);
    assert.equal(userChange.changed.username, 'piper');
    assert.ok(!('password' in userChange.changed) && !JSON.stringify(userChange.changed).includes('piper-secret'), 'never a password');
    mark = committed.length;
    const ops = await s.request('POST', '/operations', {
      token: admin,
      body: { 'atomic:operations': [{ op: 'add', data: { type: 'documents', lid: 'a', attributes: { title: 'Atomic' } } }, { op: 'update', ref: { type: 'documents', id: String(id) }, data: { type: 'documents', id: String(id), attributes: { description: 'd' } } }] },
    });
    assert.equal(ops.status, 200, ops.text);
    assert.deepEqual(since(mark).map(([a, t]) => [a, t]), [['create', 'documents'], ['update', 'documents']]);

    mark = committed.length;
    const legacy = await s.request('POST', '/objects', {
      token: admin,
      body: { data: { object_type: 'document', title: 'Legacy', status: 'on', parents: [folderId] } },
      headers: { Accept: LEGACY, 'Content-Type': 'application/json' },
    });
    assert.equal(legacy.status, 201, legacy.text);
    const legacyId = legacy.body.data.object.id;
    // One legacy write is one command: the placement is part of the create's record.
    assert.deepEqual(since(mark), [['create', 'documents', legacyId]]);
    assert.deepEqual(committed[mark].changed.parents, [String(folderId)]);
  });

  test('a password change is recorded as a change of credentials, never with the password', async () => {
    const u = await s.request('POST', '/users', { token: admin, body: { data: { type: 'users', attributes: { username: 'pat', password: 'pat-secret-1' } } } });
    const mark = committed.length;
    const patch = await s.request('PATCH', `/users/${u.body.data.id}`, { token: admin, body: { data: { id: u.body.data.id, type: 'users', attributes: { password: 'pat-secret-2' } } } });
    assert.equal(patch.status, 200, patch.text);
    assert.deepEqual(since(mark), [['update', 'users', Number(u.body.data.id)]]);
    assert.deepEqual(committed[mark].changed, { credentials_changed: true });
    const history = await s.request('GET', `/users/${u.body.data.id}/history`, { token: admin });
    assert.equal(history.status, 200, history.text);
    assert.ok(!history.text.includes('pat-secret'), 'no password in the history');
    assert.deepEqual(history.body.data.at(-1).attributes.changed, { credentials_changed: true });
  });

  test('a write that fails records nothing after the commit', async () => {
    const id = await create({ title: 'Lock me' });
    assert.equal((await s.request('PATCH', `/documents/${id}`, { token: admin, body: { data: { id: String(id), type: 'documents', meta: { locked: true } } } })).status, 200);
    const mark = committed.length;
    const recordedMark = recorded.length;
    // Two writes in one atomic request: the second fails (locked), the first rolls back.
    const ops = await s.request('POST', '/operations', {
      token: admin,
      body: { 'atomic:operations': [{ op: 'add', data: { type: 'documents', attributes: { title: 'Rolled back' } } }, { op: 'remove', ref: { type: 'documents', id: String(id) } }] },
    });
    expectError(ops, 403, 'object_locked');
    assert.deepEqual(since(mark), []);
    // Observers record a unit's changes as its work ends, in its transaction: a unit that fails records none.
    assert.equal(recorded.length, recordedMark);
    const list = await s.request('GET', '/documents?filter[title]=Rolled%20back', { token: admin });
    assert.equal(list.body.data.length, 0);
  });

  test("observers record inside the write's transaction: a record that fails undoes the whole write", async () => {
    const mark = committed.length;
    failRecord = true;
    try {
      const res = await s.request('POST', '/operations', {
        token: admin,
        body: { 'atomic:operations': [1, 2].map((n) => ({ op: 'add', data: { type: 'documents', attributes: { title: `Unrecorded ${n}` } } })) },
      });
      assert.equal(res.status, 500);
    } finally {
      failRecord = false;
    }
    assert.deepEqual(since(mark), []);
    const list = await s.request('GET', '/documents?filter[title]=Unrecorded%201', { token: admin });
    assert.equal(list.body.data.length, 0);
  });

  test('a write guard refuses on every entry point and nothing changes', async () => {
    const id = await create({ title: 'Guarded' });
    // On the publication tree (the first root folder), so that the legacy layout reaches it.
    const pub = (await s.request('GET', '/folders?filter[roots]', { token: admin })).body.data[0].id;
    assert.equal((await s.request('POST', `/folders/${pub}/relationships/children`, { token: admin, body: { data: [{ type: 'documents', id: String(id) }] } })).status, 200);
    refuse = ({ action, type, id: target }) => type === 'documents' && action === 'update' && target === id;
    try {
      const patch = await s.request('PATCH', `/documents/${id}`, { token: admin, body: { data: { id: String(id), type: 'documents', attributes: { title: 'No' } } } });
      assert.equal(patch.status, 403);
      const other = await create({ title: 'Target' });
      const rel = await s.request('POST', `/documents/${id}/relationships/see_also`, { token: admin, body: { data: [{ type: 'documents', id: String(other) }] } });
      assert.equal(rel.status, 403);
      const ops = await s.request('POST', '/operations', {
        token: admin,
        body: { 'atomic:operations': [{ op: 'update', ref: { type: 'documents', id: String(id) }, data: { type: 'documents', id: String(id), attributes: { title: 'No' } } }] },
      });
      assert.equal(ops.status, 403);
      const legacy = await s.request('POST', '/objects', {
        token: admin,
        body: { data: { id, title: 'No' } },
        headers: { Accept: LEGACY, 'Content-Type': 'application/json' },
      });
      assert.equal(legacy.status, 403, legacy.text);
    } finally {
      refuse = null;
    }
    const now = await s.request('GET', `/documents/${id}`, { token: admin });
    assert.equal(now.body.data.attributes.title, 'Guarded');
    const related = await s.request('GET', `/documents/${id}/see_also`, { token: admin });
    assert.equal(related.body.data.length, 0);
  });
});

describe('type rules on every path', () => {
  let s: TestServer;
  let admin: string;
  before(async () => {
    s = await startServer();
    admin = await s.adminToken();
  });
  after(() => s.close());

  test('the last admin cannot be trashed, blocked or switched off through any path (403 last_admin)', async () => {
    const me = (await s.request('GET', '/auth/user', { token: admin })).body.data.id;
    expectError(await s.request('DELETE', `/objects/${me}`, { token: admin }), 403, 'last_admin');
    expectError(await s.request('DELETE', `/users/${me}`, { token: admin }), 403, 'last_admin');
    const ops = await s.request('POST', '/operations', { token: admin, body: { 'atomic:operations': [{ op: 'remove', ref: { type: 'users', id: me } }] } });
    assert.ok([403, 404].includes(ops.status), ops.text);
    expectError(await s.request('PATCH', `/users/${me}`, { token: admin, body: { data: { id: me, type: 'users', attributes: { blocked: true } } } }), 403, 'last_admin');
    expectError(await s.request('PATCH', `/users/${me}`, { token: admin, body: { data: { id: me, type: 'users', attributes: { status: 'off' } } } }), 403, 'last_admin');
    const still = await s.request('GET', `/users/${me}`, { token: admin });
    assert.equal(still.status, 200);
    assert.equal(still.body.data.attributes.status, 'on');
    assert.equal(still.body.data.attributes.blocked, false);
  });

  test('a locked user and a locked document answer the same 403 object_locked; unlock and change in one PATCH works', async () => {
    const u = await s.request('POST', '/users', { token: admin, body: { data: { type: 'users', attributes: { username: 'locky', password: 'locky-secret-1' }, meta: { locked: true } } } });
    assert.equal(u.status, 201, u.text);
    const uid = u.body.data.id;
    const d = await s.request('POST', '/documents', { token: admin, body: { data: { type: 'documents', attributes: { title: 'Locked' }, meta: { locked: true } } } });
    const did = d.body.data.id;
    for (const [type, id] of [['users', uid], ['documents', did]]) {
      expectError(await s.request('PATCH', `/${type}/${id}`, { token: admin, body: { data: { id, type, attributes: { status: 'off' } } } }), 403, 'object_locked');
      expectError(await s.request('PATCH', `/${type}/${id}`, { token: admin, body: { data: { id, type, attributes: { uname: 'new-name' } } } }), 403, 'object_locked');
      expectError(await s.request('DELETE', `/${type}/${id}`, { token: admin }), 403, 'object_locked');
      expectError(await s.request('DELETE', `/objects/${id}`, { token: admin }), 403, 'object_locked');
      const both = await s.request('PATCH', `/${type}/${id}`, { token: admin, body: { data: { id, type, attributes: { status: 'draft' }, meta: { locked: false } } } });
      assert.equal(both.status, 200, both.text);
      assert.equal(both.body.data.attributes.status, 'draft');
      assert.equal(both.body.data.meta.locked, false);
    }
  });

  test('trashing a user through /objects ends its sessions like /users does', async () => {
    await s.request('POST', '/users', { token: admin, body: { data: { type: 'users', attributes: { username: 'gone', password: 'gone-secret-1' } } } });
    const session = await s.login('gone', 'gone-secret-1');
    const id = (await s.request('GET', '/auth/user', { token: session.jwt })).body.data.id;
    assert.equal((await s.request('DELETE', `/objects/${id}`, { token: admin })).status, 204);
    assert.equal((await s.request('GET', '/auth/user', { token: session.jwt })).status, 401);
    const renew = await s.request('POST', '/auth', { headers: { Authorization: `Bearer ${session.renew}`, 'Content-Type': 'application/json' }, body: {} });
    assert.equal(renew.status, 401);
  });
});

describe('caches follow every write', () => {
  let s: TestServer;
  let admin: string;
  before(async () => {
    s = await startServer();
    admin = await s.adminToken();
  });
  after(() => s.close());

  test('a write that returns rows outside a transaction (insert/update … returning) invalidates cached answers', async () => {
    const r = await s.request('POST', '/documents', { token: admin, body: { data: { type: 'documents', attributes: { title: 'Cached', status: 'on' } } } });
    const id = Number(r.body.data.id);
    assert.equal((await s.request('GET', `/documents/${id}`)).body.data.attributes.title, 'Cached');
    assert.equal((await s.request('GET', `/documents/${id}`)).body.data.attributes.title, 'Cached', 'second read (from the cache)');
    const before = await s.server.ctx.dataVersion.refresh();
    await s.server.ctx.db.updateTable('objects').set({ title: 'Changed behind' }).where('id', '=', id).returning('id').execute();
    assert.notEqual(await s.server.ctx.dataVersion.refresh(), before);
    assert.equal((await s.request('GET', `/documents/${id}`)).body.data.attributes.title, 'Changed behind');
  });

  test('a model change invalidates cached object answers (a new property shows at once)', async () => {
    const r = await s.request('POST', '/documents', { token: admin, body: { data: { type: 'documents', attributes: { title: 'Model', status: 'on' } } } });
    const id = r.body.data.id;
    await s.request('GET', `/documents/${id}`);
    const p = await s.request('POST', '/model/properties', {
      token: admin,
      body: { data: { type: 'properties', attributes: { name: 'mood', property_type_name: 'string', object_type_name: 'documents' } } },
    });
    assert.equal(p.status, 201, p.text);
    const again = await s.request('GET', `/documents/${id}`);
    assert.ok('mood' in again.body.data.attributes, 'the cached answer from before the model change is not served');
  });

  test('two servers in one process share no caches or model', async () => {
    const other = await startServer();
    try {
      const p = await s.request('POST', '/model/properties', {
        token: admin,
        body: { data: { type: 'properties', attributes: { name: 'only_here', property_type_name: 'string', object_type_name: 'documents' } } },
      });
      assert.equal(p.status, 201, p.text);
      const here = await s.request('POST', '/documents', { token: admin, body: { data: { type: 'documents', attributes: { title: 'A', only_here: 'x' } } } });
      assert.equal(here.status, 201, here.text);
      const there = await other.request('POST', '/documents', { token: await other.adminToken(), body: { data: { type: 'documents', attributes: { title: 'B', only_here: 'x' } } } });
      expectError(there, 400, 'unknown_attribute');
      // A token of one server is not accepted by the other (its own secret and token cache).
      assert.equal((await other.request('GET', '/auth/user', { token: admin })).status, 401);
      assert.notEqual(s.server.ctx.tokens, other.server.ctx.tokens);
      assert.notEqual(s.server.ctx.schemas, other.server.ctx.schemas);
    } finally {
      await other.close();
    }
  });
});
