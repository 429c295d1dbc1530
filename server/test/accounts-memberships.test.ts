// Role membership is an update of the user (CONTRACT.md, Permissions): from either side
// (/users/{id}/relationships/roles, /roles/{id}/relationships/users; POST, DELETE, PATCH) and on
// signup's activation, it is recorded in the user's history, moves its version (ETag, If-Match)
// and fires `objects.update`; only admins change it, and a refused change changes nothing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { expectError, startServer, type TestServer } from './helpers/server.js';
import { linkIn, recipients, startSmtp, type TestSmtp } from './helpers/smtp.js';
import { createRole, createUser } from './helpers/users.js';
import { waitUntil } from './helpers/wait.js';
import { startReceiver } from './helpers/webhook-receiver.js';

const json = { 'Content-Type': 'application/json', Accept: 'application/json' };

interface Entry {
  attributes: { user_action: string; changed: Record<string, unknown> };
}

describe('role membership is a recorded, versioned update of the user', () => {
  let smtp: TestSmtp;
  let s: TestServer;
  let admin: string;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let members: string;
  let editors: string;

  before(async () => {
    smtp = await startSmtp();
    s = await startServer({ FOLIO_SIGNUP: 'on', FOLIO_MAIL_LIMIT: '0', FOLIO_SMTP_URL: smtp.url, FOLIO_MAIL_FROM: 'folio@example.org', FOLIO_SIGNUP_ROLES: 'members' });
    admin = await s.adminToken();
    members = await createRole(s, admin, 'members', { documents: ['read'] });
    editors = await createRole(s, admin, 'editors', { '*': ['read', 'create', 'update', 'delete', 'publish'] });
    receiver = await startReceiver();
    const hook = await s.request('POST', '/webhooks', { token: admin, body: { data: { type: 'webhooks', attributes: { name: 'Users', url: receiver.url, events: ['*'], types: ['users'] } } } });
    assert.equal(hook.status, 201, hook.text);
  });
  after(async () => {
    await s.close();
    await smtp.close();
    await receiver.close();
  });

  const rolesOf = async (user: string) => {
    const r = await s.request('GET', `/users/${user}/roles`, { token: admin });
    assert.equal(r.status, 200, r.text);
    return r.body.data.map((d: { id: string }) => d.id).sort();
  };
  const etagOf = async (user: string) => {
    const r = await s.request('GET', `/users/${user}`, { token: admin });
    assert.equal(r.status, 200, r.text);
    return r.headers.get('etag')!;
  };
  const lastChange = async (user: string) => {
    const r = await s.request('GET', `/users/${user}/history?sort=-id&page_size=1`, { token: admin });
    assert.equal(r.status, 200, r.text);
    return (r.body.data as Entry[])[0]?.attributes;
  };
  const updatesOf = (user: string) => receiver.received.filter((d) => d.body.event === 'objects.update' && String(d.body.data?.id) === user).length;
  const ids = (type: string, list: string[]) => ({ data: list.map((id) => ({ type, id })) });

  test('from the user side: POST, PATCH (replace) and DELETE each update the user', async () => {
    const { id: user } = await createUser(s, admin, { username: 'mona' });
    let tag = await etagOf(user);
    const writes: Array<[string, string[], string[]]> = [
      ['POST', [members], [members]],
      ['PATCH', [editors], [editors]],
      ['POST', [members], [editors, members].sort()],
      ['DELETE', [editors], [members]],
    ];
    for (const [n, [method, sent, expected]] of writes.entries()) {
      const r = await s.request(method, `/users/${user}/relationships/roles`, { token: admin, body: ids('roles', sent) });
      assert.ok(r.status === 200 || r.status === 204, r.text);
      assert.deepEqual(await rolesOf(user), expected);
      const change = await lastChange(user);
      assert.equal(change.user_action, 'update');
      assert.deepEqual(change.changed.roles, expected, JSON.stringify(change));
      const next = await etagOf(user);
      assert.notEqual(next, tag, 'the version moved');
      // A PATCH with the tag before the change: 412, nothing changed.
      const stale = await s.request('PATCH', `/users/${user}`, { token: admin, headers: { 'If-Match': tag }, body: { data: { type: 'users', id: user, attributes: { name: `stale ${n}` } } } });
      expectError(stale, 412, 'precondition_failed');
      tag = next;
    }
    await waitForUpdates(user, writes.length);
    // Writing what is there already is no change: no entry, same version.
    await s.request('POST', `/users/${user}/relationships/roles`, { token: admin, body: ids('roles', [members]) });
    assert.equal(await etagOf(user), tag);
  });

  test('from the role side: POST, PATCH (replace) and DELETE update each user whose roles change', async () => {
    const { id: a } = await createUser(s, admin, { username: 'ada' });
    const { id: b } = await createUser(s, admin, { username: 'bob' });
    const [tagA, tagB] = [await etagOf(a), await etagOf(b)];
    assert.equal((await s.request('POST', `/roles/${editors}/relationships/users`, { token: admin, body: ids('users', [a, b]) })).status, 200);
    assert.deepEqual((await lastChange(a)).changed.roles, [editors]);
    assert.deepEqual((await lastChange(b)).changed.roles, [editors]);
    assert.notEqual(await etagOf(a), tagA);
    assert.notEqual(await etagOf(b), tagB);
    // Replace: the role's users are exactly those named; b loses it.
    const r = await s.request('PATCH', `/roles/${editors}/relationships/users`, { token: admin, body: ids('users', [a]) });
    assert.ok(r.status === 200 || r.status === 204, r.text);
    assert.deepEqual(await rolesOf(a), [editors]);
    assert.deepEqual(await rolesOf(b), []);
    assert.deepEqual((await lastChange(b)).changed.roles, []);
    const d = await s.request('DELETE', `/roles/${editors}/relationships/users`, { token: admin, body: ids('users', [a]) });
    assert.ok(d.status === 200 || d.status === 204, d.text);
    assert.deepEqual((await lastChange(a)).changed.roles, []);
    await waitForUpdates(a, 2);
    await waitForUpdates(b, 2);
  });

  test('only admins; a missing role or user, or the last admin losing the role, changes nothing', async () => {
    const { id: user, jwt } = await createUser(s, admin, { username: 'eve', roles: [editors] });
    const tag = await etagOf(user);
    for (const [method, path, body] of [
      ['POST', `/users/${user}/relationships/roles`, ids('roles', [members])],
      ['PATCH', `/users/${user}/relationships/roles`, ids('roles', [])],
      ['POST', `/roles/${members}/relationships/users`, ids('users', [user])],
      ['PATCH', `/roles/${editors}/relationships/users`, ids('users', [])],
    ] as const) {
      expectError(await s.request(method, path, { token: jwt, body }), 403);
    }
    expectError(await s.request('POST', `/users/${user}/relationships/roles`, { token: admin, body: ids('roles', [members, '9999']) }), 400);
    expectError(await s.request('POST', `/roles/${members}/relationships/users`, { token: admin, body: ids('users', [user, '9999']) }), 400);
    expectError(await s.request('PATCH', '/users/9999/relationships/roles', { token: admin, body: ids('roles', [members]) }), 404);
    // The only admin cannot lose the admin role, from either side.
    const me = String((await s.request('GET', '/auth/user', { token: admin })).body.data.id);
    expectError(await s.request('PATCH', `/users/${me}/relationships/roles`, { token: admin, body: ids('roles', [members]) }), 403);
    expectError(await s.request('PATCH', '/roles/1/relationships/users', { token: admin, body: ids('users', []) }), 403);
    assert.deepEqual(await rolesOf(user), [editors]);
    assert.deepEqual(await rolesOf(me), ['1']);
    assert.equal(await etagOf(user), tag);
  });

  test('relationships.roles of POST and PATCH /users: the same update, by admins only', async () => {
    const rel = (list: string[]) => ({ roles: ids('roles', list) });
    const created = await s.request('POST', '/users', {
      token: admin,
      body: { data: { type: 'users', attributes: { username: 'rita', password: 'rita-secret-1', email: 'rita@example.com' }, relationships: rel([members]) } },
    });
    assert.equal(created.status, 201, created.text);
    const user = String(created.body.data.id);
    assert.deepEqual(await rolesOf(user), [members]);
    const first = await lastChange(user);
    assert.equal(first.user_action, 'create');
    assert.deepEqual(first.changed.roles, [members]);
    const tag = await etagOf(user);
    const patched = await s.request('PATCH', `/users/${user}`, { token: admin, body: { data: { type: 'users', id: user, attributes: {}, relationships: rel([editors]) } } });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual(await rolesOf(user), [editors]);
    assert.deepEqual((await lastChange(user)).changed.roles, [editors]);
    assert.notEqual(await etagOf(user), tag);
    await waitForUpdates(user, 1);
    // Not on one's own account, nor with a role that does not exist; nothing changes.
    const { jwt } = await s.login('rita', 'rita-secret-1');
    const after = await etagOf(user);
    expectError(await s.request('PATCH', `/users/${user}`, { token: jwt, body: { data: { type: 'users', id: user, attributes: { name: 'Rita' }, relationships: rel(['1']) } } }), 403);
    expectError(await s.request('PATCH', `/users/${user}`, { token: admin, body: { data: { type: 'users', id: user, attributes: { name: 'Rita' }, relationships: rel(['9999']) } } }), 400);
    expectError(await s.request('PATCH', `/users/${user}`, { token: admin, body: { data: { type: 'users', id: user, attributes: {}, relationships: { roles: { data: 'admin' } } } } }), 400);
    assert.deepEqual(await rolesOf(user), [editors]);
    assert.equal(await etagOf(user), after);
    assert.equal((await s.request('GET', `/users/${user}`, { token: admin })).body.data.attributes.name, null);
  });

  test('deleting a role takes it from its users: an update of each', async () => {
    const passing = await createRole(s, admin, 'passing', { documents: ['read'] });
    const { id: user } = await createUser(s, admin, { username: 'paul', roles: [passing, members] });
    const tag = await etagOf(user);
    expectError(await s.request('DELETE', '/roles/1', { token: admin }), 403, 'unchangeable_role');
    assert.equal((await s.request('DELETE', `/roles/${passing}`, { token: admin })).status, 204);
    assert.deepEqual(await rolesOf(user), [members]);
    assert.deepEqual((await lastChange(user)).changed.roles, [members]);
    assert.notEqual(await etagOf(user), tag);
    await waitForUpdates(user, 2);
  });

  test("signup's roles on activation are recorded in the new user's history", async () => {
    const res = await s.request('POST', '/signup', { headers: json, body: { username: 'newbie', email: 'newbie@example.com', password: 'secret-pass-1', activation_url: 'https://site.example/activate' } });
    assert.equal(res.status, 202, res.text);
    const user = String(res.body.data.id);
    const mail = await smtp.waitFor((m) => recipients(m).includes('newbie@example.com'));
    const uuid = linkIn(mail).searchParams.get('uuid')!;
    assert.equal((await s.request('POST', '/signup/activation', { headers: json, body: { uuid } })).status, 202);
    assert.deepEqual(await rolesOf(user), [members]);
    const r = await s.request('GET', `/users/${user}/history?page_size=100`, { token: admin });
    const changed = (r.body.data as Entry[]).map((e) => e.attributes.changed);
    assert.ok(changed.some((c) => JSON.stringify(c.roles) === JSON.stringify([members])), JSON.stringify(changed));
    await waitForUpdates(user, 1);
  });

  /** Waits until `n` objects.update deliveries about `user` have arrived. */
  const waitForUpdates = (user: string, n: number) => waitUntil(() => (updatesOf(user) >= n ? true : undefined), `${n} objects.update deliveries for user ${user}`);
});

describe('own account under an object permission', () => {
  test('a user whose account an admin restricted to other roles still reads it (GET /users/{own id}, /auth/user)', async () => {
    const s = await startServer();
    try {
      const admin = await s.adminToken();
      await createRole(s, admin, 'reviewers', { '*': ['read'] });
      const user = await createUser(s, admin, { username: 'restricted-self' });
      const perms = await s.request('PATCH', `/users/${user.id}`, { token: admin, body: { data: { type: 'users', id: user.id, meta: { perms: { roles: ['reviewers'] } } } } });
      assert.equal(perms.status, 200, perms.text);
      const own = await s.request('GET', `/users/${user.id}`, { token: user.jwt });
      assert.equal(own.status, 200, own.text);
      assert.equal(own.body.data.attributes.username, 'restricted-self');
      assert.equal((await s.request('GET', '/auth/user', { token: user.jwt })).status, 200);
      // Another user still gets nothing of it.
      const other = await createUser(s, admin, { username: 'other-self' });
      expectError(await s.request('GET', `/users/${user.id}`, { token: other.jwt }), 403);
    } finally {
      await s.close();
    }
  });
});
