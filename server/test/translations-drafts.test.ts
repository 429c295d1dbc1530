// Who reads translations that are not `on` (CONTRACT.md, Translations): only readers with `read`
// on the object's type (and admins). Anonymous clients, application tokens, users with no role and
// users without that right see `on` translations only, in every place a translation shows:
// /translations (list and by id), `lang=` on reads and lists (included and relationships),
// search with `lang`, GET /{type}/{id}/translations, the legacy object's `languages` and the
// object's history. Through HTTP, on SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startServer, type TestServer } from './helpers/server.js';
import { createUser, userWithPermissions } from './helpers/users.js';

const LEGACY = { Accept: 'application/json, text/javascript' };

describe('draft translations are for readers with read', () => {
  let s: TestServer;
  let admin: string;
  let apiKey: string;
  let objectId: string;
  let onId: string;
  let draftId: string;
  const readers: Record<string, { token?: string; headers?: Record<string, string> }> = {};
  const body = (type: string, attributes: Record<string, unknown>) => ({ data: { type, attributes } });

  before(async () => {
    s = await startServer();
    admin = await s.adminToken();
    const app = await s.request('POST', '/applications', { token: admin, body: body('applications', { name: 'site' }) });
    assert.equal(app.status, 201, app.text);
    apiKey = app.body.data.meta.api_key;
    readers.anonymous = {};
    readers.application = { headers: { 'X-Api-Key': apiKey } };
    readers.roleless = { token: (await createUser(s, admin, { username: 'roleless' })).jwt };
    readers.otherTypes = { token: await userWithPermissions(s, admin, 'events-reader', { events: ['read'], documents: ['create'] }) };
    readers.reader = { token: await userWithPermissions(s, admin, 'doc-reader', { documents: ['read'] }) };
    // The legacy layout reads objects on the publication tree: the first root folder.
    const root = await s.request('POST', '/folders', { token: admin, body: body('folders', { title: 'Site', status: 'on' }) });
    const created = await s.request('POST', '/objects', {
      token: admin,
      headers: { ...LEGACY, 'Content-Type': 'application/json' },
      body: { data: { object_type: 'document', title: 'Harbour', status: 'on', parents: [Number(root.body.data.id)] } },
    });
    assert.equal(created.status, 201, created.text);
    objectId = String(created.body.data.object.id);
    const translate = async (lang: string, title: string, status: string) => {
      const r = await s.request('POST', '/translations', { token: admin, body: body('translations', { object_id: objectId, lang, status, translated_fields: { title } }) });
      assert.equal(r.status, 201, r.text);
      return String(r.body.data.id);
    };
    onId = await translate('it', 'Porto', 'on');
    draftId = await translate('de', 'Hafenbecken', 'draft');
    await translate('fr', 'Bassin secret', 'off');
    // Removed ones: a draft (its removal is no news to anonymous clients) and a published one.
    for (const [lang, status] of [['es', 'draft'], ['nl', 'on']]) {
      assert.equal((await s.request('DELETE', `/translations/${await translate(lang, `Gone ${lang}`, status)}`, { token: admin })).status, 204);
    }
  });
  after(() => s.close());

  const get = (who: string, path: string, headers: Record<string, string> = {}) =>
    s.request('GET', path, { token: readers[who].token, headers: { ...(readers[who].headers ?? {}), ...headers } });
  const langsOf = (list: { data: Array<{ attributes: { lang: string } }> }) => list.data.map((t) => t.attributes.lang).sort();

  for (const who of ['anonymous', 'application', 'roleless', 'otherTypes']) {
    test(`${who}: only on translations, everywhere`, async () => {
      const list = await get(who, `/translations?filter[object_id]=${objectId}`);
      assert.equal(list.status, 200, list.text);
      assert.deepEqual(langsOf(list.body), ['it']);
      assert.equal(list.body.meta.pagination.count, 1);
      assert.equal((await get(who, `/translations/${onId}`)).status, 200);
      const hidden = await get(who, `/translations/${draftId}`);
      assert.equal(hidden.status, 404, hidden.text);
      assert.equal(hidden.body.error.status, '404');
      assert.equal((await get(who, `/translations/${draftId}/object`)).status, 404);
      assert.deepEqual(langsOf((await get(who, `/documents/${objectId}/translations`)).body), ['it']);
      for (const path of [`/documents/${objectId}?lang=de`, `/objects/${objectId}?lang=de`]) {
        const read = await get(who, path);
        assert.equal(read.status, 200, read.text);
        assert.deepEqual(read.body.data.relationships.translations.data, []);
        assert.equal(read.body.included, undefined);
      }
      const listed = await get(who, `/documents?lang=de&filter[id]=${objectId}`);
      assert.deepEqual(listed.body.data[0].relationships.translations.data, []);
      assert.equal(listed.body.included, undefined);
      assert.deepEqual((await get(who, '/documents?filter[query]=hafenbecken&lang=de')).body.data, []);
      assert.deepEqual((await get(who, '/documents?filter[query]=porto&lang=it')).body.data.map((d: { id: string }) => d.id), [objectId]);
      const legacy = await get(who, `/objects/${objectId}`, LEGACY);
      assert.equal(legacy.status, 200, legacy.text);
      assert.deepEqual(legacy.body.data.object.languages, { it: { title: 'Porto' } });
      if (readers[who].token) {
        const history = await get(who, `/documents/${objectId}/history?page_size=100`);
        assert.equal(history.status, 200, history.text);
        const shown = JSON.stringify(history.body.data);
        assert.ok(shown.includes('Porto'), 'the on translation is in the history');
        assert.ok(!shown.includes('Hafenbecken') && !shown.includes('Bassin secret') && !shown.includes('"es"'), shown);
        assert.ok(shown.includes('"nl":null'), 'the published translation is shown removed');
      }
    });
  }

  test('a reader with read on the type (and an admin) sees every translation', async () => {
    for (const token of [readers.reader.token, admin]) {
      assert.deepEqual(langsOf((await s.request('GET', `/translations?filter[object_id]=${objectId}`, { token })).body), ['de', 'fr', 'it']);
      assert.equal((await s.request('GET', `/translations/${draftId}`, { token })).status, 200);
      const read = await s.request('GET', `/documents/${objectId}?lang=de`, { token });
      assert.deepEqual(read.body.data.relationships.translations.data, [{ type: 'translations', id: draftId }]);
      assert.deepEqual((await s.request('GET', '/documents?filter[query]=hafenbecken&lang=de', { token })).body.data.map((d: { id: string }) => d.id), [objectId]);
      const legacy = await s.request('GET', `/objects/${objectId}`, { token, headers: LEGACY });
      assert.deepEqual(Object.keys(legacy.body.data.object.languages).sort(), ['de', 'fr', 'it']);
      const history = JSON.stringify((await s.request('GET', `/documents/${objectId}/history?page_size=100`, { token })).body.data);
      assert.ok(history.includes('Hafenbecken') && history.includes('"es":null'));
    }
  });
});
