// The one write pipeline and the one read path: every entry point that writes objects reaches the
// pipeline's hook points (write guards, observers in the transaction and after the commit), the
// type rules hold on every path (the last admin, locks), and caches follow every write.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { forbidden } from '../src/http/errors.js';
import type { ObjectChange } from '../src/resources/objects/changes.js';
import { tinyPng } from './helpers/fixtures.js';
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
    // A test observer and guard among the kernel's parts (as history, webhooks and permissions
    // are): the real server, the real hooks.
    s = await startServer({}, {}, {
      kernel: {
        observers: [
          {
            name: 'test',
            async record(_trx, changes) {
              if (failRecord) throw new Error('the test observer fails');
              recorded.push(...changes);
            },
            afterCommit(changes) {
              committed.push(...changes);
            },
          },
        ],
        guards: [
          ({ action, type, row }) => {
            if (refuse?.({ action, type: type.name, id: row?.id })) {
              throw forbidden('Refused by the test guard');
            }
          },
        ],
      },
    });
    admin = await s.adminToken();
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

    // A legacy write of terms alone, and a stream linked to a media object.
    mark = committed.length;
    const terms = await s.request('POST', '/objects', { token: admin, body: { data: { id: legacyId, tags: ['Pipeline'] } }, headers: { Accept: LEGACY, 'Content-Type': 'application/json' } });
    assert.equal(terms.status, 200, terms.text);
    assert.deepEqual(since(mark), [['update', 'documents', legacyId]]);
    const image = await s.request('POST', '/images', { token: admin, body: { data: { type: 'images', attributes: { title: 'Linked later' } } } });
    const file = await s.request('POST', '/streams/upload/pixel.png', { token: admin, raw: await tinyPng(4), headers: { 'Content-Type': 'image/png' } });
    mark = committed.length;
    const link = await s.request('PATCH', `/streams/${file.body.data.id}/relationships/object`, { token: admin, body: { data: { type: 'images', id: image.body.data.id } } });
    assert.equal(link.status, 200, link.text);
    assert.deepEqual(since(mark), [['update', 'images', Number(image.body.data.id)]]);
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
    const place = async (folder: string, child: { type: string; id: string }) =>
      assert.equal((await s.request('POST', `/folders/${folder}/relationships/children`, { token: admin, body: { data: [child] } })).status, 200);
    await place(pub, { type: 'documents', id: String(id) });
    // A section under it whose children the guard refuses to change, and a document to place there.
    const section = await s.request('POST', '/folders', {
      token: admin,
      body: { data: { type: 'folders', attributes: { title: 'Guarded section', status: 'on' }, relationships: { parent: { data: { type: 'folders', id: pub } } } } },
    });
    assert.equal(section.status, 201, section.text);
    const sectionId = Number(section.body.data.id);
    const loose = await create({ title: 'Loose' });
    await place(pub, { type: 'documents', id: String(loose) });
    // An image without a file, and a file not linked to any object yet.
    const image = await s.request('POST', '/images', { token: admin, body: { data: { type: 'images', attributes: { title: 'Guarded image' } } } });
    assert.equal(image.status, 201, image.text);
    const imageId = Number(image.body.data.id);
    const file = await s.request('POST', '/streams/upload/pixel.png', { token: admin, raw: await tinyPng(3), headers: { 'Content-Type': 'image/png' } });
    assert.equal(file.status, 201, file.text);
    const uuid = file.body.data.id;

    refuse = ({ action, type, id: target }) =>
      (type === 'documents' && (action === 'update' || action === 'delete') && target === id) ||
      (type === 'folders' && action === 'update' && target === sectionId) ||
      (type === 'images' && action === 'update' && target === imageId);
    const legacy = (path: string, data: unknown) => s.request('POST', path, { token: admin, body: { data }, headers: { Accept: LEGACY, 'Content-Type': 'application/json' } });
    const refused = (res: { status: number; text: string }, where: string) => assert.equal(res.status, 403, `${where}: ${res.text}`);
    try {
      refused(await s.request('PATCH', `/documents/${id}`, { token: admin, body: { data: { id: String(id), type: 'documents', attributes: { title: 'No' } } } }), 'PATCH /documents');
      refused(await s.request('POST', `/documents/${id}/relationships/see_also`, { token: admin, body: { data: [{ type: 'documents', id: String(loose) }] } }), 'a relationship');
      const ops = (op: Record<string, unknown>) => s.request('POST', '/operations', { token: admin, body: { 'atomic:operations': [op] } });
      refused(await ops({ op: 'update', ref: { type: 'documents', id: String(id) }, data: { type: 'documents', id: String(id), attributes: { title: 'No' } } }), '/operations update');
      refused(await ops({ op: 'remove', ref: { type: 'documents', id: String(id) } }), '/operations remove');
      refused(await ops({ op: 'add', ref: { type: 'documents', id: String(id), relationship: 'see_also' }, data: [{ type: 'documents', id: String(loose) }] }), '/operations relationship');
      refused(await legacy('/objects', { id, title: 'No' }), 'legacy attributes');
      // Legacy writes of terms alone: no attribute, still an update of the object.
      refused(await legacy('/objects', { id, categories: ['Culture'] }), 'legacy categories only');
      refused(await legacy('/objects', { id, tags: ['Hot'] }), 'legacy tags only');
      refused(await legacy(`/objects/${id}/relations/see_also`, [{ related_id: loose }]), 'legacy relation');
      // Folder children: an update of the folder.
      refused(await s.request('POST', `/folders/${sectionId}/relationships/children`, { token: admin, body: { data: [{ type: 'documents', id: String(loose) }] } }), 'folder children');
      refused(await legacy(`/objects/${sectionId}/children`, [{ child_id: loose }]), 'legacy children');
      // Stream links: an update of the media object.
      refused(await s.request('PATCH', `/streams/${uuid}/relationships/object`, { token: admin, body: { data: { type: 'images', id: String(imageId) } } }), 'stream link');
    } finally {
      refuse = null;
    }
    const now = await s.request('GET', `/documents/${id}`, { token: admin });
    assert.equal(now.body.data.attributes.title, 'Guarded');
    assert.equal(now.body.data.meta.deleted ?? false, false);
    assert.deepEqual((await s.request('GET', `/documents/${id}/see_also`, { token: admin })).body.data, []);
    const legacyRead = await s.request('GET', `/objects/${id}`, { token: admin, headers: { Accept: LEGACY } });
    assert.equal(legacyRead.status, 200, legacyRead.text);
    assert.deepEqual([legacyRead.body.data.object.categories ?? [], legacyRead.body.data.object.tags ?? []], [[], []], 'no terms written');
    assert.deepEqual((await s.request('GET', `/folders/${sectionId}/children`, { token: admin })).body.data, []);
    assert.deepEqual((await s.request('GET', `/streams/${uuid}`, { token: admin })).body.data.relationships?.object?.data ?? null, null, 'the stream is still unlinked');

    // The same writes pass once the guard lets them (so each refusal above was the guard's).
    assert.equal((await legacy('/objects', { id, categories: ['Culture'] })).status, 200);
    assert.equal((await s.request('POST', `/folders/${sectionId}/relationships/children`, { token: admin, body: { data: [{ type: 'documents', id: String(loose) }] } })).status, 200);
    assert.equal((await s.request('PATCH', `/streams/${uuid}/relationships/object`, { token: admin, body: { data: { type: 'images', id: String(imageId) } } })).status, 200);
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

  test('the last admin cannot be trashed, blocked, switched off or lose the admin role through any path that reaches users (403 last_admin)', async () => {
    const me = (await s.request('GET', '/auth/user', { token: admin })).body.data.id;
    const json = { 'Content-Type': 'application/json' };
    expectError(await s.request('DELETE', `/objects/${me}`, { token: admin }), 403, 'last_admin');
    expectError(await s.request('DELETE', `/users/${me}`, { token: admin }), 403, 'last_admin');
    expectError(await s.request('PATCH', `/users/${me}`, { token: admin, body: { data: { id: me, type: 'users', attributes: { blocked: true } } } }), 403, 'last_admin');
    expectError(await s.request('PATCH', `/users/${me}`, { token: admin, body: { data: { id: me, type: 'users', attributes: { status: 'off' } } } }), 403, 'last_admin');
    expectError(await s.request('DELETE', `/users/${me}/relationships/roles`, { token: admin, body: { data: [{ type: 'roles', id: '1' }] } }), 403, 'last_admin');
    expectError(await s.request('POST', '/auth/optout', { headers: json, body: { username: 'admin', password: 'admin-secret-1' } }), 403, 'last_admin');
    const still = await s.request('GET', `/users/${me}?include=roles`, { token: admin });
    assert.equal(still.status, 200);
    assert.equal(still.body.data.attributes.status, 'on');
    assert.equal(still.body.data.attributes.blocked, false);
    assert.deepEqual(still.body.included.map((r: { attributes: { name: string } }) => r.attributes.name), ['admin']);
  });

  test('/operations and the legacy writer do not write users at all: refused before any rule runs, under any type name', async () => {
    const me = (await s.request('GET', '/auth/user', { token: admin })).body.data.id;
    const ops = (op: Record<string, unknown>) => s.request('POST', '/operations', { token: admin, body: { 'atomic:operations': [op] } });
    expectError(await ops({ op: 'remove', ref: { type: 'users', id: me } }), 404, 'unknown_type');
    expectError(await ops({ op: 'update', ref: { type: 'users', id: me }, data: { type: 'users', id: me, attributes: { status: 'off' } } }), 404, 'unknown_type');
    expectError(await ops({ op: 'add', data: { type: 'users', attributes: { username: 'via-ops', password: 'via-ops-secret-1' } } }), 404, 'unknown_type');
    // A user's id under another type is no object of that type.
    expectError(await ops({ op: 'remove', ref: { type: 'documents', id: me } }), 404);
    expectError(await ops({ op: 'remove', ref: { type: 'objects', id: me } }), 404);
    // The legacy writer reaches only what is on the publication tree (or related to it), which
    // users never are; its type check (every type but users) comes after.
    const root = await s.request('POST', '/folders', { token: admin, body: { data: { type: 'folders', attributes: { title: 'Publication', status: 'on' } } } });
    assert.equal(root.status, 201, root.text);
    const legacy = await s.request('POST', '/objects', { token: admin, body: { data: { id: Number(me), status: 'off' } }, headers: { Accept: LEGACY, 'Content-Type': 'application/json' } });
    assert.equal(legacy.status, 404, legacy.text);
    assert.equal((await s.request('GET', `/users/${me}`, { token: admin })).body.data.attributes.status, 'on');
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
      const there = await other.request('POST', '/documents', { token: await other.adminToken(), headers: { Prefer: 'handling=strict' }, body: { data: { type: 'documents', attributes: { title: 'B', only_here: 'x' } } } });
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
