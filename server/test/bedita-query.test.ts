// BEdita 5's query language on object lists and reads, as its clients send it: `fields=a,b`
// beside `fields[type]=…` (meta trimmed too), `include=parents`, `count=all|<relations>`
// (`meta.count` of each relationship), `filter[type][ne]`, `filter[<relation>]=<id>`,
// `filter[<field>][le|ge]`, page sizes over 100, `filter[by_relation]` and `filter[parent]` on
// /model/object_types, `q=` on /annotations. What a reader may not see stays out of each of them.
// Through HTTP, on SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { expectError, startServer, type TestResponse, type TestServer } from './helpers/server.js';
import { createUser } from './helpers/users.js';

describe("BEdita 5's query language", () => {
  let s: TestServer;
  let admin: string;
  /** A signed-in user with no role: reads what anonymous clients read. */
  let reader: string;
  let published: string;
  let draft: string;
  let other: string;
  let folder: string;
  let hiddenFolder: string;

  const make = async (type: string, attributes: Record<string, unknown>) => {
    const r = await s.request('POST', `/${type}`, { token: admin, body: { data: { type, attributes } } });
    assert.equal(r.status, 201, r.text);
    return String(r.body.data.id);
  };
  const relate = async (path: string, data: unknown) => assert.equal((await s.request('POST', path, { token: admin, body: { data } })).status, 200);
  const ids = (r: TestResponse) => r.body.data.map((d: { id: string }) => d.id);
  const get = (path: string, token?: string) => s.request('GET', path, { token });

  before(async () => {
    s = await startServer();
    admin = await s.adminToken();
    reader = (await createUser(s, admin, { username: 'rita' })).jwt;
    published = await make('documents', { title: 'Published', description: 'Shown', status: 'on' });
    draft = await make('documents', { title: 'Draft', status: 'draft' });
    other = await make('documents', { title: 'Other', status: 'on' });
    folder = await make('folders', { title: 'Open folder', status: 'on' });
    hiddenFolder = await make('folders', { title: 'Draft folder', status: 'draft' });
    await relate(`/folders/${folder}/relationships/children`, [{ type: 'documents', id: published }]);
    await relate(`/folders/${hiddenFolder}/relationships/children`, [{ type: 'documents', id: published }]);
    // published → draft and published → other by see_also.
    await relate(`/documents/${published}/relationships/see_also`, [
      { type: 'documents', id: draft },
      { type: 'documents', id: other },
    ]);
  });
  after(() => s.close());

  test('fields=a,b keeps those attributes and meta of the primary data, as fields[type] does; included keep theirs', async () => {
    const r = await get(`/documents/${published}?fields=title,created&include=see_also`, admin);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.data.attributes, { title: 'Published' });
    assert.deepEqual(Object.keys(r.body.data.meta), ['created']);
    assert.ok(r.body.included.every((i: { attributes: Record<string, unknown> }) => 'description' in i.attributes), 'fields= is for the primary data');
    const list = await get('/documents?fields=title', admin);
    assert.ok(list.body.data.length >= 3);
    for (const d of list.body.data) {
      assert.deepEqual(Object.keys(d.attributes), ['title']);
      assert.deepEqual(d.meta, {});
    }
    // fields[type] trims meta too, as BEdita selects both; meta.relation of a related object stays.
    const typed = await get(`/documents/${published}/see_also?fields[documents]=title`, admin);
    for (const d of typed.body.data) {
      assert.deepEqual(Object.keys(d.attributes), ['title']);
      assert.deepEqual(Object.keys(d.meta), ['relation']);
    }
    // The per-type set wins over the common one for its type.
    const both = await get(`/documents/${published}?fields=title&fields[documents]=description`, admin);
    assert.equal(both.status, 200, both.text);
    expectError(await get('/documents?fields[documents][x]=1', admin), 400, 'invalid_fields');
  });

  test('fields= naming a field the type hides gives 400, as fields[type] does', async () => {
    const t = await s.request('POST', '/model/object_types', { token: admin, body: { data: { type: 'object_types', attributes: { name: 'notes', singular: 'note', hidden: ['body'] } } } });
    assert.equal(t.status, 201, t.text);
    expectError(await get('/notes?fields=title,body', admin), 400, 'invalid_fields');
    assert.equal((await get('/notes?fields=title', admin)).status, 200);
  });

  test('include=parents puts the folders an object is in into included, only those the reader may see', async () => {
    const asAdmin = await get(`/documents/${published}?include=parents`, admin);
    assert.equal(asAdmin.status, 200, asAdmin.text);
    assert.deepEqual(new Set(asAdmin.body.data.relationships.parents.data.map((p: { id: string }) => p.id)), new Set([folder, hiddenFolder]));
    assert.deepEqual(new Set(asAdmin.body.included.map((i: { id: string }) => i.id)), new Set([folder, hiddenFolder]));
    for (const token of [undefined, reader]) {
      const r = await get(`/documents/${published}?include=parents`, token);
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.body.data.relationships.parents.data, [{ id: folder, type: 'folders' }]);
      assert.deepEqual(r.body.included.map((i: { id: string }) => i.id), [folder]);
    }
    const list = await get(`/documents?include=parents&filter[id]=${published}`);
    assert.deepEqual(list.body.included.map((i: { id: string }) => i.id), [folder]);
    // Folders have parents too (a sub-folder's); an object in none has an empty list and no included.
    const alone = await get(`/documents/${other}?include=parents`);
    assert.deepEqual(alone.body.data.relationships.parents.data, []);
    assert.equal(alone.body.included, undefined);
    expectError(await get(`/documents/${published}?include=nowhere`), 400, 'invalid_include');
  });

  test('count=<relations> and count=all put meta.count on relationships, counting what the reader sees; unknown names are passed over', async () => {
    const one = await get(`/documents/${published}?count=see_also`, admin);
    assert.equal(one.status, 200, one.text);
    assert.deepEqual(one.body.data.relationships.see_also.meta, { count: 2 });
    assert.equal(one.body.data.relationships.poster.meta, undefined);
    const anonymous = await get(`/documents/${published}?count=see_also,seen_also_by,gustavo`);
    assert.equal(anonymous.status, 200, anonymous.text);
    assert.deepEqual(anonymous.body.data.relationships.see_also.meta, { count: 1 }, 'the draft is not counted');
    assert.deepEqual(anonymous.body.data.relationships.seen_also_by.meta, { count: 0 });
    const all = await get(`/documents?count=all&include=see_also&filter[id]=${published}`, admin);
    for (const rel of ['see_also', 'seen_also_by', 'poster', 'attach']) assert.equal(typeof all.body.data[0].relationships[rel].meta.count, 'number', rel);
    // Included objects carry their counts too (BEdita's CountQueryStringTest::testCountInclude).
    const target = all.body.included.find((i: { id: string }) => i.id === other);
    assert.deepEqual(target.relationships.seen_also_by.meta, { count: 1 });
    expectError(await get(`/documents/${published}?count[a]=b`), 400);
  });

  test('filter[type][ne] leaves types out of /objects; with filter[type] too', async () => {
    const all = ids(await get('/objects?page_size=100', admin));
    const noFolders = await get('/objects?filter[type][ne]=folders&page_size=100', admin);
    assert.equal(noFolders.status, 200, noFolders.text);
    assert.ok(!ids(noFolders).includes(folder));
    assert.ok(ids(noFolders).includes(published));
    assert.equal(ids(noFolders).length, all.length - 2);
    assert.deepEqual(ids(await get('/objects?filter[type][ne][]=folders&filter[type][ne][]=users&filter[type][ne][]=documents', admin)), []);
    assert.deepEqual(ids(await get('/objects?filter[type][eq]=folders&filter[type][ne]=documents', admin)).sort(), [folder, hiddenFolder].sort());
    expectError(await get('/objects?filter[type][ne]=nothing'), 400, 'invalid_filter');
    expectError(await get('/objects?filter[type][gt]=folders'), 400, 'invalid_filter');
    expectError(await get('/objects?filter[type][ne][x]=folders'), 400, 'invalid_filter');
  });

  test('filter[<relation name>]=<id> lists the objects related to it by that relation, from their side', async () => {
    assert.deepEqual(ids(await get(`/documents?filter[see_also]=${other}`)), [published]);
    assert.deepEqual(ids(await get(`/documents?filter[seen_also_by]=${published}`, admin)).sort(), [draft, other].sort());
    assert.deepEqual(ids(await get(`/objects?filter[seen_also_by]=${published}`)), [other], 'the draft is not listed to anonymous readers');
    // Related to an object the reader may not see: nothing (its relations are not revealed).
    assert.deepEqual(ids(await get(`/documents?filter[see_also]=${draft}`)), []);
    assert.deepEqual(ids(await get(`/documents?filter[see_also]=${draft}`, admin)), [published]);
    assert.deepEqual(ids(await get(`/documents?filter[see_also]=${draft},${other}`, admin)), [published]);
    assert.deepEqual(ids(await get('/documents?filter[see_also]=999999999999999', admin)), []);
    expectError(await get('/documents?filter[see_also]=abc'), 400, 'invalid_filter');
    expectError(await get('/documents?filter[see_also]='), 400, 'invalid_filter');
    expectError(await get('/documents?filter[see_also][gt]=1'), 400, 'invalid_filter');
    expectError(await get('/documents?filter[no_such_relation]=1'), 400, 'invalid_filter');
  });

  test('filter[<field>][le|ge] are lte and gte; page_size over 100 is answered as 100', async () => {
    const r = await get(`/documents?filter[id][ge]=${published}&filter[id][le]=${draft}`, admin);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(ids(r), [published, draft]);
    assert.deepEqual(ids(await get(`/documents?filter[created][ge]=2000-01-01&filter[id][le]=${published}`, admin)), [published]);
    expectError(await get('/documents?filter[id][like]=1'), 400, 'invalid_filter');
    const big = await get('/documents?page_size=500');
    assert.equal(big.status, 200, big.text);
    assert.equal(big.body.meta.pagination.page_size, 100);
    expectError(await get('/documents?page_size=0'), 400, 'invalid_pagination');
  });

  test('/model/object_types: filter[by_relation][name] (side, descendants) and filter[parent]', async () => {
    const names = (r: TestResponse) => r.body.data.map((d: { attributes: { name: string } }) => d.attributes.name).sort();
    const rel = await s.request('POST', '/model/relations', {
      token: admin,
      body: { data: { type: 'relations', attributes: { name: 'features', inverse_name: 'featured_in', label: 'Features', inverse_label: 'Featured in' } } },
    });
    assert.equal(rel.status, 201, rel.text);
    const relId = rel.body.data.id;
    await s.request('POST', `/model/relations/${relId}/relationships/left_object_types`, { token: admin, body: { data: [{ type: 'object_types', id: 'news' }] } });
    await s.request('POST', `/model/relations/${relId}/relationships/right_object_types`, { token: admin, body: { data: [{ type: 'object_types', id: 'profiles' }, { type: 'object_types', id: 'media' }] } });
    assert.deepEqual(names(await get('/model/object_types?filter[by_relation][name]=features', admin)), ['media', 'profiles']);
    assert.deepEqual(names(await get('/model/object_types?filter[by_relation][name]=features&filter[by_relation][side]=left', admin)), ['news']);
    assert.deepEqual(names(await get('/model/object_types?filter[by_relation][name]=featured_in', admin)), ['news']);
    const withSubtypes = names(await get('/model/object_types?filter[by_relation][name]=features&filter[by_relation][descendants]=1&page_size=100', admin));
    assert.ok(['images', 'files', 'media', 'profiles'].every((n) => withSubtypes.includes(n)), withSubtypes.join());
    assert.deepEqual(names(await get('/model/object_types?filter[by_relation][name]=nothing', admin)), []);
    assert.deepEqual(names(await get('/model/object_types?filter[parent]=media', admin)), ['audio', 'files', 'images', 'videos']);
    expectError(await get('/model/object_types?filter[by_relation]=features', admin), 400, 'invalid_filter');
    expectError(await get('/model/object_types?filter[by_relation][side]=left', admin), 400, 'invalid_filter');
    expectError(await get('/model/object_types?filter[by_relation][name]=features&filter[by_relation][side]=up', admin), 400, 'invalid_filter');
    expectError(await get('/model/object_types?filter[parent]=nothing', admin), 400, 'invalid_filter');
  });

  test('q= and filter[query] search annotations by their description, among those the reader may see', async () => {
    const note = async (objectId: string, description: string) => {
      const r = await s.request('POST', '/annotations', { token: admin, body: { data: { type: 'annotations', attributes: { object_id: objectId, description } } } });
      assert.equal(r.status, 201, r.text);
      return String(r.body.data.id);
    };
    const open = await note(published, 'Check the 100% Figures_here');
    await note(published, 'Nothing to see');
    const hidden = await note(draft, 'Figures of the draft');
    assert.deepEqual(ids(await get('/annotations?q=figures', admin)).sort(), [open, hidden].sort());
    assert.deepEqual(ids(await get('/annotations?q=figures', reader)), [open]);
    assert.deepEqual(ids(await get('/annotations?filter[query]=100%25+FIGURES_HERE', admin)), [open]);
    assert.deepEqual(ids(await get('/annotations?q=_', admin)), [open], 'LIKE wildcards are plain characters');
    expectError(await get('/annotations?q=', admin), 400, 'invalid_filter');
  });

  test('filter[<field>][null]=1 is "is null", =0 "is not null" (BEdita\'s null operator); another value is 400', async () => {
    const named = await make('profiles', { title: 'Named', name: 'Ada', status: 'on' });
    const nameless = await make('profiles', { title: 'Nameless', status: 'on' });
    for (const [value, expected] of [['1', [nameless]], ['true', [nameless]], ['0', [named]], ['false', [named]]] as const) {
      const got = ids(await get(`/profiles?filter[name][null]=${value}&filter[id]=${named},${nameless}`, admin));
      assert.deepEqual(got, expected, `filter[name][null]=${value}`);
    }
    expectError(await get('/profiles?filter[name][null]=maybe', admin), 400, 'invalid_filter');
    expectError(await get('/profiles?filter[name][null][]=1', admin), 400, 'invalid_filter');
  });

  test('filter[parent] lists a folder\'s objects by their position in it, unless a sort is asked', async () => {
    const box = await make('folders', { title: 'Ordered', status: 'on' });
    const [a, b, c] = [await make('documents', { title: 'A', status: 'on' }), await make('documents', { title: 'B', status: 'on' }), await make('documents', { title: 'C', status: 'on' })];
    await relate(`/folders/${box}/relationships/children`, [a, b, c].map((id) => ({ type: 'documents', id })));
    await relate(`/documents/${c}/relationships/parents`, [{ type: 'folders', id: box, meta: { relation: { position: 1 } } }]);
    assert.deepEqual(ids(await get(`/objects?filter[parent]=${box}`, admin)), [c, a, b]);
    assert.deepEqual(ids(await get(`/documents?filter[parent]=${box}`, admin)), [c, a, b]);
    assert.deepEqual(ids(await get(`/objects?filter[parent]=${box}&sort=id`, admin)), [a, b, c]);
    assert.deepEqual(ids(await get(`/objects?filter[parent]=${box}&sort=-title`, admin)), [c, b, a]);
  });

  test('a location\'s coords (WKT POINT, as BEdita writes them) place it for filter[geo]; other coords are 400 and change nothing', async () => {
    const bologna = await make('locations', { title: 'Two Towers', status: 'on', coords: 'POINT(11.3464055 44.4944183)' });
    const milan = await make('locations', { title: 'Duomo', status: 'on', coords: 'POINT(9.1916 45.4642)' });
    const near = await get('/locations?filter[geo][center]=44.4944183,11.3464055', admin);
    assert.deepEqual(ids(near), [bologna, milan], 'nearest first');
    assert.equal(near.body.data[0].meta.extra.distance, 0);
    assert.deepEqual(ids(await get('/locations?filter[geo][center]=44.4944183,11.3464055&filter[geo][radius]=1000', admin)), [bologna]);
    // Moving it moves it; clearing it takes it off the map.
    assert.equal((await s.request('PATCH', `/locations/${milan}`, { token: admin, body: { data: { type: 'locations', id: milan, attributes: { coords: 'POINT(11.35 44.49)' } } } })).status, 200);
    assert.deepEqual(ids(await get('/locations?filter[geo][center]=44.4944183,11.3464055&filter[geo][radius]=1000', admin)), [bologna, milan]);
    assert.equal((await s.request('PATCH', `/locations/${milan}`, { token: admin, body: { data: { type: 'locations', id: milan, attributes: { coords: null } } } })).status, 200);
    assert.deepEqual(ids(await get('/locations?filter[geo][center]=44.4944183,11.3464055', admin)), [bologna]);
    for (const bad of ['44.49,11.34', 'POINT(11.34)', 'LINESTRING(1 2, 3 4)', 'POINT(a b)']) {
      expectError(await s.request('PATCH', `/locations/${bologna}`, { token: admin, body: { data: { type: 'locations', id: bologna, attributes: { coords: bad } } } }), 400);
    }
    assert.equal((await get(`/locations/${bologna}`, admin)).body.data.attributes.coords, 'POINT(11.3464055 44.4944183)');
    // Trashed, it is off the map; purged, its point goes with it.
    assert.equal((await s.request('DELETE', `/locations/${bologna}`, { token: admin })).status, 204);
    assert.deepEqual(ids(await get('/locations?filter[geo][center]=44.4944183,11.3464055', admin)), []);
    assert.equal((await s.request('DELETE', `/trash/${bologna}`, { token: admin })).status, 204);
    assert.equal(await s.server.ctx.db.selectFrom('object_coords').select('object_id').where('object_id', '=', Number(bologna)).executeTakeFirst(), undefined);
  });
});
