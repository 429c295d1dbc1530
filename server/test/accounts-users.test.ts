// Accounts: /users and /roles through HTTP — creation rules, the last-admin rule, roles given and
// taken, and who may do what (401 anonymous, 403 authenticated without the right).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ADMIN, expectError, startServer, type TestServer } from './helpers/server.js';
import { aDate, anEtag, anInteger, assertShape } from './helpers/shape.js';

const userBody = (attributes: Record<string, unknown>) => ({ data: { type: 'users', attributes } });
const roleBody = (attributes: Record<string, unknown>) => ({ data: { type: 'roles', attributes } });

describe('/users and /roles', () => {
  let s: TestServer;
  let admin: string;
  const createUser = async (attributes: Record<string, unknown>) => {
    const res = await s.request('POST', '/users', { token: admin, body: userBody({ password: 'password-1', ...attributes }) });
    assert.equal(res.status, 201, res.text);
    return res.body.data;
  };
  before(async () => {
    s = await startServer();
    admin = await s.adminToken();
  });
  after(() => s.close());

  test('POST /users creates a user (201, Location), never returns the password, and the user can log in', async () => {
    const res = await s.request('POST', '/users', {
      token: admin,
      body: userBody({ username: 'alice', password: 'alice-pass-1', uname: 'alice-u', email: 'alice@example.com', name: 'Alice' }),
    });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.headers.get('location'), `${s.url}/users/${res.body.data.id}`);
    const a = res.body.data.attributes;
    assert.equal(a.username, 'alice');
    assert.equal(a.uname, 'alice-u');
    assert.equal(a.status, 'on');
    assert.equal(a.blocked, false);
    assert.ok(!('password' in a) && !('password_hash' in a));
    assert.ok(!res.text.includes('alice-pass-1') && !res.text.includes('scrypt'));
    assert.ok((await s.login('alice', 'alice-pass-1')).jwt);
    // The user as GET answers it, whole: nothing of the credentials, the login just made counted.
    const id = res.body.data.id;
    const self = `${s.url}/users/${id}`;
    const read = await s.request('GET', `/users/${id}`, { token: admin });
    assertShape(read.headers.get('etag'), anEtag);
    assertShape(read.body, {
      data: {
        id,
        type: 'users',
        attributes: {
          username: 'alice', uname: 'alice-u', name: 'Alice', surname: null, title: null, description: null, email: 'alice@example.com',
          status: 'on', lang: null, blocked: false, last_login: aDate, last_login_err: null, num_login_err: 0,
          // A user is an object: the core attributes, publication window and BEdita's profile fields.
          body: null, extra: null, publish_start: null, publish_end: null,
          person_title: null, gender: null, birthdate: null, deathdate: null, company: null, company_name: null, company_kind: null, street_address: null, city: null, zipcode: null, country: null, state_name: null, phone: null, website: null, national_id_number: null, vat_number: null, pseudonym: null, user_preferences: null,
        },
        meta: { verified: null, external_auth: [], locked: false, created: aDate, modified: aDate, published: aDate, created_by: 1, modified_by: 1 },
        links: { self },
        relationships: { roles: { links: { related: `${self}/roles`, self: `${self}/relationships/roles` } } },
      },
      links: { self, home: `${s.url}/home` },
      meta: { schema: { users: { $id: `${s.url}/model/schema/users`, revision: anInteger } } },
    });
  });

  test('a used username or email, a missing password, an unknown attribute or bad email give 400', async () => {
    await createUser({ username: 'bob', email: 'bob@example.com' });
    expectError(await s.request('POST', '/users', { token: admin, body: userBody({ username: 'bob', password: 'password-2' }) }), 400, 'username_taken');
    expectError(await s.request('POST', '/users', { token: admin, body: userBody({ username: 'bob2', password: 'password-2', email: 'BOB@example.com' }) }), 400, 'email_taken');
    expectError(await s.request('POST', '/users', { token: admin, body: userBody({ username: 'carl' }) }), 400, 'invalid_data');
    // Strict, as the admin UI writes (else an unknown attribute is ignored, as BEdita does).
    const unknown = expectError(await s.request('POST', '/users', { token: admin, headers: { Prefer: 'handling=strict' }, body: userBody({ username: 'carl', password: 'password-2', shoe: 42 }) }), 400);
    assert.match(unknown.detail, /shoe/);
    expectError(await s.request('POST', '/users', { token: admin, body: userBody({ username: 'carl', password: 'password-2', email: 'nope' }) }), 400);
    expectError(await s.request('POST', '/users', { token: admin, body: userBody({ username: 'carl', password: 'short' }) }), 400);
    expectError(await s.request('POST', '/users', { token: admin, body: { data: { type: 'roles', attributes: { name: 'x' } } } }), 409);
  });

  test('GET /users lists with pagination, filters, the id query form and include=roles', async () => {
    const list = await s.request('GET', '/users?filter[username]=alice,bob&sort=-username', { token: admin });
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.data.map((u: any) => u.attributes.username), ['bob', 'alice']);
    assert.equal(list.body.meta.pagination.count, 2);
    const one = await s.request('GET', '/users?id=1&include=roles', { token: admin });
    assert.equal(one.body.data.length, 1);
    assert.equal(one.body.data[0].attributes.username, ADMIN.username);
    assert.deepEqual(one.body.data[0].relationships.roles.data, [{ id: '1', type: 'roles' }]);
    assert.equal(one.body.included[0].attributes.name, 'admin');
    const search = await s.request('GET', '/users?q=alic', { token: admin });
    assert.deepEqual(search.body.data.map((u: any) => u.attributes.username), ['alice']);
    expectError(await s.request('GET', '/users?filter[password_hash]=x', { token: admin }), 400);
    expectError(await s.request('GET', '/users?sort=password_hash', { token: admin }), 400);
    expectError(await s.request('GET', '/users?id=abc', { token: admin }), 400);
  });

  test('PATCH /users/{id} changes attributes; a new password works and revokes refresh tokens', async () => {
    const u = await createUser({ username: 'dora' });
    const { renew } = await s.login('dora', 'password-1');
    const res = await s.request('PATCH', `/users/${u.id}`, { token: admin, body: { data: { id: u.id, type: 'users', attributes: { surname: 'Explorer', password: 'new-password-9' } } } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.attributes.surname, 'Explorer');
    expectError(await s.request('POST', '/auth', { token: renew }), 401);
    expectError(await s.request('POST', '/auth', { body: { username: 'dora', password: 'password-1' } }), 401, 'login_failed');
    assert.ok((await s.login('dora', 'new-password-9')).jwt);
    expectError(await s.request('PATCH', `/users/${u.id}`, { token: admin, body: { data: { id: '999', type: 'users', attributes: {} } } }), 409);
    expectError(await s.request('PATCH', `/users/${u.id}`, { token: admin, body: { data: { id: u.id, type: 'users', attributes: { username: 'bob' } } } }), 400, 'username_taken');
  });

  test('login bookkeeping shows on the user: num_login_err and last_login_err after a failure, last_login after a success', async () => {
    const u = await createUser({ username: 'lena' });
    expectError(await s.request('POST', '/auth', { body: { username: 'lena', password: 'wrong-password' } }), 401);
    let read = (await s.request('GET', `/users/${u.id}`, { token: admin })).body.data.attributes;
    assert.equal(read.num_login_err, 1);
    assert.ok(read.last_login_err);
    assert.equal(read.last_login, null);
    await s.login('lena', 'password-1');
    read = (await s.request('GET', `/users/${u.id}`, { token: admin })).body.data.attributes;
    assert.equal(read.num_login_err, 0);
    assert.ok(read.last_login);
    // Sending the read-only counters back is ignored, not an error.
    const patched = await s.request('PATCH', `/users/${u.id}`, { token: admin, body: { data: { id: u.id, type: 'users', attributes: { ...read, num_login_err: 9, name: 'Lena' } } } });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.data.attributes.num_login_err, 0);
    assert.equal(patched.body.data.attributes.name, 'Lena');
  });

  test('blocking a user (admins only) stops its tokens and logins; unblocking lets it in again', async () => {
    const u = await createUser({ username: 'eve' });
    const { jwt, renew } = await s.login('eve', 'password-1');
    const blockBody = (blocked: boolean) => ({ data: { id: u.id, type: 'users', attributes: { blocked } } });
    expectError(await s.request('PATCH', `/users/${u.id}`, { token: jwt, body: blockBody(false) }), 403);
    assert.equal((await s.request('PATCH', `/users/${u.id}`, { token: admin, body: blockBody(true) })).status, 200);
    expectError(await s.request('GET', '/auth', { token: jwt }), 401);
    expectError(await s.request('POST', '/auth', { token: renew }), 401);
    expectError(await s.request('POST', '/auth', { body: { username: 'eve', password: 'password-1' } }), 401, 'login_failed');
    assert.equal((await s.request('PATCH', `/users/${u.id}`, { token: admin, body: blockBody(false) })).status, 200);
    assert.ok((await s.login('eve', 'password-1')).jwt);
  });

  test('a user reads and edits its own profile only: not others, not the lists, not its username, not (without old_password) its password', async () => {
    const u = await createUser({ username: 'fred' });
    const { jwt } = await s.login('fred', 'password-1');
    const patch = (id: string, attributes: Record<string, unknown>) => s.request('PATCH', `/users/${id}`, { token: jwt, body: { data: { id, type: 'users', attributes } } });
    assert.equal((await s.request('GET', `/users/${u.id}`, { token: jwt })).status, 200);
    expectError(await s.request('GET', '/users', { token: jwt }), 403);
    expectError(await s.request('GET', '/users/1', { token: jwt }), 403);
    expectError(await s.request('GET', '/roles', { token: jwt }), 403);
    assert.equal((await patch(u.id, { name: 'Freddy' })).body.data.attributes.name, 'Freddy');
    expectError(await patch('1', { name: 'Admin?' }), 403);
    expectError(await patch(u.id, { username: 'frederick' }), 403);
    expectError(await patch(u.id, { password: 'other-pass-1' }), 400, 'wrong_password');
    expectError(await patch(u.id, { password: 'other-pass-1', old_password: 'wrong-one-1' }), 400, 'wrong_password');
    assert.equal((await patch(u.id, { password: 'other-pass-1', old_password: 'password-1' })).status, 200);
    // The new password ended the session the old one opened.
    expectError(await s.request('GET', '/auth', { token: jwt }), 401);
    const token = (await s.login('fred', 'other-pass-1')).jwt;
    expectError(await s.request('POST', '/users', { token, body: userBody({ username: 'x', password: 'password-1' }) }), 403);
    expectError(await s.request('DELETE', `/users/${u.id}`, { token }), 403);
    expectError(await s.request('POST', '/roles', { token, body: roleBody({ name: 'x' }) }), 403);
    expectError(await s.request('POST', `/users/${u.id}/relationships/roles`, { token, body: { data: { type: 'roles', id: '1' } } }), 403);
  });

  test('anonymous clients get 401 on every /users and /roles endpoint', async () => {
    // Every route the server declares under /users and /roles, whatever families add there.
    const routes = s.server.ctx.routes.filter((r) => /^\/(users|roles)(\/|$)/.test(r.path));
    assert.ok(routes.length >= 12, routes.map((r) => `${r.method} ${r.path}`).join(', '));
    for (const r of routes) {
      const path = r.path.replace(/:[a-z_]+/gi, (param) => (param === ':relation' || param === ':relationship' ? 'roles' : '1'));
      const body = r.method === 'get' || r.method === 'delete' ? undefined : userBody({ username: 'x', password: 'password-1' });
      const res = await s.request(r.method.toUpperCase(), path, { body });
      assert.equal(res.status, 401, `${r.method} ${path}: ${res.text}`);
      expectError(res, 401);
    }
  });

  test('DELETE /users/{id} gives 204, then 404; the deleted user cannot log in', async () => {
    const u = await createUser({ username: 'gina' });
    const { jwt } = await s.login('gina', 'password-1');
    assert.equal((await s.request('DELETE', `/users/${u.id}`, { token: admin })).status, 204);
    expectError(await s.request('DELETE', `/users/${u.id}`, { token: admin }), 404);
    expectError(await s.request('GET', `/users/${u.id}`, { token: admin }), 404);
    expectError(await s.request('GET', '/auth', { token: jwt }), 401);
    expectError(await s.request('POST', '/auth', { body: { username: 'gina', password: 'password-1' } }), 401);
    expectError(await s.request('GET', '/users/abc', { token: admin }), 404);
  });

  test('roles: create (201), name rules, unique, rename, and the admin role is unchangeable', async () => {
    const res = await s.request('POST', '/roles', { token: admin, body: roleBody({ name: 'editor', description: 'Edits' }) });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.headers.get('location'), `${s.url}/roles/${res.body.data.id}`);
    assert.deepEqual(res.body.data.attributes, { name: 'editor', description: 'Edits', permissions: {} });
    assert.equal(res.body.data.meta.unchangeable, false);
    expectError(await s.request('POST', '/roles', { token: admin, body: roleBody({ name: 'editor' }) }), 400, 'role_exists');
    expectError(await s.request('POST', '/roles', { token: admin, body: roleBody({ name: 'x'.repeat(33) }) }), 400);
    expectError(await s.request('POST', '/roles', { token: admin, body: roleBody({}) }), 400);
    const id = res.body.data.id;
    const renamed = await s.request('PATCH', `/roles/${id}`, { token: admin, body: { data: { id, type: 'roles', attributes: { name: 'editors' } } } });
    assert.equal(renamed.body.data.attributes.name, 'editors');
    expectError(await s.request('PATCH', '/roles/1', { token: admin, body: { data: { id: '1', type: 'roles', attributes: { name: 'root' } } } }), 403, 'unchangeable_role');
    expectError(await s.request('DELETE', '/roles/1', { token: admin }), 403, 'unchangeable_role');
    const list = await s.request('GET', '/roles?filter[name]=admin', { token: admin });
    assert.equal(list.body.data[0].meta.unchangeable, true);
    assert.equal((await s.request('DELETE', `/roles/${id}`, { token: admin })).status, 204);
    expectError(await s.request('DELETE', `/roles/${id}`, { token: admin }), 404);
  });

  test('an admin gives and takes roles from either side; the lists follow', async () => {
    const u = await createUser({ username: 'hank' });
    const role = (await s.request('POST', '/roles', { token: admin, body: roleBody({ name: 'writer' }) })).body.data;
    const give = await s.request('POST', `/users/${u.id}/relationships/roles`, { token: admin, body: { data: { type: 'roles', id: role.id } } });
    assert.equal(give.status, 200);
    assert.deepEqual(Object.keys(give.body), ['links']);
    assert.deepEqual((await s.request('GET', `/users/${u.id}/roles`, { token: admin })).body.data.map((r: any) => r.attributes.name), ['writer']);
    assert.deepEqual((await s.request('GET', `/roles/${role.id}/users`, { token: admin })).body.data.map((x: any) => x.attributes.username), ['hank']);
    const take = await s.request('DELETE', `/roles/${role.id}/relationships/users`, { token: admin, body: { data: [{ type: 'users', id: Number(u.id) }] } });
    assert.equal(take.status, 200);
    assert.equal((await s.request('GET', `/users/${u.id}/roles`, { token: admin })).body.data.length, 0);
    expectError(await s.request('POST', `/users/${u.id}/relationships/roles`, { token: admin, body: { data: { type: 'roles', id: '9999' } } }), 400);
    expectError(await s.request('POST', '/users/9999/relationships/roles', { token: admin, body: { data: { type: 'roles', id: role.id } } }), 404);
    expectError(await s.request('POST', `/users/${u.id}/relationships/roles`, { token: admin, body: { data: { type: 'users', id: role.id } } }), 409);
    // Giving the admin role makes an admin.
    await s.request('POST', `/roles/1/relationships/users`, { token: admin, body: { data: { type: 'users', id: u.id } } });
    const hank = (await s.login('hank', 'password-1')).jwt;
    assert.equal((await s.request('POST', '/roles', { token: hank, body: roleBody({ name: 'by_hank' }) })).status, 201);
    assert.equal((await s.request('DELETE', `/users/${u.id}/relationships/roles`, { token: admin, body: { data: { type: 'roles', id: '1' } } })).status, 200);
  });

  test('the last active admin cannot be deleted, blocked, switched off or lose the admin role', async () => {
    expectError(await s.request('DELETE', '/users/1', { token: admin }), 403, 'last_admin');
    expectError(await s.request('PATCH', '/users/1', { token: admin, body: { data: { id: '1', type: 'users', attributes: { blocked: true } } } }), 403, 'last_admin');
    expectError(await s.request('PATCH', '/users/1', { token: admin, body: { data: { id: '1', type: 'users', attributes: { status: 'off' } } } }), 403, 'last_admin');
    expectError(await s.request('DELETE', '/users/1/relationships/roles', { token: admin, body: { data: { type: 'roles', id: '1' } } }), 403, 'last_admin');
    // With a second admin, the first may go.
    const other = await createUser({ username: 'ivy' });
    await s.request('POST', `/users/${other.id}/relationships/roles`, { token: admin, body: { data: { type: 'roles', id: '1' } } });
    const ivy = (await s.login('ivy', 'password-1')).jwt;
    assert.equal((await s.request('DELETE', '/users/1', { token: ivy })).status, 204);
    expectError(await s.request('DELETE', `/users/${other.id}`, { token: ivy }), 403, 'last_admin');
  });
});

describe('the last admin under concurrency', () => {
  test('two admins deleting each other at once: exactly one succeeds and an admin remains', async () => {
    const s = await startServer();
    try {
      const admin = await s.adminToken();
      const kim = await s.request('POST', '/users', { token: admin, body: userBody({ username: 'kim', password: 'password-1' }) });
      await s.request('POST', `/users/${kim.body.data.id}/relationships/roles`, { token: admin, body: { data: { type: 'roles', id: '1' } } });
      const kimToken = (await s.login('kim', 'password-1')).jwt;
      const results = await Promise.all([
        s.request('DELETE', `/users/${kim.body.data.id}`, { token: admin }),
        s.request('DELETE', '/users/1', { token: kimToken }),
      ]);
      assert.equal(results.filter((r) => r.status === 204).length, 1, results.map((r) => r.text).join(' | '));
      const survivor = results[0].status === 204 ? ADMIN : { username: 'kim', password: 'password-1' };
      const token = (await s.login(survivor.username, survivor.password)).jwt;
      assert.equal((await s.request('POST', '/roles', { token, body: roleBody({ name: 'still_admin' }) })).status, 201);
    } finally {
      await s.close();
    }
  });
});
