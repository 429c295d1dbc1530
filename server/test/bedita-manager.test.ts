// The BEdita Manager (bedita/manager) against Folio: its API calls replayed as its PHP SDK
// (bedita/php-sdk) sends them — `Accept: application/vnd.api+json`, JSON bodies as PHP's
// json_encode writes them (`[]` for an empty object, form strings) — screen by screen: login and
// the user's roles, the modules of /home, schemas, relations, history, translations, properties,
// roles of a user, a folder moved to the root, an import's async job, the forms' values, and the
// silent renewal of an expired token. Through HTTP, on SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.js';
import { expectError, startServer, type RequestOptions, type TestServer } from './helpers/server.js';
import { createRole, createUser } from './helpers/users.js';
import { waitUntil } from './helpers/wait.js';

/** What php-sdk's BaseClient sends with every call. */
const SDK_HEADERS = { Accept: 'application/vnd.api+json', 'Content-Type': 'application/json' };
const STRICT = { Prefer: 'handling=strict' };

describe('the BEdita Manager, call by call', () => {
  let s: TestServer;
  let admin: string;
  let editorRole: string;

  /** A call as the SDK makes it: `body` is sent as JSON text, as json_encode wrote it. */
  const sdk = (method: string, path: string, token: string | undefined, body?: unknown, headers: Record<string, string> = {}) => {
    const opts: RequestOptions = { token, headers: { ...SDK_HEADERS, ...headers } };
    if (body !== undefined) opts.raw = typeof body === 'string' ? body : JSON.stringify(body);
    return s.request(method, path, opts);
  };
  const make = async (type: string, attributes: Record<string, unknown>) => {
    const r = await sdk('POST', `/${type}`, admin, { data: { type, attributes } });
    assert.equal(r.status, 201, r.text);
    return String(r.body.data.id);
  };

  before(async () => {
    s = await startServer();
    admin = await s.adminToken();
    editorRole = await createRole(s, admin, 'editor', { '*': ['read', 'create', 'update', 'delete', 'publish'] });
  });
  after(() => s.close());

  test('login, then GET /auth/user: the user with its roles in included (the Manager takes its rights from their names)', async () => {
    const login = await sdk('POST', '/auth', undefined, { username: 'admin', password: 'admin-secret-1' });
    assert.equal(login.status, 200, login.text);
    const me = await sdk('GET', '/auth/user', login.body.meta.jwt);
    assert.equal(me.status, 200, me.text);
    assert.deepEqual(me.body.included.map((r: { type: string; attributes: { name: string } }) => [r.type, r.attributes.name]), [['roles', 'admin']]);
    assert.deepEqual(me.body.data.relationships.roles.data, [{ id: '1', type: 'roles' }]);
    const editor = await createUser(s, admin, { username: 'edna', roles: [editorRole] });
    const hers = await sdk('GET', '/auth/user', editor.jwt);
    assert.deepEqual(hers.body.included.map((r: { attributes: { name: string } }) => r.attributes.name), ['editor']);
    const none = await createUser(s, admin, { username: 'nobody' });
    assert.deepEqual((await sdk('GET', '/auth/user', none.jwt)).body.included, []);
  });

  test('GET /home: resources with hints object_type, multiple_types and display, meta.project and meta.version', async () => {
    const home = await sdk('GET', '/home', admin);
    assert.equal(home.status, 200, home.text);
    const { resources, project, version } = home.body.meta;
    assert.equal(project.name, 'Folio');
    assert.match(version, /^5\.\d+\.\d+$/);
    assert.deepEqual(resources['/documents'].hints.display, { label: 'Documents' });
    assert.equal(resources['/documents'].hints.object_type, true);
    assert.equal(resources['/documents'].hints.multiple_types, false);
    assert.deepEqual(resources['/documents'].hints.allow, ['DELETE', 'GET', 'PATCH', 'POST']);
    assert.equal(resources['/objects'].hints.object_type, true);
    assert.equal(resources['/objects'].hints.multiple_types, true);
    assert.equal(resources['/trash'].hints.object_type, false);
    assert.equal(resources['/trash'].hints.multiple_types, true);
    assert.equal(resources['/model'].hints.multiple_types, true);
    assert.equal(resources['/roles'].hints.object_type, false);
    assert.equal(resources['/roles'].hints.multiple_types, false);
    assert.deepEqual(resources['/async_jobs'].hints.allow, ['DELETE', 'GET', 'PATCH', 'POST']);
    // The Manager's modules: the object types (hints.object_type), each one's methods for this user.
    const reader = await createUser(s, admin, { username: 'rachel', roles: [await createRole(s, admin, 'readers', { '*': ['read'] })] });
    const theirs = (await sdk('GET', '/home', reader.jwt)).body.meta.resources;
    assert.deepEqual(theirs['/documents'].hints.allow, ['GET']);
    assert.equal(theirs['/documents'].hints.object_type, true);
    assert.equal(theirs['/users'], undefined);
  });

  test('GET /model/schema/{type}: translatable, associations and relations beside the properties', async () => {
    const schema = await sdk('GET', '/model/schema/documents', admin, undefined, { Accept: 'application/schema+json' });
    assert.equal(schema.status, 200, schema.text);
    assert.deepEqual(schema.body.translatable, ['body', 'description', 'title']);
    assert.ok(Array.isArray(schema.body.associations));
    assert.deepEqual(Object.keys(schema.body.relations).sort(), ['attach', 'poster', 'see_also', 'seen_also_by']);
    assert.equal(schema.body.relations.poster.label !== undefined, true);
    assert.deepEqual(schema.body.relations.poster.types, ['images']);
    assert.ok(schema.body.relations.see_also.types.includes('documents'));
    const images = (await sdk('GET', '/model/schema/images', admin)).body;
    assert.ok(images.relations.poster_of.types.includes('documents'), 'the inverse name from the right side');
    const events = (await sdk('GET', '/model/schema/events', admin)).body;
    assert.ok(events.associations.includes('DateRanges'));
    const news = (await sdk('GET', '/model/object_types/news', admin)).body.data.id;
    const untranslatable = await s.request('PATCH', `/model/object_types/${news}`, { token: admin, body: { data: { id: news, type: 'object_types', attributes: { is_translatable: false } } } });
    assert.equal(untranslatable.status, 200, untranslatable.text);
    assert.deepEqual((await sdk('GET', '/model/schema/news', admin)).body.translatable, []);
  });

  test("GET /model/object_types/{type}?fields=associations,relations: the type's associations and its relation names (meta kept by fields)", async () => {
    const r = await sdk('GET', '/model/object_types/events?fields=associations,relations', admin);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(Object.keys(r.body.data.attributes), ['associations']);
    assert.ok(r.body.data.attributes.associations.includes('DateRanges'));
    assert.deepEqual(Object.keys(r.body.data.meta), ['relations']);
    assert.ok(r.body.data.meta.relations.includes('see_also') && r.body.data.meta.relations.includes('poster'));
    const names = await sdk('GET', '/model/object_types?fields=name,is_abstract,associations,parent_name&page_size=100', admin);
    for (const t of names.body.data) assert.deepEqual(Object.keys(t.attributes).sort(), ['associations', 'is_abstract', 'name', 'parent_name']);
  });

  test('GET /model/relations with include=left_object_types,right_object_types, in lists and single reads', async () => {
    const list = await sdk('GET', '/model/relations?include=left_object_types%2Cright_object_types&page_size=100', admin);
    assert.equal(list.status, 200, list.text);
    const poster = list.body.data.find((r: { attributes: { name: string } }) => r.attributes.name === 'poster');
    assert.deepEqual(poster.relationships.right_object_types.data, [{ id: poster.relationships.right_object_types.data[0].id, type: 'object_types' }]);
    const names = new Map(list.body.included.map((t: { id: string; attributes: { name: string } }) => [t.id, t.attributes.name]));
    assert.equal(names.get(poster.relationships.right_object_types.data[0].id), 'images');
    assert.ok(poster.relationships.left_object_types.data.some((t: { id: string }) => names.get(t.id) === 'documents'));
    assert.equal(new Set(list.body.included.map((t: { id: string }) => t.id)).size, list.body.included.length, 'each type once');
    const one = await sdk('GET', '/model/relations/poster?include=left_object_types,right_object_types', admin);
    assert.equal(one.status, 200, one.text);
    assert.deepEqual(one.body.included.filter((t: { attributes: { name: string } }) => t.attributes.name === 'images').length, 1);
    expectError(await sdk('GET', '/model/relations?include=objects', admin), 400, 'invalid_include');
    expectError(await sdk('GET', '/model/relations/poster?include=objects', admin), 400, 'invalid_include');
  });

  test('GET /history?filter[resource_id]=…&include=user: the fields in meta as BEdita (and in attributes), the writers in included', async () => {
    const id = await make('documents', { title: 'Tracked' });
    assert.equal((await sdk('PATCH', `/documents/${id}`, admin, { data: { id, type: 'documents', attributes: { title: 'Tracked again' } } })).status, 200);
    const h = await sdk('GET', `/history?filter%5Bresource_id%5D=${id}&include=user&page_size=100`, admin);
    assert.equal(h.status, 200, h.text);
    assert.equal(h.body.data.length, 2);
    for (const entry of h.body.data) {
      for (const f of ['resource_id', 'resource_type', 'user_id', 'application_id', 'user_action', 'changed', 'created']) {
        assert.deepEqual(entry.meta[f], entry.attributes[f], f);
      }
      assert.deepEqual(entry.relationships.user.data, { id: '1', type: 'users' });
    }
    assert.deepEqual(h.body.data[1].meta.changed, { title: 'Tracked again' });
    assert.deepEqual(h.body.included.map((u: { id: string; type: string; attributes: { username: string } }) => [u.type, u.id, u.attributes.username]), [['users', '1', 'admin']]);
    expectError(await sdk('GET', '/history?include=users', admin), 400, 'invalid_include');
  });

  test('GET /translations?include=object: the translated objects in included, as the reader sees them', async () => {
    const open = await make('documents', { title: 'Open', status: 'on' });
    const closed = await make('documents', { title: 'Closed', status: 'draft' });
    for (const objectId of [open, closed]) {
      const t = await sdk('POST', '/translations', admin, { data: { type: 'translations', attributes: { object_id: objectId, lang: 'it', status: 'on', translated_fields: { title: 'Titolo' } } } });
      assert.equal(t.status, 201, t.text);
    }
    const list = await sdk('GET', '/translations?include=object&filter[lang]=it', admin);
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(list.body.included.map((o: { id: string }) => o.id).sort(), [open, closed].sort());
    for (const t of list.body.data) assert.deepEqual(t.relationships.object.data, { id: String(t.attributes.object_id), type: 'documents' });
    const anonymous = await sdk('GET', '/translations?include=object&filter[lang]=it', undefined);
    assert.deepEqual(anonymous.body.included.map((o: { id: string }) => o.id), [open]);
    expectError(await sdk('GET', '/translations?include=objects', admin), 400, 'invalid_include');
  });

  test('GET /model/properties lists static and custom properties, filter[type] choosing', async () => {
    const p = await sdk('POST', '/model/properties', admin, { data: { type: 'properties', attributes: { name: 'subtitle', property_type_name: 'string', object_type_name: 'documents' } } });
    assert.equal(p.status, 201, p.text);
    const names = async (query: string) => (await sdk('GET', `/model/properties?${query}&page_size=100`, admin)).body.data.map((d: { attributes: { name: string } }) => d.attributes.name);
    const stat = await names('filter[type]=static&filter[object_type]=documents');
    assert.ok(stat.includes('title') && !stat.includes('subtitle'));
    const dyn = await names('filter[type]=dynamic&filter[object_type]=documents');
    assert.deepEqual(dyn, ['subtitle']);
    const both = await names('filter[type]=both&filter[object_type]=documents');
    assert.ok(both.includes('title') && both.includes('subtitle'));
  });

  test('PATCH /users/{id}/relationships/roles as the Manager sends it (meta: [] and string ids)', async () => {
    const u = await createUser(s, admin, { username: 'rolf' });
    const r = await sdk('PATCH', `/users/${u.id}/relationships/roles`, admin, `{"data":[{"type":"roles","id":"${editorRole}","meta":[]}]}`);
    assert.equal(r.status, 200, r.text);
    const me = await sdk('GET', '/auth/user', (await s.login('rolf', 'rolf-secret-1')).jwt);
    assert.deepEqual(me.body.included.map((x: { attributes: { name: string } }) => x.attributes.name), ['editor']);
    assert.equal((await sdk('PATCH', `/users/${u.id}/relationships/roles`, admin, { data: [] })).status, 200);
    assert.deepEqual((await sdk('GET', '/auth/user', (await s.login('rolf', 'rolf-secret-1')).jwt)).body.included, []);
  });

  test('PATCH /folders/{id}/relationships/parent with data: [] makes the folder a root', async () => {
    const root = await make('folders', { title: 'Root' });
    const sub = await make('folders', { title: 'Sub' });
    assert.equal((await sdk('PATCH', `/folders/${sub}/relationships/parent`, admin, { data: { type: 'folders', id: root } })).status, 200);
    assert.equal((await sdk('GET', `/folders/${sub}`, admin)).body.data.meta.path, `/${root}/${sub}`);
    const r = await sdk('PATCH', `/folders/${sub}/relationships/parent`, admin, '{"data":[]}');
    assert.equal(r.status, 200, r.text);
    const now = (await sdk('GET', `/folders/${sub}`, admin)).body.data;
    assert.equal(now.meta.path, `/${sub}`);
    assert.equal(now.relationships.parent.data, null);
    expectError(await sdk('PATCH', `/folders/${sub}/relationships/parent`, admin, { data: [{ type: 'folders', id: root }, { type: 'folders', id: root }] }), 400);
  });

  test('POST /async_jobs as the Manager queues an import: 201, queued for an outside runner, never run by Folio; bad input 400, not for editors', async () => {
    const body = { data: { type: 'async_jobs', attributes: { service: 'BEdita\\ImportTools\\Service\\Import', payload: { streamId: 'x', filename: 'a.csv', options: [] } } } };
    const r = await sdk('POST', '/async_jobs', admin, body);
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.data.type, 'async_jobs');
    assert.equal(r.body.data.attributes.service, 'BEdita\\ImportTools\\Service\\Import');
    // Folio runs only its own kinds of jobs: a client's service waits, pending, for a runner of its own.
    assert.equal(r.body.data.meta.status, 'pending');
    assert.equal(r.body.data.attributes.last_error, null);
    assert.equal(r.headers.get('location'), `${s.url}/async_jobs/${r.body.data.id}`);
    assert.equal((await sdk('GET', `/async_jobs/${r.body.data.id}`, admin)).body.data.attributes.service, 'BEdita\\ImportTools\\Service\\Import');
    const jobs = async () => (await sdk('GET', '/async_jobs?page_size=100', admin)).body.meta.pagination.count;
    const count = await jobs();
    expectError(await sdk('POST', '/async_jobs', admin, { data: { type: 'async_jobs', attributes: { payload: {} } } }), 400, 'invalid_data');
    expectError(await sdk('POST', '/async_jobs', admin, { data: { type: 'async_jobs', attributes: { service: 'x y' } } }), 400, 'invalid_data');
    expectError(await sdk('POST', '/async_jobs', admin, { data: { type: 'async_jobs', attributes: { service: 'mail', payload: 'text' } } }), 400, 'invalid_data');
    expectError(await sdk('POST', '/async_jobs', admin, { data: { type: 'async_jobs', attributes: { service: 'mail', colour: 'red' } } }, STRICT), 400, 'unknown_attribute');
    const editor = await createUser(s, admin, { username: 'erin', roles: [editorRole] });
    expectError(await sdk('POST', '/async_jobs', editor.jwt, body), 403);
    assert.equal(await jobs(), count, 'a refused request records nothing');
  });

  test('form values as PHP posts them: [] objects, "1"/"0" booleans, numeric strings, "" null; unknown attributes ignored unless strict', async () => {
    for (const [name, type] of [['featured', 'boolean'], ['rank', 'integer'], ['due', 'date']]) {
      const p = await sdk('POST', '/model/properties', admin, { data: { type: 'properties', attributes: { name, property_type_name: type, object_type_name: 'documents' } } });
      assert.equal(p.status, 201, p.text);
    }
    const created = await sdk('POST', '/documents', admin, `{"data":{"type":"documents","attributes":{"title":"Form","featured":"1","rank":"7","due":"","extra":[],"MAX_FILE_SIZE":"1000","_csrfToken":"abc"},"meta":[],"relationships":[]}}`);
    assert.equal(created.status, 201, created.text);
    const id = created.body.data.id;
    assert.equal(created.body.data.attributes.featured, true);
    assert.equal(created.body.data.attributes.rank, 7);
    assert.equal(created.body.data.attributes.due, null);
    assert.equal('MAX_FILE_SIZE' in created.body.data.attributes, false);
    const off = await sdk('PATCH', `/documents/${id}`, admin, { data: { id, type: 'documents', attributes: { featured: '0' } } });
    assert.equal(off.body.data.attributes.featured, false);
    // Strict (the admin UI): the unknown field is refused and nothing changes.
    expectError(await sdk('PATCH', `/documents/${id}`, admin, { data: { id, type: 'documents', attributes: { title: 'No', confirm: 'x' } } }, STRICT), 400, 'unknown_attribute');
    assert.equal((await sdk('GET', `/documents/${id}`, admin)).body.data.attributes.title, 'Form');
    // A value that is still wrong once read as BEdita reads it is 400 naming the field.
    const e = expectError(await sdk('PATCH', `/documents/${id}`, admin, { data: { id, type: 'documents', attributes: { rank: 'seven' } } }), 400, 'invalid_data');
    assert.match(e.detail, /rank/);
    // Relationship items with "meta": [] (and "relation": {"params": []}).
    const other = await make('documents', { title: 'Related' });
    const rel = await sdk('POST', `/documents/${id}/relationships/see_also`, admin, `{"data":[{"type":"documents","id":"${other}","meta":[]}]}`);
    assert.equal(rel.status, 200, rel.text);
    const again = await sdk('PATCH', `/documents/${id}/relationships/see_also`, admin, `{"data":[{"type":"documents","id":"${other}","meta":{"relation":{"params":[]}}}]}`);
    assert.equal(again.status, 200, again.text);
    assert.deepEqual((await sdk('GET', `/documents/${id}/see_also`, admin)).body.data.map((d: { id: string }) => d.id), [other]);
    // A place in a folder with the tree form's "menu": "1".
    const folder = await make('folders', { title: 'Menu folder' });
    const placed = await sdk('POST', `/documents/${id}/relationships/parents`, admin, `{"data":[{"type":"folders","id":"${folder}","meta":{"relation":{"menu":"1"}}}]}`);
    assert.equal(placed.status, 200, placed.text);
    const children = (await sdk('GET', `/folders/${folder}/children`, admin)).body.data;
    assert.deepEqual(children.map((c: { id: string; meta: { relation: { menu: boolean } } }) => [c.id, c.meta.relation.menu]), [[id, true]]);
    expectError(await sdk('POST', `/documents/${id}/relationships/parents`, admin, `{"data":[{"type":"folders","id":"${folder}","meta":{"relation":{"menu":"yes"}}}]}`), 400);
    // A user form's confirm-password is ignored, as BEdita ignores it.
    const user = await sdk('POST', '/users', admin, { data: { type: 'users', attributes: { username: 'formuser', password: 'form-secret-1', 'confirm-password': 'form-secret-1' } } });
    assert.equal(user.status, 201, user.text);
    expectError(await sdk('POST', '/users', admin, { data: { type: 'users', attributes: { username: 'formuser2', password: 'form-secret-1', 'confirm-password': 'x' } } }, STRICT), 400, 'unknown_attribute');
    // A root category's parent_id "" and enabled "1".
    const cat = await sdk('POST', '/model/categories', admin, { data: { type: 'categories', attributes: { name: 'rootcat', label: 'Root', type: 'documents', parent_id: '', enabled: '1' } } });
    assert.equal(cat.status, 201, cat.text);
    assert.equal(cat.body.data.attributes.parent_id, null);
    assert.equal(cat.body.data.attributes.enabled, true);
  });

  test("php-sdk's deleteObjects and removeObjects: DELETE /{type}?ids=… to the trash, all or none; DELETE /trash?ids=… for good", async () => {
    const a = await make('documents', { title: 'Bulk A', status: 'on' });
    const b = await make('documents', { title: 'Bulk B', status: 'on' });
    const news = await make('news', { title: 'Not a document', status: 'on' });
    const inTrash = async () => (await sdk('GET', '/trash?page_size=100', admin)).body.data.map((d: { id: string }) => d.id);
    // An editor who may delete only their own documents: one of someone else's refuses all.
    const own = await createUser(s, admin, { username: 'owen', roles: [await createRole(s, admin, 'owners', { '*': ['read', 'create', 'update:own', 'delete:own', 'publish'] })] });
    const mine = (await sdk('POST', '/documents', own.jwt, { data: { type: 'documents', attributes: { title: 'Mine', status: 'on' } } })).body.data.id;
    expectError(await sdk('DELETE', `/documents?ids=${mine},${a}`, own.jwt), 403);
    assert.equal((await sdk('GET', `/documents/${mine}`, admin)).status, 200, 'nothing moved');
    // Of the type named only; ids naming nothing are passed over.
    const r = await sdk('DELETE', `/documents?ids=${a},${b},${news},999999`, admin);
    assert.equal(r.status, 204, r.text);
    const trashed = await inTrash();
    assert.ok(trashed.includes(a) && trashed.includes(b) && !trashed.includes(news));
    assert.equal((await sdk('GET', `/news/${news}`, admin)).status, 200);
    assert.equal((await sdk('DELETE', `/objects?ids=${news}`, admin)).status, 204);
    expectError(await sdk('DELETE', '/documents', admin), 400, 'missing_parameter');
    expectError(await sdk('DELETE', '/documents?ids=a,b', admin), 400);
    expectError(await sdk('DELETE', `/trash?ids=${a}`, own.jwt), 403);
    const gone = await sdk('DELETE', `/trash?ids=${a},${b},${mine}`, admin);
    assert.equal(gone.status, 204, gone.text);
    assert.deepEqual((await inTrash()).filter((id: string) => [a, b].includes(id)), []);
    assert.equal((await sdk('GET', `/documents/${mine}`, admin)).status, 200, 'an active object is not removed from the trash');
    assert.ok((await inTrash()).includes(news));
  });

  test('the admin UI sends Prefer: handling=strict on its writes', async () => {
    const client = (await import('node:fs')).readFileSync(new URL('../../ui/src/api/client.ts', import.meta.url), 'utf8');
    assert.match(client, /headers\.Prefer = 'handling=strict'/);
  });
});

describe('FOLIO_EXPIRED_TOKEN_CODE', () => {
  test('be_token_expired: an expired token answers that code, and the SDK renews with its refresh token', async () => {
    // Three seconds: a token's times are whole seconds, so a one-second token made late in a
    // second expired a moment later, before a busy machine (CI) had sent its first request.
    const s = await startServer({ FOLIO_EXPIRED_TOKEN_CODE: 'be_token_expired', FOLIO_ACCESS_TOKEN_TTL: '3' });
    try {
      const { jwt, renew } = await s.login();
      let last = await s.request('GET', '/auth/user', { token: jwt, headers: SDK_HEADERS });
      assert.equal(last.status, 200, last.text);
      await waitUntil(async () => ((last = await s.request('GET', '/auth/user', { token: jwt, headers: SDK_HEADERS })).status === 401 ? true : undefined), 'the token to expire', 10000);
      expectError(last, 401, 'be_token_expired');
      // php-sdk's refreshTokens: POST /auth with the refresh token as Bearer, grant_type refresh_token.
      const renewed = await s.request('POST', '/auth', { token: renew, headers: SDK_HEADERS, raw: JSON.stringify({ grant_type: 'refresh_token' }) });
      assert.equal(renewed.status, 200, renewed.text);
      assert.equal((await s.request('GET', '/auth/user', { token: renewed.body.meta.jwt, headers: SDK_HEADERS })).status, 200);
    } finally {
      await s.close();
    }
  });

  test('unset: expired_token; a value that is no error code stops the start', () => {
    assert.equal(loadConfig({}).expiredTokenCode, 'expired_token');
    assert.equal(loadConfig({ FOLIO_EXPIRED_TOKEN_CODE: 'be_token_expired' }).expiredTokenCode, 'be_token_expired');
    assert.throws(() => loadConfig({ FOLIO_EXPIRED_TOKEN_CODE: 'Bad Code!' }), (e: Error) => e instanceof ConfigError && /FOLIO_EXPIRED_TOKEN_CODE/.test(e.message));
  });
});
