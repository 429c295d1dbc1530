// Accounts as BEdita 5 clients use them: PATCH /auth/user with a flat body,
// POST /auth/optout, one-time codes (`auth_provider: otp`), `auth_provider: uuid` and
// FOLIO_PASSWORD_MIN_LENGTH, through HTTP with good and bad input.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createUser } from './helpers/fixtures.js';
import { awayFromWindowEdge, expectError, LOGIN_WINDOW_MS, startServer, type TestServer } from './helpers/server.js';
import { readOutbox } from './helpers/smtp.js';

const json = { 'Content-Type': 'application/json' };

/** The one-time token of the newest code mail to `to`. */
async function mailedToken(s: TestServer, to: string): Promise<string> {
  await s.server.ctx.mailer.idle();
  const mails = (await readOutbox(s.dataDir)).filter((m) => /login code/i.test(m.subject ?? '') && JSON.stringify(m.to).includes(to));
  const mail = mails.at(-1);
  assert.ok(mail, `a code mail to ${to}`);
  assert.ok(mail.html && mail.text, 'a text and an HTML part');
  return /\b(\d{6})\b/.exec(mail.text ?? '')![1];
}

describe('BEdita accounts', () => {
  let s: TestServer;
  let admin: string;
  before(async () => {
    s = await startServer({ FOLIO_PASSWORD_MIN_LENGTH: '10', FOLIO_SIGNUP: 'on', FOLIO_MAIL_LIMIT: '0' });
    admin = await s.adminToken();
  });
  after(() => s.close());

  test('signup takes activation_url and redirect_url with any absolute URL, custom schemes included; not javascript: or relative ones', async () => {
    const signup = (fields: Record<string, unknown>) =>
      s.request('POST', '/signup', { headers: json, body: { password: 'secret-pass-10', ...fields } });
    const ok = await signup({ username: 'mobile', email: 'mobile@example.com', activation_url: 'app://myapp/activate', redirect_url: 'myapp:/done' });
    assert.equal(ok.status, 202, ok.text);
    await s.server.ctx.mailer.idle();
    const mail = (await readOutbox(s.dataDir)).find((m) => JSON.stringify(m.to).includes('mobile@example.com'));
    assert.match(mail?.text ?? '', /app:\/\/myapp\/activate\?uuid=[0-9a-f-]+&redirect_url=myapp%3A%2Fdone/);
    for (const bad of ['javascript:alert(1)', 'data:text/html,x', '/relative/path', 'not a url']) {
      expectError(await signup({ username: 'mobile2', email: 'mobile2@example.com', activation_url: bad }), 400);
      expectError(await signup({ username: 'mobile2', email: 'mobile2@example.com', activation_url: 'https://site.example/a', redirect_url: bad }), 400);
    }
    const none = await s.request('GET', '/users?filter[username]=mobile2', { token: admin });
    assert.equal(none.body.meta.pagination.count, 0);
  });

  test('POST /applications with client_secret null: an application without a secret, which logs in with client_secret null', async () => {
    const made = await s.request('POST', '/applications', { token: admin, body: { data: { type: 'applications', attributes: { name: 'public-app', client_secret: null } } } });
    assert.equal(made.status, 201, made.text);
    assert.equal(made.body.data.meta.client_secret, null);
    const apiKey = made.body.data.meta.api_key;
    assert.equal((await s.request('GET', `/applications/${made.body.data.id}`, { token: admin })).body.data.meta.client_secret, null);
    const login = await s.request('POST', '/auth', { headers: json, body: { grant_type: 'client_credentials', client_id: apiKey, client_secret: null } });
    assert.equal(login.status, 200, login.text);
    assert.ok(login.body.meta.jwt);
    // A secret sent for it, or null for an application with one, is refused.
    expectError(await s.request('POST', '/auth', { headers: json, body: { grant_type: 'client_credentials', client_id: apiKey, client_secret: 'anything' } }), 401);
    const secret = await s.request('POST', '/applications', { token: admin, body: { data: { type: 'applications', attributes: { name: 'private-app' } } } });
    assert.equal(secret.status, 201, secret.text);
    assert.equal(typeof secret.body.data.meta.client_secret, 'string');
    expectError(await s.request('POST', '/auth', { headers: json, body: { grant_type: 'client_credentials', client_id: secret.body.data.meta.api_key, client_secret: null } }), 401);
    const withSecret = await s.request('POST', '/auth', { headers: json, body: { grant_type: 'client_credentials', client_id: secret.body.data.meta.api_key, client_secret: secret.body.data.meta.client_secret } });
    assert.equal(withSecret.status, 200, withSecret.text);
    // No client_secret at all, as BEdita's own tests log its public application in: the same as null.
    const absent = await s.request('POST', '/auth', { headers: json, body: { grant_type: 'client_credentials', client_id: apiKey } });
    assert.equal(absent.status, 200, absent.text);
    expectError(await s.request('POST', '/auth', { headers: json, body: { grant_type: 'client_credentials', client_id: secret.body.data.meta.api_key } }), 401);
    expectError(await s.request('POST', '/auth', { headers: json, body: { grant_type: 'client_credentials' } }), 400, 'missing_credentials');
  });

  test('PATCH /auth/user changes the own profile from a flat body and answers the user', async () => {
    const u = await createUser(s, admin, { username: 'flat', password: 'flat-secret-1' });
    const res = await s.request('PATCH', '/auth/user', { token: u.jwt, headers: json, body: { name: 'Flat', surname: 'Body', description: 'about me' } });
    assert.equal(res.status, 200, res.text);
    assert.match(res.headers.get('content-type') ?? '', /^application\/vnd\.api\+json/);
    assert.equal(res.body.data.id, u.id);
    assert.equal(res.body.data.type, 'users');
    assert.equal(res.body.data.attributes.name, 'Flat');
    assert.equal(res.body.data.attributes.surname, 'Body');
    const me = await s.request('GET', '/auth/user', { token: u.jwt });
    assert.equal(me.body.data.attributes.description, 'about me');
    // The JSON API shape is taken too.
    const doc = await s.request('PATCH', '/auth/user', { token: u.jwt, body: { data: { type: 'users', attributes: { name: 'Doc' } } } });
    assert.equal(doc.status, 200, doc.text);
    assert.equal(doc.body.data.attributes.name, 'Doc');
  });

  test('PATCH /auth/user: password and email need old_password; bad input changes nothing', async () => {
    const u = await createUser(s, admin, { username: 'creds', password: 'creds-secret-1' });
    expectError(await s.request('PATCH', '/auth/user', { token: u.jwt, headers: json, body: { password: 'another-secret-2' } }), 400, 'wrong_password');
    expectError(await s.request('PATCH', '/auth/user', { token: u.jwt, headers: json, body: { password: 'another-secret-2', old_password: 'nope-nope-1' } }), 400, 'wrong_password');
    expectError(await s.request('PATCH', '/auth/user', { token: u.jwt, headers: json, body: { email: 'new@example.com', name: 'Nope' } }), 400, 'wrong_password');
    expectError(await s.request('PATCH', '/auth/user', { token: u.jwt, headers: json, body: { shoe_size: 44 } }), 400, 'unknown_attribute');
    expectError(await s.request('PATCH', '/auth/user', { token: u.jwt, headers: json, body: { username: 'other' } }), 403);
    expectError(await s.request('PATCH', '/auth/user', { token: u.jwt, headers: json, body: { blocked: true } }), 403);
    expectError(await s.request('PATCH', '/auth/user', { token: u.jwt, headers: json, body: ['name'] }), 400);
    const short = expectError(await s.request('PATCH', '/auth/user', { token: u.jwt, headers: json, body: { password: 'short-1', old_password: 'creds-secret-1' } }), 400, 'invalid_data');
    assert.match(short.detail, /password.*fewer than 10 characters/);
    expectError(await s.request('PATCH', '/auth/user', { headers: json, body: { name: 'anon' } }), 401);
    const me = await s.request('GET', '/auth/user', { token: u.jwt });
    assert.equal(me.body.data.attributes.email, 'creds@example.com');
    assert.equal(me.body.data.attributes.name, null);
    await s.login('creds', 'creds-secret-1');

    const ok = await s.request('PATCH', '/auth/user', { token: u.jwt, headers: json, body: { password: 'creds-secret-22', old_password: 'creds-secret-1' } });
    assert.equal(ok.status, 200, ok.text);
    // A new password ends the sessions of the old one.
    expectError(await s.request('GET', '/auth/user', { token: u.jwt }), 401);
    const again = await s.login('creds', 'creds-secret-22');
    const mail = await s.request('PATCH', '/auth/user', { token: again.jwt, headers: json, body: { email: 'creds2@example.com', old_password: 'creds-secret-22' } });
    assert.equal(mail.status, 200, mail.text);
    assert.equal(mail.body.data.attributes.email, 'creds2@example.com');
  });

  test('FOLIO_PASSWORD_MIN_LENGTH holds on create, admin change, credential change and signup', async () => {
    const create = await s.request('POST', '/users', { token: admin, body: { data: { type: 'users', attributes: { username: 'shorty', password: 'nine-char' } } } });
    assert.match(expectError(create, 400, 'invalid_data').detail, /fewer than 10 characters/);
    const signup = await s.request('POST', '/signup', { headers: json, body: { username: 'shorty', password: 'nine-char', email: 'shorty@example.com', activation_url: 'https://x.example/a' } });
    expectError(signup, 400, 'invalid_data');
    const users = await s.request('GET', '/users?filter[username]=shorty', { token: admin });
    assert.equal(users.body.data.length, 0, 'no account was made');
    const u = await createUser(s, admin, { username: 'longer', password: 'ten-chars-1' });
    expectError(await s.request('PATCH', `/users/${u.id}`, { token: admin, body: { data: { id: u.id, type: 'users', attributes: { password: 'short' } } } }), 400, 'invalid_data');
    expectError(await s.request('PATCH', '/auth/change', { headers: json, body: { uuid: crypto.randomUUID(), password: 'short' } }), 400, 'invalid_data');
    const schema = await s.request('GET', '/model/schema/users', { headers: { Accept: 'application/schema+json' } });
    assert.equal(schema.body.properties.password.minLength, 10);
  });

  test('POST /auth/optout anonymises and removes the account and ends its sessions', async () => {
    const u = await createUser(s, admin, { username: 'leaver', password: 'leaver-secret-1' });
    const { renew } = await s.login('leaver', 'leaver-secret-1');
    expectError(await s.request('POST', '/auth/optout', { headers: json, body: { username: 'leaver', password: 'wrong-password-1' } }), 401, 'login_failed');
    expectError(await s.request('POST', '/auth/optout', { headers: json, body: { username: 'nobody', password: 'wrong-password-1' } }), 401, 'login_failed');
    expectError(await s.request('POST', '/auth/optout', { headers: json, body: { username: 'leaver' } }), 400);
    expectError(await s.request('POST', '/auth/optout', { headers: json, body: { username: 'leaver', password: 'leaver-secret-1', extra: 1 } }), 400);
    assert.equal((await s.request('GET', '/auth/user', { token: u.jwt })).status, 200, 'bad input changed nothing');

    const res = await s.request('POST', '/auth/optout', { headers: json, body: { username: 'leaver', password: 'leaver-secret-1' } });
    assert.equal(res.status, 200, res.text);
    assert.match(res.headers.get('content-type') ?? '', /^application\/vnd\.api\+json/);
    assert.ok(res.body.links.self);
    expectError(await s.request('GET', '/auth/user', { token: u.jwt }), 401);
    expectError(await s.request('POST', '/auth', { headers: { Authorization: `Bearer ${renew}` }, body: { grant_type: 'refresh_token' } }), 401);
    expectError(await s.request('POST', '/auth', { headers: json, body: { username: 'leaver', password: 'leaver-secret-1' } }), 401, 'login_failed');
    expectError(await s.request('GET', `/users/${u.id}`, { token: admin }), 404);
    const trashed = await s.request('GET', `/trash/${u.id}`, { token: admin });
    assert.equal(trashed.status, 200, trashed.text);
    assert.equal(trashed.body.data.attributes.title ?? null, null);
    assert.ok(!trashed.text.includes('leaver'), 'nothing of the name or email is kept');
    // The name is free again.
    await createUser(s, admin, { username: 'leaver', password: 'leaver-secret-2' });
  });

  test('POST /auth/optout never removes the last admin', async () => {
    const res = await s.request('POST', '/auth/optout', { headers: json, body: { username: 'admin', password: 'admin-secret-1' } });
    expectError(res, 403, 'last_admin');
    const me = await s.request('GET', '/auth/user', { token: admin });
    assert.equal(me.status, 200);
    assert.equal(me.body.data.attributes.username, 'admin');
  });

  test('auth_provider otp: request mails a code, access logs in once', async () => {
    const u = await createUser(s, admin, { username: 'otto', password: 'otto-secret-1' });
    const asked = await s.request('POST', '/auth', { headers: json, body: { auth_provider: 'otp', otp: 'request', username: 'otto' } });
    assert.equal(asked.status, 200, asked.text);
    assert.match(asked.headers.get('content-type') ?? '', /^application\/vnd\.api\+json/);
    const code = asked.body.meta.authorization_code;
    assert.match(code, /^[0-9a-f-]{36}$/);
    assert.equal(asked.body.meta.jwt, undefined);
    const token = await mailedToken(s, 'otto@example.com');

    expectError(await s.request('POST', '/auth', { headers: json, body: { auth_provider: 'otp', otp: 'access', authorization_code: code, token: token === '000000' ? '000001' : '000000' } }), 401, 'login_failed');
    expectError(await s.request('POST', '/auth', { headers: json, body: { auth_provider: 'otp', otp: 'access', authorization_code: crypto.randomUUID(), token } }), 401, 'login_failed');
    expectError(await s.request('POST', '/auth', { headers: json, body: { auth_provider: 'otp', otp: 'access', authorization_code: code, token, username: 'someone-else' } }), 401, 'login_failed');
    const access = await s.request('POST', '/auth', { headers: json, body: { auth_provider: 'otp', otp: 'access', username: 'otto', authorization_code: code, token } });
    assert.equal(access.status, 200, access.text);
    const me = await s.request('GET', '/auth/user', { token: access.body.meta.jwt });
    assert.equal(me.body.data.id, u.id);
    assert.ok(access.body.meta.renew);
    // Single use.
    expectError(await s.request('POST', '/auth', { headers: json, body: { auth_provider: 'otp', otp: 'access', authorization_code: code, token } }), 401, 'login_failed');
  });

  test('auth_provider otp: an unknown user gets the same answer and no mail; bad input is 400', async () => {
    const before = (await readOutbox(s.dataDir)).length;
    const asked = await s.request('POST', '/auth', { headers: json, body: { auth_provider: 'otp', otp: 'request', username: 'ghost' } });
    assert.equal(asked.status, 200);
    assert.deepEqual(Object.keys(asked.body.meta), ['authorization_code']);
    await s.server.ctx.mailer.idle();
    assert.equal((await readOutbox(s.dataDir)).length, before);
    expectError(await s.request('POST', '/auth', { headers: json, body: { auth_provider: 'otp', otp: 'access', authorization_code: asked.body.meta.authorization_code, token: '123456' } }), 401, 'login_failed');
    expectError(await s.request('POST', '/auth', { headers: json, body: { auth_provider: 'otp', otp: 'request' } }), 400, 'missing_credentials');
    expectError(await s.request('POST', '/auth', { headers: json, body: { auth_provider: 'otp', otp: 'access', authorization_code: 'x' } }), 400, 'missing_credentials');
    expectError(await s.request('POST', '/auth', { headers: json, body: { auth_provider: 'otp', otp: 'maybe', username: 'otto' } }), 400, 'invalid_data');
    expectError(await s.request('POST', '/auth', { headers: json, body: { auth_provider: 'carrier-pigeon', username: 'otto' } }), 401, 'login_failed');
  });

  test('auth_provider otp: a code expires after 10 minutes', async () => {
    await createUser(s, admin, { username: 'late', password: 'late-secret-1' });
    const asked = await s.request('POST', '/auth', { headers: json, body: { auth_provider: 'otp', otp: 'request', username: 'late' } });
    const token = await mailedToken(s, 'late@example.com');
    // Eleven minutes later: the code's expiry moved into the past.
    const past = new Date(Date.now() - 60_000).toISOString().replace(/\.\d{3}Z$/, '+00:00');
    await s.server.ctx.db.updateTable('otp_codes').set({ expires: past }).where('used', 'is', null).execute();
    expectError(await s.request('POST', '/auth', { headers: json, body: { auth_provider: 'otp', otp: 'access', authorization_code: asked.body.meta.authorization_code, token } }), 401, 'login_failed');
  });

  test('auth_provider otp: wrong tokens count towards the lockout', async () => {
    await createUser(s, admin, { username: 'guesser', password: 'guesser-secret-1' });
    const asked = await s.request('POST', '/auth', { headers: json, body: { auth_provider: 'otp', otp: 'request', username: 'guesser' } });
    const code = asked.body.meta.authorization_code;
    const token = await mailedToken(s, 'guesser@example.com');
    const wrong = token === '999999' ? '999998' : '999999';
    for (let i = 0; i < 5; i++) {
      expectError(await s.request('POST', '/auth', { headers: json, body: { auth_provider: 'otp', otp: 'access', authorization_code: code, token: wrong } }), 401, 'login_failed');
    }
    // Locked out: the right token is refused too, as the right password would be.
    expectError(await s.request('POST', '/auth', { headers: json, body: { auth_provider: 'otp', otp: 'access', authorization_code: code, token } }), 401, 'login_failed');
    expectError(await s.request('POST', '/auth', { headers: json, body: { username: 'guesser', password: 'guesser-secret-1' } }), 401, 'login_failed');
  });

  test('auth_provider uuid: a client uuid opens its own account, made on first use', async () => {
    const uuid = crypto.randomUUID();
    const first = await s.request('POST', '/auth', { headers: { ...json, Authorization: `UUID ${uuid}` }, body: { auth_provider: 'uuid' } });
    assert.equal(first.status, 200, first.text);
    const me = await s.request('GET', '/auth/user', { token: first.body.meta.jwt });
    assert.equal(me.body.data.attributes.username, `uuid-${uuid}`);
    // meta.external_auth names the provider, as BEdita's users carry it.
    assert.deepEqual(me.body.data.meta.external_auth, [{ auth_provider: 'uuid' }]);
    const listed = await s.request('GET', `/users?fields=username&filter[id]=${me.body.data.id}`, { token: admin });
    assert.deepEqual(listed.body.data[0].meta, { external_auth: [{ auth_provider: 'uuid' }] }, 'kept by fields=, as BEdita keeps it');
    const second = await s.request('POST', '/auth', { headers: { ...json, Authorization: `UUID ${uuid}` }, body: { auth_provider: 'uuid' } });
    const again = await s.request('GET', '/auth/user', { token: second.body.meta.jwt });
    assert.equal(again.body.data.id, me.body.data.id, 'the same account');
    expectError(await s.request('POST', '/auth', { headers: { ...json, Authorization: 'UUID not-a-uuid' }, body: { auth_provider: 'uuid' } }), 401, 'login_failed');
    expectError(await s.request('POST', '/auth', { headers: json, body: { auth_provider: 'uuid' } }), 401, 'login_failed');
    // A user named like a uuid account is not opened by the uuid.
    const other = crypto.randomUUID();
    await createUser(s, admin, { username: `uuid-${other}`, password: 'squatter-secret-1' });
    const fresh = await s.request('POST', '/auth', { headers: { ...json, Authorization: `UUID ${other}` }, body: { auth_provider: 'uuid' } });
    expectError(fresh, 400, 'username_taken');
  });
});

describe('BEdita accounts: limits and switches', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer({ FOLIO_LOGIN_LIMIT: '2', FOLIO_MAIL_LIMIT: '0' });
  });
  after(() => s.close());

  test('one-time code attempts are counted by FOLIO_LOGIN_LIMIT', async () => {
    await createUser(s, await s.adminToken(), { username: 'limited', password: 'limited-secret-1' });
    const asked = await s.request('POST', '/auth', { headers: json, body: { auth_provider: 'otp', otp: 'request', username: 'limited' } });
    const code = asked.body.meta.authorization_code;
    const token = await mailedToken(s, 'limited@example.com');
    const wrong = token === '111111' ? '111112' : '111111';
    await awayFromWindowEdge(LOGIN_WINDOW_MS);
    for (let i = 0; i < 2; i++) {
      expectError(await s.request('POST', '/auth', { headers: json, body: { auth_provider: 'otp', otp: 'access', authorization_code: code, token: wrong } }), 401, 'login_failed');
    }
    expectError(await s.request('POST', '/auth', { headers: json, body: { auth_provider: 'otp', otp: 'access', authorization_code: code, token } }), 429, 'too_many_requests');
  });

  test('auth_provider uuid makes no account while signup is off', async () => {
    expectError(await s.request('POST', '/auth', { headers: { ...json, Authorization: `UUID ${crypto.randomUUID()}` }, body: { auth_provider: 'uuid' } }), 401, 'login_failed');
  });
});
