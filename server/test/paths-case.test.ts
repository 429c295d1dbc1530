// Paths are case-sensitive (CONTRACT.md, Routes reserved by the product): `/OBJECTS/1`,
// `/TRANSLATIONS` or `/Documents` is 404 (a JSON API error), never another spelling of the real
// route, so that no rule keyed on a path — endpoint permissions, disabled endpoints, the admin
// UI's mount — can be stepped around. Reads and writes; nothing is written. Through HTTP, on
// SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { expectError, startServer, type TestServer } from './helpers/server.js';
import { createUser } from './helpers/users.js';

describe('paths are case-sensitive', () => {
  let s: TestServer;
  let admin: string;
  let uiDir: string;
  let docId: string;
  let translationId: string;
  const body = (type: string, attributes: Record<string, unknown>) => ({ data: { type, attributes } });

  before(async () => {
    uiDir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-ui-'));
    fs.writeFileSync(path.join(uiDir, 'index.html'), '<!doctype html><title>Folio admin</title>');
    s = await startServer({}, {}, { uiDir });
    admin = await s.adminToken();
    const doc = await s.request('POST', '/documents', { token: admin, body: body('documents', { title: 'Case study', status: 'on' }) });
    assert.equal(doc.status, 201, doc.text);
    docId = String(doc.body.data.id);
    const t = await s.request('POST', '/translations', { token: admin, body: body('translations', { object_id: docId, lang: 'it', status: 'on', translated_fields: { title: 'Caso' } }) });
    assert.equal(t.status, 201, t.text);
    translationId = String(t.body.data.id);
  });
  after(async () => {
    await s.close();
    fs.rmSync(uiDir, { recursive: true, force: true });
  });

  test('reads under another spelling are 404, for anonymous clients and admins', async () => {
    // The real spellings answer, twice: the second from the response cache, which must not
    // answer another spelling either.
    for (let i = 0; i < 2; i++) for (const p of [`/objects/${docId}`, '/translations', `/documents/${docId}`]) assert.equal((await s.request('GET', p)).status, 200, p);
    const paths = [`/OBJECTS/${docId}`, `/Objects/${docId}`, '/OBJECTS', '/TRANSLATIONS', `/Translations/${translationId}`, '/Documents', `/DOCUMENTS/${docId}`, `/documents/${docId}/TRANSLATIONS`, '/HOME', '/Status'];
    for (const token of [undefined, admin]) {
      for (const p of paths) expectError(await s.request('GET', p, { token }), 404);
      assert.equal((await s.request('HEAD', '/OBJECTS', { token })).status, 404);
    }
  });

  test("the admin UI's mount is /admin only", async () => {
    const ui = await s.request('GET', '/admin/', { headers: { Accept: 'text/html' } });
    assert.equal(ui.status, 200);
    assert.match(ui.text, /Folio admin/);
    for (const p of ['/ADMIN', '/Admin/index.html', '/ADMIN/endpoints']) {
      const r = await s.request('GET', p, { token: admin });
      expectError(r, 404);
      assert.doesNotMatch(r.text, /Folio admin/);
    }
  });

  test('writes under another spelling are 404 and change nothing', async () => {
    const before = (await s.request('GET', `/documents/${docId}`, { token: admin })).body.data;
    expectError(await s.request('POST', '/DOCUMENTS', { token: admin, body: body('documents', { title: 'Shouting' }) }), 404);
    expectError(await s.request('POST', '/OBJECTS', { token: admin, body: body('documents', { title: 'Shouting' }) }), 404);
    expectError(await s.request('PATCH', `/Documents/${docId}`, { token: admin, body: { data: { id: docId, type: 'documents', attributes: { title: 'Changed' } } } }), 404);
    expectError(await s.request('PATCH', `/TRANSLATIONS/${translationId}`, { token: admin, body: { data: { id: translationId, type: 'translations', attributes: { status: 'off' } } } }), 404);
    expectError(await s.request('POST', '/TRANSLATIONS', { token: admin, body: body('translations', { object_id: docId, lang: 'de', translated_fields: { title: 'Fall' } }) }), 404);
    expectError(await s.request('DELETE', `/OBJECTS/${docId}`, { token: admin }), 404);
    const now = await s.request('GET', `/documents/${docId}`, { token: admin });
    assert.equal(now.status, 200);
    assert.deepEqual(now.body.data.attributes, before.attributes);
    assert.equal((await s.request('GET', '/documents?q=shouting', { token: admin })).body.data.length, 0);
    const langs = (await s.request('GET', `/documents/${docId}/translations`, { token: admin })).body.data.map((t: { attributes: { lang: string; status: string } }) => `${t.attributes.lang}:${t.attributes.status}`);
    assert.deepEqual(langs, ['it:on']);
  });

  test('an endpoint permission or a disabled endpoint is not stepped around by another spelling', async () => {
    const endpoint = async (name: string) => {
      const found = (await s.request('GET', `/admin/endpoints?filter[name]=${name}`, { token: admin })).body.data[0];
      if (found) return Number(found.id);
      const made = await s.request('POST', '/admin/endpoints', { token: admin, body: body('endpoints', { name }) });
      assert.equal(made.status, 201, made.text);
      return Number(made.body.data.id);
    };
    const user = await createUser(s, admin, { username: 'casual' });
    // Nobody but admins may read or write /translations.
    const rule = await s.request('POST', '/admin/endpoint_permissions', { token: admin, body: body('endpoint_permissions', { endpoint_id: await endpoint('translations'), read: false, write: false }) });
    assert.equal(rule.status, 201, rule.text);
    expectError(await s.request('GET', '/translations'), 401);
    expectError(await s.request('GET', '/translations', { token: user.jwt }), 403);
    for (const p of ['/TRANSLATIONS', '/Translations', `/TRANSLATIONS/${translationId}`]) {
      expectError(await s.request('GET', p), 404);
      expectError(await s.request('GET', p, { token: user.jwt }), 404);
    }
    // /objects disabled: 404 under every spelling.
    const objects = await endpoint('objects');
    assert.equal((await s.request('PATCH', `/admin/endpoints/${objects}`, { token: admin, body: { data: { id: String(objects), type: 'endpoints', attributes: { enabled: false } } } })).status, 200);
    for (const p of [`/objects/${docId}`, `/OBJECTS/${docId}`, `/Objects/${docId}`]) {
      const r = await s.request('GET', p, { token: user.jwt });
      expectError(r, 404);
      assert.doesNotMatch(r.text, /Case study/);
    }
    expectError(await s.request('DELETE', `/OBJECTS/${docId}`, { token: user.jwt }), 404);
    assert.equal((await s.request('GET', `/documents/${docId}`, { token: admin })).status, 200, 'still there');
  });
});
