// Categories, tags and date ranges in BEdita 5's layout: /model/categories
// and /model/tags, attributes.categories / tags / date_ranges written by POST, PATCH and
// /operations through the kernel (history and ETag move), the legacy layout on the same data,
// filter[categories|tags|date_ranges|geo] and the date_ranges sorts.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { listIds } from './helpers/lists.js';
import { userWithPermissions } from './helpers/users.js';
import { expectError, startServer, type TestServer } from './helpers/server.js';

const LEGACY = 'application/json, text/javascript';
const ATOMIC = 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"';

describe('terms in the BEdita layout', () => {
  let s: TestServer;
  let admin: string;
  let publication: string;
  const post = async (path: string, type: string, attributes: Record<string, unknown>) => {
    const res = await s.request('POST', path, { token: admin, body: { data: { type, attributes } } });
    assert.equal(res.status, 201, res.text);
    return res.body.data;
  };
  const patch = (type: string, id: string, attributes: Record<string, unknown>, headers?: Record<string, string>) =>
    s.request('PATCH', `/${type}/${id}`, { token: admin, headers, body: { data: { id, type, attributes } } });
  const ids = (path: string) => listIds(s, admin, path);

  before(async () => {
    s = await startServer();
    admin = await s.adminToken();
    publication = (await post('/folders', 'folders', { title: 'Publication' })).id;
    // As in BEdita, a project gives its types Categories and Tags (events have DateRanges already).
    for (const [name, associations] of [['documents', ['Categories', 'Tags']], ['events', ['DateRanges', 'Categories']]] as const) {
      const { id } = (await s.request('GET', `/model/object_types/${name}`, { token: admin })).body.data;
      const res = await s.request('PATCH', `/model/object_types/${name}`, { token: admin, body: { data: { id, type: 'object_types', attributes: { associations } } } });
      assert.equal(res.status, 200, res.text);
    }
    await post('/model/categories', 'categories', { name: 'sport', label: 'Sport', labels: { it: 'Sport' }, type: 'documents' });
    await post('/model/categories', 'categories', { name: 'music', type: 'documents' });
    await post('/model/categories', 'categories', { name: 'concerts', type: 'events' });
  });
  after(() => s.close());

  test('/model/categories: admins create, read, filter by type, change and delete; names unique per type', async () => {
    const c = await post('/model/categories', 'categories', { name: 'news-cat', label: 'News', type: 'news' });
    assert.deepEqual(c.attributes, { name: 'news-cat', label: 'News', labels: { default: 'News' }, type: 'news', object_type_name: 'news', parent_id: null, tree_left: 1, tree_right: 2, enabled: true });
    // BEdita's clients name the type `object_type_name`.
    const child = await post('/model/categories', 'categories', { name: 'local', object_type_name: 'news', parent_id: Number(c.id) });
    assert.equal(child.attributes.parent_id, Number(c.id));
    assert.equal(child.attributes.type, 'news');
    // The same name under another type is another category; twice under one type is a conflict.
    await post('/model/categories', 'categories', { name: 'local', type: 'documents' });
    expectError(await s.request('POST', '/model/categories', { token: admin, body: { data: { type: 'categories', attributes: { name: 'local', type: 'news' } } } }), 409);
    assert.deepEqual(await ids('/model/categories?filter[type]=news'), [c.id, child.id]);
    assert.deepEqual(await ids('/model/categories?filter[type]=news&filter[roots]'), [c.id]);
    const changed = await s.request('PATCH', `/model/categories/${c.id}`, { token: admin, body: { data: { id: c.id, type: 'categories', attributes: { labels: { default: 'Noticias', es: 'Noticias' }, enabled: false } } } });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.body.data.attributes.label, 'Noticias');
    assert.equal(changed.body.data.attributes.enabled, false);
    assert.equal((await s.request('DELETE', `/model/categories/${child.id}`, { token: admin })).status, 204);
    expectError(await s.request('GET', `/model/categories/${child.id}`, { token: admin }), 404);
  });

  test('/model/categories carry tree_left and tree_right per type; q searches name and label of categories and tags', async () => {
    const root = await post('/model/categories', 'categories', { name: 'arts', label: 'Arts and Crafts', type: 'locations' });
    const painting = await post('/model/categories', 'categories', { name: 'painting', type: 'locations', parent_id: Number(root.id) });
    const oils = await post('/model/categories', 'categories', { name: 'oils', label: 'Oil colours', type: 'locations', parent_id: Number(painting.id) });
    const music = await post('/model/categories', 'categories', { name: 'music', type: 'locations' });
    const tree = async () => {
      const res = await s.request('GET', '/model/categories?filter[type]=locations', { token: admin });
      return Object.fromEntries(res.body.data.map((d: { attributes: { name: string; tree_left: number; tree_right: number } }) => [d.attributes.name, [d.attributes.tree_left, d.attributes.tree_right]]));
    };
    assert.deepEqual(await tree(), { arts: [1, 6], painting: [2, 5], oils: [3, 4], music: [7, 8] });
    // Moving a branch renumbers the set; one category read alone says the same.
    const moved = await s.request('PATCH', `/model/categories/${painting.id}`, { token: admin, body: { data: { id: painting.id, type: 'categories', attributes: { parent_id: Number(music.id) } } } });
    assert.equal(moved.status, 200, moved.text);
    assert.deepEqual(await tree(), { arts: [1, 2], music: [3, 8], painting: [4, 7], oils: [5, 6] });
    const one = await s.request('GET', `/model/categories/${oils.id}`, { token: admin });
    assert.deepEqual([one.body.data.attributes.tree_left, one.body.data.attributes.tree_right], [5, 6]);

    const names = async (path: string) => {
      const res = await s.request('GET', path, { token: admin });
      assert.equal(res.status, 200, res.text);
      return res.body.data.map((d: { attributes: { name: string } }) => d.attributes.name).sort();
    };
    assert.deepEqual(await names('/model/categories?q=CRAFTS'), ['arts']);
    assert.deepEqual(await names('/model/categories?filter[query]=oil&filter[type]=locations'), ['oils']);
    assert.deepEqual(await names('/model/categories?q=50%25'), []);
    await post('/model/tags', 'tags', { name: 'open-air', label: 'Open air' });
    await post('/model/tags', 'tags', { name: 'indoor' });
    assert.deepEqual(await names('/model/tags?q=air'), ['open-air']);
    assert.deepEqual(await names('/model/tags?sort=label&q=o'), ['indoor', 'open-air']);
    expectError(await s.request('GET', '/model/tags?q=%20', { token: admin }), 400);
  });

  test('/model/categories and /model/tags: bad input is 400, anonymous readers get 401', async () => {
    const c = (await s.request('GET', '/model/categories?filter[name]=sport', { token: admin })).body.data[0];
    const bad = async (attributes: Record<string, unknown>, path = '/model/categories', type = 'categories') =>
      expectError(await s.request('POST', path, { token: admin, body: { data: { type, attributes } } }), 400);
    await bad({ name: 'x', type: 'documents' });
    await bad({ name: 'Upper Case', type: 'documents' });
    await bad({ name: 'fine' });
    await bad({ name: 'fine', type: 'no_such_type' });
    await bad({ name: 'fine', type: 'documents', parent_id: '999999' });
    await bad({ name: 'fine', type: 'documents', colour: 'red' });
    await bad({ name: 'fine', labels: 'nope' }, '/model/tags', 'tags');
    await bad({ name: 'fine', enabled: 'yes' }, '/model/tags', 'tags');
    expectError(await s.request('GET', '/model/categories?filter[nope]=1', { token: admin }), 400);
    expectError(await s.request('GET', '/model/tags'), 401);
    expectError(await s.request('PATCH', `/model/categories/${c.id}`, { token: admin, body: { data: { id: c.id, type: 'categories', attributes: { parent_id: Number(c.id) } } } }), 400);
    const res = await s.request('GET', '/model/categories?filter[type]=documents', { token: admin });
    assert.deepEqual(res.body.data.map((d: { attributes: { name: string } }) => d.attributes.name), ['sport', 'music', 'local']);
  });

  test('attributes.categories and tags: written by POST and PATCH, read with fields, history and ETag move', async () => {
    const d = await post('/documents', 'documents', { title: 'Match', categories: [{ name: 'sport' }], tags: [{ name: 'new-tag' }, { name: 'other', label: 'Other one' }] });
    assert.deepEqual(d.attributes.categories, [{ name: 'sport', labels: { default: 'Sport', it: 'Sport' }, params: null, label: 'Sport' }]);
    assert.deepEqual(d.attributes.tags, [{ name: 'new-tag', labels: { default: 'New Tag' }, label: 'New Tag' }, { name: 'other', labels: { default: 'Other one' }, label: 'Other one' }]);
    // Unknown tags were created.
    const tags = await s.request('GET', '/model/tags?filter[name]=new-tag', { token: admin });
    assert.equal(tags.body.data.length, 1);
    const first = await s.request('GET', `/documents/${d.id}`, { token: admin });
    const etag = first.headers.get('etag')!;
    const res = await patch('documents', d.id, { tags: [{ name: 'other' }] }, { 'If-Match': etag });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.data.attributes.tags, [{ name: 'other', labels: { default: 'Other one' }, label: 'Other one' }]);
    assert.notEqual(res.headers.get('etag'), etag);
    expectError(await patch('documents', d.id, { tags: [] }, { 'If-Match': etag }), 412);
    const history = await s.request('GET', `/objects/${d.id}/history`, { token: admin });
    const last = history.body.data.at(-1).attributes;
    assert.equal(last.user_action, 'update');
    assert.deepEqual(last.changed.tags, ['other']);
    // Sending back what was read changes nothing: no history entry, the same version.
    const entries = history.body.data.length;
    const again = await patch('documents', d.id, { tags: res.body.data.attributes.tags, categories: res.body.data.attributes.categories });
    assert.equal(again.status, 200, again.text);
    assert.equal(again.headers.get('etag')!.split('-')[0], res.headers.get('etag')!.split('-')[0]);
    assert.equal((await s.request('GET', `/objects/${d.id}/history`, { token: admin })).body.data.length, entries);
    const sparse = await s.request('GET', `/documents/${d.id}?fields[documents]=categories,tags`, { token: admin });
    assert.deepEqual(Object.keys(sparse.body.data.attributes).sort(), ['categories', 'tags']);
  });

  test('unknown categories, categories of another type and malformed terms give 400 and change nothing', async () => {
    const d = await post('/documents', 'documents', { title: 'Keep', categories: [{ name: 'music' }] });
    const before = (await s.request('GET', `/documents/${d.id}`, { token: admin })).body.data;
    const bad = async (attributes: Record<string, unknown>) => expectError(await patch('documents', d.id, { title: 'Changed', ...attributes }, { Prefer: 'handling=strict' }), 400);
    await bad({ categories: [{ name: 'nope' }] });
    await bad({ categories: [{ name: 'concerts' }] });
    await bad({ categories: 'sport' });
    await bad({ tags: [{ label: 'no name' }] });
    await bad({ tags: [{ name: 'Not A Valid Name' }] });
    await bad({ date_ranges: [{ start_date: '2024-01-01' }] });
    const after = (await s.request('GET', `/documents/${d.id}`, { token: admin })).body.data;
    assert.deepEqual(after.attributes, before.attributes);
    assert.equal(after.meta.modified, before.meta.modified);
    expectError(await s.request('POST', '/users', { token: admin, headers: { Prefer: 'handling=strict' }, body: { data: { type: 'users', attributes: { username: 'tagged', password: 'long-enough-1', tags: [{ name: 'x1' }] } } } }), 400);
    // A type without the association (news has none on a new install) has no such attributes.
    expectError(await s.request('POST', '/news', { token: admin, headers: { Prefer: 'handling=strict' }, body: { data: { type: 'news', attributes: { title: 'n', tags: [{ name: 'x1' }] } } } }), 400, 'unknown_attribute');
    expectError(await s.request('POST', '/documents', { token: admin, headers: { Prefer: 'handling=strict' }, body: { data: { type: 'documents', attributes: { title: 'n', date_ranges: [] } } } }), 400, 'unknown_attribute');
  });

  test('a terms write is an update of the object: a reader without update gets 403 and nothing changes; users read vocabularies but may not write them', async () => {
    const role = await s.request('POST', '/roles', { token: admin, body: { data: { type: 'roles', attributes: { name: 'readers', permissions: { '*': ['read'], documents: ['read', 'create', 'update:own'] } } } } });
    assert.equal(role.status, 201, role.text);
    const u = await s.request('POST', '/users', { token: admin, body: { data: { type: 'users', attributes: { username: 'reader', password: 'password-1' } } } });
    assert.equal(u.status, 201, u.text);
    assert.equal((await s.request('POST', `/users/${u.body.data.id}/relationships/roles`, { token: admin, body: { data: [{ type: 'roles', id: role.body.data.id }] } })).status, 200);
    const token = (await s.login('reader', 'password-1')).jwt;
    const d = await post('/documents', 'documents', { title: 'Not theirs', tags: [{ name: 'kept' }] });
    expectError(await s.request('PATCH', `/documents/${d.id}`, { token, body: { data: { id: d.id, type: 'documents', attributes: { tags: [{ name: 'stolen' }] } } } }), 403);
    assert.deepEqual((await s.request('GET', `/documents/${d.id}`, { token: admin })).body.data.attributes.tags, [{ name: 'kept', labels: { default: 'Kept' }, label: 'Kept' }]);
    // The refused write created no tag either (one transaction).
    assert.deepEqual((await s.request('GET', '/model/tags?filter[name]=stolen', { token: admin })).body.data, []);
    // Their own document takes tags (unknown ones are created, as BEdita does for any writer).
    const own = await s.request('POST', '/documents', { token, body: { data: { type: 'documents', attributes: { title: 'Mine', tags: [{ name: 'mine' }] } } } });
    assert.equal(own.status, 201, own.text);
    assert.equal((await s.request('GET', '/model/tags', { token })).status, 200);
    expectError(await s.request('POST', '/model/tags', { token, body: { data: { type: 'tags', attributes: { name: 'nope' } } } }), 403);
    expectError(await s.request('DELETE', `/model/categories/1`, { token }), 403);
  });

  test('/operations writes terms; the legacy layout reads and writes the same data', async () => {
    const res = await s.request('POST', '/operations', {
      token: admin,
      headers: { 'Content-Type': ATOMIC, Accept: ATOMIC },
      body: { 'atomic:operations': [{ op: 'add', data: { type: 'documents', attributes: { title: 'By ops', tags: [{ name: 'ops-tag' }], categories: [{ name: 'sport' }] } } }] },
    });
    assert.equal(res.status, 200, res.text);
    const id = res.body['atomic:results'][0].data.id;
    assert.deepEqual(res.body['atomic:results'][0].data.attributes.tags, [{ name: 'ops-tag', labels: { default: 'Ops Tag' }, label: 'Ops Tag' }]);
    // Put it on the publication so that the legacy layout reaches it.
    const placed = await s.request('POST', `/documents/${id}/relationships/parents`, { token: admin, body: { data: [{ type: 'folders', id: publication }] } });
    assert.equal(placed.status, 200, placed.text);
    const legacy = await s.request('GET', `/objects/${id}`, { token: admin, headers: { Accept: LEGACY } });
    assert.equal(legacy.status, 200, legacy.text);
    assert.deepEqual(legacy.body.data.object.tags, [{ label: 'Ops Tag', name: 'ops-tag' }]);
    assert.deepEqual(legacy.body.data.object.categories.map((c: { name: string }) => c.name), ['sport']);
    const write = await s.request('POST', '/objects', { token: admin, headers: { Accept: LEGACY }, body: { data: { id: Number(id), tags: ['Legacy Word'], date_items: [{ start_date: '2024-05-01T10:00:00Z', end_date: '2024-05-02T10:00:00Z' }] } } });
    assert.equal(write.status, 200, write.text);
    const json = (await s.request('GET', `/documents/${id}`, { token: admin })).body.data;
    assert.deepEqual(json.attributes.tags, [{ name: 'legacy-word', labels: { default: 'Legacy Word' }, label: 'Legacy Word' }]);
    assert.deepEqual(json.meta.date_items, [{ start_date: '2024-05-01T10:00:00+00:00', end_date: '2024-05-02T10:00:00+00:00', days: [] }]);
  });

  test('attributes.date_ranges on events: written, validated, filtered and sorted as BEdita', async () => {
    const e1 = await post('/events', 'events', { title: 'Early', date_ranges: [{ start_date: '2017-02-01', end_date: '2017-03-01', params: { all_day: true } }] });
    assert.deepEqual(e1.attributes.date_ranges, [{ start_date: '2017-02-01T00:00:00+00:00', end_date: '2017-03-01T00:00:00+00:00', params: { all_day: true } }]);
    const e2 = await post('/events', 'events', { title: 'Late', date_ranges: [{ start_date: '2018-06-01T10:00:00+02:00' }, { start_date: '2016-01-01', end_date: '2016-01-02' }] });
    const e3 = await post('/events', 'events', { title: 'Undated' });
    assert.deepEqual(e3.attributes.date_ranges, []);
    // The legacy date_items are the same rows.
    assert.equal(e2.meta.date_items.length, 2);
    const list = (q: string) => ids(`/events?${q}`);
    assert.deepEqual(await list('filter[date_ranges][start_date][gt]=2017-01-01'), [e1.id, e2.id]);
    assert.deepEqual(await list('filter[date_ranges][start_date][gte]=2017-02-01&filter[date_ranges][end_date][lt]=2017-04-01'), [e1.id]);
    assert.deepEqual(await list('filter[date_ranges][end_date][le]=2015-01-01'), []);
    assert.deepEqual(await list('filter[date_ranges][from_date]=2017-02-15'), [e1.id, e2.id]);
    assert.deepEqual(await list('filter[date_ranges][to_date]=2016-06-01'), [e2.id]);
    assert.deepEqual(await list('filter[date_ranges][from_date]=2017-02-15&filter[date_ranges][to_date]=2017-12-31'), [e1.id]);
    assert.deepEqual(await list('sort=date_ranges_min_start_date'), [e2.id, e1.id]);
    assert.deepEqual(await list('sort=-date_ranges_max_start_date'), [e2.id, e1.id]);
    assert.deepEqual(await list('sort=date_ranges_min_start_date&filter[date_ranges][start_date][gt]=2017-01-01'), [e1.id, e2.id]);
    for (const q of ['filter[date_ranges][start_date][gt]=soon', 'filter[date_ranges][banana][gt]=2017-01-01', 'filter[date_ranges][start_date][between]=2017-01-01', 'filter[date_ranges]=2017', 'sort=date_ranges_avg_start_date']) {
      expectError(await s.request('GET', `/events?${q}`, { token: admin }), 400);
    }
    const bad = async (date_ranges: unknown) => expectError(await patch('events', e3.id, { date_ranges }), 400);
    await bad([{ start_date: 'tomorrow' }]);
    await bad([{ start_date: '2024-02-01', end_date: '2024-01-01' }]);
    await bad([{ end_date: '2024-01-01' }]);
    await bad([{ start_date: '2024-02-01', params: 'x' }]);
    await bad({ start_date: '2024-02-01' });
    assert.deepEqual((await s.request('GET', `/events/${e3.id}`, { token: admin })).body.data.attributes.date_ranges, []);
  });

  test('/model/schema shows the associations as BEdita does; a history restore brings terms back', async () => {
    const schema = (await s.request('GET', '/model/schema/events')).body;
    assert.deepEqual(schema.properties.date_ranges.oneOf, [{ type: 'null' }, { type: 'array', uniqueItems: true, items: { type: 'object' } }]);
    assert.equal(schema.properties.categories.title, 'Categories');
    assert.equal((await s.request('GET', '/model/schema/news')).body.properties.tags, undefined);
    const e = await post('/events', 'events', { title: 'Moved', date_ranges: [{ start_date: '2020-01-01' }], categories: [{ name: 'concerts' }] });
    assert.equal((await patch('events', e.id, { date_ranges: [{ start_date: '2021-01-01' }], categories: [] })).status, 200);
    const history = (await s.request('GET', `/events/${e.id}/history`, { token: admin })).body.data;
    const restored = await s.request('POST', `/events/${e.id}/history/${history[0].id}/restore`, { token: admin });
    assert.equal(restored.status, 200, restored.text);
    assert.deepEqual(restored.body.data.attributes.date_ranges, [{ start_date: '2020-01-01T00:00:00+00:00', end_date: null, params: null }]);
    assert.deepEqual(restored.body.data.attributes.categories, [{ name: 'concerts', labels: { default: 'concerts' }, params: null, label: 'concerts' }]);
  });

  test('filter[categories] and filter[tags] (and the older filter[category], filter[tag])', async () => {
    const a = await post('/documents', 'documents', { title: 'A', categories: [{ name: 'music' }], tags: [{ name: 'jazz' }] });
    const b = await post('/documents', 'documents', { title: 'B', categories: [{ name: 'sport' }, { name: 'music' }], tags: [{ name: 'rock' }] });
    assert.deepEqual(await ids(`/documents?filter[tags]=jazz,rock&filter[id][gte]=${a.id}`), [a.id, b.id]);
    assert.deepEqual(await ids(`/documents?filter[tags][0]=rock&filter[id][gte]=${a.id}`), [b.id]);
    assert.deepEqual(await ids(`/documents?filter[categories]=music&filter[id][gte]=${a.id}`), [a.id, b.id]);
    assert.deepEqual(await ids(`/documents?filter[category]=sport&filter[id][gte]=${a.id}`), [b.id]);
    assert.deepEqual(await ids(`/documents?filter[tag]=jazz`), [a.id]);
  });

  test('filter[geo][center] with radius: objects with a place within it, nearest first', async () => {
    const place = async (title: string, latitude: number, longitude: number) => {
      const res = await s.request('POST', '/objects', { token: admin, headers: { Accept: LEGACY }, body: { data: { object_type: 'location', title, parents: [Number(publication)], geo_tags: [{ latitude, longitude }] } } });
      assert.equal(res.status, 201, res.text);
      return String(res.body.data.object.id);
    };
    const bologna = await place('Bologna', 44.4944183, 11.3464055);
    const modena = await place('Modena', 44.6471, 10.9252); // ~37 km away
    const rome = await place('Rome', 41.9028, 12.4964); // ~300 km away
    assert.deepEqual(await ids('/locations?filter[geo][center]=44.49,11.34&filter[geo][radius]=50000'), [bologna, modena]);
    // As BEdita, each object's meta.extra.distance says how far, in metres.
    const near = (await s.request('GET', '/locations?filter[geo][center]=44.4944183,11.3464055', { token: admin })).body.data;
    assert.equal(near[0].meta.extra.distance, 0);
    assert.ok(near[1].meta.extra.distance > 37000 && near[1].meta.extra.distance < 38000, String(near[1].meta.extra.distance));
    assert.ok(near[2].meta.extra.distance > 295000 && near[2].meta.extra.distance < 305000, String(near[2].meta.extra.distance));
    assert.deepEqual(await ids('/locations?filter[geo][center]=44.64,10.92&filter[geo][radius]=50000'), [modena, bologna]);
    assert.deepEqual(await ids('/locations?filter[geo][center][]=41.9&filter[geo][center][]=12.5'), [rome, bologna, modena]);
    assert.deepEqual(await ids('/locations?filter[geo][center]=44.49,11.34&filter[geo][radius]=1000'), [bologna]);
    assert.deepEqual(await ids('/locations?filter[geo][center]=44.49,11.34&sort=-id'), [rome, modena, bologna]);
    for (const q of ['filter[geo][center]=91,0', 'filter[geo][center]=10', 'filter[geo][center]=a,b', 'filter[geo][banana]=44,11', 'filter[geo][center]=44,11&filter[geo][radius]=-5', 'filter[geo][center]=44,11&filter[geo][radius]=far', 'filter[geo]=44,11']) {
      expectError(await s.request('GET', `/locations?${q}`, { token: admin }), 400);
    }
  });

  test('categories and tags on objects read {name, labels, params, label} and {name, labels, label}, as BEdita', async () => {
    await post('/model/categories', 'categories', { name: 'labelled', labels: { default: 'Labelled', it: 'Etichettata' }, type: 'documents' });
    await post('/model/tags', 'tags', { name: 'worded', labels: { default: 'Worded', fr: 'Mot' } });
    const d = await post('/documents', 'documents', { title: 'Labels', categories: [{ name: 'labelled' }], tags: [{ name: 'worded' }] });
    const read = (await s.request('GET', `/documents/${d.id}`, { token: admin })).body.data.attributes;
    assert.deepEqual(read.categories, [{ name: 'labelled', labels: { default: 'Labelled', it: 'Etichettata' }, params: null, label: 'Labelled' }]);
    assert.deepEqual(read.tags, [{ name: 'worded', labels: { default: 'Worded', fr: 'Mot' }, label: 'Worded' }]);
    // What was read, sent back, changes nothing.
    const again = await patch('documents', d.id, { categories: read.categories, tags: read.tags });
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(again.body.data.attributes.categories, read.categories);
  });

  test('/model/categories/{id}/object_categories and /model/tags/{id}/object_tags list the objects carrying the term that the reader may read', async () => {
    const cat = await post('/model/categories', 'categories', { name: 'listed', type: 'documents' });
    const tag = await post('/model/tags', 'tags', { name: 'listed-tag' });
    const on = await post('/documents', 'documents', { title: 'Listed on', status: 'on', categories: ['listed'], tags: ['listed-tag'] });
    const draft = await post('/documents', 'documents', { title: 'Listed draft', status: 'draft', categories: ['listed'], tags: ['listed-tag'] });
    await post('/documents', 'documents', { title: 'Not listed', status: 'on' });
    assert.deepEqual(await ids(`/model/categories/${cat.id}/object_categories`), [on.id, draft.id]);
    assert.deepEqual(await ids(`/model/tags/${tag.id}/object_tags?sort=-id`), [draft.id, on.id]);
    assert.deepEqual(await ids(`/model/tags/${tag.id}/object_tags?filter[status]=on`), [on.id]);
    // A reader who may read only its own documents sees the published one, not the draft.
    const reader = await userWithPermissions(s, admin, 'term_reader', { documents: ['read:own'] });
    assert.deepEqual(await listIds(s, reader, `/model/categories/${cat.id}/object_categories`), [on.id]);
    expectError(await s.request('GET', `/model/categories/${cat.id}/object_categories`), 401);
    expectError(await s.request('GET', '/model/categories/999999/object_categories', { token: admin }), 404);
    expectError(await s.request('GET', `/model/tags/${tag.id}/object_tags?filter[nothing]=1`, { token: admin }), 400);
  });
});
