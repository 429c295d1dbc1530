// Auth attacks beyond server/test/auth.test.ts (which covers tampered, alg none, wrong-key,
// HS512, expired and not-yet-valid tokens, access-as-refresh, revocation, lockout and the login
// limit): tokens signed with a refresh token, tokens and refresh tokens of blocked, deleted or
// re-passworded users, brute force past the lockout, anonymous probing of drafts, and every admin
// endpoint called by a non-admin and by nobody.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import jwt from 'jsonwebtoken';
import { createUser, EDITOR } from './helpers/fixtures.js';
import { ADMIN, awayFromWindowEdge, expectError, LOGIN_WINDOW_MS, startServer, type TestServer } from './helpers/server.js';

const SECRET = 'auth-attack-suite-secret-0123456789';

describe('auth attacks', () => {
  let s: TestServer;
  let admin: string;
  let editor: { id: string; jwt: string };
  before(async () => {
    s = await startServer({ FOLIO_JWT_SECRET: SECRET });
    admin = await s.adminToken();
    editor = await createUser(s, admin, EDITOR);
  });
  after(() => s.close());

  test('a token signed with a refresh token as the key is refused', async () => {
    const { renew } = await s.login();
    const forged = jwt.sign({ id: 1, iss: s.url }, renew, { algorithm: 'HS256', expiresIn: 600 });
    expectError(await s.request('GET', '/auth', { token: forged }), 401, 'invalid_token');
    const forgedEditor = jwt.sign({ id: Number(editor.id) }, renew, { algorithm: 'HS256' });
    expectError(await s.request('GET', '/users', { token: forgedEditor }), 401, 'invalid_token');
  });

  test('claims of the wrong shape are refused even when correctly signed', async () => {
    for (const claims of [{ id: '1' }, { id: null }, {}, { sub: 1 }, { id: 1.5 }]) {
      const t = jwt.sign(claims, SECRET, { algorithm: 'HS256' });
      const r = await s.request('GET', '/auth', { token: t });
      assert.equal(r.status, 401, `${JSON.stringify(claims)}: ${r.text}`);
    }
    // A signed token naming a user that does not exist.
    expectError(await s.request('GET', '/auth', { token: jwt.sign({ id: 987654 }, SECRET, { algorithm: 'HS256' }) }), 401, 'invalid_token');
  });

  test('a refresh token is not an access token, and junk Bearer values never pass', async () => {
    const { renew } = await s.login();
    for (const t of [renew, 'null', 'undefined', '.', '..', 'a.b.c', `${'a'.repeat(4000)}.b.c`]) {
      expectError(await s.request('GET', '/auth', { token: t }), 401);
      expectError(await s.request('GET', '/documents', { token: t }), 401);
    }
  });

  test('blocking a user voids its access and refresh tokens and its logins', async () => {
    const u = await createUser(s, admin, { username: 'blockme', password: 'blockme-secret-1' });
    const { renew } = await s.login('blockme', 'blockme-secret-1');
    const r = await s.request('PATCH', `/users/${u.id}`, { token: admin, body: { data: { id: u.id, type: 'users', attributes: { blocked: true } } } });
    assert.equal(r.status, 200, r.text);
    expectError(await s.request('GET', '/auth', { token: u.jwt }), 401, 'invalid_token');
    expectError(await s.request('POST', '/auth', { token: renew }), 401, 'invalid_token');
    expectError(await s.request('POST', '/auth', { body: { username: 'blockme', password: 'blockme-secret-1' } }), 401, 'login_failed');
  });

  test('a deleted user\'s access and refresh tokens stop working', async () => {
    const u = await createUser(s, admin, { username: 'deleteme', password: 'deleteme-secret-1' });
    const { renew } = await s.login('deleteme', 'deleteme-secret-1');
    assert.equal((await s.request('DELETE', `/users/${u.id}`, { token: admin })).status, 204);
    expectError(await s.request('GET', '/auth', { token: u.jwt }), 401, 'invalid_token');
    expectError(await s.request('POST', '/documents', { token: u.jwt, body: { data: { type: 'documents', attributes: { title: 'x' } } } }), 401, 'invalid_token');
    expectError(await s.request('POST', '/auth', { token: renew }), 401);
    expectError(await s.request('POST', '/auth', { body: { username: 'deleteme', password: 'deleteme-secret-1' } }), 401, 'login_failed');
  });

  test('a new password revokes the refresh tokens issued before it', async () => {
    const u = await createUser(s, admin, { username: 'repass', password: 'repass-secret-1' });
    const { renew } = await s.login('repass', 'repass-secret-1');
    const r = await s.request('PATCH', `/users/${u.id}`, { token: admin, body: { data: { id: u.id, type: 'users', attributes: { password: 'repass-secret-2' } } } });
    assert.equal(r.status, 200, r.text);
    expectError(await s.request('POST', '/auth', { token: renew }), 401);
    expectError(await s.request('POST', '/auth', { body: { username: 'repass', password: 'repass-secret-1' } }), 401, 'login_failed');
    assert.equal((await s.request('POST', '/auth', { body: { username: 'repass', password: 'repass-secret-2' } })).status, 200);
  });

  test('every admin endpoint: 401 for nobody, 403 for an editor, never reached', async () => {
    const adminRoutes = s.server.ctx.routes.filter((r) => r.guard === 'admin');
    assert.ok(adminRoutes.length >= 10, `admin routes found: ${adminRoutes.map((r) => r.path).join(', ')}`);
    for (const r of adminRoutes) {
      const p = r.path.replace(/:\w+/g, '1');
      const body = r.method === 'get' ? undefined : { data: { type: 'x', attributes: {} } };
      const anon = await s.request(r.method.toUpperCase(), p, { body });
      assert.equal(anon.status, 401, `${r.method} ${r.path} anonymous: ${anon.text}`);
      expectError(anon, 401);
      const ed = await s.request(r.method.toUpperCase(), p, { token: editor.jwt, body });
      assert.equal(ed.status, 403, `${r.method} ${r.path} as editor: ${ed.text}`);
      expectError(ed, 403);
    }
  });

  test('an editor cannot make itself an admin, unblock, lock, or edit another account', async () => {
    const self = editor.id;
    const attempts = [
      s.request('POST', `/users/${self}/relationships/roles`, { token: editor.jwt, body: { data: [{ type: 'roles', id: '1' }] } }),
      s.request('PATCH', `/users/${self}`, { token: editor.jwt, body: { data: { id: self, type: 'users', attributes: { blocked: false } } } }),
      s.request('PATCH', `/users/${self}`, { token: editor.jwt, body: { data: { id: self, type: 'users', attributes: { username: 'admin2' } } } }),
      s.request('PATCH', `/users/${self}`, { token: editor.jwt, body: { data: { id: self, type: 'users', meta: { locked: true } } } }),
      s.request('PATCH', '/users/1', { token: editor.jwt, body: { data: { id: '1', type: 'users', attributes: { name: 'pwned' } } } }),
      s.request('DELETE', '/users/1', { token: editor.jwt }),
    ];
    for (const r of await Promise.all(attempts)) expectError(r, 403);
    const me = await s.request('GET', '/auth?include=roles', { token: editor.jwt });
    assert.deepEqual(me.body.data.relationships.roles.data, []);
  });

  test('anonymous probing never reveals draft or off objects', async () => {
    const mk = async (title: string, status: string) => {
      const r = await s.request('POST', '/documents', { token: admin, body: { data: { type: 'documents', attributes: { title, status, uname: title } } } });
      assert.equal(r.status, 201, r.text);
      return String(r.body.data.id);
    };
    const draft = await mk('hidden-draft-zebra', 'draft');
    const off = await mk('hidden-off-zebra', 'off');
    const on = await mk('public-on-zebra', 'on');
    for (const id of [draft, off, 'hidden-draft-zebra', 'hidden-off-zebra']) {
      expectError(await s.request('GET', `/documents/${id}`), 404);
      expectError(await s.request('GET', `/objects/${id}`), 404);
      const rel = await s.request('GET', `/documents/${id}/see_also`);
      assert.equal(rel.status, 404, rel.text);
    }
    const probes = [
      '/documents', '/objects', '/objects?filter[status]=draft', '/objects?filter[status]=off,draft', '/documents?filter[status][ne]=on',
      '/objects?q=zebra', '/objects?filter[query]=hidden', `/objects?filter[id]=${draft},${off}`, '/documents?filter[uname]=hidden-draft-zebra',
      '/objects?page_size=100&sort=-id', `/documents/${on}/see_also`,
    ];
    for (const p of probes) {
      const r = await s.request('GET', p);
      assert.ok(r.status === 200 || r.status === 400, `${p}: ${r.status} ${r.text}`);
      if (r.status === 200) {
        const ids = (r.body.data as Array<{ id: string }>).map((d) => d.id);
        assert.ok(!ids.includes(draft) && !ids.includes(off), `${p} reveals a hidden object`);
        assert.doesNotMatch(JSON.stringify([r.body.data, r.body.included ?? []]), /hidden-(draft|off)-zebra/, `${p} reveals a hidden title`);
      }
    }
    // Logged in without a role, a user sees what anonymous clients see; a role that reads
    // documents shows the same objects.
    expectError(await s.request('GET', `/documents/${draft}`, { token: editor.jwt }), 404);
    const role = await s.request('POST', '/roles', { token: admin, body: { data: { type: 'roles', attributes: { name: 'readers', permissions: { documents: ['read'] } } } } });
    assert.equal(role.status, 201, role.text);
    await s.request('POST', `/users/${editor.id}/relationships/roles`, { token: admin, body: { data: [{ type: 'roles', id: role.body.data.id }] } });
    assert.equal((await s.request('GET', `/documents/${draft}`, { token: editor.jwt })).status, 200);
  });

  test('brute force: the lockout holds for the right password, then the per-IP limit answers 429', async () => {
    const t = await startServer({ FOLIO_LOGIN_LIMIT: '12' });
    try {
      await awayFromWindowEdge(LOGIN_WINDOW_MS);
      for (let i = 0; i < 5; i++) expectError(await t.request('POST', '/auth', { body: { username: 'admin', password: `guess-${i}` } }), 401, 'login_failed');
      expectError(await t.request('POST', '/auth', { body: ADMIN }), 401, 'login_failed');
      expectError(await t.request('POST', '/auth', { raw: new URLSearchParams(ADMIN).toString(), headers: { 'Content-Type': 'application/x-www-form-urlencoded' } }), 401, 'login_failed');
      // Spreading guesses over other names does not escape the per-IP limit.
      let limited = 0;
      for (let i = 0; i < 8; i++) {
        const r = await t.request('POST', '/auth', { body: { username: `user${i}`, password: 'x' } });
        if (r.status === 429) limited++;
        else expectError(r, 401, 'login_failed');
      }
      assert.ok(limited >= 1, 'the per-IP limit answered 429');
      expectError(await t.request('POST', '/auth', { body: ADMIN }), 429, 'too_many_requests');
      assert.equal((await t.request('GET', '/status')).status, 200, 'other requests are not limited');
    } finally {
      await t.close();
    }
  });
});
