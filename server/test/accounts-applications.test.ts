// Applications (API keys): admin management, the X-Api-Key check, client-credentials tokens,
// FOLIO_REQUIRE_API_KEY and the applications schema.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { expectError, startServer, type TestServer } from './helpers/server.js';

const appBody = (attributes: Record<string, unknown>) => ({ data: { type: 'applications', attributes } });

describe('/applications and X-Api-Key', () => {
  let s: TestServer;
  let admin: string;
  let app: { id: string; apiKey: string; secret: string };
  before(async () => {
    s = await startServer();
    admin = await s.adminToken();
    const res = await s.request('POST', '/applications', { token: admin, body: appBody({ name: 'website', description: 'The public site' }) });
    assert.equal(res.status, 201, res.text);
    app = { id: res.body.data.id, apiKey: res.body.data.meta.api_key, secret: res.body.data.meta.client_secret };
  });
  after(() => s.close());

  test('POST /applications generates an api_key and shows the client_secret once', async () => {
    assert.match(app.apiKey, /^[0-9a-f]{48}$/);
    assert.ok(app.secret.length >= 40);
    const read = await s.request('GET', `/applications/${app.id}`, { token: admin });
    assert.equal(read.status, 200);
    assert.equal(read.body.data.meta.api_key, app.apiKey);
    assert.equal(read.body.data.meta.client_secret, undefined);
    assert.ok(!read.text.includes(app.secret));
    assert.deepEqual(read.body.data.attributes, { name: 'website', description: 'The public site', enabled: true });
    const list = await s.request('GET', '/applications', { token: admin });
    assert.ok(!list.text.includes(app.secret));
    expectError(await s.request('POST', '/applications', { token: admin, body: appBody({ name: 'website' }) }), 400, 'application_exists');
    expectError(await s.request('POST', '/applications', { token: admin, body: appBody({ name: 'x', colour: 'red' }) }), 400);
    // Keys are always generated: a meta property sent as an attribute is ignored.
    const own = await s.request('POST', '/applications', { token: admin, body: appBody({ name: 'x', api_key: 'mine' }) });
    assert.notEqual(own.body.data.meta.api_key, 'mine');
  });

  test('only admins manage applications (401 anonymous, 403 other users)', async () => {
    await s.request('POST', '/users', { token: admin, body: { data: { type: 'users', attributes: { username: 'uma', password: 'password-1' } } } });
    const uma = (await s.login('uma', 'password-1')).jwt;
    expectError(await s.request('GET', '/applications'), 401);
    expectError(await s.request('GET', '/applications', { token: uma }), 403);
    expectError(await s.request('POST', '/applications', { token: uma, body: appBody({ name: 'mine' }) }), 403);
    expectError(await s.request('DELETE', `/applications/${app.id}`, { token: uma }), 403);
  });

  test('a valid X-Api-Key is accepted; an unknown one gives 403 on any endpoint', async () => {
    assert.equal((await s.request('GET', '/status', { headers: { 'X-Api-Key': app.apiKey } })).status, 200);
    assert.equal((await s.request('GET', '/users', { token: admin, headers: { 'X-Api-Key': app.apiKey } })).status, 200);
    expectError(await s.request('GET', '/status', { headers: { 'X-Api-Key': 'not-a-key' } }), 403, 'invalid_api_key');
    expectError(await s.request('POST', '/auth', { body: { username: 'admin', password: 'admin-secret-1' }, headers: { 'X-Api-Key': 'nope' } }), 403, 'invalid_api_key');
  });

  test('meta.last_used: null until the key is used, then when it was, written at most once a minute', async () => {
    const fresh = await s.request('POST', '/applications', { token: admin, body: appBody({ name: 'mobile' }) });
    const id = fresh.body.data.id;
    assert.equal(fresh.body.data.meta.last_used, null);
    const readLastUsed = async () => (await s.request('GET', `/applications/${id}`, { token: admin })).body.data.meta.last_used;
    assert.equal(await readLastUsed(), null);
    const before = new Date().toISOString();
    assert.equal((await s.request('GET', '/home', { headers: { 'X-Api-Key': fresh.body.data.meta.api_key } })).status, 200);
    const first = await readLastUsed();
    assert.ok(typeof first === 'string' && first >= before.slice(0, 19), `last_used ${first} is at or after ${before}`);
    // Used again within the minute: no second write.
    await s.request('GET', '/home', { headers: { 'X-Api-Key': fresh.body.data.meta.api_key } });
    assert.equal(await readLastUsed(), first);
    const list = await s.request('GET', '/applications?filter[name]=mobile', { token: admin });
    assert.equal(list.body.data[0].meta.last_used, first);
    // An application token counts too.
    const other = await s.request('POST', '/applications', { token: admin, body: appBody({ name: 'signage' }) });
    const login = await s.request('POST', '/auth', { body: { grant_type: 'client_credentials', client_id: other.body.data.meta.api_key, client_secret: other.body.data.meta.client_secret } });
    assert.equal(login.status, 200, login.text);
    await s.request('GET', '/home', { token: login.body.meta.jwt });
    assert.notEqual((await s.request('GET', `/applications/${other.body.data.id}`, { token: admin })).body.data.meta.last_used, null);
  });

  test('client_credentials gives an application token that reads like an anonymous client; renewal works', async () => {
    const res = await s.request('POST', '/auth', { body: { grant_type: 'client_credentials', client_id: app.apiKey, client_secret: app.secret } });
    assert.equal(res.status, 200, res.text);
    const { jwt, renew } = res.body.meta;
    assert.equal((await s.request('GET', '/status', { token: jwt })).status, 200);
    expectError(await s.request('GET', '/users', { token: jwt }), 401);
    expectError(await s.request('GET', '/auth', { token: jwt }), 401);
    const renewed = await s.request('POST', '/auth', { token: renew, body: { grant_type: 'refresh_token' } });
    assert.equal(renewed.status, 200);
    expectError(await s.request('POST', '/auth', { body: { grant_type: 'client_credentials', client_id: app.apiKey, client_secret: 'wrong' } }), 401, 'login_failed');
    expectError(await s.request('POST', '/auth', { body: { grant_type: 'client_credentials', client_id: 'unknown', client_secret: app.secret } }), 401, 'login_failed');
  });

  test('a disabled application: its key gives 403, its tokens 401, its credentials no longer log in; enabling restores the key', async () => {
    const created = await s.request('POST', '/applications', { token: admin, body: appBody({ name: 'kiosk' }) });
    const { id } = created.body.data;
    const key = created.body.data.meta.api_key;
    const secret = created.body.data.meta.client_secret;
    const tokens = (await s.request('POST', '/auth', { body: { grant_type: 'client_credentials', client_id: key, client_secret: secret } })).body.meta;
    const patch = (enabled: boolean) => s.request('PATCH', `/applications/${id}`, { token: admin, body: { data: { id, type: 'applications', attributes: { enabled } } } });
    assert.equal((await patch(false)).body.data.attributes.enabled, false);
    expectError(await s.request('GET', '/status', { headers: { 'X-Api-Key': key } }), 403, 'invalid_api_key');
    expectError(await s.request('GET', '/status', { token: tokens.jwt }), 401, 'invalid_token');
    expectError(await s.request('POST', '/auth', { token: tokens.renew }), 401);
    expectError(await s.request('POST', '/auth', { body: { grant_type: 'client_credentials', client_id: key, client_secret: secret } }), 401);
    await patch(true);
    assert.equal((await s.request('GET', '/status', { headers: { 'X-Api-Key': key } })).status, 200);
    assert.equal((await s.request('DELETE', `/applications/${id}`, { token: admin })).status, 204);
    expectError(await s.request('GET', '/status', { headers: { 'X-Api-Key': key } }), 403);
    expectError(await s.request('DELETE', `/applications/${id}`, { token: admin }), 404);
  });

  test('/model/schema/applications and /model/schema/roles describe the resources, every property with isMeta', async () => {
    for (const type of ['applications', 'roles', 'users']) {
      const res = await s.request('GET', `/model/schema/${type}`, { headers: { Accept: 'application/schema+json' } });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.$id, `${s.url}/model/schema/${type}`);
      for (const [name, p] of Object.entries(res.body.properties as Record<string, { isMeta?: unknown }>)) {
        assert.equal(typeof p.isMeta, 'boolean', `${type}.${name}.isMeta`);
      }
    }
    const apps = (await s.request('GET', '/model/schema/applications', { headers: { Accept: 'application/schema+json' } })).body;
    assert.deepEqual(apps.required, ['name']);
    assert.equal(apps.properties.api_key.isMeta, true);
    assert.equal(apps.properties.name.isMeta, false);
    const roles = (await s.request('GET', '/model/schema/roles', { headers: { Accept: 'application/schema+json' } })).body;
    assert.equal(roles.properties.name.maxLength, 32);
    assert.equal(roles.properties.unchangeable.isMeta, true);
  });
});

describe('FOLIO_REQUIRE_API_KEY=1', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer({ FOLIO_REQUIRE_API_KEY: '1' });
  });
  after(() => s.close());

  test('a request without X-Api-Key gives 403, but for the admin UI (same-origin browser requests)', async () => {
    expectError(await s.request('GET', '/status'), 403, 'api_key_required');
    expectError(await s.request('POST', '/auth', { body: { username: 'admin', password: 'admin-secret-1' } }), 403, 'api_key_required');
    // The admin UI: a browser page of this server.
    const ui = await s.request('POST', '/auth', { body: { username: 'admin', password: 'admin-secret-1' }, headers: { 'Sec-Fetch-Site': 'same-origin' } });
    assert.equal(ui.status, 200);
    const admin = ui.body.meta.jwt;
    assert.equal((await s.request('GET', '/users', { token: admin, headers: { Origin: s.url } })).status, 200);
    expectError(await s.request('GET', '/users', { token: admin, headers: { Origin: 'http://elsewhere.example' } }), 403, 'api_key_required');
    expectError(await s.request('GET', '/users', { token: admin, headers: { 'Sec-Fetch-Site': 'cross-site' } }), 403);

    const created = await s.request('POST', '/applications', { token: admin, headers: { 'Sec-Fetch-Site': 'same-origin' }, body: appBody({ name: 'app' }) });
    const { api_key: key, client_secret: secret } = created.body.data.meta;
    assert.equal((await s.request('GET', '/status', { headers: { 'X-Api-Key': key } })).status, 200);
    const tokens = await s.request('POST', '/auth', { headers: { 'X-Api-Key': key }, body: { grant_type: 'client_credentials', client_id: key, client_secret: secret } });
    assert.equal(tokens.status, 200);
    // An application token identifies the application by itself.
    assert.equal((await s.request('GET', '/status', { token: tokens.body.meta.jwt })).status, 200);
  });
});
