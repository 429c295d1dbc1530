// Foundation: configuration, first start, errors, negotiation, status, home.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createServer } from '../src/app.js';
import { ConfigError, loadConfig } from '../src/config.js';
import { expectError, startServer, type TestServer } from './helpers/server.js';

describe('configuration', () => {
  test('defaults follow the contract', () => {
    const c = loadConfig({});
    assert.equal(c.port, 8090);
    assert.equal(c.host, '127.0.0.1');
    assert.equal(c.dataDir, path.resolve('./data'));
    assert.equal(c.accessTokenTtl, 1200);
    assert.equal(c.mailFrom, 'folio@localhost');
    assert.equal(c.uploadMaxBytes, 104857600);
    assert.equal(c.loginLimit, 20);
    assert.equal(c.debug, false);
  });
  test('a bad value names the variable', () => {
    assert.throws(() => loadConfig({ PORT: 'eighty' }), (e: Error) => e instanceof ConfigError && /PORT/.test(e.message));
    assert.throws(() => loadConfig({ PORT: '70000' }), /PORT/);
    assert.throws(() => loadConfig({ FOLIO_ACCESS_TOKEN_TTL: '-5' }), /FOLIO_ACCESS_TOKEN_TTL/);
    assert.throws(() => loadConfig({ FOLIO_SMTP_URL: 'http://x' }), /FOLIO_SMTP_URL/);
    assert.throws(() => loadConfig({ FOLIO_DEBUG: 'maybe' }), /FOLIO_DEBUG/);
    assert.throws(() => loadConfig({ FOLIO_CORS_ORIGINS: 'not a url' }), /FOLIO_CORS_ORIGINS/);
  });
});

describe('first start', () => {
  test('creates the data dir, a 0600 secret and an admin with a generated password file', async (t) => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-first-'));
    t.after(() => fs.rmSync(root, { recursive: true, force: true }));
    const dir = path.join(root, 'nested', 'data');
    const lines: string[] = [];
    const server = await createServer(loadConfig({ FOLIO_DATA_DIR: dir }, { logRequests: false }), { log: (l) => lines.push(l) });
    try {
      assert.ok(fs.existsSync(path.join(dir, 'folio.sqlite')));
      const secret = fs.statSync(path.join(dir, 'secret'));
      assert.equal(secret.mode & 0o777, 0o600);
      const pwFile = path.join(dir, 'initial-admin-password');
      assert.equal(fs.statSync(pwFile).mode & 0o777, 0o600);
      const password = fs.readFileSync(pwFile, 'utf8').trim();
      assert.ok(password.length >= 12);
      assert.ok(lines.some((l) => l.includes(password)), 'the password is printed once');
      const { url } = await server.listen(0, '127.0.0.1');
      const res = await fetch(`${url}/auth`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ username: 'admin', password }) });
      assert.equal(res.status, 200);
    } finally {
      await server.close();
    }
    // A second start keeps the same secret and does not create another admin.
    const again = await createServer(loadConfig({ FOLIO_DATA_DIR: dir }, { logRequests: false }), { log: () => {} });
    assert.equal(again.initialAdmin.created, false);
    await again.close();
  });
});

describe('HTTP layer', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer();
  });
  after(() => s.close());

  test('GET /status answers links and meta.status without versions in production', async () => {
    const res = await s.request('GET', '/status');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type')!, /application\/vnd\.api\+json/);
    assert.deepEqual(res.body.meta, { status: { environment: 'production' } });
    assert.equal(res.body.links.self, `${s.url}/status`);
    assert.equal(res.body.links.home, `${s.url}/home`);
  });

  test('GET /home lists resources with allow and formats; other methods give 405', async () => {
    const res = await s.request('GET', '/home');
    assert.equal(res.status, 200);
    const auth = res.body.meta.resources['/auth'];
    assert.equal(auth.href, `${s.url}/auth`);
    assert.ok(auth.hints.allow.includes('POST'));
    assert.ok(auth.hints.formats.includes('application/vnd.api+json'));
    for (const m of ['DELETE', 'POST', 'PATCH', 'PUT']) {
      const r = await s.request(m, '/home');
      expectError(r, 405, 'method_not_allowed');
      assert.match(r.headers.get('allow')!, /GET/);
    }
  });

  test('an unknown route is a JSON API 404', async () => {
    const r = await s.request('GET', '/no/such/route');
    expectError(r, 404);
    assert.equal(r.body.links.self, `${s.url}/no/such/route`);
  });

  test('an Accept header the endpoint cannot satisfy gives 406', async () => {
    expectError(await s.request('GET', '/status', { headers: { Accept: 'text/html' } }), 406, 'not_acceptable');
    assert.equal((await s.request('GET', '/status', { headers: { Accept: 'application/json' } })).status, 200);
    assert.equal((await s.request('GET', '/status', { headers: { Accept: '*/*' } })).status, 200);
  });

  test('a body with an unsupported Content-Type gives 415', async () => {
    const r = await s.request('POST', '/auth', { raw: '<x/>', headers: { 'Content-Type': 'application/xml' } });
    expectError(r, 415, 'unsupported_media_type');
  });

  test('malformed JSON gives 400', async () => {
    expectError(await s.request('POST', '/auth', { raw: '{"username": ', headers: { 'Content-Type': 'application/json' } }), 400, 'malformed_json');
  });

  test('a too-large body gives 413', async () => {
    const big = JSON.stringify({ username: 'x'.repeat(3 * 1024 * 1024), password: 'y' });
    expectError(await s.request('POST', '/auth', { raw: big, headers: { 'Content-Type': 'application/json' } }), 413, 'payload_too_large');
  });

  test('OPTIONS on a known path answers Allow', async () => {
    const res = await fetch(`${s.url}/status`, { method: 'OPTIONS' });
    assert.equal(res.status, 204);
    assert.match(res.headers.get('allow')!, /GET/);
  });

  test('no stack traces outside debug mode', async () => {
    const r = await s.request('GET', '/nowhere');
    assert.equal(r.body.error.meta, undefined);
  });
});

describe('debug mode', () => {
  test('/status shows versions and errors carry meta.trace', async () => {
    const s = await startServer({ FOLIO_DEBUG: '1' });
    try {
      const st = await s.request('GET', '/status');
      assert.equal(st.body.meta.status.debug, true);
      assert.ok(st.body.meta.status.versions.node);
      assert.deepEqual(st.body.meta.status.errors, []);
      const r = await s.request('GET', '/nowhere');
      assert.ok(Array.isArray(r.body.error.meta.trace));
    } finally {
      await s.close();
    }
  });
});
