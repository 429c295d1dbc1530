// Login tokens: POST /auth (JSON and form), renewal with rotation, whoami, revocation, token checks.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import jwt from 'jsonwebtoken';
import { ADMIN, awayFromWindowEdge, expectError, LOGIN_WINDOW_MS, startServer, type TestServer } from './helpers/server.js';

describe('/auth', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer({ FOLIO_JWT_SECRET: 'a-test-secret-of-enough-length' });
  });
  after(() => s.close());

  test('login with flat JSON gives meta.jwt and meta.renew; the JWT carries iss, iat, exp, id', async () => {
    const res = await s.request('POST', '/auth', { body: ADMIN, headers: { 'Content-Type': 'application/json' } });
    assert.equal(res.status, 200);
    assert.equal(typeof res.body.meta.renew, 'string');
    const claims = jwt.verify(res.body.meta.jwt, 'a-test-secret-of-enough-length', { algorithms: ['HS256'] }) as jwt.JwtPayload;
    assert.equal(claims.iss, s.url);
    assert.equal(typeof claims.id, 'number');
    assert.equal(claims.exp! - claims.iat!, 1200);
    assert.equal(res.body.links.self, `${s.url}/auth`);
  });

  test('login with a form-urlencoded body', async () => {
    const res = await s.request('POST', '/auth', {
      raw: new URLSearchParams(ADMIN).toString(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(res.status, 200);
    assert.ok(res.body.meta.jwt);
  });

  test('wrong credentials give 401 login_failed', async () => {
    expectError(await s.request('POST', '/auth', { body: { username: 'admin', password: 'nope' } }), 401, 'login_failed');
    expectError(await s.request('POST', '/auth', { body: { username: 'ghost', password: 'nope' } }), 401, 'login_failed');
    expectError(await s.request('POST', '/auth', { body: { username: 'admin' } }), 400);
  });

  test('a login body wins over an old Authorization header', async () => {
    const expired = jwt.sign({ id: 1 }, 'a-test-secret-of-enough-length', { algorithm: 'HS256', expiresIn: -10 });
    const res = await s.request('POST', '/auth', { body: { ...ADMIN, grant_type: 'password' }, token: expired });
    assert.equal(res.status, 200);
  });

  test('renewal rotates the refresh token: the old one stops working', async () => {
    const first = await s.login();
    const renewed = await s.request('POST', '/auth', { token: first.renew, body: { grant_type: 'refresh_token' } });
    assert.equal(renewed.status, 200);
    assert.notEqual(renewed.body.meta.renew, first.renew);
    assert.ok(renewed.body.meta.jwt);
    expectError(await s.request('POST', '/auth', { token: first.renew }), 401);
    const again = await s.request('POST', '/auth', { token: renewed.body.meta.renew });
    assert.equal(again.status, 200);
  });

  test('parallel renewals with one refresh token: exactly one succeeds', async () => {
    const { renew } = await s.login();
    const results = await Promise.all(Array.from({ length: 8 }, () => s.request('POST', '/auth', { token: renew })));
    assert.equal(results.filter((r) => r.status === 200).length, 1);
    assert.equal(results.filter((r) => r.status === 401).length, 7);
  });

  test('GET /auth and /auth/user return the user; include=roles fills included', async () => {
    const token = await s.adminToken();
    const me = await s.request('GET', '/auth', { token });
    assert.equal(me.status, 200);
    assert.equal(me.body.data.type, 'users');
    assert.equal(me.body.data.attributes.username, 'admin');
    assert.equal(me.body.data.attributes.password, undefined);
    assert.equal(me.body.data.attributes.password_hash, undefined);
    const withRoles = await s.request('GET', '/auth/user?include=roles', { token });
    assert.equal(withRoles.body.included[0].attributes.name, 'admin');
    assert.deepEqual(withRoles.body.data.relationships.roles.data, [{ id: '1', type: 'roles' }]);
  });

  test('GET /auth without a token gives 401', async () => {
    expectError(await s.request('GET', '/auth'), 401);
  });

  test('the access_token query parameter is accepted', async () => {
    const token = await s.adminToken();
    assert.equal((await s.request('GET', `/auth?access_token=${token}`)).status, 200);
  });

  test('tampered, alg none, wrong-key and expired tokens are refused', async () => {
    const token = await s.adminToken();
    const [h, p] = token.split('.');
    const tampered = `${h}.${Buffer.from(JSON.stringify({ id: 1, exp: 9999999999 })).toString('base64url')}.${token.split('.')[2]}`;
    expectError(await s.request('GET', '/auth', { token: tampered }), 401, 'invalid_token');
    const none = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${p}.`;
    expectError(await s.request('GET', '/auth', { token: none }), 401, 'invalid_token');
    const otherKey = jwt.sign({ id: 1 }, 'another-secret-entirely-xx', { algorithm: 'HS256' });
    expectError(await s.request('GET', '/auth', { token: otherKey }), 401, 'invalid_token');
    const hs512 = jwt.sign({ id: 1 }, 'a-test-secret-of-enough-length', { algorithm: 'HS512' });
    expectError(await s.request('GET', '/auth', { token: hs512 }), 401, 'invalid_token');
    const expired = jwt.sign({ id: 1 }, 'a-test-secret-of-enough-length', { algorithm: 'HS256', expiresIn: -10 });
    expectError(await s.request('GET', '/auth', { token: expired }), 401, 'expired_token');
    const future = jwt.sign({ id: 1 }, 'a-test-secret-of-enough-length', { algorithm: 'HS256', notBefore: 3600 });
    expectError(await s.request('GET', '/auth', { token: future }), 401, 'invalid_token');
  });

  test('an access token cannot be used as a refresh token', async () => {
    const token = await s.adminToken();
    expectError(await s.request('POST', '/auth', { token }), 401);
  });

  test('DELETE /auth/{refresh_token} revokes it (204), then it is unknown', async () => {
    const { renew } = await s.login();
    const del = await s.request('DELETE', `/auth/${renew}`);
    assert.equal(del.status, 204);
    expectError(await s.request('POST', '/auth', { token: renew }), 401);
    expectError(await s.request('DELETE', `/auth/${renew}`), 404);
  });

  test('five failed logins lock the account, even for the right password', async () => {
    const t = await startServer();
    try {
      for (let i = 0; i < 5; i++) expectError(await t.request('POST', '/auth', { body: { username: 'admin', password: 'bad' } }), 401, 'login_failed');
      expectError(await t.request('POST', '/auth', { body: ADMIN }), 401, 'login_failed');
    } finally {
      await t.close();
    }
  });

  test('FOLIO_LOGIN_LIMIT: past the limit of failed logins an IP gets 429', async () => {
    const t = await startServer({ FOLIO_LOGIN_LIMIT: '3' });
    try {
      await awayFromWindowEdge(LOGIN_WINDOW_MS);
      for (let i = 0; i < 3; i++) expectError(await t.request('POST', '/auth', { body: { username: 'x', password: 'y' } }), 401);
      expectError(await t.request('POST', '/auth', { body: ADMIN }), 429, 'too_many_requests');
      assert.equal((await t.request('GET', '/status')).status, 200);
    } finally {
      await t.close();
    }
  });
});
