// BEdita 5's model, as its clients use it: object types with `table`,
// `associations`, `hidden`, `is_translatable`, `translation_rules` and read-only `core_type`;
// `/model/property_types` (params: a JSON Schema fragment) validating custom properties; the
// `object_type` and `type` filters of `/model/properties`.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { expectError, startServer, type TestServer } from './helpers/server.js';

describe('model: BEdita 5 attributes, property types, property filters', () => {
  let s: TestServer;
  let admin: string;
  // Strict, as the admin UI writes: an unknown attribute is refused, not ignored.
  const post = (path: string, type: string, attributes: Record<string, unknown>) => s.request('POST', path, { token: admin, headers: { Prefer: 'handling=strict' }, body: { data: { type, attributes } } });
  const patch = (path: string, type: string, id: string, attributes: Record<string, unknown>) =>
    s.request('PATCH', path, { token: admin, body: { data: { id, type, attributes } } });
  const get = (path: string) => s.request('GET', path, { token: admin });
  before(async () => {
    s = await startServer();
    admin = await s.adminToken();
  });
  after(() => s.close());

  test("BEdita's usual POST /model/object_types body makes a usable type; POST /<type> works", async () => {
    // As BEdita's own API test sends it: `alias` and a null description ride along.
    const created = await post('/model/object_types', 'object_types', {
      singular: 'cat',
      name: 'cats',
      alias: 'My Cats',
      description: null,
      table: 'BEdita/Core.Objects',
      core_type: true,
    });
    assert.equal(created.status, 201);
    assert.equal(created.headers.get('location'), `${s.url}/model/object_types/${created.body.data.id}`);
    const a = created.body.data.attributes;
    assert.deepEqual(
      { table: a.table, associations: a.associations, hidden: a.hidden, is_translatable: a.is_translatable, translation_rules: a.translation_rules, parent_name: a.parent_name },
      { table: 'BEdita/Core.Objects', associations: null, hidden: null, is_translatable: true, translation_rules: null, parent_name: 'objects' },
    );
    // core_type is read-only: sent, it is ignored (BEdita does not accept it either).
    assert.equal(created.body.data.meta.core_type, false);
    assert.equal(created.body.data.meta.alias, 'Cats');
    assert.equal('core_type' in a, false);

    const cat = await post('/cats', 'cats', { title: 'Tom', status: 'on' });
    assert.equal(cat.status, 201);
    assert.equal(cat.body.data.type, 'cats');
    assert.equal((await s.request('GET', `/cats/${cat.body.data.id}`)).body.data.attributes.title, 'Tom');

    // Without a table, a type gets BEdita's default; a media sub-type stores as media.
    const plain = await post('/model/object_types', 'object_types', { name: 'dogs', singular: 'dog' });
    assert.equal(plain.body.data.attributes.table, 'BEdita/Core.Objects');
    const clips = await post('/model/object_types', 'object_types', { name: 'clips', singular: 'clip', parent_name: 'media' });
    assert.equal(clips.status, 201);
    assert.equal(clips.body.data.attributes.table, 'BEdita/Core.Media');
  });

  test('built-in types read back BEdita 5 defaults: tables, events with DateRanges, media with Streams, core_type', async () => {
    const byName = async (name: string) => (await get(`/model/object_types/${name}`)).body.data;
    const events = await byName('events');
    assert.deepEqual(events.attributes.associations, ['DateRanges']);
    assert.equal(events.attributes.table, 'BEdita/Core.Objects');
    assert.equal(events.meta.core_type, true);
    assert.deepEqual((await byName('images')).attributes.associations, ['Streams']);
    assert.equal((await byName('images')).attributes.table, 'BEdita/Core.Media');
    assert.equal((await byName('users')).attributes.table, 'BEdita/Core.Users');
    assert.equal((await byName('locations')).attributes.table, 'BEdita/Core.Locations');
    assert.equal((await byName('documents')).attributes.associations, null);
    assert.equal((await byName('documents')).attributes.is_translatable, true);
    // core_type sent on a PATCH is ignored as well; a core type's table cannot change (403).
    const docs = await byName('documents');
    const ignored = await patch(`/model/object_types/${docs.id}`, 'object_types', docs.id, { core_type: false, description: 'Texts' });
    assert.equal(ignored.status, 200);
    assert.equal(ignored.body.data.meta.core_type, true);
    expectError(await patch(`/model/object_types/${docs.id}`, 'object_types', docs.id, { table: 'BEdita/Core.Profiles' }), 403, 'core_type');
    // A core type may take associations (BEdita projects add Categories and Tags to documents).
    const assoc = await patch(`/model/object_types/${docs.id}`, 'object_types', docs.id, { associations: ['Categories', 'Tags'] });
    assert.equal(assoc.status, 200);
    assert.deepEqual(assoc.body.data.attributes.associations, ['Categories', 'Tags']);
    const back = await patch(`/model/object_types/${docs.id}`, 'object_types', docs.id, { associations: null });
    assert.equal(back.body.data.attributes.associations, null);
  });

  test('each new attribute round-trips through POST, GET and PATCH; bad values give 400 and change nothing', async () => {
    const t = await post('/model/object_types', 'object_types', {
      name: 'talks',
      singular: 'talk',
      associations: ['DateRanges', 'Categories', 'Tags'],
      is_translatable: false,
      translation_rules: { title: true, body: false },
    });
    assert.equal(t.status, 201);
    const id = t.body.data.id;
    const read = (await get(`/model/object_types/talks`)).body.data.attributes;
    assert.deepEqual(read.associations, ['DateRanges', 'Categories', 'Tags']);
    assert.equal(read.is_translatable, false);
    assert.deepEqual(read.translation_rules, { title: true, body: false });
    const changed = await patch(`/model/object_types/${id}`, 'object_types', id, { is_translatable: true, translation_rules: null, associations: ['Tags'] });
    assert.equal(changed.status, 200);
    assert.equal(changed.body.data.attributes.is_translatable, true);
    assert.equal(changed.body.data.attributes.translation_rules, null);
    assert.deepEqual(changed.body.data.attributes.associations, ['Tags']);

    const before = (await get('/model/object_types/talks')).body.data;
    for (const [attributes, code] of [
      [{ associations: ['Comments'] }, 'invalid_data'],
      [{ associations: 'Tags' }, 'invalid_data'],
      [{ associations: ['Tags', 'Tags'] }, 'invalid_data'],
      [{ associations: ['Streams'] }, 'invalid_data'],
      [{ table: 'MyPlugin.Cats' }, 'invalid_table'],
      [{ table: 'BEdita/Core.Media' }, 'invalid_table'],
      [{ table: 'BEdita/Core.Users' }, 'invalid_table'],
      [{ hidden: ['nothing_like_this'] }, 'invalid_data'],
      [{ hidden: ['status'] }, 'invalid_data'],
      [{ hidden: 'body' }, 'invalid_data'],
      [{ is_translatable: 'yes' }, 'invalid_data'],
      [{ translation_rules: { title: 'always' } }, 'invalid_data'],
      [{ translation_rules: ['title'] }, 'invalid_data'],
    ] as const) {
      const e = expectError(await patch(`/model/object_types/${id}`, 'object_types', id, attributes), 400, code);
      assert.match(e.detail, new RegExp(Object.keys(attributes)[0] === 'table' ? 'table' : Object.keys(attributes)[0]));
    }
    assert.deepEqual((await get('/model/object_types/talks')).body.data, before);
    // A new type with a bad attribute is not created.
    expectError(await post('/model/object_types', 'object_types', { name: 'broken', singular: 'broken_one', table: 'Nope.Things' }), 400, 'invalid_table');
    expectError(await post('/model/object_types', 'object_types', { name: 'broken', singular: 'broken_one', associations: ['Nope'] }), 400, 'invalid_data');
    expectError(await get('/model/object_types/broken'), 404);
  });

  test('hidden properties are not in the schema, not writable and not shown; un-hiding brings them back', async () => {
    const t = await post('/model/object_types', 'object_types', { name: 'memos', singular: 'memo' });
    const id = t.body.data.id;
    const prop = await post('/model/properties', 'properties', { name: 'urgency', property_type_name: 'integer', object_type_name: 'memos', required: true });
    assert.equal(prop.status, 201);
    const memo = await post('/memos', 'memos', { title: 'First', body: 'text', urgency: 2 });
    assert.equal(memo.status, 201);

    const hid = await patch(`/model/object_types/${id}`, 'object_types', id, { hidden: ['body', 'urgency'] });
    assert.equal(hid.status, 200);
    assert.deepEqual(hid.body.data.attributes.hidden, ['body', 'urgency']);
    const schema = await s.request('GET', '/model/schema/memos', { headers: { Accept: 'application/schema+json' } });
    assert.equal('body' in schema.body.properties, false);
    assert.equal('urgency' in schema.body.properties, false);
    assert.deepEqual(schema.body.required, []);
    assert.ok('title' in schema.body.properties);
    const shown = (await get(`/memos/${memo.body.data.id}`)).body.data.attributes;
    assert.equal('body' in shown, false);
    assert.equal('urgency' in shown, false);
    assert.equal(shown.title, 'First');
    // Not writable: the schema has no such attribute (400 naming it); the required one is not asked for.
    const e = expectError(await post('/memos', 'memos', { title: 'x', body: 'y' }), 400, 'unknown_attribute');
    assert.match(e.detail, /body/);
    expectError(await s.request('PATCH', `/memos/${memo.body.data.id}`, { token: admin, headers: { Prefer: 'handling=strict' }, body: { data: { id: memo.body.data.id, type: 'memos', attributes: { urgency: 5 } } } }), 400, 'unknown_attribute');
    assert.equal((await post('/memos', 'memos', { title: 'No urgency needed' })).status, 201);
    // Lists do not filter on a hidden property.
    expectError(await get('/memos?filter[urgency]=2'), 400);

    const shownAgain = await patch(`/model/object_types/${id}`, 'object_types', id, { hidden: null });
    assert.equal(shownAgain.body.data.attributes.hidden, null);
    const again = (await get(`/memos/${memo.body.data.id}`)).body.data.attributes;
    assert.equal(again.body, 'text');
    assert.equal(again.urgency, 2);
  });

  test('/model/property_types: core ones listed and read-only; CRUD of a custom one with good and bad input', async () => {
    const list = await get('/model/property_types?page_size=100');
    assert.equal(list.status, 200);
    const names = list.body.data.map((d: any) => d.attributes.name);
    for (const n of ['string', 'text', 'integer', 'number', 'boolean', 'date', 'datetime', 'json', 'email', 'url']) assert.ok(names.includes(n), n);
    const string = list.body.data.find((d: any) => d.attributes.name === 'string');
    assert.equal(string.type, 'property_types');
    assert.equal(string.meta.core_type, true);
    assert.deepEqual(string.attributes.params, { type: 'string', maxLength: 255 });
    assert.equal((await get('/model/property_types/string')).body.data.id, string.id);
    assert.equal((await get(`/model/property_types?filter[core_type]=false`)).body.data.length, 0);
    // Core ones cannot change or go.
    expectError(await patch(`/model/property_types/${string.id}`, 'property_types', string.id, { params: { type: 'string' } }), 403, 'core_type');
    expectError(await s.request('DELETE', `/model/property_types/${string.id}`, { token: admin }), 403, 'core_type');

    const created = await post('/model/property_types', 'property_types', { name: 'mood', params: { type: 'string', enum: ['calm', 'angry'] }, core_type: true });
    assert.equal(created.status, 201);
    assert.equal(created.headers.get('location'), `${s.url}/model/property_types/${created.body.data.id}`);
    assert.equal(created.body.data.meta.core_type, false);
    assert.deepEqual(created.body.data.attributes.params, { type: 'string', enum: ['calm', 'angry'] });
    const id = created.body.data.id;

    const count = async () => (await get('/model/property_types?page_size=100')).body.meta.pagination.count;
    const n = await count();
    expectError(await post('/model/property_types', 'property_types', { name: 'mood', params: { type: 'string' } }), 400, 'property_type_exists');
    expectError(await post('/model/property_types', 'property_types', { name: 'Bad Name', params: { type: 'string' } }), 400, 'invalid_name');
    expectError(await post('/model/property_types', 'property_types', { params: { type: 'string' } }), 400, 'invalid_data');
    expectError(await post('/model/property_types', 'property_types', { name: 'weird', params: { type: 'strang' } }), 400, 'invalid_data');
    expectError(await post('/model/property_types', 'property_types', { name: 'weird', params: { enum: 'a' } }), 400, 'invalid_data');
    expectError(await post('/model/property_types', 'property_types', { name: 'weird', params: '{"type":"string"}' }), 400, 'invalid_data');
    expectError(await post('/model/property_types', 'property_types', { name: 'weird', params: { $ref: '#/definitions/nothing' } }), 400, 'invalid_data');
    expectError(await post('/model/property_types', 'property_types', { name: 'weird', colour: 'red' }), 400, 'unknown_attribute');
    assert.equal(await count(), n);
    expectError(await s.request('POST', '/model/property_types', { body: { data: { type: 'property_types', attributes: { name: 'anon' } } } }), 401);

    const changed = await patch(`/model/property_types/${id}`, 'property_types', id, { params: { type: 'string', enum: ['calm', 'angry', 'happy'] } });
    assert.equal(changed.status, 200);
    assert.deepEqual(changed.body.data.attributes.params.enum, ['calm', 'angry', 'happy']);
    expectError(await patch(`/model/property_types/${id}`, 'property_types', id, { params: { type: 7 } }), 400, 'invalid_data');
    expectError(await patch(`/model/property_types/${id}`, 'property_types', id, { name: 'string' }), 400, 'property_type_exists');
    assert.deepEqual((await get(`/model/property_types/${id}`)).body.data.attributes.params.enum, ['calm', 'angry', 'happy']);

    const temp = await post('/model/property_types', 'property_types', { name: 'temp_kind', params: {} });
    assert.equal(temp.status, 201);
    assert.equal((await s.request('DELETE', `/model/property_types/${temp.body.data.id}`, { token: admin })).status, 204);
    expectError(await get(`/model/property_types/${temp.body.data.id}`), 404);
    expectError(await get('/model/property_types/nothing_like_this'), 404);
  });

  test('a custom property of a custom property type: schema shows the fragment, an enum refuses other values (400 naming the field), also in /operations', async () => {
    const type = await post('/model/property_types', 'property_types', { name: 'weather', params: { type: 'string', enum: ['sunny', 'rainy'] } });
    assert.equal(type.status, 201);
    await post('/model/object_types', 'object_types', { name: 'diaries', singular: 'diary' });
    const prop = await post('/model/properties', 'properties', { name: 'sky', property_type_name: 'weather', object_type_name: 'diaries' });
    assert.equal(prop.status, 201);
    assert.equal(prop.body.data.attributes.property_type_name, 'weather');
    expectError(await post('/model/properties', 'properties', { name: 'other', property_type_name: 'nothing_like_this', object_type_name: 'diaries' }), 400, 'invalid_data');

    const schema = await s.request('GET', '/model/schema/diaries', { headers: { Accept: 'application/schema+json' } });
    assert.deepEqual(schema.body.properties.sky, { $id: '/properties/sky', type: ['string', 'null'], enum: ['sunny', 'rainy', null], isMeta: false });

    const ok = await post('/diaries', 'diaries', { title: 'Monday', sky: 'sunny' });
    assert.equal(ok.status, 201);
    assert.equal(ok.body.data.attributes.sky, 'sunny');
    const bad = expectError(await post('/diaries', 'diaries', { title: 'Tuesday', sky: 'foggy' }), 400, 'invalid_data');
    assert.match(bad.detail, /"sky"/);
    assert.deepEqual(bad.meta?.fields ?? [], ['sky']);
    const id = ok.body.data.id;
    expectError(await s.request('PATCH', `/diaries/${id}`, { token: admin, body: { data: { id, type: 'diaries', attributes: { sky: 'foggy' } } } }), 400, 'invalid_data');
    assert.equal((await get(`/diaries/${id}`)).body.data.attributes.sky, 'sunny');
    // null clears it (custom properties are nullable).
    const cleared = await s.request('PATCH', `/diaries/${id}`, { token: admin, body: { data: { id, type: 'diaries', attributes: { sky: null } } } });
    assert.equal(cleared.status, 200);
    assert.equal(cleared.body.data.attributes.sky, null);
    // Lists filter on it as on a string.
    await post('/diaries', 'diaries', { title: 'Wednesday', sky: 'rainy' });
    assert.deepEqual((await get('/diaries?filter[sky]=rainy')).body.data.map((d: any) => d.attributes.title), ['Wednesday']);

    // /operations runs the same check: the whole batch fails, nothing is created.
    const total = (await get('/diaries')).body.meta.pagination.count;
    const ops = await s.request('POST', '/operations', {
      token: admin,
      body: { 'atomic:operations': [
        { op: 'add', data: { type: 'diaries', attributes: { title: 'Fine', sky: 'rainy' } } },
        { op: 'add', data: { type: 'diaries', attributes: { title: 'Foggy', sky: 'foggy' } } },
      ] },
    });
    const err = expectError(ops, 400, 'invalid_data');
    assert.match(err.detail, /"sky"/);
    assert.equal((await get('/diaries')).body.meta.pagination.count, total);

    // A property type in use cannot go (403, as BEdita); renaming it follows into its properties.
    expectError(await s.request('DELETE', `/model/property_types/${type.body.data.id}`, { token: admin }), 403, 'property_type_in_use');
    const renamed = await patch(`/model/property_types/${type.body.data.id}`, 'property_types', type.body.data.id, { name: 'sky_state' });
    assert.equal(renamed.status, 200);
    assert.equal((await get(`/model/properties/${prop.body.data.id}`)).body.data.attributes.property_type_name, 'sky_state');
    // Its params apply at once: a value it now allows is accepted.
    await patch(`/model/property_types/${type.body.data.id}`, 'property_types', type.body.data.id, { params: { type: 'string', enum: ['sunny', 'rainy', 'foggy'] } });
    assert.equal((await post('/diaries', 'diaries', { title: 'Thursday', sky: 'foggy' })).status, 201);
  });

  test('/model/properties: filter[object_type] (the type and its ancestors) and filter[type] static | dynamic | both', async () => {
    await post('/model/object_types', 'object_types', { name: 'recipes', singular: 'recipe' });
    const servings = await post('/model/properties', 'properties', { name: 'servings', property_type_name: 'integer', object_type_name: 'recipes' });
    assert.equal(servings.status, 201);
    await post('/model/properties', 'properties', { name: 'venue_hint', property_type_name: 'string', object_type_name: 'events' });

    const names = (res: any) => res.body.data.map((d: any) => d.attributes.name);
    // Default: the custom (dynamic) properties, as Folio always listed them.
    const dynamic = await get('/model/properties?filter[object_type]=recipes&filter[type]=dynamic');
    assert.equal(dynamic.status, 200);
    assert.deepEqual(names(dynamic), ['servings']);
    assert.deepEqual(names(await get('/model/properties?filter[object_type]=recipes')), ['servings']);

    const statics = await get('/model/properties?filter[object_type]=recipes&filter[type]=static&page_size=100');
    assert.equal(statics.status, 200);
    for (const n of ['title', 'description', 'body', 'status', 'uname', 'lang', 'extra', 'created', 'modified']) assert.ok(names(statics).includes(n), n);
    assert.equal(names(statics).includes('servings'), false);
    const title = statics.body.data.find((d: any) => d.attributes.name === 'title');
    // BEdita's id of a static property: UUID v5 of "objects.title" in the nil namespace.
    assert.match(title.id, /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(title.attributes.object_type_name, 'objects');
    assert.equal(statics.body.data.find((d: any) => d.attributes.name === 'status').attributes.property_type_name, 'status');
    assert.equal((await get(`/model/properties/${title.id}`)).body.data.attributes.name, 'title');
    expectError(await s.request('DELETE', `/model/properties/${title.id}`, { token: admin }), 403, 'static_property');
    expectError(await patch(`/model/properties/${title.id}`, 'properties', title.id, { description: 'x' }), 403, 'static_property');

    // Users have static properties of their own.
    const users = await get('/model/properties?filter[object_type]=users&filter[type]=static&page_size=100');
    const username = users.body.data.find((d: any) => d.attributes.name === 'username');
    assert.equal(username.attributes.object_type_name, 'users');
    assert.equal(names(users).includes('password'), false);

    const both = await get('/model/properties?filter[object_type]=recipes&filter[type]=both&page_size=100');
    assert.equal(both.body.meta.pagination.count, statics.body.meta.pagination.count + 1);
    // Another type does not see recipes' property; events see their own.
    assert.equal(names(await get('/model/properties?filter[object_type]=documents')).includes('servings'), false);
    assert.ok(names(await get('/model/properties?filter[object_type]=events')).includes('venue_hint'));

    expectError(await get('/model/properties?filter[type]=everything'), 400, 'invalid_filter');
    expectError(await get('/model/properties?filter[object_type]=nothing_like_this'), 400, 'invalid_filter');
    expectError(await get('/model/properties?filter[colour]=red'), 400);
  });
});
