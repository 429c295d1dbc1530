// Objects: the generic endpoints /{type} and /objects, lists, search, locks, trash.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { expectError, startServer, type TestServer } from './helpers/server.js';
import { aDate, anEtag, anId, anInteger, assertShape } from './helpers/shape.js';
import { createUser, userWithPermissions } from './helpers/users.js';

describe('objects', () => {
  let s: TestServer;
  let admin: string;
  const create = async (type: string, attributes: Record<string, unknown>, token = admin) => {
    const res = await s.request('POST', `/${type}`, { token, body: { data: { type, attributes } } });
    if (res.status !== 201) throw new Error(`create ${type}: ${res.status} ${res.text}`);
    return res.body.data;
  };
  before(async () => {
    s = await startServer();
    admin = await s.adminToken();
  });
  after(() => s.close());

  /** The whole resource of a new document of admin's titled `title` (uname `uname`) at `id`. */
  const documentResource = (id: string, title: string, uname: string) => {
    const self = `${s.url}/documents/${id}`;
    const relation = (name: string) => ({ links: { related: `${self}/${name}`, self: `${self}/relationships/${name}` } });
    return {
      id,
      type: 'documents',
      attributes: { status: 'draft', uname, title, description: null, body: null, lang: null, extra: null, publish_start: null, publish_end: null },
      meta: { locked: false, created: aDate, modified: aDate, published: null, created_by: 1, modified_by: 1, categories: [], tags: [], geo_tags: [], date_items: [] },
      links: { self },
      relationships: {
        poster: relation('poster'),
        attach: relation('attach'),
        see_also: relation('see_also'),
        seen_also_by: relation('seen_also_by'),
        parents: { ...relation('parents'), data: [] },
        translations: relation('translations'),
      },
    };
  };

  test('POST /documents answers 201 with Location, an ETag and the whole document: a uname from the title, null for unset strings', async () => {
    const res = await s.request('POST', '/documents', { token: admin, body: { data: { type: 'documents', attributes: { title: 'Hello World' } } } });
    assert.equal(res.status, 201);
    const id = res.body.data.id;
    assertShape(id, anId);
    assert.equal(res.headers.get('location'), `${s.url}/documents/${id}`);
    assertShape(res.headers.get('etag'), anEtag);
    assertShape(res.body, { data: documentResource(id, 'Hello World', 'hello-world'), links: { self: `${s.url}/documents`, home: `${s.url}/home` } });
  });

  test('a list and a 404 are whole documents: data, links with pagination, meta with schema and pagination; error and links', async () => {
    const d = await create('documents', { title: 'Listed whole', uname: 'listed-whole' });
    const list = await s.request('GET', '/documents?filter[uname]=listed-whole&page_size=5', { token: admin });
    assert.equal(list.status, 200, list.text);
    const self = `${s.url}/documents?filter[uname]=listed-whole&page_size=5`;
    const page = (n: number) => `${s.url}/documents?filter%5Buname%5D=listed-whole&page_size=5&page=${n}`;
    assertShape(list.body, {
      data: [documentResource(d.id, 'Listed whole', 'listed-whole')],
      links: { self, home: `${s.url}/home`, first: page(1), last: page(1), prev: null, next: null },
      meta: {
        schema: { documents: { $id: `${s.url}/model/schema/documents`, revision: anInteger } },
        pagination: { count: 1, page: 1, page_count: 1, page_items: 1, page_size: 5 },
      },
    });
    const missing = await s.request('GET', '/documents/999999', { token: admin });
    assert.equal(missing.status, 404);
    assertShape(missing.body, {
      error: { status: '404', title: 'Not Found', code: 'not_found', detail: 'No documents "999999"' },
      links: { self: `${s.url}/documents/999999`, home: `${s.url}/home` },
    });
  });

  test('a uname already taken, trashed objects included, gets a -2, -3 suffix', async () => {
    const a = await create('documents', { title: 'Same', uname: 'same-name' });
    await s.request('DELETE', `/documents/${a.id}`, { token: admin });
    const b = await create('documents', { title: 'Same', uname: 'same-name' });
    const c = await create('events', { uname: 'same-name' });
    assert.equal(b.attributes.uname, 'same-name-2');
    assert.equal(c.attributes.uname, 'same-name-3');
  });

  test('unknown attributes, wrong types and bad enum values give 400 naming the field', async () => {
    const bad = async (attributes: Record<string, unknown>, field: RegExp, code = 'invalid_data') => {
      const e = expectError(await s.request('POST', '/documents', { token: admin, headers: { Prefer: 'handling=strict' }, body: { data: { type: 'documents', attributes } } }), 400, code);
      assert.match(e.detail, field);
    };
    await bad({ title: 'x', color: 'red' }, /color/, 'unknown_attribute');
    await bad({ title: 42 }, /title/);
    await bad({ status: 'published' }, /status/);
    await bad({ lang: 'x'.repeat(40) }, /lang/);
  });

  test('type and id mismatches, anonymous writes and unknown types answer with their codes', async () => {
    expectError(await s.request('POST', '/documents', { token: admin, body: { data: { type: 'events', attributes: {} } } }), 409);
    expectError(await s.request('POST', '/documents', { body: { data: { type: 'documents', attributes: {} } } }), 401);
    expectError(await s.request('GET', '/no_such_type'), 404);
    // /media is BEdita's list of every media object (read-only); the abstract type has no writes.
    expectError(await s.request('POST', '/media', { token: admin, body: { data: { type: 'media', attributes: {} } } }), 405);
    expectError(await s.request('POST', '/objects', { token: admin, body: { data: { type: 'objects', attributes: {} } } }), 405);
  });

  test('PATCH changes attributes, sets published when status becomes on, ignores meta', async () => {
    const d = await create('documents', { title: 'Draft' });
    const res = await s.request('PATCH', `/documents/${d.id}`, {
      token: admin,
      body: { data: { id: Number(d.id), type: 'documents', attributes: { status: 'on', body: 'text' }, meta: { created: '2000-01-01T00:00:00+00:00' } } },
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.data.attributes.status, 'on');
    assert.equal(res.body.data.attributes.body, 'text');
    assert.ok(res.body.data.meta.published);
    assert.equal(res.body.data.meta.created, d.meta.created);
    expectError(await s.request('PATCH', `/documents/${d.id}`, { token: admin, body: { data: { id: '999', type: 'documents', attributes: {} } } }), 409);
  });

  test('PATCH of an object that is missing, trashed, of another type or hidden answers 404 whatever else is wrong with the request', async () => {
    const doc = await create('documents', { title: 'Here' });
    const event = await create('events', { title: 'An event' });
    const trashed = await create('documents', { title: 'Trashed' });
    assert.equal((await s.request('DELETE', `/documents/${trashed.id}`, { token: admin })).status, 204);
    const draft = await create('documents', { title: 'A draft', status: 'draft' });
    const reader = await createUser(s, admin, { username: 'patch-reader' });
    const bad = [
      (id: string) => ({ data: { id, type: 'documents', attributes: { title: 'x'.repeat(5000), status: 'nonsense' } } }),
      (id: string) => ({ data: { id: String(Number(id) + 1000), type: 'documents', attributes: {} } }),
      (id: string) => ({ data: { id, type: 'events', attributes: {} } }),
      () => ({ nothing: true }),
    ];
    for (const body of bad) {
      for (const id of ['987654', event.id, trashed.id]) expectError(await s.request('PATCH', `/documents/${id}`, { token: admin, body: body(id) }), 404);
      // Anonymous: 401 before anything; a reader who cannot see the draft: 404, as a GET says.
      expectError(await s.request('PATCH', `/documents/${draft.id}`, { body: body(draft.id) }), 401);
      expectError(await s.request('PATCH', `/documents/${draft.id}`, { token: reader.jwt, body: body(draft.id) }), 404);
      // The object is there: the request's own fault.
      assert.ok([400, 409].includes((await s.request('PATCH', `/documents/${doc.id}`, { token: admin, body: body(doc.id) })).status));
    }
    // One right but not the next: update without read answers a draft as a read of it does (404);
    // read without update is refused (403) and changes nothing.
    const updater = await userWithPermissions(s, admin, 'patch-updater', { documents: ['update'] });
    const readerOnly = await userWithPermissions(s, admin, 'patch-read-only', { documents: ['read'] });
    const change = (id: string) => ({ data: { id, type: 'documents', attributes: { title: 'Changed by a role' } } });
    expectError(await s.request('GET', `/documents/${draft.id}`, { token: updater }), 404);
    expectError(await s.request('PATCH', `/documents/${draft.id}`, { token: updater, body: change(draft.id) }), 404);
    expectError(await s.request('PATCH', `/documents/${draft.id}`, { token: readerOnly, body: change(draft.id) }), 403);
    assert.equal((await s.request('GET', `/documents/${draft.id}`, { token: admin })).body.data.attributes.title, 'A draft');
    const badMatch = await s.request('PATCH', `/documents/987654`, { token: admin, headers: { 'If-Match': 'garbage' }, body: { data: { id: '987654', type: 'documents', attributes: { title: 'y' } } } });
    expectError(badMatch, 404);
    // Nothing changed on the way.
    assert.equal((await s.request('GET', `/documents/${doc.id}`, { token: admin })).body.data.attributes.title, 'Here');
    assert.equal((await s.request('GET', `/events/${event.id}`, { token: admin })).body.data.attributes.title, 'An event');
  });

  test('a PATCH sending the values the object has writes nothing: modified, modified_by, the version and the history stay', async () => {
    const d = await create('documents', { title: 'Unchanged', description: 'As it was', status: 'on', extra: { a: 1 } });
    const { id: editorId } = await createUser(s, admin, { username: 'unchanged-editor', password: 'unchanged-secret-1' });
    const role = await s.request('POST', '/roles', { token: admin, body: { data: { type: 'roles', attributes: { name: 'unchanged_writers', permissions: { '*': ['read', 'create', 'update', 'publish'] } } } } });
    assert.equal(role.status, 201, role.text);
    assert.ok((await s.request('POST', `/roles/${role.body.data.id}/relationships/users`, { token: admin, body: { data: [{ type: 'users', id: editorId }] } })).status < 300);
    const editor = (await s.login('unchanged-editor', 'unchanged-secret-1')).jwt;
    const history = async () => (await s.request('GET', `/objects/${d.id}/history?page_size=100`, { token: admin })).body.data.length as number;
    const entries = await history();
    const first = await s.request('GET', `/documents/${d.id}`, { token: admin });
    // Another second, another user: a write would show in modified and modified_by.
    await new Promise((r) => setTimeout(r, 1100));
    const same = await s.request('PATCH', `/documents/${d.id}`, {
      token: editor,
      body: { data: { id: d.id, type: 'documents', attributes: { title: 'Unchanged', description: 'As it was', status: 'on', extra: { a: 1 } } } },
    });
    assert.equal(same.status, 200, same.text);
    assert.equal(same.body.data.meta.modified, first.body.data.meta.modified);
    assert.equal(same.body.data.meta.modified_by, 1);
    assert.equal(same.headers.get('etag'), first.headers.get('etag'), 'the version did not move');
    assert.equal(await history(), entries, 'no history entry');
    // One value that differs is a write, by the editor, now.
    const changed = await s.request('PATCH', `/documents/${d.id}`, { token: editor, body: { data: { id: d.id, type: 'documents', attributes: { title: 'Unchanged', description: 'Changed' } } } });
    assert.equal(changed.status, 200, changed.text);
    assert.notEqual(changed.body.data.meta.modified, first.body.data.meta.modified);
    assert.notEqual(changed.body.data.meta.modified_by, 1);
    assert.notEqual(changed.headers.get('etag'), first.headers.get('etag'));
    assert.equal(await history(), entries + 1);
  });

  test('anonymous clients see only objects that are on; others give 404', async () => {
    const on = await create('news', { title: 'Public', status: 'on' });
    const draft = await create('news', { title: 'Hidden' });
    assert.equal((await s.request('GET', `/news/${on.id}`)).status, 200);
    expectError(await s.request('GET', `/news/${draft.id}`), 404);
    const list = await s.request('GET', '/news');
    assert.deepEqual(list.body.data.map((d: any) => d.id), [on.id]);
    const mine = await s.request('GET', '/news', { token: admin });
    assert.equal(mine.body.data.length, 2);
  });

  test('an object read under another type gives 404; /objects/{id} reads any type, by id or uname', async () => {
    const e = await create('events', { title: 'Party' });
    expectError(await s.request('GET', `/documents/${e.id}`, { token: admin }), 404);
    const byId = await s.request('GET', `/objects/${e.id}`, { token: admin });
    assert.equal(byId.body.data.type, 'events');
    assert.equal(byId.body.data.links.self, `${s.url}/events/${e.id}`);
    const byUname = await s.request('GET', `/events/${e.attributes.uname}`, { token: admin });
    assert.equal(byUname.body.data.id, e.id);
  });

  test('locked objects: only admins lock; no delete, status or uname change, other attributes editable', async () => {
    const d = await create('documents', { title: 'Locked one' });
    const lock = await s.request('PATCH', `/documents/${d.id}`, { token: admin, body: { data: { id: d.id, type: 'documents', meta: { locked: true } } } });
    assert.equal(lock.body.data.meta.locked, true);
    const patch = (attributes: Record<string, unknown>) =>
      s.request('PATCH', `/documents/${d.id}`, { token: admin, body: { data: { id: d.id, type: 'documents', attributes } } });
    expectError(await patch({ status: 'on' }), 403);
    expectError(await patch({ uname: 'other' }), 403);
    assert.equal((await patch({ title: 'Still editable' })).status, 200);
    expectError(await s.request('DELETE', `/documents/${d.id}`, { token: admin }), 403);
    expectError(await s.request('DELETE', `/objects/${d.id}`, { token: admin }), 403);
    const unlock = await s.request('PATCH', `/documents/${d.id}`, { token: admin, body: { data: { id: d.id, type: 'documents', meta: { locked: false } } } });
    assert.equal(unlock.body.data.meta.locked, false);
    assert.equal((await s.request('DELETE', `/documents/${d.id}`, { token: admin })).status, 204);
  });

  test('lists paginate, sort, filter by field with operators, by type and status', async () => {
    for (let i = 1; i <= 5; i++) await create('locations', { title: `Place ${i}`, status: i % 2 ? 'on' : 'off' });
    const page = await s.request('GET', '/locations?page_size=2&page=2&sort=-title', { token: admin });
    assert.equal(page.status, 200);
    assert.deepEqual(page.body.data.map((d: any) => d.attributes.title), ['Place 3', 'Place 2']);
    assert.deepEqual(page.body.meta.pagination, { count: 5, page: 2, page_count: 3, page_items: 2, page_size: 2 });
    assert.ok(page.body.links.next.includes('page=3') && page.body.links.next.includes('sort=-title'));
    assert.equal(page.body.meta.schema.locations.$id, `${s.url}/model/schema/locations`);
    const on = await s.request('GET', '/locations?filter[status]=on', { token: admin });
    assert.equal(on.body.data.length, 3);
    const gt = await s.request('GET', '/locations?filter[title][gt]=Place 3', { token: admin });
    assert.deepEqual(gt.body.data.map((d: any) => d.attributes.title), ['Place 4', 'Place 5']);
    const mixed = await s.request('GET', '/objects?filter[type][0]=locations&filter[type][1]=profiles&page_size=100', { token: admin });
    assert.ok(mixed.body.data.every((d: any) => d.type === 'locations'));
    assert.equal(mixed.body.data.length, 5);
    expectError(await s.request('GET', '/locations?filter[color]=red'), 400, 'invalid_filter');
    expectError(await s.request('GET', '/locations?sort=color'), 400, 'invalid_sort');
    // Over the maximum is answered as the maximum, as BEdita 5 does.
    assert.equal((await s.request('GET', '/locations?page_size=101')).body.meta.pagination.page_size, 100);
    expectError(await s.request('GET', '/objects?filter[type]=nothing'), 400);
    const past = await s.request('GET', '/locations?page=9');
    assert.equal(past.status, 200);
    assert.deepEqual(past.body.data, []);
  });

  test('GET /objects lists every type but users for anonymous clients, users too for others', async () => {
    const anon = await s.request('GET', '/objects?filter[type]=users');
    assert.deepEqual(anon.body.data, []);
    const auth = await s.request('GET', '/objects?filter[type]=users', { token: admin });
    assert.equal(auth.body.data[0].type, 'users');
    // /users is for signed-in users; see_also has no users on its sides.
    expectError(await s.request('GET', '/users/1/see_also'), 401);
    expectError(await s.request('GET', '/users/1/see_also', { token: admin }), 404, 'unknown_relation');
  });

  test('full-text search finds words of title, body and text properties as soon as written, best first', async () => {
    const a = await create('documents', { title: 'Gardening', body: 'about tomatoes and zucchini', status: 'on' });
    const b = await create('documents', { title: 'Zucchini recipes', body: 'cooking', status: 'on' });
    const res = await s.request('GET', '/documents?q=zucchini');
    assert.deepEqual(res.body.data.map((d: any) => d.id), [b.id, a.id]);
    const both = await s.request('GET', '/objects?filter[query]=tomatoes zucchini');
    assert.deepEqual(both.body.data.map((d: any) => d.id), [a.id]);
    await s.request('PATCH', `/documents/${a.id}`, { token: admin, body: { data: { id: a.id, type: 'documents', attributes: { body: 'peppers' } } } });
    assert.deepEqual((await s.request('GET', '/documents?q=tomatoes')).body.data, []);
    assert.equal((await s.request('GET', '/documents?q=tomatoes&sort=-id')).body.data.length, 0);
    assert.equal((await s.request('GET', '/documents?q=pepp')).body.data.length, 1);
  });

  test('trash: DELETE moves to the trash, admins list, restore and purge it', async () => {
    const d = await create('documents', { title: 'Trash me' });
    assert.equal((await s.request('DELETE', `/documents/${d.id}`, { token: admin })).status, 204);
    expectError(await s.request('GET', `/documents/${d.id}`, { token: admin }), 404);
    expectError(await s.request('GET', '/trash'), 401);
    const list = await s.request('GET', '/trash', { token: admin });
    assert.ok(list.body.data.some((x: any) => x.id === d.id));
    const one = await s.request('GET', `/trash/${d.id}`, { token: admin });
    assert.equal(one.body.data.links.self, `${s.url}/trash/${d.id}`);
    assert.equal((await s.request('PATCH', `/trash/${d.id}`, { token: admin, body: { data: { id: d.id, type: 'objects' } } })).status, 204);
    assert.equal((await s.request('GET', `/documents/${d.id}`, { token: admin })).status, 200);
    expectError(await s.request('PATCH', `/trash/${d.id}`, { token: admin, body: { data: { id: d.id, type: 'objects' } } }), 404);
    await s.request('DELETE', `/objects/${d.id}`, { token: admin });
    assert.equal((await s.request('DELETE', `/trash/${d.id}`, { token: admin })).status, 204);
    expectError(await s.request('GET', `/trash/${d.id}`, { token: admin }), 404);
    expectError(await s.request('DELETE', `/trash/${d.id}`, { token: admin }), 404);
  });

  test('relationships: add, read from both sides, include, replace, remove; wrong types give 400', async () => {
    const doc = await create('documents', { title: 'Doc', status: 'on' });
    const ev = await create('events', { title: 'Ev', status: 'on' });
    const user = await s.request('GET', '/objects?filter[type]=users', { token: admin });
    const rel = (method: string, body: unknown) => s.request(method, `/documents/${doc.id}/relationships/see_also`, { token: admin, body });
    const added = await rel('POST', { data: [{ type: 'events', id: ev.id, meta: { relation: { priority: 3, params: { note: 'x' } } } }] });
    assert.equal(added.status, 200);
    assert.deepEqual(added.body.data, [{ id: ev.id, type: 'events' }]);
    const related = await s.request('GET', `/documents/${doc.id}/see_also`);
    assert.deepEqual(related.body.data.map((d: any) => d.id), [ev.id]);
    assert.deepEqual(related.body.data[0].meta.relation, { priority: 3, inv_priority: 1, params: { note: 'x' } });
    const inverse = await s.request('GET', `/events/${ev.id}/seen_also_by`);
    assert.deepEqual(inverse.body.data.map((d: any) => d.id), [doc.id]);
    const inc = await s.request('GET', `/documents/${doc.id}?include=see_also`);
    assert.deepEqual(inc.body.data.relationships.see_also.data, [{ id: ev.id, type: 'events' }]);
    assert.equal(inc.body.included[0].id, ev.id);
    expectError(await rel('POST', { data: [{ type: 'users', id: user.body.data[0].id }] }), 400, 'invalid_relationship');
    expectError(await rel('POST', { data: [{ type: 'documents', id: ev.id }] }), 400, 'invalid_relationship');
    // A related object that does not exist is 404 (JSON:API), as one the caller may not read.
    expectError(await rel('POST', { data: [{ type: 'events', id: '999999' }] }), 404);
    expectError(await s.request('GET', `/documents/${doc.id}/nothing`), 404);
    const other = await create('events', { title: 'Other', status: 'on' });
    await rel('PATCH', { data: [{ type: 'events', id: other.id }] });
    assert.deepEqual((await s.request('GET', `/documents/${doc.id}/see_also`)).body.data.map((d: any) => d.id), [other.id]);
    await rel('DELETE', { data: [{ type: 'events', id: other.id }] });
    assert.deepEqual((await s.request('GET', `/documents/${doc.id}/see_also`)).body.data, []);
  });
  test('purging leaves no orphan rows: relations and search entries go with the object', async () => {
    const a = await create('documents', { title: 'Orphan check quince', status: 'on' });
    const b = await create('documents', { title: 'Partner', status: 'on' });
    await s.request('POST', `/documents/${b.id}/relationships/see_also`, { token: admin, body: { data: [{ type: 'documents', id: a.id }] } });
    await s.request('DELETE', `/documents/${a.id}`, { token: admin });
    assert.equal((await s.request('DELETE', `/trash/${a.id}`, { token: admin })).status, 204);
    const db = s.server.ctx.db;
    const id = Number(a.id);
    const rels = await db.selectFrom('object_relations').select('id').where((e) => e.or([e('left_id', '=', id), e('right_id', '=', id)])).execute();
    assert.deepEqual(rels, []);
    assert.equal(await db.selectFrom('objects').select('id').where('id', '=', id).executeTakeFirst(), undefined);
    assert.deepEqual((await s.request('GET', '/objects?q=quince', { token: admin })).body.data, []);
    assert.deepEqual((await s.request('GET', `/documents/${b.id}/see_also`)).body.data, []);
  });

  test('fields[type] limits attributes; include works on lists too', async () => {
    const d = await create('profiles', { title: 'Ada', description: 'Mathematician', status: 'on' });
    const e = await create('profiles', { title: 'Charles', status: 'on' });
    await s.request('POST', `/profiles/${d.id}/relationships/see_also`, { token: admin, body: { data: [{ type: 'profiles', id: e.id }] } });
    const res = await s.request('GET', `/profiles?fields[profiles]=title&include=see_also&filter[id]=${d.id}`);
    assert.deepEqual(res.body.data[0].attributes, { title: 'Ada' });
    assert.deepEqual(res.body.data[0].relationships.see_also.data, [{ id: e.id, type: 'profiles' }]);
    assert.deepEqual(res.body.included.map((i: any) => i.id), [e.id]);
    expectError(await s.request('GET', '/profiles?include=nothing'), 400, 'invalid_include');
  });

  test('malformed input gives 4xx, never 500', async () => {
    const cases: Array<[string, string, unknown]> = [
      ['POST', '/documents', { data: [] }],
      ['POST', '/documents', { data: { type: 'documents', attributes: [1] } }],
      ['POST', '/documents', { nodata: true }],
      ['POST', '/documents', { data: { type: 'documents', attributes: { extra: { deep: [1, 2] } }, meta: { locked: 'yes' } } }],
      ['POST', '/documents/1/relationships/see_also', { data: null }],
      ['POST', '/documents/1/relationships/see_also', { data: [{ type: 'documents', id: 'abc' }] }],
    ];
    for (const [method, path, body] of cases) {
      const r = await s.request(method, path, { token: admin, body });
      assert.ok(r.status >= 400 && r.status < 500, `${method} ${path} ${JSON.stringify(body)} → ${r.status} ${r.text}`);
    }
    for (const path of ['/documents?filter[title][like]=x', '/documents?filter=x', '/documents?sort[a]=b', '/documents?q[a]=b', '/documents?page=0', '/documents?filter[id]=abc', '/documents/%E0%A4%A', '/objects?q=%22%22']) {
      const r = await s.request('GET', path);
      assert.ok(r.status >= 400 && r.status < 500 || r.status === 200, `${path} → ${r.status} ${r.text}`);
      assert.notEqual(r.status, 500);
    }
  });
  test('type endpoints answer 405 with Allow for other methods and appear in /home', async () => {
    // DELETE /documents?ids=… is BEdita's bulk trash (bedita-manager.test.ts); PUT is no method of it.
    const r = await s.request('PUT', '/documents', { token: admin });
    expectError(r, 405, 'method_not_allowed');
    assert.match(r.headers.get('allow')!, /DELETE.*GET.*POST|GET.*POST/);
    expectError(await s.request('PUT', '/home'), 405);
    const home = await s.request('GET', '/home', { token: admin });
    assert.deepEqual(home.body.meta.resources['/documents'].hints.allow.filter((m: string) => m === 'POST' || m === 'GET'), ['GET', 'POST']);
  });
  test('a related list takes list parameters and keeps the relation order by default', async () => {
    const doc = await create('documents', { title: 'Hub', status: 'on' });
    const a = await create('documents', { title: 'Alpha kiwi', status: 'on' });
    const b = await create('documents', { title: 'Beta', status: 'on' });
    const c = await create('documents', { title: 'Gamma kiwi', status: 'draft' });
    await s.request('POST', `/documents/${doc.id}/relationships/see_also`, {
      token: admin,
      body: { data: [{ type: 'documents', id: b.id, meta: { relation: { priority: 1 } } }, { type: 'documents', id: a.id, meta: { relation: { priority: 2 } } }, { type: 'documents', id: c.id, meta: { relation: { priority: 3 } } }] },
    });
    const ids = async (query: string, token?: string) => (await s.request('GET', `/documents/${doc.id}/see_also${query}`, { token })).body.data.map((d: any) => d.id);
    assert.deepEqual(await ids('', admin), [b.id, a.id, c.id]);
    assert.deepEqual(await ids(''), [b.id, a.id]);
    assert.deepEqual(await ids('?sort=title', admin), [a.id, b.id, c.id]);
    assert.deepEqual(await ids('?q=kiwi&sort=priority', admin), [a.id, c.id]);
    assert.deepEqual(await ids('?filter[status]=draft', admin), [c.id]);
    const page = await s.request('GET', `/documents/${doc.id}/see_also?page_size=1&page=2`, { token: admin });
    assert.deepEqual(page.body.meta.pagination, { count: 3, page: 2, page_count: 3, page_items: 1, page_size: 1 });
    assert.equal(page.body.data[0].meta.relation.priority, 2);
    assert.deepEqual((await s.request('GET', `/documents/${a.id}/seen_also_by`)).body.data.map((d: any) => d.id), [doc.id]);
  });
});
