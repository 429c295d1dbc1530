// The legacy envelope layout (Accept: application/json, text/javascript): read family, write
// family, /files upload tokens and /posters, on a publication tree of sections and contents.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { startServer, type RequestOptions, type TestResponse, type TestServer } from './helpers/server.js';

const LEGACY = 'application/json, text/javascript';

interface Legacy {
  s: TestServer;
  get(p: string, token?: string): Promise<TestResponse>;
  send(method: string, p: string, body: unknown, token?: string): Promise<TestResponse>;
}

function legacyClient(s: TestServer): Legacy {
  return {
    s,
    get: (p, token) => s.request('GET', p, { token, headers: { Accept: LEGACY } }),
    send: (method, p, body, token) => s.request(method, p, { token, body, headers: { Accept: LEGACY, 'Content-Type': 'application/json' } }),
  };
}

/** A legacy error: the status, the envelope keys and the error object. */
function expectLegacyError(res: TestResponse, status: number, code?: string) {
  assert.equal(res.status, status, res.text);
  assert.match(res.headers.get('content-type') ?? '', /application\/json/);
  assert.equal(res.body.error.status, status, res.text);
  assert.equal(typeof res.body.error.message, 'string');
  assert.ok(typeof res.body.api === 'string' && typeof res.body.method === 'string' && typeof res.body.url === 'string', res.text);
  if (code) assert.equal(res.body.error.code, code, res.text);
}

/** Assert the envelope of a successful answer and return its data. */
function envelope(res: TestResponse, s: TestServer, p: string, method = 'get', api = 'objects', status = 200) {
  assert.equal(res.status, status, res.text);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  assert.equal(res.body.api, api);
  assert.equal(res.body.method, method);
  assert.equal(res.body.url, s.url + p);
  assert.ok('params' in res.body);
  assert.ok('data' in res.body);
  return res.body.data;
}

const png = (w: number, h: number, color: string) => sharp({ create: { width: w, height: h, channels: 3, background: color } }).png().toBuffer();

async function createFolder(s: TestServer, token: string, title: string, status = 'on'): Promise<number> {
  const res = await s.request('POST', '/folders', { token, body: { data: { type: 'folders', attributes: { title, status } } } });
  assert.equal(res.status, 201, res.text);
  return Number(res.body.data.id);
}

async function legacyCreate(l: Legacy, token: string, data: Record<string, unknown>): Promise<number> {
  const res = await l.send('POST', '/objects', { data }, token);
  assert.equal(res.status, 201, res.text);
  return res.body.data.object.id;
}

const LEGACY_FIELDS = [
  'id', 'object_type_id', 'object_type', 'title', 'nickname', 'description', 'subject', 'abstract', 'body', 'lang', 'rights', 'license',
  'creator', 'publisher', 'note', 'comments', 'start_date', 'end_date', 'publication_date', 'created', 'modified', 'valid', 'authorized',
  'free_access', 'languages', 'relations', 'custom_properties', 'geo_tags', 'tags', 'categories', 'date_items',
];
const FILE_FIELDS = ['name', 'original_name', 'mime_type', 'uri', 'file_size', 'width', 'height'];

describe('legacy envelope on a publication tree', () => {
  let s: TestServer;
  let l: Legacy;
  let admin: string;
  const ids: Record<string, number> = {};

  before(async () => {
    s = await startServer();
    l = legacyClient(s);
    admin = await s.adminToken();
    ids.pub = await createFolder(s, admin, 'Site');
    ids.other = await createFolder(s, admin, 'Elsewhere');
    ids.news = await legacyCreate(l, admin, { object_type: 'section', title: 'News', status: 'on', parents: [ids.pub] });
    ids.about = await legacyCreate(l, admin, { object_type: 'section', title: 'About', status: 'on', parents: [ids.pub] });
    ids.archive = await legacyCreate(l, admin, { object_type: 'section', title: 'Archive', status: 'on', parents: [ids.news] });
    ids.doc1 = await legacyCreate(l, admin, {
      object_type: 'document',
      title: 'First story',
      description: 'An opening',
      status: 'on',
      parents: [ids.news],
      categories: ['Culture', 'Sport'],
      tags: ['Open Air'],
      geo_tags: [{ title: 'Square', address: 'Main square 1', latitude: 45.5, longitude: 9.2 }],
      date_items: [{ start_date: '2026-05-01T10:00:00Z', end_date: '2026-05-02T18:00:00+02:00', days: [1, 3] }],
    });
    ids.doc2 = await legacyCreate(l, admin, { object_type: 'document', title: 'Draft story', status: 'draft', parents: [ids.news] });
    ids.event = await legacyCreate(l, admin, { object_type: 'event', title: 'Concert', status: 'on', parents: [ids.news, ids.about] });
    ids.doc3 = await legacyCreate(l, admin, {
      object_type: 'document',
      title: 'Team',
      status: 'on',
      parents: [ids.about],
      relations: { see_also: [{ related_id: ids.doc1, params: { note: 'read first' }, priority: 2 }] },
    });
    // A document in another root folder is not part of the publication.
    const res = await s.request('POST', '/documents', { token: admin, body: { data: { type: 'documents', attributes: { title: 'Hidden', status: 'on' } } } });
    assert.equal(res.status, 201, res.text);
    ids.outside = Number(res.body.data.id);
    const place = await s.request('POST', `/folders/${ids.other}/relationships/children`, { token: admin, body: { data: [{ type: 'documents', id: String(ids.outside) }] } });
    assert.ok(place.status < 300, place.text);
  });
  after(() => s.close());

  test('GET /objects lists the publication descendants in the envelope with paging', async () => {
    const res = await l.get('/objects?page_size=3');
    const data = envelope(res, s, '/objects?page_size=3');
    assert.deepEqual(res.body.params, { page_size: '3' });
    assert.equal(res.body.paging.page, 1);
    assert.equal(res.body.paging.page_size, 3);
    assert.equal(res.body.paging.page_count, 3);
    // anonymous: on objects only (news, about, archive, doc1, event, doc3)
    assert.equal(res.body.paging.total, 6);
    assert.equal(res.body.paging.total_pages, 2);
    assert.ok(Array.isArray(data.objects));
    for (const o of data.objects) assert.equal(typeof o.id, 'number');
    const all = await l.get('/objects');
    assert.deepEqual(all.body.params, []);
    const seen = all.body.data.objects.map((o: { id: number }) => o.id);
    assert.ok(!seen.includes(ids.doc2), 'draft hidden from anonymous');
    assert.ok(!seen.includes(ids.outside), 'objects outside the publication are not listed');
    assert.ok(!seen.includes(ids.pub));
    const asUser = await l.get('/objects', admin);
    assert.equal(asUser.body.paging.total, 7);
  });

  test('GET /objects filters by object_type and refuses unknown filters with 400', async () => {
    const res = await l.get('/objects?filter[object_type]=section');
    assert.deepEqual(res.body.data.objects.map((o: { id: number }) => o.id).sort(), [ids.news, ids.about, ids.archive].sort());
    expectLegacyError(await l.get('/objects?filter[colour]=red'), 400);
    expectLegacyError(await l.get('/objects?page_size=500'), 400);
    expectLegacyError(await l.get('/objects?page=zero'), 400);
  });

  test('GET /objects/{id} answers the full legacy object, by id or by nickname', async () => {
    const res = await l.get(`/objects/${ids.doc1}`);
    const o = envelope(res, s, `/objects/${ids.doc1}`).object;
    for (const f of LEGACY_FIELDS) assert.ok(f in o, `field ${f} missing`);
    assert.equal(o.id, ids.doc1);
    assert.equal(typeof o.object_type_id, 'number');
    assert.equal(o.object_type, 'document');
    assert.equal(o.title, 'First story');
    assert.equal(o.nickname, 'first-story');
    assert.equal(o.subject, null);
    assert.equal(o.body, null);
    assert.match(o.publication_date, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
    assert.equal(o.valid, true);
    assert.deepEqual(o.languages, {});
    assert.deepEqual(o.tags, [{ label: 'Open Air', name: 'open-air' }]);
    assert.deepEqual(o.categories.map((c: { name: string; label: string; area_id: number }) => [c.name, c.label, c.area_id]), [['culture', 'Culture', ids.pub], ['sport', 'Sport', ids.pub]]);
    assert.equal(typeof o.categories[0].id, 'number');
    assert.equal(o.geo_tags.length, 1);
    assert.deepEqual({ ...o.geo_tags[0], id: 0 }, {
      id: 0, object_id: ids.doc1, title: 'Square', latitude: 45.5, longitude: 9.2, address: 'Main square 1',
      gmaps_lookats: { zoom: null, mapType: null, latitude: null, longitude: null, range: null },
    });
    assert.deepEqual(o.date_items, [{ start_date: '2026-05-01T10:00:00+00:00', end_date: '2026-05-02T16:00:00+00:00', days: [1, 3] }]);
    assert.deepEqual(o.relations, { seen_also_by: { count: 1, url: `${s.url}/objects/${ids.doc1}/relations/seen_also_by` } });
    assert.ok(!('children' in o), 'contents have no children counts');
    const byName = await l.get('/objects/first-story');
    assert.equal(byName.body.data.object.id, ids.doc1);
  });

  test('sections and the publication carry children counts; the publication is an area', async () => {
    const news = (await l.get(`/objects/${ids.news}`)).body.data.object;
    assert.equal(news.object_type, 'section');
    assert.deepEqual(news.children, {
      count: 3,
      url: `${s.url}/objects/${ids.news}/children`,
      contents: { count: 2, url: `${s.url}/objects/${ids.news}/contents` },
      sections: { count: 1, url: `${s.url}/objects/${ids.news}/sections` },
    });
    const pub = (await l.get(`/objects/${ids.pub}`)).body.data.object;
    assert.equal(pub.object_type, 'area');
    assert.equal(pub.children.sections.count, 2);
    assert.equal(pub.children.contents.count, 0);
  });

  test('children, sections, contents, descendants and siblings are paginated lists', async () => {
    const ids_ = (res: TestResponse) => res.body.data.objects.map((o: { id: number }) => o.id);
    const children = await l.get(`/objects/${ids.news}/children`);
    envelope(children, s, `/objects/${ids.news}/children`);
    assert.deepEqual(ids_(children), [ids.archive, ids.doc1, ids.event]);
    assert.equal(children.body.paging.total, 3);
    assert.deepEqual(ids_(await l.get(`/objects/${ids.news}/children`, admin)), [ids.archive, ids.doc1, ids.doc2, ids.event]);
    assert.deepEqual(ids_(await l.get(`/objects/${ids.news}/sections`)), [ids.archive]);
    assert.deepEqual(ids_(await l.get(`/objects/${ids.news}/contents`)), [ids.doc1, ids.event]);
    assert.deepEqual(ids_(await l.get(`/objects/${ids.pub}/descendants`)).sort(), [ids.news, ids.about, ids.archive, ids.doc1, ids.event, ids.doc3].sort());
    assert.deepEqual(ids_(await l.get(`/objects/${ids.doc3}/siblings`)), [ids.event]);
    assert.deepEqual(ids_(await l.get(`/objects/${ids.news}/siblings`)), [ids.about]);
    const paged = await l.get(`/objects/${ids.news}/children?page=2&page_size=2`);
    assert.deepEqual(paged.body.paging, { page: 2, page_size: 2, page_count: 1, total: 3, total_pages: 2 });
    expectLegacyError(await l.get(`/objects/${ids.doc1}/children`), 400);
  });

  test('a child position reads as {priority}', async () => {
    const res = await l.get(`/objects/${ids.news}/children/${ids.doc1}`);
    assert.deepEqual(envelope(res, s, `/objects/${ids.news}/children/${ids.doc1}`), { priority: 2 });
    expectLegacyError(await l.get(`/objects/${ids.news}/children/${ids.doc3}`), 404);
  });

  test('relations read as {count,url}, lists and {priority, params} details from both sides', async () => {
    const rel = await l.get(`/objects/${ids.doc3}/relations`);
    assert.deepEqual(envelope(rel, s, `/objects/${ids.doc3}/relations`), { see_also: { count: 1, url: `${s.url}/objects/${ids.doc3}/relations/see_also` } });
    const list = await l.get(`/objects/${ids.doc3}/relations/see_also`);
    assert.deepEqual(list.body.data.objects.map((o: { id: number }) => o.id), [ids.doc1]);
    assert.equal(list.body.paging.total, 1);
    const inverse = await l.get(`/objects/${ids.doc1}/relations/seen_also_by`);
    assert.deepEqual(inverse.body.data.objects.map((o: { id: number }) => o.id), [ids.doc3]);
    const detail = await l.get(`/objects/${ids.doc3}/relations/see_also/${ids.doc1}`);
    assert.deepEqual(envelope(detail, s, `/objects/${ids.doc3}/relations/see_also/${ids.doc1}`), { priority: 2, params: { note: 'read first' } });
    expectLegacyError(await l.get(`/objects/${ids.doc3}/relations/see_also/${ids.event}`), 404);
    expectLegacyError(await l.get(`/objects/${ids.doc3}/relations/no_such_relation`), 400);
  });

  test('objects outside the publication, unknown ones and drafts for anonymous clients give 404', async () => {
    const res = await l.get(`/objects/${ids.outside}`);
    expectLegacyError(res, 404);
    assert.equal(res.body.api, 'objects');
    assert.equal(res.body.method, 'get');
    assert.deepEqual(res.body.params, []);
    assert.equal(res.body.url, `${s.url}/objects/${ids.outside}`);
    expectLegacyError(await l.get('/objects/999999'), 404);
    expectLegacyError(await l.get('/objects/no-such-name'), 404);
    expectLegacyError(await l.get(`/objects/${ids.doc2}`), 404);
    assert.equal((await l.get(`/objects/${ids.doc2}`, admin)).status, 200);
    expectLegacyError(await l.get(`/objects/${ids.other}/children`), 404);
    expectLegacyError(await l.get(`/objects/${ids.doc1}/no-such-endpoint`), 404, 'route_not_found');
  });

  test('the same objects read the same through the JSON API, with terms in meta', async () => {
    const legacy = (await l.get(`/objects/${ids.doc1}`)).body.data.object;
    const res = await s.request('GET', `/documents/${ids.doc1}`);
    assert.equal(res.status, 200, res.text);
    const r = res.body.data;
    assert.equal(r.id, String(legacy.id));
    assert.equal(r.attributes.title, legacy.title);
    assert.equal(r.attributes.uname, legacy.nickname);
    assert.equal(r.attributes.description, legacy.description);
    assert.equal(r.attributes.status, legacy.status);
    assert.equal(r.meta.created, legacy.created);
    assert.equal(r.meta.modified, legacy.modified);
    assert.equal(r.meta.published, legacy.publication_date);
    assert.deepEqual(r.meta.tags, legacy.tags);
    assert.deepEqual(r.meta.categories, [{ name: 'culture', label: 'Culture' }, { name: 'sport', label: 'Sport' }]);
    assert.deepEqual(r.meta.geo_tags, legacy.geo_tags);
    assert.deepEqual(r.meta.date_items, legacy.date_items);
    const tagged = await s.request('GET', '/objects?filter[tag]=open-air&filter[category]=culture,unknown');
    assert.deepEqual(tagged.body.data.map((d: { id: string }) => d.id), [String(ids.doc1)]);
    // Without text/javascript, /objects answers in JSON API.
    const jsonapi = await s.request('GET', `/objects/${ids.doc1}`);
    assert.equal(jsonapi.status, 200);
    assert.equal(jsonapi.body.data.id, String(ids.doc1));
  });

  test('writes need authentication (401) and a writable type; bad bodies give 400', async () => {
    expectLegacyError(await l.send('POST', '/objects', { data: { object_type: 'document', title: 'x', parents: [ids.news] } }), 401);
    expectLegacyError(await l.send('POST', '/objects', { data: { title: 'x', parents: [ids.news] } }, admin), 400);
    expectLegacyError(await l.send('POST', '/objects', { data: { object_type: 'document', title: 'x' } }, admin), 400);
    expectLegacyError(await l.send('POST', '/objects', { data: { object_type: 'unicorn', title: 'x', parents: [ids.news] } }, admin), 400);
    expectLegacyError(await l.send('POST', '/objects', { data: { object_type: 'document', title: 'x', parents: [ids.outside] } }, admin), 400);
    expectLegacyError(await l.send('POST', '/objects', { data: { object_type: 'document', title: 'x', parents: [ids.news], tags: 'nope' } }, admin), 400);
    expectLegacyError(await l.send('POST', '/objects', { data: { object_type: 'document', title: 'x', parents: [ids.news], date_items: [{ start_date: 'soon' }] } }, admin), 400);
    expectLegacyError(await l.send('POST', '/objects', { data: { object_type: 'user', title: 'x', parents: [ids.news] } }, admin), 403);
    expectLegacyError(await l.send('POST', '/objects', { nothing: true }, admin), 400);
    const count = (await l.get('/objects', admin)).body.paging.total;
    assert.equal(count, 7, 'failed writes left nothing behind');
  });

  test('create answers 201 with Location; update with data.id keeps omitted fields', async () => {
    const res = await l.send('POST', '/objects', {
      data: { object_type: 'news', title: 'Breaking', status: 'on', parents: [ids.news], tags: ['Hot'], relations: { see_also: [{ related_id: ids.doc1 }] } },
    }, admin);
    const created = envelope(res, s, '/objects', 'post', 'objects', 201).object;
    assert.equal(res.headers.get('location'), `${s.url}/objects/${created.id}`);
    assert.equal(created.object_type, 'news_item');
    assert.deepEqual(created.tags, [{ label: 'Hot', name: 'hot' }]);
    assert.equal(created.relations.see_also.count, 1);
    const upd = await l.send('POST', '/objects', { data: { id: created.id, description: 'Now with text', categories: ['Culture'] } }, admin);
    const updated = envelope(upd, s, '/objects', 'post').object;
    assert.equal(updated.title, 'Breaking');
    assert.equal(updated.description, 'Now with text');
    assert.deepEqual(updated.tags, [{ label: 'Hot', name: 'hot' }]);
    assert.deepEqual(updated.categories.map((c: { name: string }) => c.name), ['culture']);
    const again = await l.send('POST', '/objects', { data: { id: created.id } }, admin);
    assert.equal(again.status, 200);
    expectLegacyError(await l.send('POST', '/objects', { data: { id: 999999, title: 'x' } }, admin), 404);
    expectLegacyError(await l.send('POST', '/objects', { data: { id: created.id, upload_token: 'abc' } }, admin), 400);
  });

  test('POST and PUT on relations add, update and set priority and params', async () => {
    const res = await l.send('POST', `/objects/${ids.event}/relations/see_also`, { data: [{ related_id: ids.doc3, priority: 5, params: { a: 1 } }, { related_id: ids.doc1, priority: 1 }] }, admin);
    envelope(res, s, `/objects/${ids.event}/relations/see_also`, 'post', 'objects', 201);
    assert.equal(res.headers.get('location'), `${s.url}/objects/${ids.event}/relations/see_also`);
    assert.deepEqual(res.body.data.objects.map((o: { id: number }) => o.id), [ids.doc1, ids.doc3]);
    const put = await l.send('PUT', `/objects/${ids.event}/relations/see_also/${ids.doc3}`, { data: { priority: 1 } }, admin);
    assert.deepEqual(envelope(put, s, `/objects/${ids.event}/relations/see_also/${ids.doc3}`, 'put'), { priority: 1, params: null });
    const put2 = await l.send('PUT', `/objects/${ids.event}/relations/see_also/${ids.doc3}`, { data: { params: { b: 2 } } }, admin);
    assert.deepEqual(put2.body.data.params, { b: 2 });
    expectLegacyError(await l.send('PUT', `/objects/${ids.event}/relations/see_also/${ids.doc3}`, { data: {} }, admin), 400);
    expectLegacyError(await l.send('PUT', `/objects/${ids.event}/relations/see_also/${ids.about}`, { data: { priority: 1 } }, admin), 404);
    expectLegacyError(await l.send('POST', `/objects/${ids.event}/relations/see_also`, { data: [{ priority: 1 }] }, admin), 400);
    expectLegacyError(await l.send('POST', `/objects/${ids.event}/relations/see_also`, { data: [{ related_id: ids.outside }] }, admin), 400);
    expectLegacyError(await l.send('POST', `/objects/${ids.event}/relations/see_also`, { data: [{ related_id: ids.doc1 }] }), 401);
  });

  test('POST children places objects at a priority; PUT moves a child', async () => {
    const doc = await legacyCreate(l, admin, { object_type: 'document', title: 'Loose', status: 'on', parents: [ids.about] });
    const res = await l.send('POST', `/objects/${ids.archive}/children`, { data: [{ child_id: doc }, { child_id: ids.doc1, priority: 1 }] }, admin);
    const data = envelope(res, s, `/objects/${ids.archive}/children`, 'post');
    assert.deepEqual(data.objects.map((o: { id: number }) => o.id), [ids.doc1, doc]);
    const put = await l.send('PUT', `/objects/${ids.archive}/children/${doc}`, { priority: 1 }, admin);
    assert.deepEqual(envelope(put, s, `/objects/${ids.archive}/children/${doc}`, 'put'), { priority: 1 });
    assert.deepEqual((await l.get(`/objects/${ids.archive}/children/${ids.doc1}`)).body.data, { priority: 2 });
    expectLegacyError(await l.send('PUT', `/objects/${ids.archive}/children/${doc}`, {}, admin), 400);
    expectLegacyError(await l.send('PUT', `/objects/${ids.archive}/children/${ids.doc3}`, { priority: 1 }, admin), 404);
    expectLegacyError(await l.send('POST', `/objects/${ids.doc1}/children`, { data: { child_id: doc } }, admin), 400);
    expectLegacyError(await l.send('POST', `/objects/${ids.archive}/children`, { data: { child_id: ids.outside } }, admin), 400);
  });

  async function upload(type: string, name: string, bytes: Buffer, contentType: string, token?: string) {
    return s.request('POST', `/files/${type}/${encodeURIComponent(name)}`, { token, raw: bytes, headers: { Accept: LEGACY, 'Content-Type': contentType } });
  }

  test('POST /files gives an upload token that creates an image under a section, once', async () => {
    const bytes = await png(64, 48, '#3366ff');
    expectLegacyError(await upload('image', 'blue.png', bytes, 'image/png'), 401);
    const res = await upload('image', 'blue dot.png', bytes, 'image/png', admin);
    const data = envelope(res, s, `/files/image/${encodeURIComponent('blue dot.png')}`, 'post', 'files');
    assert.equal(typeof data.upload_token, 'string');
    expectLegacyError(await upload('image', 'again.png', bytes, 'image/png', admin), 409);
    const created = await l.send('POST', '/objects', { data: { object_type: 'image', title: 'Blue', status: 'on', parents: [ids.about], upload_token: data.upload_token } }, admin);
    assert.equal(created.status, 201, created.text);
    const o = created.body.data.object;
    for (const f of FILE_FIELDS) assert.ok(f in o, `file field ${f} missing`);
    assert.equal(o.object_type, 'image');
    assert.equal(o.mime_type, 'image/png');
    assert.equal(o.original_name, 'blue dot.png');
    assert.equal(o.file_size, bytes.length);
    assert.equal(o.width, 64);
    assert.equal(o.height, 48);
    const file = await fetch(o.uri);
    assert.equal(file.status, 200);
    assert.deepEqual(Buffer.from(await file.arrayBuffer()), bytes);
    ids.image = o.id;
    // A token is single-use.
    expectLegacyError(await l.send('POST', '/objects', { data: { object_type: 'image', title: 'Twice', parents: [ids.about], upload_token: data.upload_token } }, admin), 400);
    // The JSON API shows the same image with its stream.
    const json = await s.request('GET', `/images/${o.id}`);
    assert.equal(json.status, 200, json.text);
    assert.equal(json.body.data.attributes.title, 'Blue');
  });

  test('POST /files validates the file against the type and the request', async () => {
    expectLegacyError(await upload('image', 'clip.mp4', Buffer.from('not really a video'), 'video/mp4', admin), 400);
    expectLegacyError(await upload('document', 'a.png', await png(2, 2, '#000'), 'image/png', admin), 400);
    expectLegacyError(await upload('unicorn', 'a.png', await png(3, 3, '#000'), 'image/png', admin), 400);
    const count = await s.server.ctx.db.selectFrom('upload_tokens').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    assert.equal(Number(count.n), 1, 'refused uploads leave no token');
  });

  test('an expired token is refused and its unlinked file deleted', async () => {
    const res = await upload('file', 'notes.txt', Buffer.from('expiring notes'), 'text/plain', admin);
    assert.equal(res.status, 200, res.text);
    const row = await s.server.ctx.db.selectFrom('upload_tokens').selectAll().where('object_id', 'is', null).executeTakeFirstOrThrow();
    const stored = fs.readdirSync(path.join(s.dataDir, 'files', 'streams'), { recursive: true }).map(String);
    assert.ok(stored.some((f) => f.endsWith(row.stream_uuid)));
    await s.server.ctx.db.updateTable('upload_tokens').set({ expires: '2000-01-01T00:00:00+00:00' }).where('id', '=', row.id).execute();
    expectLegacyError(await l.send('POST', '/objects', { data: { object_type: 'file', title: 'Late', parents: [ids.about], upload_token: res.body.data.upload_token } }, admin), 400);
    // The next upload purges expired tokens with their streams.
    await upload('file', 'other.txt', Buffer.from('fresh notes'), 'text/plain', admin);
    const after_ = fs.readdirSync(path.join(s.dataDir, 'files', 'streams'), { recursive: true }).map(String);
    assert.ok(!after_.some((f) => f.endsWith(row.stream_uuid)), 'the expired file is gone');
  });

  test('posters choose the poster relation, the image itself, then attach; uri is a real thumbnail', async () => {
    const red = await upload('image', 'red.png', await png(120, 80, '#ff0000'), 'image/png', admin);
    const redId = await legacyCreate(l, admin, { object_type: 'image', title: 'Red', status: 'on', relations: { poster_of: [{ related_id: ids.doc1 }] }, upload_token: red.body.data.upload_token });
    // doc3 has the blue image attached only.
    const att = await l.send('POST', `/objects/${ids.doc3}/relations/attach`, { data: { related_id: ids.image } }, admin);
    assert.equal(att.status, 201, att.text);

    const one = await l.get(`/posters/${ids.doc1}?width=40&height=40`);
    const entry = envelope(one, s, `/posters/${ids.doc1}?width=40&height=40`, 'get', 'posters');
    assert.equal(entry.id, ids.doc1);
    const thumb = await fetch(entry.uri);
    assert.equal(thumb.status, 200);
    const meta = await sharp(Buffer.from(await thumb.arrayBuffer())).metadata();
    assert.ok(meta.width! <= 40 && meta.height! <= 40);
    const itself = await l.get(`/poster/${redId}`);
    assert.equal(itself.body.api, 'poster');
    assert.equal(itself.body.data.id, redId);
    assert.match(itself.body.data.uri, /\/media\/thumbs\//);
    const list = await l.get(`/posters?id=${ids.doc3},${ids.doc1},${ids.news},999999`);
    const data = envelope(list, s, `/posters?id=${ids.doc3},${ids.doc1},${ids.news},999999`, 'get', 'posters');
    assert.deepEqual(data.map((d: { id: number }) => d.id), [ids.doc3, ids.doc1, ids.news]);
    assert.ok(data[0].uri && data[1].uri && data[0].uri !== data[1].uri);
    assert.equal(data[2].uri, null);
    // Posters exist only in the legacy layout: plain application/json gets it, JSON API only 406.
    const plain = await s.request('GET', `/posters/${ids.doc1}`, { headers: { Accept: 'application/json' } });
    assert.equal(plain.status, 200);
    assert.equal(plain.body.api, 'posters');
    expectLegacyError(await s.request('GET', `/posters/${ids.doc1}`), 406);
  });

  test('posters refuse bad input: 400 for too many or missing ids and bad sizes, 404 unknown', async () => {
    const many = Array.from({ length: 101 }, (_, i) => i + 1).join(',');
    expectLegacyError(await l.get(`/posters?id=${many}`), 400);
    expectLegacyError(await l.get('/posters'), 400);
    expectLegacyError(await l.get(`/posters/${ids.doc1}?width=-3`), 400);
    expectLegacyError(await l.get('/posters/999999'), 404);
    expectLegacyError(await l.get(`/poster/${ids.outside}`), 404);
  });

  test('a non-admin user writes through the legacy layout; another user cannot use their upload token', async () => {
    const created = await s.request('POST', '/users', { token: admin, body: { data: { type: 'users', attributes: { username: 'editor', password: 'editor-pass-1', uname: 'editor' } } } });
    assert.equal(created.status, 201, created.text);
    // Placing an object in a section is an update of the section: the editors' role may do it all.
    const everything = { '*': ['read', 'create', 'update', 'delete', 'publish'] };
    const role = await s.request('POST', '/roles', { token: admin, body: { data: { type: 'roles', attributes: { name: 'editors', permissions: everything } } } });
    await s.request('POST', `/users/${created.body.data.id}/relationships/roles`, { token: admin, body: { data: [{ type: 'roles', id: role.body.data.id }] } });
    const editor = (await s.login('editor', 'editor-pass-1')).jwt;
    const doc = await legacyCreate(l, editor, { object_type: 'document', title: 'By the editor', parents: [ids.about] });
    assert.equal((await l.get(`/objects/${doc}`, editor)).body.data.object.title, 'By the editor');
    const up = await upload('file', 'mine.txt', Buffer.from('the editor file'), 'text/plain', editor);
    assert.equal(up.status, 200, up.text);
    const stolen = await l.send('POST', '/objects', { data: { object_type: 'file', title: 'Not mine', parents: [ids.about], upload_token: up.body.data.upload_token } }, admin);
    expectLegacyError(stolen, 400);
    const wrongType = await l.send('POST', '/objects', { data: { object_type: 'image', title: 'Wrong type', parents: [ids.about], upload_token: up.body.data.upload_token } }, editor);
    expectLegacyError(wrongType, 400);
    const mine = await l.send('POST', '/objects', { data: { object_type: 'file', title: 'Mine', parents: [ids.about], upload_token: up.body.data.upload_token } }, editor);
    assert.equal(mine.status, 201, mine.text);
    assert.equal(mine.body.data.object.mime_type, 'text/plain');
  });

  test('malformed bodies and relations a type does not have give legacy 400s', async () => {
    const bad = await s.request('POST', '/objects', { token: admin, raw: '{"data": {', headers: { Accept: LEGACY, 'Content-Type': 'application/json' } });
    expectLegacyError(bad, 400);
    assert.equal(bad.body.api, 'objects');
    expectLegacyError(await l.send('POST', `/objects/${ids.doc1}/relations/poster`, { data: { related_id: ids.doc3 } }, admin), 400);
    expectLegacyError(await l.send('POST', '/objects', { data: { object_type: 'document', title: 'x', relations: { poster_of: [{ related_id: ids.doc1 }] } } }, admin), 400);
  });

  test('done-when scenario: browse, read relations and positions, upload, create under a section, relate, read posters', async () => {
    // Browse the publication tree from the top.
    const top = (await l.get('/objects?filter[object_type]=area,section')).body.data.objects;
    const news = top.find((o: { nickname: string }) => o.nickname === 'news');
    assert.equal(news.children.url, `${s.url}/objects/${news.id}/children`);
    const sections = (await l.get(`/objects/${ids.pub}/sections`)).body.data.objects.map((o: { id: number }) => o.id);
    assert.ok(sections.includes(news.id));
    const contents = (await l.get(`/objects/${news.id}/contents`)).body.data.objects;
    const story = contents[0];
    assert.ok((await l.get(`/objects/${news.id}/children/${story.id}`)).body.data.priority >= 1);
    for (const [name, rel] of Object.entries(story.relations as Record<string, { url: string; count: number }>)) {
      const related = await fetch(rel.url, { headers: { Accept: LEGACY } }).then((r) => r.json());
      assert.equal(related.data.objects.length, rel.count, name);
    }
    // Upload a picture, create it under the section, relate it as the story's poster.
    const pic = await upload('image', 'green.png', await png(50, 50, '#00aa00'), 'image/png', admin);
    const image = await legacyCreate(l, admin, { object_type: 'image', title: 'Green', status: 'on', parents: [news.id], upload_token: pic.body.data.upload_token });
    const newStory = await legacyCreate(l, admin, { object_type: 'document', title: 'Greenery', status: 'on', parents: [news.id] });
    const related = await l.send('POST', `/objects/${newStory}/relations/poster`, { data: { related_id: image } }, admin);
    assert.equal(related.status, 201, related.text);
    const poster = (await l.get(`/posters?id=${newStory}&width=20`)).body.data;
    assert.equal(poster[0].id, newStory);
    const thumb = await sharp(Buffer.from(await (await fetch(poster[0].uri)).arrayBuffer())).metadata();
    assert.equal(thumb.width, 20);
    // The JSON API reads the same new objects.
    const json = await s.request('GET', `/documents/${newStory}?include=poster`);
    assert.equal(json.status, 200, json.text);
    assert.equal(json.body.data.attributes.title, 'Greenery');
    assert.deepEqual(json.body.included.filter((r: { type: string }) => r.type === 'images').map((r: { id: string }) => r.id), [String(image)]);
  });

  test('contents of a trashed section are out of reach; positions skip trashed children', async () => {
    const box = await legacyCreate(l, admin, { object_type: 'section', title: 'Box', status: 'on', parents: [ids.pub] });
    const inner = await legacyCreate(l, admin, { object_type: 'section', title: 'Inner box', status: 'on', parents: [box] });
    const gone = await legacyCreate(l, admin, { object_type: 'document', title: 'Boxed', status: 'on', parents: [inner] });
    const first = await legacyCreate(l, admin, { object_type: 'document', title: 'First in about', status: 'on', parents: [ids.about] });
    await l.send('PUT', `/objects/${ids.about}/children/${first}`, { priority: 1 }, admin);
    const second = (await l.get(`/objects/${ids.about}/children`, admin)).body.data.objects[1].id;
    assert.equal((await l.get(`/objects/${gone}`)).status, 200);
    assert.equal((await s.request('DELETE', `/folders/${box}`, { token: admin })).status, 204);
    assert.equal((await s.request('DELETE', `/documents/${first}`, { token: admin })).status, 204);
    expectLegacyError(await l.get(`/objects/${gone}`), 404);
    expectLegacyError(await l.get(`/objects/${inner}/children`), 404);
    const all = (await l.get('/objects?page_size=100', admin)).body.data.objects.map((o: { id: number }) => o.id);
    assert.ok(!all.includes(gone) && !all.includes(inner) && !all.includes(box) && !all.includes(first));
    assert.deepEqual((await l.get(`/objects/${ids.about}/children/${second}`)).body.data, { priority: 1 });
  });

  test('custom properties fill the legacy fields of the same name and custom_properties', async () => {
    for (const [name, type] of [['abstract', 'text'], ['start_date', 'datetime'], ['rating', 'integer']]) {
      const res = await s.request('POST', '/model/properties', {
        token: admin,
        body: { data: { type: 'properties', attributes: { name, property_type_name: type, object_type_name: 'events' } } },
      });
      assert.equal(res.status, 201, res.text);
    }
    const id = await legacyCreate(l, admin, {
      object_type: 'event', title: 'Festival', status: 'on', parents: [ids.about],
      abstract: 'Three days of music', start_date: '2026-07-01T18:00:00Z', custom_properties: { rating: 4 },
    });
    const o = (await l.get(`/objects/${id}`)).body.data.object;
    assert.equal(o.abstract, 'Three days of music');
    assert.equal(o.start_date, '2026-07-01T18:00:00+00:00');
    assert.equal(o.end_date, null);
    assert.deepEqual(o.custom_properties, { abstract: 'Three days of music', rating: 4, start_date: o.custom_properties.start_date });
    const other = (await l.get(`/objects/${ids.event}`)).body.data.object;
    assert.deepEqual(other.custom_properties, { abstract: null, rating: null, start_date: null });
    expectLegacyError(await l.send('POST', '/objects', { data: { id, custom_properties: { rating: 'high' } } }, admin), 400);
  });

  test('an update with parents moves a content between sections and a section under another', async () => {
    const doc = await legacyCreate(l, admin, { object_type: 'document', title: 'Wanderer', status: 'on', parents: [ids.news, ids.about] });
    const moved = await l.send('POST', '/objects', { data: { id: doc, parents: [ids.archive, ids.about] } }, admin);
    assert.equal(moved.status, 200, moved.text);
    const inNews = (await l.get(`/objects/${ids.news}/contents?page_size=100`)).body.data.objects.map((o: { id: number }) => o.id);
    const inArchive = (await l.get(`/objects/${ids.archive}/contents?page_size=100`)).body.data.objects.map((o: { id: number }) => o.id);
    const inAbout = (await l.get(`/objects/${ids.about}/contents?page_size=100`)).body.data.objects.map((o: { id: number }) => o.id);
    assert.ok(!inNews.includes(doc) && inArchive.includes(doc) && inAbout.includes(doc));
    const section = await legacyCreate(l, admin, { object_type: 'section', title: 'Nomad', status: 'on', parents: [ids.news] });
    assert.equal((await l.send('POST', '/objects', { data: { id: section, parents: [ids.about] } }, admin)).status, 200);
    const aboutSections = (await l.get(`/objects/${ids.about}/sections`)).body.data.objects.map((o: { id: number }) => o.id);
    assert.ok(aboutSections.includes(section));
    assert.ok(!(await l.get(`/objects/${ids.news}/sections`)).body.data.objects.some((o: { id: number }) => o.id === section));
    expectLegacyError(await l.send('POST', '/objects', { data: { id: section, parents: [ids.news, ids.about] } }, admin), 400);
    expectLegacyError(await l.send('POST', '/objects', { data: { id: ids.news, parents: [ids.archive] } }, admin), 400);
  });

  test('a protected publication gives 401 to anonymous clients and 403 to application tokens', async () => {
    const off = await s.request('PATCH', `/folders/${ids.pub}`, { token: admin, body: { data: { id: String(ids.pub), type: 'folders', attributes: { status: 'draft' } } } });
    assert.equal(off.status, 200, off.text);
    try {
      expectLegacyError(await l.get('/objects'), 401);
      expectLegacyError(await l.get(`/objects/${ids.doc1}`), 401);
      expectLegacyError(await l.get(`/posters/${ids.doc1}`), 401);
      assert.equal((await l.get('/objects', admin)).status, 200);
      // An application token is authenticated but reads like an anonymous client: 403.
      const created = await s.request('POST', '/applications', { token: admin, body: { data: { type: 'applications', attributes: { name: 'kiosk' } } } });
      assert.equal(created.status, 201, created.text);
      const login = await s.request('POST', '/auth', {
        body: { grant_type: 'client_credentials', client_id: created.body.data.meta.api_key, client_secret: created.body.data.meta.client_secret },
        headers: { 'Content-Type': 'application/json' },
      });
      assert.equal(login.status, 200, login.text);
      expectLegacyError(await l.get('/objects', login.body.meta.jwt), 403);
      expectLegacyError(await l.get(`/objects/${ids.doc1}`, login.body.meta.jwt), 403);
    } finally {
      await s.request('PATCH', `/folders/${ids.pub}`, { token: admin, body: { data: { id: String(ids.pub), type: 'folders', attributes: { status: 'on' } } } });
    }
  });
});

describe('legacy limits and configuration', () => {
  let s: TestServer;
  let l: Legacy;
  let admin: string;
  before(async () => {
    s = await startServer({
      FOLIO_UPLOAD_QUOTA_BYTES: '1000',
      FOLIO_UPLOAD_MAX_FILES: '2',
      FOLIO_LEGACY_WRITABLE_TYPES: 'documents,file',
      FOLIO_PUBLICATION: 'second-site',
    });
    l = legacyClient(s);
    admin = await s.adminToken();
  });
  after(() => s.close());

  const up = (type: string, bytes: Buffer) =>
    s.request('POST', `/files/${type}/f.bin`, { token: admin, raw: bytes, headers: { Accept: LEGACY, 'Content-Type': 'application/octet-stream' } });

  test('quota and file count give 403 with their codes, counting every accepted byte', async () => {
    assert.equal((await up('file', Buffer.alloc(600, 1))).status, 200);
    expectLegacyError(await up('file', Buffer.alloc(500, 2)), 403, 'UPLOAD_QUOTA_EXCEEDED');
    assert.equal((await up('file', Buffer.alloc(400, 3))).status, 200);
    expectLegacyError(await up('file', Buffer.alloc(1, 4)), 403, 'UPLOAD_FILES_LIMIT_EXCEEDED');
  });

  test('only the configured types are writable (403), and FOLIO_PUBLICATION picks the publication', async () => {
    expectLegacyError(await up('image', await png(4, 4, '#fff')), 403);
    const first = await createFolder(s, admin, 'First site');
    const second = await createFolder(s, admin, 'Second site');
    expectLegacyError(await l.send('POST', '/objects', { data: { object_type: 'event', title: 'x', parents: [second] } }, admin), 403);
    const doc = await legacyCreate(l, admin, { object_type: 'document', title: 'Here', status: 'on', parents: [second] });
    const list = await l.get('/objects');
    assert.deepEqual(list.body.data.objects.map((o: { id: number }) => o.id), [doc]);
    assert.equal((await l.get(`/objects/${second}`)).body.data.object.object_type, 'area');
    expectLegacyError(await l.get(`/objects/${first}`), 404);
  });
});
