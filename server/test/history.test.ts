// History: every kind of object write from every entry point (JSON API, /users, folders,
// relationships, the legacy layout, /operations) leaves one entry written in the write's own
// transaction; /history and /{type}/{id}/history with their filters, sorting, paging and
// visibility; restoring a version writes the object back as a new entry.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { connectOutside, type OutsideConnection } from './helpers/outside.js';
import { createUser, tinyPng } from './helpers/fixtures.js';
import { expectError, startServer, type TestServer } from './helpers/server.js';

const LEGACY = 'application/json, text/javascript';
const ATOMIC = 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"';

interface Entry {
  id: string;
  type: string;
  attributes: {
    resource_id: string;
    resource_type: string;
    user_id: number | null;
    application_id: number | null;
    user_action: string;
    changed: Record<string, unknown>;
    created: string;
  };
  meta: { object_type: string; username: string | null; before?: Record<string, unknown> | null };
  links: { self: string };
}

const doc = (attributes: Record<string, unknown>) => ({ data: { type: 'documents', attributes } });

describe('history of object writes', () => {
  let s: TestServer;
  let admin: string;
  let adminId: number;
  let editor: { id: string; jwt: string };
  let db: OutsideConnection;
  /** The first root folder: the legacy layout's publication. */
  let siteId: string;

  /** The entries of an object as an admin reads them (every page). */
  const historyOf = async (id: string | number, token = admin): Promise<Entry[]> => {
    const res = await s.request('GET', `/objects/${id}/history?page_size=100`, { token });
    assert.equal(res.status, 200, res.text);
    return res.body.data;
  };
  const actions = (entries: Entry[]) => entries.map((e) => [e.attributes.user_action, e.attributes.changed]);
  const countEntries = async () => Number((await db.all<{ n: number }>('select count(*) as n from history'))[0].n);
  const create = async (attributes: Record<string, unknown>, token = admin) => {
    const res = await s.request('POST', '/documents', { token, body: doc(attributes) });
    assert.equal(res.status, 201, res.text);
    return res.body.data.id as string;
  };
  const patch = async (id: string, attributes: Record<string, unknown>, token = admin, type = 'documents') => {
    const res = await s.request('PATCH', `/${type}/${id}`, { token, body: { data: { id, type, attributes } } });
    assert.equal(res.status, 200, res.text);
    return res.body.data;
  };

  before(async () => {
    // Signup on: an anonymous signup is one of the writes recorded.
    s = await startServer({ FOLIO_SIGNUP: 'on' });
    admin = await s.adminToken();
    adminId = Number((await s.request('GET', '/auth', { token: admin })).body.data.id);
    editor = await createUser(s, admin, { username: 'editor', password: 'editor-secret-1' });
    // An editor with every right on objects (but no admin): reads drafts, writes documents.
    const role = await s.request('POST', '/roles', {
      token: admin,
      body: { data: { type: 'roles', attributes: { name: 'writers', permissions: { '*': ['read', 'create', 'update', 'delete', 'publish'] } } } },
    });
    assert.equal(role.status, 201, role.text);
    const member = await s.request('POST', `/roles/${role.body.data.id}/relationships/users`, { token: admin, body: { data: [{ type: 'users', id: editor.id }] } });
    assert.ok(member.status < 300, member.text);
    editor.jwt = (await s.login('editor', 'editor-secret-1')).jwt;
    const site = await s.request('POST', '/folders', { token: admin, body: { data: { type: 'folders', attributes: { title: 'Site', status: 'on' } } } });
    siteId = site.body.data.id;
    db = await connectOutside(s, { readonly: true });
  });
  after(async () => {
    await db.close();
    await s.close();
  });

  test('JSON API create, update, trash, restore and purge each leave one entry, oldest first', async () => {
    const id = await create({ title: 'First title', body: 'Some text', status: 'draft' });
    await patch(id, { title: 'Second title', description: 'Added' });
    await patch(id, { title: 'Second title' }); // changes nothing: no entry
    assert.equal((await s.request('DELETE', `/documents/${id}`, { token: admin })).status, 204);
    assert.equal((await s.request('PATCH', `/trash/${id}`, { token: admin, body: { data: { id, type: 'objects' } } })).status, 204);
    let entries = await historyOf(id);
    assert.deepEqual(actions(entries), [
      ['create', { title: 'First title', body: 'Some text', status: 'draft', uname: 'first-title' }],
      ['update', { title: 'Second title', description: 'Added' }],
      ['trash', { deleted: true }],
      ['restore', { deleted: false }],
    ]);
    const first = entries[0];
    assert.equal(first.type, 'history');
    assert.deepEqual(Object.keys(first.attributes).sort(), ['application_id', 'changed', 'created', 'resource_id', 'resource_type', 'user_action', 'user_id']);
    assert.equal(first.attributes.resource_id, id);
    assert.equal(first.attributes.resource_type, 'objects');
    assert.equal(first.attributes.user_id, adminId);
    assert.equal(first.attributes.application_id, null);
    assert.match(first.attributes.created, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
    assert.equal(first.meta.object_type, 'documents');
    assert.equal(first.meta.username, 'admin');
    assert.equal(first.links.self, `${s.url}/history/${first.id}`);
    // The values before each change, folded from the earlier entries.
    assert.equal(entries[0].meta.before, null);
    assert.deepEqual(entries[1].meta.before, { title: 'First title', description: null });
    assert.deepEqual(entries[2].meta.before, { deleted: false });
    assert.deepEqual(entries[3].meta.before, { deleted: true });
    // The typed path answers the same.
    const typed = await s.request('GET', `/documents/${id}/history`, { token: admin });
    assert.deepEqual(typed.body.data, entries);

    // Purge: the object is gone, its history stays (for admins, in /history).
    assert.equal((await s.request('DELETE', `/documents/${id}`, { token: admin })).status, 204);
    assert.equal((await s.request('DELETE', `/trash/${id}`, { token: admin })).status, 204);
    expectError(await s.request('GET', `/objects/${id}/history`, { token: admin }), 404);
    const all = await s.request('GET', `/history?filter[resource_id]=${id}`, { token: admin });
    assert.deepEqual(all.body.data.map((e: Entry) => e.attributes.user_action), ['create', 'update', 'trash', 'restore', 'trash', 'remove']);
    assert.deepEqual(all.body.data.at(-1).attributes.changed, {});
  });

  test('/users create and update are recorded without any password', async () => {
    const created = await s.request('POST', '/users', {
      token: admin,
      body: { data: { type: 'users', attributes: { username: 'writer', password: 'writer-secret-1', email: 'writer@example.com', name: 'Wri' } } },
    });
    assert.equal(created.status, 201, created.text);
    const id = created.body.data.id;
    await patch(id, { name: 'Writer', password: 'another-secret-2' }, admin, 'users');
    await patch(id, { password: 'third-secret-3' }, admin, 'users');
    const entries = await historyOf(id);
    assert.equal(entries[0].attributes.user_action, 'create');
    assert.equal(entries[0].meta.object_type, 'users');
    assert.equal(entries[0].attributes.changed.username, 'writer');
    assert.equal(entries[0].attributes.changed.email, 'writer@example.com');
    // A password change is recorded as such, never with the password.
    assert.deepEqual(actions(entries.slice(1)), [
      ['update', { name: 'Writer', credentials_changed: true }],
      ['update', { credentials_changed: true }],
    ]);
    const typed = await s.request('GET', `/users/${id}/history`, { token: admin });
    assert.deepEqual(typed.body.data, entries);
    // An anonymous signup is a create with no user.
    const signup = await s.request('POST', '/signup', {
      headers: { 'Content-Type': 'application/json' },
      body: { username: 'newcomer', password: 'newcomer-secret-1', email: 'newcomer@example.com', activation_url: 'http://127.0.0.1:9/activate' },
    });
    assert.equal(signup.status, 202, signup.text);
    const [joined] = await historyOf(signup.body.data.id);
    assert.equal(joined.attributes.user_action, 'create');
    assert.equal(joined.attributes.user_id, null);
    assert.equal(joined.meta.username, null);
    assert.equal(joined.attributes.changed.username, 'newcomer');
    // Nowhere in the table: neither the passwords nor their hashes.
    const texts = (await db.all<{ changed: string }>('select changed from history')).map((r) => r.changed).join('\n');
    for (const secret of ['writer-secret-1', 'another-secret-2', 'third-secret-3', 'newcomer-secret-1', 'password', '$argon2', '$2b$', 'scrypt']) {
      assert.ok(!texts.includes(secret), `history holds "${secret}"`);
    }
  });

  test('relationship writes and folder placements are updates naming the related ids', async () => {
    const a = await create({ title: 'Rel A' });
    const b = await create({ title: 'Rel B' });
    const folder = await s.request('POST', '/folders', { token: admin, body: { data: { type: 'folders', attributes: { title: 'History folder' } } } });
    const folderId = folder.body.data.id;
    let res = await s.request('POST', `/documents/${a}/relationships/see_also`, { token: admin, body: { data: [{ type: 'documents', id: b }] } });
    assert.equal(res.status, 200, res.text);
    res = await s.request('POST', `/documents/${a}/relationships/parents`, { token: admin, body: { data: [{ type: 'folders', id: folderId }] } });
    assert.equal(res.status, 200, res.text);
    res = await s.request('DELETE', `/folders/${folderId}/relationships/children`, { token: admin, body: { data: [{ type: 'documents', id: a }] } });
    assert.equal(res.status, 204, res.text);
    assert.deepEqual(actions((await historyOf(a)).slice(1)), [
      ['update', { see_also: [b] }],
      ['update', { parents: [folderId] }],
      ['update', { parents: [] }],
    ]);
  });

  test('trashing a folder records the trash of each sub-folder it takes along (one row each)', async () => {
    const mk = async (title: string, parent?: string) => {
      const res = await s.request('POST', '/folders', {
        token: admin,
        body: { data: { type: 'folders', attributes: { title }, ...(parent ? { relationships: { parent: { data: { type: 'folders', id: parent } } } } : {}) } },
      });
      assert.equal(res.status, 201, res.text);
      return res.body.data.id as string;
    };
    const top = await mk('Top');
    const subs = [await mk('Sub 1', top), await mk('Sub 2', top), await mk('Sub 3', top)];
    const before = await countEntries();
    assert.equal((await s.request('DELETE', `/folders/${top}`, { token: admin })).status, 204);
    assert.equal(await countEntries(), before + 4);
    for (const id of [top, ...subs]) assert.deepEqual(actions((await historyOf(id)).slice(-1)), [['trash', { deleted: true }]]);
  });

  test('a one-step upload is a create; linking and unlinking a stream are updates naming it', async () => {
    const png = await tinyPng(3);
    const up = await s.request('POST', '/images/upload/pixel.png', { token: admin, raw: png, headers: { 'Content-Type': 'image/png' } });
    assert.equal(up.status, 201, up.text);
    const imageId = up.body.data.id;
    const [made] = await historyOf(imageId);
    assert.equal(made.attributes.user_action, 'create');
    assert.equal(made.meta.object_type, 'images');
    assert.equal(made.attributes.changed.title, 'pixel.png');

    const stream = await s.request('POST', '/streams/upload/other.png', { token: admin, raw: await tinyPng(4), headers: { 'Content-Type': 'image/png' } });
    assert.equal(stream.status, 201, stream.text);
    const uuid = stream.body.data.id;
    const image = await s.request('POST', '/images', { token: admin, body: { data: { type: 'images', attributes: { title: 'Linked later' } } } });
    const id = image.body.data.id;
    const link = (data: unknown) => s.request('PATCH', `/streams/${uuid}/relationships/object`, { token: admin, body: { data } });
    assert.equal((await link({ type: 'images', id })).status, 200);
    assert.equal((await link(null)).status, 200);
    assert.deepEqual(actions((await historyOf(id)).slice(1)), [
      ['update', { stream: uuid }],
      ['update', { stream: null }],
    ]);
  });

  test('legacy creates and updates (Accept: application/json, text/javascript) are recorded', async () => {
    const headers = { Accept: LEGACY, 'Content-Type': 'application/json' };
    const made = await s.request('POST', '/objects', { token: admin, headers, body: { data: { object_type: 'document', title: 'Legacy doc', status: 'on', parents: [Number(siteId)] } } });
    assert.equal(made.status, 201, made.text);
    const id = made.body.data.object.id;
    const upd = await s.request('POST', '/objects', { token: admin, headers, body: { data: { id, description: 'Legacy text' } } });
    assert.equal(upd.status, 200, upd.text);
    const entries = await historyOf(id);
    assert.equal(entries[0].attributes.user_action, 'create');
    assert.equal(entries[0].attributes.changed.title, 'Legacy doc');
    assert.equal(entries[0].attributes.changed.status, 'on');
    // One command, one entry: the placement is part of the create.
    assert.deepEqual(entries[0].attributes.changed.parents, [siteId], 'the placement');
    const last = entries.at(-1)!;
    assert.deepEqual(actions([last]), [['update', { description: 'Legacy text' }]]);
    assert.ok(entries.every((e) => e.attributes.user_id === adminId));
  });

  test('/operations records each operation; a rolled-back request records nothing', async () => {
    const existing = await create({ title: 'Op target' });
    const res = await s.request('POST', '/operations', {
      token: admin,
      headers: { 'Content-Type': ATOMIC, Accept: ATOMIC },
      body: {
        'atomic:operations': [
          { op: 'add', data: { type: 'documents', lid: 'n', attributes: { title: 'Op new' } } },
          { op: 'update', data: { type: 'documents', id: existing, attributes: { title: 'Op renamed' } } },
          { op: 'remove', ref: { type: 'documents', id: existing } },
        ],
      },
    });
    assert.equal(res.status, 200, res.text);
    const newId = res.body['atomic:results'][0].data.id;
    assert.deepEqual(actions(await historyOf(newId)), [['create', { title: 'Op new', status: 'draft', uname: 'op-new' }]]);
    assert.deepEqual(actions((await historyOf(existing)).slice(1)), [
      ['update', { title: 'Op renamed' }],
      ['trash', { deleted: true }],
    ]);

    const before = await countEntries();
    const failed = await s.request('POST', '/operations', {
      token: admin,
      headers: { 'Content-Type': ATOMIC, Accept: ATOMIC, Prefer: 'handling=strict' },
      body: { 'atomic:operations': [{ op: 'add', data: { type: 'documents', attributes: { title: 'Never' } } }, { op: 'add', data: { type: 'documents', attributes: { nonsense: 1 } } }] },
    });
    expectError(failed, 400);
    assert.equal(await countEntries(), before, 'no entry of a rolled-back write');
    assert.equal(Number((await db.all<{ n: number }>(`select count(*) as n from history where changed like '%Never%'`))[0].n), 0);
  });

  test('writes through an API key record the application', async () => {
    const appRes = await s.request('POST', '/applications', { token: admin, body: { data: { type: 'applications', attributes: { name: 'Site builder' } } } });
    assert.equal(appRes.status, 201, appRes.text);
    const res = await s.request('POST', '/documents', { token: admin, headers: { 'X-Api-Key': appRes.body.data.meta.api_key }, body: doc({ title: 'Through an app' }) });
    assert.equal(res.status, 201, res.text);
    const [entry] = await historyOf(res.body.data.id);
    assert.equal(entry.attributes.application_id, Number(appRes.body.data.id));
    assert.equal(entry.attributes.user_id, adminId);
  });

  test('GET /history filters, sorts and pages; anything unknown gives 400', async () => {
    const id = await create({ title: 'Filtered' }, editor.jwt);
    await patch(id, { title: 'Filtered 2' }, editor.jwt);
    await patch(id, { title: 'Filtered 3' });
    const get = (q: string) => s.request('GET', `/history?${q}`, { token: admin });

    let res = await get(`filter[resource_id]=${id}`);
    assert.deepEqual(res.body.data.map((e: Entry) => e.attributes.user_action), ['create', 'update', 'update']);
    res = await get(`filter[resource_id]=${id}&filter[user_id]=${editor.id}`);
    assert.deepEqual(res.body.data.map((e: Entry) => [e.attributes.user_action, e.meta.username]), [['create', 'editor'], ['update', 'editor']]);
    res = await get(`filter[resource_id]=${id}&filter[user_action]=update`);
    assert.equal(res.body.meta.pagination.count, 2);
    res = await get(`filter[resource_id]=${id}&filter[user_action][]=create&filter[user_action][]=update&sort=-id`);
    const ids = res.body.data.map((e: Entry) => Number(e.id));
    assert.deepEqual(ids, [...ids].sort((x, y) => y - x));
    assert.equal(ids.length, 3);

    // Paging over everything, oldest first by default.
    const total = await countEntries();
    res = await get('page_size=2&page=2');
    assert.equal(res.status, 200);
    assert.equal(res.body.meta.pagination.count, total);
    assert.equal(res.body.meta.pagination.page_size, 2);
    assert.equal(res.body.data.length, 2);
    const firstPage = await get('page_size=2');
    assert.ok(Number(firstPage.body.data[1].id) < Number(res.body.data[0].id));
    assert.match(res.body.links.next, /page=3/);
    res = await get('page=999');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data, []);
    res = await get('sort=-created,id');
    assert.equal(res.status, 200);

    expectError(await get('filter[title]=x'), 400, 'invalid_filter');
    expectError(await get('filter[user_action]=delete'), 400, 'invalid_filter');
    expectError(await get('filter[resource_id]=abc'), 400, 'invalid_filter');
    expectError(await get('sort=changed'), 400, 'invalid_sort');
    // Over the maximum is answered as the maximum (BEdita 5 does so).
    assert.equal((await get('page_size=101')).body.meta.pagination.page_size, 100);
    expectError(await get('page=0'), 400, 'invalid_pagination');
    expectError(await s.request('GET', `/objects/${id}/history?filter[resource_id]=1`, { token: admin }), 400, 'invalid_filter');
    const single = await s.request('GET', `/history/${res.body.data?.[0]?.id ?? firstPage.body.data[0].id}`, { token: admin });
    assert.equal(single.status, 200);
    assert.equal(single.body.data.type, 'history');
    expectError(await s.request('GET', '/history/99999999', { token: admin }), 404);
  });

  test('who may read: /history admins only; object history signed-in readers; trashed objects admins only', async () => {
    const id = await create({ title: 'Visible draft' });
    expectError(await s.request('GET', '/history'), 401);
    expectError(await s.request('GET', '/history', { token: editor.jwt }), 403);
    expectError(await s.request('GET', `/history/1`, { token: editor.jwt }), 403);
    expectError(await s.request('GET', `/objects/${id}/history`), 401);
    expectError(await s.request('GET', `/documents/${id}/history`), 401);
    const mine = await s.request('GET', `/documents/${id}/history`, { token: editor.jwt });
    assert.equal(mine.status, 200, mine.text);
    assert.equal(mine.body.data.length, 1);
    expectError(await s.request('GET', `/events/${id}/history`, { token: admin }), 404);
    expectError(await s.request('GET', `/objects/99999999/history`, { token: admin }), 404);

    assert.equal((await s.request('DELETE', `/documents/${id}`, { token: admin })).status, 204);
    expectError(await s.request('GET', `/documents/${id}/history`, { token: editor.jwt }), 404);
    expectError(await s.request('GET', `/objects/${id}/history`, { token: editor.jwt }), 404);
    const trashed = await s.request('GET', `/documents/${id}/history`, { token: admin });
    assert.equal(trashed.status, 200);
    assert.deepEqual(trashed.body.data.map((e: Entry) => e.attributes.user_action), ['create', 'trash']);
  });

  test('/{type}/{id}/history wins over relations; no relation may be named history', async () => {
    const res = await s.request('POST', '/model/relations', {
      token: admin,
      body: { data: { type: 'relations', attributes: { name: 'history', inverse_name: 'history_of', description: 'x' } } },
    });
    expectError(res, 400, 'invalid_name');
    const typeRes = await s.request('POST', '/model/object_types', { token: admin, body: { data: { type: 'object_types', attributes: { name: 'history' } } } });
    expectError(typeRes, 400, 'invalid_name');
  });

  test('restoring a version writes the attributes back as a new entry', async () => {
    const id = await create({ title: 'Version one', body: 'Body one', status: 'draft' });
    await patch(id, { title: 'Version two', description: 'Described', extra: { n: 2 } });
    const b = await create({ title: 'Related' });
    await s.request('POST', `/documents/${id}/relationships/see_also`, { token: admin, body: { data: [{ type: 'documents', id: b }] } });
    await patch(id, { title: 'Version three', body: null, status: 'on' });
    const entries = await historyOf(id);
    assert.equal(entries.length, 4);

    // Back to the first version: fields set later return to unset, relations stay as they are.
    let res = await s.request('POST', `/documents/${id}/history/${entries[0].id}/restore`, { token: admin });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.meta.restored_from, entries[0].id);
    const a = res.body.data.attributes;
    assert.deepEqual([a.title, a.body, a.description, a.extra, a.status], ['Version one', 'Body one', null, null, 'draft']);
    const got = (await s.request('GET', `/documents/${id}`, { token: admin })).body.data.attributes;
    assert.deepEqual([got.title, got.body, got.description, got.extra, got.status], ['Version one', 'Body one', null, null, 'draft']);
    assert.equal((await s.request('GET', `/documents/${id}/see_also`, { token: admin })).body.data.length, 1);
    let after = await historyOf(id);
    assert.equal(after.length, 5);
    assert.deepEqual(actions([after[4]]), [['update', { title: 'Version one', body: 'Body one', description: null, extra: null, status: 'draft' }]]);
    assert.deepEqual(after[4].meta.before, { title: 'Version three', body: null, description: 'Described', extra: { n: 2 }, status: 'on' });

    // Forward again to the second version, through /objects.
    res = await s.request('POST', `/objects/${id}/history/${entries[1].id}/restore`, { token: admin });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual([res.body.data.attributes.title, res.body.data.attributes.description, res.body.data.attributes.extra], ['Version two', 'Described', { n: 2 }]);
    after = await historyOf(id);
    assert.equal(after.length, 6);

    // Errors: an entry of another object, an unknown entry, a trashed object, anonymous, users by non-admins.
    const other = await historyOf(b);
    expectError(await s.request('POST', `/documents/${id}/history/${other[0].id}/restore`, { token: admin }), 400, 'invalid_history_entry');
    expectError(await s.request('POST', `/documents/${id}/history/99999999/restore`, { token: admin }), 404);
    expectError(await s.request('POST', `/documents/${id}/history/x/restore`, { token: admin }), 404);
    expectError(await s.request('POST', `/documents/${id}/history/${entries[0].id}/restore`), 401);
    const users = await historyOf(editor.id);
    expectError(await s.request('POST', `/users/${editor.id}/history/${users[0].id}/restore`, { token: editor.jwt }), 403);
    assert.equal((await s.request('DELETE', `/documents/${id}`, { token: admin })).status, 204);
    expectError(await s.request('POST', `/documents/${id}/history/${entries[0].id}/restore`, { token: admin }), 404);
    assert.equal((await historyOf(id)).length, 7, 'only the trash was added');
  });

  test('restoring a user version by an admin brings profile fields back, never a password', async () => {
    const made = await s.request('POST', '/users', { token: admin, body: { data: { type: 'users', attributes: { username: 'restored', password: 'restored-secret-1', name: 'Old name' } } } });
    const id = made.body.data.id;
    await patch(id, { name: 'New name', surname: 'Added', password: 'restored-secret-2' }, admin, 'users');
    const [first] = await historyOf(id);
    const res = await s.request('POST', `/users/${id}/history/${first.id}/restore`, { token: admin });
    assert.equal(res.status, 200, res.text);
    const user = (await s.request('GET', `/users/${id}`, { token: admin })).body.data.attributes;
    assert.deepEqual([user.name, user.surname], ['Old name', null]);
    await s.login('restored', 'restored-secret-2'); // the password is not part of any version
  });
});
