// Translations (issue 30; CONTRACT.md "Translations"; bedita/docs endpoints/translations.rst):
// the /translations resource, objects read with `lang`, rights (reading follows the object, writing
// is an update of it), history and versions, trash and restore, search per language and the legacy
// layout's `languages`. Through HTTP, on SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { expectError, startServer, type TestServer } from './helpers/server.js';
import { userWithPermissions } from './helpers/users.js';

const LEGACY = { Accept: 'application/json, text/javascript' };

describe('translations', () => {
  let s: TestServer;
  let admin: string;
  const tokens: Record<string, string> = {};
  const body = (type: string, attributes: Record<string, unknown>) => ({ data: { type, attributes } });
  const translation = (attributes: Record<string, unknown>) => body('translations', attributes);

  async function makeUser(username: string, permissions: unknown) {
    tokens[username] = await userWithPermissions(s, admin, username, permissions);
  }
  async function doc(attributes: Record<string, unknown>) {
    const r = await s.request('POST', '/documents', { token: admin, body: body('documents', attributes) });
    assert.equal(r.status, 201, r.text);
    return String(r.body.data.id);
  }
  async function translate(objectId: string, lang: string, fields: Record<string, unknown>, status = 'on', token = admin) {
    const r = await s.request('POST', '/translations', { token, body: translation({ object_id: objectId, lang, status, translated_fields: fields }) });
    assert.equal(r.status, 201, r.text);
    return r.body.data as { id: string; attributes: Record<string, unknown> };
  }

  before(async () => {
    s = await startServer();
    admin = await s.adminToken();
    await makeUser('reader', { '*': ['read'] });
    await makeUser('translator', { documents: ['read', 'update', 'publish'] });
    await makeUser('editor', { documents: ['read', 'update'] });
  });
  after(() => s.close());

  test('POST /translations: 201 with Location and the BEdita shape; the object reads it with lang', async () => {
    const id = await doc({ title: 'Cat', description: 'A cat', status: 'on' });
    const r = await s.request('POST', '/translations', { token: admin, body: translation({ object_id: Number(id), lang: 'it', status: 'on', translated_fields: { title: 'Gatto', description: 'Un gatto' } }) });
    assert.equal(r.status, 201, r.text);
    const t = r.body.data;
    assert.equal(r.headers.get('location'), `${s.url}/translations/${t.id}`);
    assert.deepEqual(t.attributes, { object_id: Number(id), lang: 'it', status: 'on', translated_fields: { title: 'Gatto', description: 'Un gatto' } });
    assert.deepEqual(Object.keys(t.meta).sort(), ['created', 'created_by', 'modified', 'modified_by']);
    assert.deepEqual(t.relationships.object.links, { related: `${s.url}/translations/${t.id}/object`, self: `${s.url}/translations/${t.id}/relationships/object` });
    // The object: links always, data and included with lang.
    const plain = await s.request('GET', `/documents/${id}`);
    assert.deepEqual(plain.body.data.relationships.translations, { links: { related: `${s.url}/documents/${id}/translations`, self: `${s.url}/documents/${id}/relationships/translations` } });
    assert.equal(plain.body.included, undefined);
    const it = await s.request('GET', `/documents/${id}?lang=it`);
    assert.deepEqual(it.body.data.relationships.translations.data, [{ type: 'translations', id: t.id }]);
    assert.deepEqual(it.body.included.map((x: { type: string; id: string }) => [x.type, x.id]), [['translations', t.id]]);
    assert.equal(it.body.included[0].attributes.translated_fields.title, 'Gatto');
    const fr = await s.request('GET', `/documents/${id}?lang=fr`);
    assert.deepEqual(fr.body.data.relationships.translations.data, []);
    // Lists too, and the object's own list.
    const list = await s.request('GET', `/documents?lang=it&filter[id]=${id}`);
    assert.deepEqual(list.body.included.map((x: { id: string }) => x.id), [t.id]);
    const own = await s.request('GET', `/documents/${id}/translations`);
    assert.deepEqual(own.body.data.map((x: { id: string }) => x.id), [t.id]);
  });

  test('bad input: a second translation in one language, unknown or untranslatable fields, bad lang or status, unknown object; nothing changes', async () => {
    const id = await doc({ title: 'Dog', status: 'on' });
    await translate(id, 'it', { title: 'Cane' });
    expectError(await s.request('POST', '/translations', { token: admin, body: translation({ object_id: id, lang: 'it', translated_fields: { title: 'Cane 2' } }) }), 400, 'translation_exists');
    expectError(await s.request('POST', '/translations', { token: admin, body: translation({ object_id: id, lang: 'fr', translated_fields: { uname: 'chien' } }) }), 400);
    expectError(await s.request('POST', '/translations', { token: admin, body: translation({ object_id: id, lang: 'fr', translated_fields: { title: 42 } }) }), 400);
    expectError(await s.request('POST', '/translations', { token: admin, body: translation({ object_id: id, lang: 'not a tag!', translated_fields: {} }) }), 400);
    expectError(await s.request('POST', '/translations', { token: admin, body: translation({ object_id: id, lang: 'fr', status: 'published', translated_fields: {} }) }), 400);
    expectError(await s.request('POST', '/translations', { token: admin, body: translation({ object_id: id, lang: 'fr', extra: 1, translated_fields: {} }) }), 400);
    expectError(await s.request('POST', '/translations', { token: admin, body: translation({ object_id: '999999', lang: 'fr', translated_fields: {} }) }), 404);
    expectError(await s.request('POST', '/translations', { token: admin, body: { data: { type: 'documents', attributes: {} } } }), 409);
    const all = await s.request('GET', `/documents/${id}/translations`, { token: admin });
    assert.deepEqual(all.body.data.map((x: { attributes: { lang: string } }) => x.attributes.lang), ['it']);
    assert.equal(all.body.data[0].attributes.translated_fields.title, 'Cane');
  });

  test('rights: reading follows the object (anonymous: translation status on too); writing is an update of the object', async () => {
    const open = await doc({ title: 'Open', status: 'on' });
    const draft = await doc({ title: 'Draft' });
    const onT = await translate(open, 'it', { title: 'Aperto' });
    const draftT = await translate(open, 'de', { title: 'Offen' }, 'draft');
    const hiddenT = await translate(draft, 'it', { title: 'Bozza' });
    expectError(await s.request('GET', `/translations/${draftT.id}`), 404);
    expectError(await s.request('GET', `/translations/${hiddenT.id}`), 404);
    assert.equal((await s.request('GET', `/translations/${onT.id}`)).status, 200);
    assert.equal((await s.request('GET', `/translations/${hiddenT.id}`, { token: tokens.reader })).status, 200);
    const anonymousList = await s.request('GET', '/translations?filter[object_id]=' + open);
    assert.deepEqual(anonymousList.body.data.map((x: { id: string }) => x.id), [onT.id]);
    // Writes: anonymous 401, a reader without update 403, a hidden object 404 as a missing one.
    expectError(await s.request('POST', '/translations', { body: translation({ object_id: open, lang: 'fr', translated_fields: {} }) }), 401);
    expectError(await s.request('POST', '/translations', { token: tokens.reader, body: translation({ object_id: open, lang: 'fr', translated_fields: {} }) }), 403);
    expectError(await s.request('PATCH', `/translations/${onT.id}`, { token: tokens.reader, body: { data: { type: 'translations', id: onT.id, attributes: { status: 'off' } } } }), 403);
    expectError(await s.request('DELETE', `/translations/${onT.id}`, { token: tokens.reader }), 403);
    // The object is published: translating it needs `publish` as well.
    expectError(await s.request('POST', '/translations', { token: tokens.editor, body: translation({ object_id: open, lang: 'fr', translated_fields: {} }) }), 403, 'publish_required');
    const translator = await translate(open, 'fr', { title: 'Ouvert' }, 'on', tokens.translator);
    assert.equal(translator.attributes.lang, 'fr');
    assert.equal((await s.request('GET', `/translations/${onT.id}`, { token: tokens.reader })).body.data.attributes.status, 'on');
  });

  test('PATCH and DELETE /translations/{id}; each write is in the object\'s history and moves its ETag', async () => {
    const id = await doc({ title: 'House', body: '<p>A house</p>', status: 'on' });
    const before = (await s.request('GET', `/documents/${id}`)).headers.get('etag');
    const t = await translate(id, 'it', { title: 'Casa' }, 'draft');
    const afterCreate = (await s.request('GET', `/documents/${id}`)).headers.get('etag');
    assert.notEqual(afterCreate, before);
    const patched = await s.request('PATCH', `/translations/${t.id}`, { token: admin, body: { data: { type: 'translations', id: t.id, attributes: { status: 'on', translated_fields: { body: '<p>Una casa</p>' } } } } });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual(patched.body.data.attributes.translated_fields, { title: 'Casa', body: '<p>Una casa</p>' });
    assert.equal(patched.body.data.attributes.status, 'on');
    expectError(await s.request('PATCH', `/translations/${t.id}`, { token: admin, body: { data: { type: 'translations', id: t.id, attributes: { lang: 'fr' } } } }), 400);
    expectError(await s.request('PATCH', `/translations/${t.id}`, { token: admin, body: { data: { type: 'translations', id: '999', attributes: {} } } }), 409);
    assert.equal((await s.request('DELETE', `/translations/${t.id}`, { token: admin })).status, 204);
    expectError(await s.request('GET', `/translations/${t.id}`, { token: admin }), 404);
    const history = await s.request('GET', `/documents/${id}/history`, { token: admin });
    const changes = history.body.data.map((e: { attributes: { user_action: string; changed: Record<string, unknown> } }) => [e.attributes.user_action, e.attributes.changed.translations]);
    assert.deepEqual(changes.slice(1), [
      ['update', { it: { status: 'draft', translated_fields: { title: 'Casa' } } }],
      ['update', { it: { status: 'on', translated_fields: { title: 'Casa', body: '<p>Una casa</p>' } } }],
      ['update', { it: null }],
    ]);
  });

  test('translations go to the trash with their object, come back with it, and go with it for good', async () => {
    const id = await doc({ title: 'Boat', status: 'on' });
    const t = await translate(id, 'it', { title: 'Barca' });
    assert.equal((await s.request('DELETE', `/documents/${id}`, { token: admin })).status, 204);
    expectError(await s.request('GET', `/translations/${t.id}`, { token: admin }), 404);
    assert.deepEqual((await s.request('GET', `/translations?filter[object_id]=${id}`, { token: admin })).body.data, []);
    assert.equal((await s.request('PATCH', `/trash/${id}`, { token: admin, body: { data: { type: 'documents', id } } })).status, 204);
    assert.equal((await s.request('GET', `/translations/${t.id}`, { token: admin })).body.data.attributes.translated_fields.title, 'Barca');
    assert.equal((await s.request('DELETE', `/documents/${id}`, { token: admin })).status, 204);
    assert.equal((await s.request('DELETE', `/trash/${id}`, { token: admin })).status, 204);
    expectError(await s.request('GET', `/translations/${t.id}`, { token: admin }), 404);
  });

  test('list filters: lang, object_id, type, status, query; include=object, /object and /relationships/object', async () => {
    const id = await doc({ title: 'Tree', status: 'on' });
    const it = await translate(id, 'it', { title: 'Albero verde' });
    await translate(id, 'fr', { title: 'Arbre' }, 'draft');
    const ids = (q: string) => s.request('GET', `/translations?${q}`, { token: admin }).then((r) => r.body.data.map((x: { id: string }) => x.id));
    assert.deepEqual(await ids(`filter[object_id]=${id}&filter[lang]=it`), [it.id]);
    assert.deepEqual(await ids(`filter[object_id]=${id}&filter[status]=on`), [it.id]);
    assert.ok((await ids('filter[type]=documents')).includes(it.id));
    assert.deepEqual(await ids('filter[type]=events'), []);
    assert.deepEqual(await ids(`filter[object_id]=${id}&filter[query]=verde`), [it.id]);
    expectError(await s.request('GET', '/translations?filter[type]=nothing', { token: admin }), 400);
    expectError(await s.request('GET', '/translations?filter[nope]=1', { token: admin }), 400);
    const withObject = await s.request('GET', `/translations/${it.id}?include=object`);
    assert.deepEqual(withObject.body.included.map((x: { type: string; id: string }) => [x.type, x.id]), [['documents', id]]);
    const object = await s.request('GET', `/translations/${it.id}/object`);
    assert.equal(object.body.data.id, id);
    const rel = await s.request('GET', `/translations/${it.id}/relationships/object`);
    assert.deepEqual(rel.body.data, { id, type: 'documents' });
  });

  test('filter[query] with lang also finds that language\'s translated words, ranked; without lang it does not', async () => {
    const id = await doc({ title: 'Lighthouse keeper', status: 'on' });
    await translate(id, 'it', { title: 'Guardiano del faro', body: 'Il faro illumina la costa' });
    await translate(id, 'fr', { title: 'Gardien de phare' }, 'draft');
    const found = (q: string, token?: string) => s.request('GET', `/documents?${q}`, { token }).then((r) => r.body.data.map((x: { id: string }) => x.id));
    assert.deepEqual(await found('filter[query]=faro&lang=it'), [id]);
    assert.deepEqual(await found('q=faro'), []);
    assert.deepEqual(await found('filter[query]=faro&lang=fr'), []);
    // A draft translation is searched for those who read drafts only.
    assert.deepEqual(await found('filter[query]=phare&lang=fr'), []);
    assert.deepEqual(await found('filter[query]=phare&lang=fr', admin), [id]);
    // The original's own words still match with lang.
    assert.deepEqual(await found('filter[query]=lighthouse&lang=it'), [id]);
  });

  test("the legacy object's languages holds its translations", async () => {
    const root = await s.request('POST', '/folders', { token: admin, body: body('folders', { title: 'Pub', status: 'on' }) });
    const created = await s.request('POST', '/objects', { token: admin, headers: { ...LEGACY, 'Content-Type': 'application/json' }, body: { data: { object_type: 'document', title: 'Bridge', status: 'on', parents: [Number(root.body.data.id)] } } });
    assert.equal(created.status, 201, created.text);
    const id = String(created.body.data.object.id);
    await translate(id, 'it', { title: 'Ponte' });
    await translate(id, 'de', { title: 'Brücke' }, 'draft');
    const legacy = await s.request('GET', `/objects/${id}`, { headers: LEGACY });
    assert.equal(legacy.status, 200, legacy.text);
    assert.deepEqual(legacy.body.data.object.languages, { it: { title: 'Ponte' } });
  });

  test('If-Match on PATCH and DELETE /translations/{id}: two translators saving one language, the second gets 412 and changes nothing', async () => {
    const id = await doc({ title: 'Bridge', status: 'on' });
    const t = await translate(id, 'fr', { title: 'Pont' });
    const first = await s.request('GET', `/translations/${t.id}`, { token: tokens.translator });
    const second = await s.request('GET', `/translations/${t.id}`, { token: admin });
    const etag = first.headers.get('etag');
    assert.match(String(etag), /^"v\d+-[A-Za-z0-9_-]+"$/);
    assert.equal(second.headers.get('etag'), etag, 'both translators saw the same version');

    const saved = await s.request('PATCH', `/translations/${t.id}`, { token: tokens.translator, headers: { 'If-Match': String(etag) }, body: { data: { id: t.id, type: 'translations', attributes: { translated_fields: { title: 'Le pont' } } } } });
    assert.equal(saved.status, 200, saved.text);
    assert.notEqual(saved.headers.get('etag'), etag);
    const late = await s.request('PATCH', `/translations/${t.id}`, { token: admin, headers: { 'If-Match': String(etag) }, body: { data: { id: t.id, type: 'translations', attributes: { translated_fields: { title: 'Un pont' } } } } });
    expectError(late, 412);
    expectError(await s.request('DELETE', `/translations/${t.id}`, { token: admin, headers: { 'If-Match': String(etag) } }), 412);
    const now = await s.request('GET', `/translations/${t.id}`, { token: admin });
    assert.equal(now.body.data.attributes.translated_fields.title, 'Le pont');
    // With the fresh ETag the write passes.
    assert.equal((await s.request('DELETE', `/translations/${t.id}`, { token: admin, headers: { 'If-Match': String(now.headers.get('etag')) } })).status, 204);
  });
});
