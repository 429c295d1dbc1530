// Account security through HTTP (CONTRACT.md, Account security): identical
// login failures, exact lockout counts under concurrency, sessions that end at once, NFKC +
// case-folded accounts, the login and mail limits, signup off by default, identifier limits,
// unlinked streams, and date and number filters.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { tinyPng } from './helpers/fixtures.js';
import { ADMIN, awayFromWindowEdge, expectError, LOGIN_WINDOW_MS, MAIL_WINDOW_MS, startServer, type TestServer } from './helpers/server.js';
import { linkIn, readOutbox } from './helpers/smtp.js';
import { waitUntil } from './helpers/wait.js';

const json = { 'Content-Type': 'application/json' };
const userBody = (attributes: Record<string, unknown>) => ({ data: { type: 'users', attributes } });

describe('account security', () => {
  let s: TestServer;
  let admin: string;
  async function makeUser(username: string, extra: Record<string, unknown> = {}) {
    const r = await s.request('POST', '/users', { token: admin, body: userBody({ username, password: 'password-1', email: `${username}@example.com`, ...extra }) });
    assert.equal(r.status, 201, r.text);
    return r.body.data.id as string;
  }
  const login = (username: string, password: string) => s.request('POST', '/auth', { body: { username, password }, headers: json });
  const patchUser = (id: string, attributes: Record<string, unknown>, token = admin) =>
    s.request('PATCH', `/users/${id}`, { token, body: { data: { id, type: 'users', attributes } } });

  before(async () => {
    s = await startServer();
    admin = await s.adminToken();
  });
  after(() => s.close());

  test('every failed login answers the same 401 body: unknown, locked out, blocked, inactive, wrong password', async () => {
    await makeUser('blocky', { blocked: true });
    await makeUser('inactive', { status: 'draft' });
    await makeUser('locky');
    for (let i = 0; i < 5; i++) await login('locky', 'wrong-password');
    const bodies = [
      await login('nobody-at-all', 'password-1'),
      await login('locky', 'password-1'),
      await login('blocky', 'password-1'),
      await login('inactive', 'password-1'),
      await login('admin', 'wrong-password'),
    ];
    for (const b of bodies) expectError(b, 401, 'login_failed');
    const first = JSON.stringify(bodies[0].body);
    for (const b of bodies) assert.equal(JSON.stringify(b.body), first);
  });

  test('15 parallel wrong passwords count 15', async () => {
    const id = await makeUser('parallel');
    const tries = await Promise.all(Array.from({ length: 15 }, () => login('parallel', 'wrong-password')));
    for (const t of tries) expectError(t, 401, 'login_failed');
    const user = await s.request('GET', `/users/${id}`, { token: admin });
    assert.equal(user.body.data.attributes.num_login_err, 15);
    // Locked out: the right password is refused too.
    expectError(await login('parallel', 'password-1'), 401, 'login_failed');
  });

  test('blocked, off, trashed or re-passworded users lose every session at once', async () => {
    for (const [name, end] of [
      ['blocked-now', (id: string) => patchUser(id, { blocked: true })],
      ['off-now', (id: string) => patchUser(id, { status: 'off' })],
      ['draft-now', (id: string) => patchUser(id, { status: 'draft' })],
      ['trashed-now', (id: string) => s.request('DELETE', `/users/${id}`, { token: admin })],
      ['new-password', (id: string) => patchUser(id, { password: 'another-pass-2' })],
    ] as const) {
      const id = await makeUser(name);
      const a = await s.login(name, 'password-1');
      const b = await s.login(name, 'password-1');
      assert.equal((await s.request('GET', '/auth', { token: a.jwt })).status, 200);
      const ended = await end(id);
      assert.ok(ended.status < 300, ended.text);
      expectError(await s.request('GET', '/auth', { token: a.jwt }), 401);
      expectError(await s.request('GET', `/users/${id}`, { token: b.jwt }), 401);
      expectError(await s.request('POST', '/auth', { token: a.renew }), 401);
      expectError(await s.request('POST', '/auth', { token: b.renew }), 401);
    }
    // The one who changed the password logs in with the new one and works again.
    const fresh = await s.login('new-password', 'another-pass-2');
    assert.equal((await s.request('GET', '/auth', { token: fresh.jwt })).status, 200);
  });

  test('a stolen access token cannot change the email (nor the password) without the current password', async () => {
    const id = await makeUser('victim');
    const stolen = (await s.login('victim', 'password-1')).jwt;
    expectError(await patchUser(id, { email: 'attacker@example.com' }, stolen), 400, 'wrong_password');
    expectError(await patchUser(id, { email: 'attacker@example.com', old_password: 'guess' }, stolen), 400, 'wrong_password');
    expectError(await patchUser(id, { password: 'attacker-pass-1' }, stolen), 400, 'wrong_password');
    const read = await s.request('GET', `/users/${id}`, { token: admin });
    assert.equal(read.body.data.attributes.email, 'victim@example.com');
    // So /auth/change sends nothing to the attacker.
    const before = (await readOutbox(s.dataDir)).length;
    assert.equal((await s.request('POST', '/auth/change', { headers: json, body: { contact: 'attacker@example.com', change_url: 'http://x.test/change' } })).status, 202);
    await s.server.ctx.mailer.idle();
    assert.equal((await readOutbox(s.dataDir)).length, before);
    // With the current password the owner changes it.
    const ok = await patchUser(id, { email: 'victim2@example.com', old_password: 'password-1' }, stolen);
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.data.attributes.email, 'victim2@example.com');
    // An admin changing another user's email needs no password of theirs.
    assert.equal((await patchUser(id, { email: 'victim3@example.com' })).status, 200);
  });

  test('Admin, ADMIN, ａｄｍｉｎ and admin\\u200b are not new accounts; logins compare the same way', async () => {
    for (const username of ['Admin', 'ADMIN', 'ａｄｍｉｎ']) {
      expectError(await s.request('POST', '/users', { token: admin, body: userBody({ username, password: 'password-1' }) }), 400, 'username_taken');
    }
    for (const username of ['admin\u200b', 'ad min', 'admin\u0007', 'admin\u202e', '\u00a0admin']) {
      expectError(await s.request('POST', '/users', { token: admin, body: userBody({ username, password: 'password-1' }) }), 400);
    }
    await makeUser('Straße', { email: 'strasse@example.com' });
    expectError(await s.request('POST', '/users', { token: admin, body: userBody({ username: 'STRASSE', password: 'password-1' }) }), 400, 'username_taken');
    expectError(await s.request('POST', '/users', { token: admin, body: userBody({ username: 'other', password: 'password-1', email: 'BLOCKY@Example.com' }) }), 400, 'email_taken');
    await makeUser('mailcase', { email: 'Mixed.Case@Example.com' });
    expectError(await s.request('POST', '/users', { token: admin, body: userBody({ username: 'mailcase2', password: 'password-1', email: 'mixed.case@example.COM' }) }), 400, 'email_taken');
    assert.equal((await login('ADMIN', ADMIN.password)).status, 200);
    assert.equal((await login('strasse', 'password-1')).status, 200);
  });

  test('an attacker who signs up (FOLIO_SIGNUP=on, no FOLIO_SIGNUP_ROLES) reads no drafts, edits nothing, lists no emails', async () => {
    const t = await startServer({ FOLIO_SIGNUP: 'on' });
    try {
      const tAdmin = await t.adminToken();
      const draft = await t.request('POST', '/documents', { token: tAdmin, body: { data: { type: 'documents', attributes: { title: 'Draft', status: 'draft' } } } });
      const page = await t.request('POST', '/documents', { token: tAdmin, body: { data: { type: 'documents', attributes: { title: 'Page', status: 'on' } } } });
      const signup = await t.request('POST', '/signup', { headers: json, body: { username: 'mallory', password: 'password-1', email: 'm@example.com', activation_url: 'http://x.test/a' } });
      assert.equal(signup.status, 202, signup.text);
      const mail = await waitUntil(async () => (await readOutbox(t.dataDir))[0], 'the activation mail');
      assert.equal((await t.request('POST', '/signup/activation', { headers: json, body: { uuid: linkIn(mail).searchParams.get('uuid') } })).status, 202);
      const m = (await t.login('mallory', 'password-1')).jwt;
      expectError(await t.request('GET', `/documents/${draft.body.data.id}`, { token: m }), 404);
      const id = page.body.data.id;
      expectError(await t.request('PATCH', `/documents/${id}`, { token: m, body: { data: { id, type: 'documents', attributes: { title: 'Owned' } } } }), 403);
      expectError(await t.request('DELETE', `/documents/${id}`, { token: m }), 403);
      expectError(await t.request('GET', '/users', { token: m }), 403);
      expectError(await t.request('GET', '/users/1', { token: m }), 403);
      expectError(await t.request('GET', '/roles', { token: m }), 403);
      assert.equal((await t.request('GET', `/documents/${id}`, { token: tAdmin })).body.data.attributes.title, 'Page');
    } finally {
      await t.close();
    }
  });

  test('signup is off by default (403 signup_disabled); FOLIO_SIGNUP_ROLES are given on activation', async () => {
    const body = { username: 'newbie', password: 'password-1', email: 'n@example.com', activation_url: 'http://x.test/a' };
    expectError(await s.request('POST', '/signup', { headers: json, body }), 403, 'signup_disabled');
    expectError(await s.request('POST', '/signup/activation', { headers: json, body: { uuid: 'x' } }), 403, 'signup_disabled');
    assert.equal((await s.request('GET', '/users?filter[username]=newbie', { token: admin })).body.data.length, 0);
    const t = await startServer({ FOLIO_SIGNUP: 'on', FOLIO_SIGNUP_ROLES: 'members' });
    try {
      const tAdmin = await t.adminToken();
      await t.request('POST', '/roles', { token: tAdmin, body: { data: { type: 'roles', attributes: { name: 'members', permissions: { documents: ['read'] } } } } });
      assert.equal((await t.request('POST', '/signup', { headers: json, body })).status, 202);
      const mail = await waitUntil(async () => (await readOutbox(t.dataDir))[0], 'the activation mail');
      assert.equal((await t.request('POST', '/signup/activation', { headers: json, body: { uuid: linkIn(mail).searchParams.get('uuid') } })).status, 202);
      const me = await t.request('GET', '/auth?include=roles', { token: (await t.login('newbie', 'password-1')).jwt });
      assert.deepEqual(me.body.included.map((r: { attributes: { name: string } }) => r.attributes.name), ['members']);
    } finally {
      await t.close();
    }
  });

  test('FOLIO_MAIL_LIMIT: 30 /auth/change requests from one address send 10 mails, the rest get 429', async () => {
    const t = await startServer();
    try {
      const tAdmin = await t.adminToken();
      await t.request('POST', '/users', { token: tAdmin, body: userBody({ username: 'forgetful', password: 'password-1', email: 'f@example.com' }) });
      const answers = [];
      await awayFromWindowEdge(MAIL_WINDOW_MS);
      for (let i = 0; i < 30; i++) answers.push(await t.request('POST', '/auth/change', { headers: json, body: { contact: 'f@example.com', change_url: 'http://x.test/c' } }));
      assert.equal(answers.filter((a) => a.status === 202).length, 10);
      for (const a of answers.slice(10)) expectError(a, 429, 'too_many_requests');
      await t.server.ctx.mailer.idle();
      assert.equal((await readOutbox(t.dataDir)).length, 10);
    } finally {
      await t.close();
    }
  });

  test('FOLIO_LOGIN_LIMIT counts failed password logins only', async () => {
    const t = await startServer({ FOLIO_LOGIN_LIMIT: '3' });
    try {
      await awayFromWindowEdge(LOGIN_WINDOW_MS);
      // Successful logins, malformed requests and bad refresh tokens do not count.
      for (let i = 0; i < 5; i++) assert.equal((await t.request('POST', '/auth', { body: ADMIN, headers: json })).status, 200);
      for (let i = 0; i < 5; i++) expectError(await t.request('POST', '/auth', { body: { username: 'admin' }, headers: json }), 400);
      for (let i = 0; i < 5; i++) expectError(await t.request('POST', '/auth', { token: 'not-a-refresh-token' }), 401);
      for (let i = 0; i < 5; i++) expectError(await t.request('POST', '/auth', { body: { grant_type: 'client_credentials', client_id: 'x', client_secret: 'y' }, headers: json }), 401);
      for (let i = 0; i < 3; i++) expectError(await t.request('POST', '/auth', { body: { username: 'admin', password: `wrong-${i}` }, headers: json }), 401, 'login_failed');
      expectError(await t.request('POST', '/auth', { body: ADMIN, headers: json }), 429, 'too_many_requests');
      assert.equal((await t.request('GET', '/status')).status, 200);
    } finally {
      await t.close();
    }
  });

  test('POST /auth/change does the same work before answering for a known and an unknown contact: one queued job, no token', async () => {
    await makeUser('changer');
    const { db, jobs, mailer } = s.server.ctx;
    const tokens = async () => Number((await db.selectFrom('account_tokens').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    const lastJob = Number((await db.selectFrom('jobs').select((eb) => eb.fn.max('id').as('id')).executeTakeFirst())?.id ?? 0);
    const tokensBefore = await tokens();
    const mailsBefore = (await readOutbox(s.dataDir)).length;
    // The worker waits, so what the requests themselves did stays to be seen.
    await jobs.stop();
    try {
      for (const contact of ['changer@example.com', 'nobody-known@example.com']) {
        const r = await s.request('POST', '/auth/change', { headers: json, body: { contact, change_url: 'http://x.test/change' } });
        assert.equal(r.status, 202, r.text);
      }
      assert.equal(await tokens(), tokensBefore);
      const queued = await db.selectFrom('jobs').select('kind').where('id', '>', lastJob).orderBy('id').execute();
      assert.equal(queued.length, 2);
      assert.equal(queued[0].kind, queued[1].kind);
      assert.notEqual(queued[0].kind, 'mail');
    } finally {
      jobs.start();
    }
    await mailer.idle();
    const mails = await readOutbox(s.dataDir);
    assert.equal(mails.length, mailsBefore + 1);
    assert.equal(await tokens(), tokensBefore + 1);
  });

  test('of 60 parallel wrong logins from one address with FOLIO_LOGIN_LIMIT 20, exactly 20 are checked (401), the rest 429', async () => {
    const t = await startServer({ FOLIO_LOGIN_LIMIT: '20' });
    try {
      const adminOfT = await t.adminToken();
      const made = await t.request('POST', '/users', { token: adminOfT, body: userBody({ username: 'flooded', password: 'password-1' }) });
      assert.equal(made.status, 201, made.text);
      await awayFromWindowEdge(LOGIN_WINDOW_MS);
      // A right password gives its reserved hit back: these do not use up the allowance.
      for (let i = 0; i < 3; i++) assert.equal((await t.request('POST', '/auth', { body: ADMIN, headers: json })).status, 200);
      const tries = await Promise.all(
        Array.from({ length: 60 }, () => t.request('POST', '/auth', { body: { username: 'flooded', password: 'wrong-password' }, headers: json })),
      );
      const failed = tries.filter((r) => r.status === 401);
      for (const r of failed) expectError(r, 401, 'login_failed');
      for (const r of tries.filter((r) => r.status !== 401)) expectError(r, 429, 'too_many_requests');
      assert.equal(failed.length, 20);
      // Only the checked passwords count towards the user's lockout.
      const user = await t.request('GET', `/users/${made.body.data.id}`, { token: adminOfT });
      assert.equal(user.body.data.attributes.num_login_err, 20);
      expectError(await t.request('POST', '/auth', { body: ADMIN, headers: json }), 429, 'too_many_requests');
    } finally {
      await t.close();
    }
  });

  test('33,000 relationship ids, 10,001 operations identifiers or filter values give 400 too_many_identifiers, never a 500', async () => {
    const doc = await s.request('POST', '/documents', { token: admin, body: { data: { type: 'documents', attributes: { title: 'Many links' } } } });
    const id = doc.body.data.id;
    const many = Array.from({ length: 33_000 }, (_, i) => ({ type: 'documents', id: String(i + 1) }));
    for (const method of ['POST', 'PATCH', 'DELETE']) {
      expectError(await s.request(method, `/documents/${id}/relationships/see_also`, { token: admin, body: { data: many } }), 400, 'too_many_identifiers');
    }
    const ops = { 'atomic:operations': [{ op: 'add', ref: { type: 'documents', id, relationship: 'see_also' }, data: many.slice(0, 10_001) }] };
    expectError(await s.request('POST', '/operations', { token: admin, body: ops }), 400, 'too_many_identifiers');
    // A filter naming more than 10,000 values does not fit in the 16 KB of request headers: the
    // HTTP parser answers 431 first. Either way, no 500.
    const list = Array.from({ length: 10_001 }, (_, i) => i + 1).join(',');
    const filtered = await s.request('GET', `/objects?filter[id]=${list}`, { token: admin });
    assert.ok(filtered.status === 431 || filtered.body.error.code === 'too_many_identifiers', filtered.text);
    // 10,000 exactly is fine (an unknown related id is a 404 of its own, as JSON:API asks, not a database error).
    const r = await s.request('POST', `/documents/${id}/relationships/see_also`, { token: admin, body: { data: many.slice(0, 10_000) } });
    assert.equal(r.status, 404, r.text);
    assert.notEqual(r.body.error.code, 'too_many_identifiers');
  });

  test('a stream never linked to an object is deleted 24 hours after its upload', async () => {
    const up = await s.request('POST', '/streams/upload/lonely.png', { token: admin, raw: await tinyPng(11), headers: { 'Content-Type': 'image/png' } });
    const linked = await s.request('POST', '/images/upload/kept.png', { token: admin, raw: await tinyPng(12), headers: { 'Content-Type': 'image/png' } });
    const fresh = await s.request('POST', '/streams/upload/fresh.png', { token: admin, raw: await tinyPng(13), headers: { 'Content-Type': 'image/png' } });
    const old = new Date(Date.now() - 25 * 3600_000).toISOString().replace(/\.\d{3}Z$/, '+00:00');
    await s.server.ctx.db.updateTable('streams').set({ created: old }).where('uuid', 'in', [up.body.data.id, linked.body.included[0].id]).execute();
    await s.server.ctx.streams.purgeUnlinkedStreams();
    expectError(await s.request('GET', `/streams/${up.body.data.id}`, { token: admin }), 404);
    expectError(await s.request('GET', `/streams/download/${up.body.data.id}`, { token: admin }), 404);
    assert.equal((await s.request('GET', `/streams/${linked.body.included[0].id}`, { token: admin })).status, 200);
    assert.equal((await s.request('GET', `/streams/${fresh.body.data.id}`, { token: admin })).status, 200);
  });

  test('date and number filters compare dates and numbers; other values give 400', async () => {
    const prop = (name: string, type: string) =>
      s.request('POST', '/model/properties', { token: admin, body: { data: { type: 'properties', attributes: { name, property_type_name: type, object_type_name: 'events' } } } });
    assert.equal((await prop('score', 'number')).status, 201);
    assert.equal((await prop('starts', 'datetime')).status, 201);
    assert.equal((await prop('day', 'date')).status, 201);
    const mk = async (title: string, attributes: Record<string, unknown>) =>
      (await s.request('POST', '/events', { token: admin, body: { data: { type: 'events', attributes: { title, ...attributes } } } })).body.data.id as string;
    const a = await mk('a', { score: 9, starts: '2024-05-01T23:30:00-02:00', day: '2024-05-02' });
    const b = await mk('b', { score: 10.5, starts: '2024-05-02T00:30:00+00:00', day: '2024-05-10' });
    const c = await mk('c', { score: 100, starts: '2024-05-02T03:00:00+02:00', day: '2024-12-01' });
    const find = async (q: string) => {
      const r = await s.request('GET', `/events?${q}&sort=id`, { token: admin });
      assert.equal(r.status, 200, `${q}: ${r.text}`);
      return r.body.data.map((d: { id: string }) => d.id);
    };
    assert.deepEqual(await find('filter[score][gt]=10'), [b, c]);
    assert.deepEqual(await find('filter[score][lte]=9'), [a]);
    assert.deepEqual(await find('filter[score]=1e2'), [c]);
    // a starts at 01:30 UTC on the 2nd, b at 00:30, c at 01:00.
    assert.deepEqual(await find('filter[starts][gt]=2024-05-02T01:00:00Z'), [a]);
    assert.deepEqual(await find(`filter[starts][lte]=${encodeURIComponent('2024-05-02T03:00:00+02:00')}`), [b, c]);
    // An offset whose + was not encoded (it reads as a space) is still understood.
    assert.deepEqual(await find('filter[starts][lt]=2024-05-02T03:00:00+02:00'), [b]);
    assert.deepEqual(await find('filter[day][lt]=2024-05-10'), [a]);
    assert.deepEqual(await find('filter[day]=2024-05-10'), [b]);
    for (const q of ['filter[score][gt]=ten', 'filter[score]=0x10', 'filter[score][lt]=', 'filter[starts][gt]=soon', 'filter[starts]=5', 'filter[day]=2024-13-45', 'filter[created][gt]=yesterday']) {
      expectError(await s.request('GET', `/events?${q}`, { token: admin }), 400);
    }
  });
});
