// The model: object types, custom properties, relations, schemas — and the end-to-end
// scenario (an `articles` type with a `rating`, searched, related, trashed and restored).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { expectError, startServer, type TestServer } from './helpers/server.js';

describe('model', () => {
  let s: TestServer;
  let admin: string;
  let user: string;
  // Strict, as the admin UI writes: an unknown attribute is refused, not ignored.
  const post = (path: string, type: string, attributes: Record<string, unknown>, token = admin) =>
    s.request('POST', path, { token, headers: { Prefer: 'handling=strict' }, body: { data: { type, attributes } } });
  before(async () => {
    s = await startServer();
    admin = await s.adminToken();
    // A plain user (no role) through the database layer of the foundation, to check 403s.
    const { apply, SYSTEM } = await import('../src/resources/objects/kernel.js');
    await apply(s.server.ctx, { action: 'create', type: 'users', actor: SYSTEM, changes: { attributes: { username: 'editor', password: 'editor-secret-1' } } });
    user = (await s.login('editor', 'editor-secret-1')).jwt;
  });
  after(() => s.close());

  test('done when: articles with a rating, found by a body word, related to documents both ways, trashed and restored, schema = validation', async () => {
    const type = await post('/model/object_types', 'object_types', { name: 'articles', singular: 'article', description: 'Articles' });
    assert.equal(type.status, 201);
    assert.equal(type.body.data.attributes.parent_name, 'objects');
    const prop = await post('/model/properties', 'properties', { name: 'rating', property_type_name: 'integer', object_type_name: 'articles', required: true });
    assert.equal(prop.status, 201);

    const schema = await s.request('GET', '/model/schema/articles', { headers: { Accept: 'application/schema+json' } });
    assert.equal(schema.status, 200);
    assert.match(schema.headers.get('content-type')!, /application\/schema\+json/);
    assert.equal(schema.body.$schema, 'http://json-schema.org/draft-06/schema#');
    assert.equal(schema.body.$id, `${s.url}/model/schema/articles`);
    assert.equal(schema.body.type, 'object');
    assert.deepEqual(schema.body.required, ['rating']);
    assert.deepEqual(schema.body.properties.rating, { $id: '/properties/rating', type: ['integer', 'null'], isMeta: false });
    assert.equal(schema.body.properties.created.isMeta, true);
    for (const p of Object.values<any>(schema.body.properties)) assert.equal(typeof p.isMeta, 'boolean');

    // What the schema says is what the server applies.
    expectError(await post('/articles', 'articles', { title: 'No rating' }), 400, 'invalid_data');
    const wrong = expectError(await post('/articles', 'articles', { title: 'Bad', rating: 'five' }), 400, 'invalid_data');
    assert.match(wrong.detail, /rating/);
    expectError(await post('/articles', 'articles', { title: 'Bad', rating: 5, mood: 'x' }), 400, 'unknown_attribute');

    const art = await post('/articles', 'articles', { title: 'Growing beans', body: 'A note on legumes and soil', rating: 4, status: 'on' });
    assert.equal(art.status, 201);
    assert.equal(art.body.data.attributes.rating, 4);
    const other = await post('/articles', 'articles', { title: 'Other', body: 'nothing here', rating: 2, status: 'on' });
    const found = await s.request('GET', '/articles?q=legumes');
    assert.deepEqual(found.body.data.map((d: any) => d.id), [art.body.data.id]);
    assert.equal(found.body.meta.schema.articles.revision, schema.body.revision);
    const rated = await s.request('GET', '/articles?filter[rating][gte]=3&sort=-rating');
    assert.deepEqual(rated.body.data.map((d: any) => d.id), [art.body.data.id]);
    assert.deepEqual((await s.request('GET', '/articles?sort=rating')).body.data.map((d: any) => d.id), [other.body.data.id, art.body.data.id]);

    const doc = await post('/documents', 'documents', { title: 'Soil types', status: 'on' });
    const id = art.body.data.id;
    // see_also does not know articles yet: 400; an admin adds the type to both sides.
    expectError(await s.request('POST', `/articles/${id}/relationships/see_also`, { token: admin, body: { data: [{ type: 'documents', id: doc.body.data.id }] } }), 404);
    for (const side of ['left', 'right']) {
      const r = await s.request('POST', `/model/relations/see_also/relationships/${side}_object_types`, { token: admin, body: { data: [{ type: 'object_types', id: 'articles' }] } });
      assert.equal(r.status, 200);
    }
    const rel = await s.request('POST', `/articles/${id}/relationships/see_also`, { token: admin, body: { data: [{ type: 'documents', id: doc.body.data.id }] } });
    assert.equal(rel.status, 200);
    const fromDoc = await s.request('GET', `/documents/${doc.body.data.id}/seen_also_by`);
    assert.deepEqual(fromDoc.body.data.map((d: any) => [d.type, d.id]), [['articles', id]]);
    const fromArt = await s.request('GET', `/articles/${id}/see_also`);
    assert.deepEqual(fromArt.body.data.map((d: any) => [d.type, d.id]), [['documents', doc.body.data.id]]);

    assert.equal((await s.request('DELETE', `/articles/${id}`, { token: admin })).status, 204);
    assert.deepEqual((await s.request('GET', '/articles?q=legumes')).body.data, []);
    assert.deepEqual((await s.request('GET', `/documents/${doc.body.data.id}/seen_also_by`)).body.data, []);
    assert.equal((await s.request('PATCH', `/trash/${id}`, { token: admin, body: { data: { id, type: 'objects' } } })).status, 204);
    assert.equal((await s.request('GET', '/articles?q=legumes')).body.data.length, 1);
    assert.equal((await s.request('GET', `/documents/${doc.body.data.id}/seen_also_by`)).body.data.length, 1);

    // A type in use cannot go; a relation in use neither.
    expectError(await s.request('DELETE', '/model/object_types/articles', { token: admin }), 403, 'type_in_use');
    expectError(await s.request('DELETE', '/model/relations/see_also', { token: admin }), 403);
    expectError(await s.request('DELETE', '/model/relations/see_also/relationships/left_object_types', { token: admin, body: { data: { type: 'object_types', id: 'articles' } } }), 403);
  });

  test('object type names: lower snake case, not reserved, unique; core types cannot be deleted', async () => {
    for (const name of ['Books', 'folders', 'home', '1abc', 'documents', 'objects']) {
      expectError(await post('/model/object_types', 'object_types', { name }), 400);
    }
    expectError(await post('/model/object_types', 'object_types', { name: 'books', parent_name: 'documents' }), 400, 'invalid_parent');
    expectError(await s.request('DELETE', '/model/object_types/documents', { token: admin }), 403, 'core_type');
    expectError(await post('/model/object_types', 'object_types', { name: 'books' }, user), 403);
    expectError(await post('/model/object_types', 'object_types', { name: 'books' }, ''), 401);
  });

  test('a new type has its endpoint at once; disabled or abstract types have none; an unused type can be deleted', async () => {
    const t = await post('/model/object_types', 'object_types', { name: 'recipes' });
    assert.equal(t.body.data.attributes.singular, 'recipe');
    assert.equal((await s.request('GET', '/recipes')).status, 200);
    const byName = await s.request('GET', '/model/object_types/recipes', { token: user });
    assert.equal(byName.body.data.id, t.body.data.id);
    await s.request('PATCH', `/model/object_types/${t.body.data.id}`, { token: admin, body: { data: { id: t.body.data.id, type: 'object_types', attributes: { enabled: false } } } });
    expectError(await s.request('GET', '/recipes'), 404);
    const abs = await post('/model/object_types', 'object_types', { name: 'works', is_abstract: true });
    assert.equal(abs.status, 201);
    expectError(await s.request('GET', '/works'), 404);
    assert.equal((await post('/model/object_types', 'object_types', { name: 'paintings', parent_name: 'works' })).status, 201);
    expectError(await s.request('DELETE', '/model/object_types/works', { token: admin }), 403, 'type_in_use');
    assert.equal((await s.request('DELETE', '/model/object_types/paintings', { token: admin })).status, 204);
    assert.equal((await s.request('DELETE', `/model/object_types/${t.body.data.id}`, { token: admin })).status, 204);
    expectError(await s.request('GET', '/model/object_types/recipes', { token: admin }), 404);
  });

  test('properties: unknown type or bad property type gives 400, core names are refused, a change bumps the revision', async () => {
    expectError(await post('/model/properties', 'properties', { name: 'x', property_type_name: 'integer', object_type_name: 'nothing' }), 400);
    expectError(await post('/model/properties', 'properties', { name: 'x', property_type_name: 'color', object_type_name: 'events' }), 400);
    expectError(await post('/model/properties', 'properties', { name: 'title', property_type_name: 'string', object_type_name: 'events' }), 400);
    expectError(await post('/model/properties', 'properties', { name: 'see_also', property_type_name: 'string', object_type_name: 'events' }), 400);
    const summary = await post('/model/properties', 'properties', { name: 'summary', property_type_name: 'text', object_type_name: 'events' });
    assert.equal(summary.status, 201);
    const ev = await post('/events', 'events', { title: 'Concert', summary: 'with a theremin', status: 'on' });
    assert.deepEqual((await s.request('GET', '/events?q=theremin')).body.data.map((d: any) => d.id), [ev.body.data.id]);
    const before = (await s.request('GET', '/model/schema/events')).body.revision;
    const p = await post('/model/properties', 'properties', { name: 'venue_url', property_type_name: 'url', object_type_name: 'events' });
    assert.equal(p.status, 201);
    const after = await s.request('GET', '/model/schema/events');
    assert.ok(after.body.revision > before);
    assert.equal(after.body.properties.venue_url.format, 'uri');
    expectError(await post('/events', 'events', { venue_url: 'not a url' }), 400);
    const e = await post('/events', 'events', { venue_url: 'https://example.com/' });
    assert.equal(e.status, 201);
    const list = await s.request('GET', '/model/properties?filter[object_type_name]=events&filter[name]=venue_url', { token: admin });
    assert.deepEqual(list.body.data.map((d: any) => d.attributes.name), ['venue_url']);
    assert.equal((await s.request('DELETE', `/model/properties/${p.body.data.id}`, { token: admin })).status, 204);
    expectError(await post('/events', 'events', { venue_url: 'https://example.com/' }), 400, 'unknown_attribute');
  });

  test('relations: rules on names, read by id, name or inverse name, sides listed, 404 when unknown', async () => {
    expectError(await post('/model/relations', 'relations', { name: 'see_also', inverse_name: 'x_by' }), 400);
    expectError(await post('/model/relations', 'relations', { name: 'same', inverse_name: 'same' }), 400);
    expectError(await post('/model/relations', 'relations', { name: 'Bad Name', inverse_name: 'ok_by' }), 400);
    expectError(await post('/model/relations', 'relations', { inverse_name: 'ok_by' }), 400);
    const r = await post('/model/relations', 'relations', { name: 'mentions', inverse_name: 'mentioned_in', label: 'Mentions' });
    assert.equal(r.status, 201);
    assert.deepEqual(r.body.data.attributes.params, {});
    for (const key of [r.body.data.id, 'mentions', 'mentioned_in']) {
      assert.equal((await s.request('GET', `/model/relations/${key}`, { token: user })).body.data.attributes.name, 'mentions');
    }
    await s.request('PATCH', '/model/relations/mentions/relationships/left_object_types', { token: admin, body: { data: [{ type: 'object_types', id: 'news' }] } });
    const left = await s.request('GET', '/model/relations/mentions/left_object_types', { token: user });
    assert.deepEqual(left.body.data.map((d: any) => d.attributes.name), ['news']);
    expectError(await s.request('DELETE', '/model/relations/mentions/relationships/right_object_types', { token: admin, body: { data: { type: 'object_types', id: 'news' } } }), 400);
    expectError(await s.request('POST', '/model/relations/mentions/relationships/right_object_types', { token: admin, body: { data: [{ type: 'documents', id: 'news' }] } }), 400);
    expectError(await s.request('POST', '/model/relations/mentions/relationships/right_object_types', { token: admin, body: { data: [{ type: 'object_types', id: 'nothing' }] } }), 400);
    const patched = await s.request('PATCH', `/model/relations/${r.body.data.id}`, { token: admin, body: { data: { id: r.body.data.id, type: 'relations', attributes: { description: 'Who mentions whom' } } } });
    assert.equal(patched.body.data.attributes.description, 'Who mentions whom');
    assert.equal((await s.request('DELETE', '/model/relations/mentions', { token: admin })).status, 204);
    expectError(await s.request('GET', '/model/relations/mentions', { token: admin }), 404);
    const defaults = await s.request('GET', '/model/relations?sort=name', { token: user });
    assert.deepEqual(defaults.body.data.map((d: any) => d.attributes.name), ['attach', 'poster', 'see_also']);
    const posterRight = await s.request('GET', '/model/relations/poster/right_object_types', { token: user });
    assert.deepEqual(posterRight.body.data.map((d: any) => d.attributes.name), ['images']);
  });

  test('schemas of roles, streams and applications; 404 for an unknown name; anonymous may read', async () => {
    const roles = await s.request('GET', '/model/schema/roles', { headers: { Accept: 'application/schema+json' } });
    assert.equal(roles.body.properties.name.maxLength, 32);
    assert.deepEqual(roles.body.required, ['name']);
    for (const name of ['streams', 'applications', 'documents']) assert.equal((await s.request('GET', `/model/schema/${name}`)).status, 200);
    expectError(await s.request('GET', '/model/schema/nothing'), 404);
    expectError(await s.request('GET', '/model/object_types'), 401);
  });

  test('locking is for admins only: anyone else sending meta.locked gets 403', async () => {
    // A user whose role may write documents (without a role it could not create one at all).
    const role = await post('/roles', 'roles', { name: 'authors', permissions: { documents: ['read', 'create', 'update', 'delete'] } }, admin);
    const me = await s.request('GET', '/auth', { token: user });
    await s.request('POST', `/users/${me.body.data.id}/relationships/roles`, { token: admin, body: { data: [{ type: 'roles', id: role.body.data.id }] } });
    const d = await post('/documents', 'documents', { title: 'Mine' }, user);
    assert.equal(d.status, 201);
    const r = await s.request('PATCH', `/documents/${d.body.data.id}`, { token: user, body: { data: { id: d.body.data.id, type: 'documents', meta: { locked: true } } } });
    expectError(r, 403);
    // The trash lists what the user may delete (none of it is trashed yet).
    assert.deepEqual((await s.request('GET', '/trash', { token: user })).body.data, []);
    // Another user's account is not even visible to a non-admin.
    expectError(await s.request('DELETE', '/objects/1', { token: user }), 404);
  });
});
