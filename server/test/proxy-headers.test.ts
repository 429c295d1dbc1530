// FOLIO_TRUST_PROXY: behind a reverse proxy the login and mail limits count per client, not per
// proxy, and links follow X-Forwarded-Proto / X-Forwarded-Host — only when the connecting address
// is a trusted proxy. Without the setting a client cannot dodge a limit or change the links by
// sending X-Forwarded-* itself. A bad value stops the start with one line naming the variable.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.js';
import { runServerToExit } from './helpers/child-server.js';
import { ADMIN, awayFromWindowEdge, expectError, LOGIN_WINDOW_MS, MAIL_WINDOW_MS, startServer, type TestServer } from './helpers/server.js';
const LIMIT = 3;

/** A password login as `username` (wrong password unless given) from the client `forwardedFor` claims. */
function login(s: TestServer, forwardedFor: string | null, password = 'wrong-password', headers: Record<string, string> = {}) {
  return s.request('POST', '/auth', {
    body: { username: ADMIN.username, password },
    headers: { 'Content-Type': 'application/json', ...(forwardedFor === null ? {} : { 'X-Forwarded-For': forwardedFor }), ...headers },
  });
}

/** Fail `n` logins from `forwardedFor`, each a 401. */
async function failLogins(s: TestServer, forwardedFor: string | null, n: number) {
  for (let i = 0; i < n; i++) expectError(await login(s, forwardedFor), 401);
}

/** A mail-limited request (an empty signup: refused, but counted) from `forwardedFor`. */
const signup = (s: TestServer, forwardedFor: string) =>
  s.request('POST', '/signup', { body: {}, headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': forwardedFor } });

/** links.self of an error answer to GET /nowhere with these headers. */
async function selfLink(s: TestServer, headers: Record<string, string>): Promise<string> {
  const res = await s.request('GET', '/nowhere', { headers });
  expectError(res, 404);
  return res.body.links.self;
}

const FORWARDED = { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'cms.example.org' };

describe('behind a trusted proxy (FOLIO_TRUST_PROXY=loopback)', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer({ FOLIO_TRUST_PROXY: 'loopback', FOLIO_LOGIN_LIMIT: String(LIMIT), FOLIO_MAIL_LIMIT: '2', FOLIO_SIGNUP: 'on' });
  });
  after(async () => s?.close());

  test('two clients forwarded by the proxy have login limits of their own', async () => {
    await awayFromWindowEdge(LOGIN_WINDOW_MS);
    await failLogins(s, '203.0.113.10', LIMIT);
    expectError(await login(s, '203.0.113.10'), 429, 'too_many_requests');
    expectError(await login(s, '203.0.113.10', ADMIN.password), 429, 'too_many_requests');
    // Another client behind the same proxy is not held back by the first one's failures.
    expectError(await login(s, '203.0.113.20'), 401);
    assert.equal((await login(s, '203.0.113.20', ADMIN.password)).status, 200);
    // The proxy itself (no X-Forwarded-For) is a client of its own too.
    assert.equal((await login(s, null, ADMIN.password)).status, 200);
  });

  test('the mail limit counts per forwarded client', async () => {
    await awayFromWindowEdge(MAIL_WINDOW_MS);
    for (let i = 0; i < 2; i++) expectError(await signup(s, '198.51.100.1'), 400);
    expectError(await signup(s, '198.51.100.1'), 429, 'too_many_requests');
    expectError(await signup(s, '198.51.100.2'), 400);
  });

  test('links follow X-Forwarded-Proto and X-Forwarded-Host', async () => {
    assert.equal(await selfLink(s, FORWARDED), 'https://cms.example.org/nowhere');
    assert.equal(await selfLink(s, {}), `${s.url}/nowhere`);
  });

  test('…cached answers too: each forwarded host gets its own links', async () => {
    const list = async (headers: Record<string, string>) => (await s.request('GET', '/documents', { headers })).body.links.self;
    for (let i = 0; i < 2; i++) {
      assert.equal(await list(FORWARDED), 'https://cms.example.org/documents');
      assert.equal(await list({ ...FORWARDED, 'X-Forwarded-Host': 'other.example.org' }), 'https://other.example.org/documents');
      assert.equal(await list({}), `${s.url}/documents`);
    }
  });
});

describe('behind one proxy that appends to X-Forwarded-For (FOLIO_TRUST_PROXY=1)', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer({ FOLIO_TRUST_PROXY: '1', FOLIO_LOGIN_LIMIT: String(LIMIT) });
  });
  after(async () => s?.close());

  test('the address the proxy added counts, not what the client put before it', async () => {
    // nginx's $proxy_add_x_forwarded_for: the client's own header, then the address nginx saw.
    await awayFromWindowEdge(LOGIN_WINDOW_MS);
    for (let i = 0; i < LIMIT; i++) expectError(await login(s, `10.9.9.${i}, 192.0.2.7`), 401);
    expectError(await login(s, '10.9.9.99, 192.0.2.7'), 429, 'too_many_requests');
    expectError(await login(s, '192.0.2.8'), 401);
  });
});

describe('without FOLIO_TRUST_PROXY', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer({ FOLIO_LOGIN_LIMIT: String(LIMIT), FOLIO_MAIL_LIMIT: '2', FOLIO_SIGNUP: 'on' });
  });
  after(async () => s?.close());

  test('a client cannot dodge the login limit by sending X-Forwarded-For', async () => {
    await awayFromWindowEdge(LOGIN_WINDOW_MS);
    for (let i = 0; i < LIMIT; i++) expectError(await login(s, `203.0.113.${i + 1}`), 401);
    expectError(await login(s, '203.0.113.99'), 429, 'too_many_requests');
    expectError(await login(s, null, ADMIN.password), 429, 'too_many_requests');
  });

  test('…nor the mail limit', async () => {
    await awayFromWindowEdge(MAIL_WINDOW_MS);
    expectError(await signup(s, '198.51.100.1'), 400);
    expectError(await signup(s, '198.51.100.2'), 400);
    expectError(await signup(s, '198.51.100.3'), 429, 'too_many_requests');
  });

  test('links ignore X-Forwarded-Proto and X-Forwarded-Host', async () => {
    assert.equal(await selfLink(s, FORWARDED), `${s.url}/nowhere`);
  });
});

test('FOLIO_PUBLIC_URL wins over the forwarded headers', async () => {
  const s = await startServer({ FOLIO_TRUST_PROXY: 'loopback', FOLIO_PUBLIC_URL: 'https://public.example/cms/' });
  try {
    assert.equal(await selfLink(s, FORWARDED), 'https://public.example/cms/nowhere');
    const token = (await s.login()).jwt;
    const iss = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).iss;
    assert.equal(iss, 'https://public.example/cms', 'the token issuer');
  } finally {
    await s.close();
  }
});

test('FOLIO_TRUST_PROXY accepts express trust values: hops, named ranges, addresses, CIDR ranges', () => {
  const parse = (v: string | undefined) => loadConfig({ FOLIO_TRUST_PROXY: v }).trustProxy;
  assert.equal(parse(undefined), false);
  assert.equal(parse(''), false);
  assert.equal(parse('off'), false);
  assert.equal(parse('0'), false);
  assert.equal(parse('2'), 2);
  assert.deepEqual(parse('loopback'), ['loopback']);
  assert.deepEqual(parse('loopback, 10.0.0.0/8,192.168.1.5, fd00::/8, ::1, 172.16.0.0/255.240.0.0, uniquelocal'), [
    'loopback',
    '10.0.0.0/8',
    '192.168.1.5',
    'fd00::/8',
    '::1',
    '172.16.0.0/255.240.0.0',
    'uniquelocal',
  ]);
  for (const bad of ['true', 'on', 'lookback', '10.0.0.0/33', '10.0.0.0/0', 'fd00::/129', '10.0.0.0/255.0.255.0', '300.1.1.1', 'loopback,', 'example.org', '17', '-1', '1.5']) {
    assert.throws(() => parse(bad), (e: Error) => e instanceof ConfigError && /^FOLIO_TRUST_PROXY[ =]/.test(e.message), bad);
  }
});

test('FOLIO_PUBLIC_URL must be an http(s) URL without credentials, query or fragment', () => {
  assert.equal(loadConfig({ FOLIO_PUBLIC_URL: 'https://cms.example.org/' }).baseUrl, 'https://cms.example.org');
  for (const bad of ['cms.example.org', 'ftp://cms.example.org', 'https://u:p@cms.example.org', 'https://cms.example.org/?a=1', 'https://cms.example.org/#x']) {
    assert.throws(() => loadConfig({ FOLIO_PUBLIC_URL: bad }), (e: Error) => e instanceof ConfigError && /^FOLIO_PUBLIC_URL /.test(e.message), bad);
  }
});

test('npm start with a bad FOLIO_TRUST_PROXY stops at once with a clear message', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-proxy-bad-'));
  try {
    const { code, stderr: err } = await runServerToExit({ FOLIO_DATA_DIR: dataDir, FOLIO_TRUST_PROXY: 'true' });
    assert.equal(code, 2, err);
    assert.match(err, /configuration error: FOLIO_TRUST_PROXY=true would trust any X-Forwarded-For/);
    assert.doesNotMatch(err, /at .*\.ts:\d+/, 'no stack trace');
    assert.deepEqual(fs.readdirSync(dataDir), [], 'nothing was started');
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
