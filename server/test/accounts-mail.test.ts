// Accounts by mail: signup and activation, credential change, through a real SMTP server on
// loopback and through the outbox of a default start; the mail queue's retries and shutdown.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createServer, type FolioServer } from '../src/app.js';
import { inTransaction } from '../src/resources/objects/pipeline.js';
import { loadConfig } from '../src/config.js';
import { expectError, sameData, startServer, type TestServer } from './helpers/server.js';
import { createTestDatabase } from './helpers/test-database.js';
import { linkIn, readOutbox, recipients, startSmtp, type TestSmtp } from './helpers/smtp.js';
import { connectOutside } from './helpers/outside.js';
import { waitUntil } from './helpers/wait.js';

const json = { 'Content-Type': 'application/json', Accept: 'application/json' };

describe('signup and credential change over SMTP', () => {
  let smtp: TestSmtp;
  let s: TestServer;
  before(async () => {
    smtp = await startSmtp();
    s = await startServer({ FOLIO_SIGNUP: 'on', FOLIO_MAIL_LIMIT: '0', FOLIO_SMTP_URL: smtp.url, FOLIO_MAIL_FROM: 'folio@example.org' }, { mailRetryDelaysMs: [50, 50] });
  });
  after(async () => {
    await s.close();
    await smtp.close();
  });

  const signup = (fields: Record<string, unknown>) =>
    s.request('POST', '/signup', {
      headers: json,
      body: { password: 'secret-pass-1', activation_url: 'https://site.example/activate', ...fields },
    });

  test('done when: sign up, activate from the mail, log in, forget the password, change it from the mail, log in with it', async () => {
    const res = await signup({ username: 'nina', email: 'nina@example.com', redirect_url: 'https://site.example/welcome?x=1' });
    assert.equal(res.status, 202, res.text);
    assert.equal(res.body.data.type, 'users');
    assert.equal(res.body.data.attributes.status, 'draft');
    assert.equal(res.body.data.meta.verified, null);
    assert.equal(res.body.data.meta.blocked, false);
    assert.ok(!res.text.includes('secret-pass-1'));

    // Before activation the account cannot log in.
    expectError(await s.request('POST', '/auth', { body: { username: 'nina', password: 'secret-pass-1' } }), 401, 'login_failed');

    const activation = await smtp.waitFor((m) => recipients(m).includes('nina@example.com') && /Activate/.test(m.subject ?? ''));
    assert.equal(activation.from?.value[0].address, 'folio@example.org');
    assert.ok(activation.text && activation.html, 'a text and an HTML part');
    const link = linkIn(activation);
    assert.equal(`${link.origin}${link.pathname}`, 'https://site.example/activate');
    assert.equal(link.searchParams.get('redirect_url'), 'https://site.example/welcome?x=1');
    const uuid = link.searchParams.get('uuid')!;
    assert.match(uuid, /^[0-9a-f-]{36}$/);
    assert.ok((activation.html as string).includes(`uuid=${uuid}`));

    const activated = await s.request('POST', '/signup/activation', { headers: json, body: { uuid } });
    assert.equal(activated.status, 202);
    assert.equal(activated.text, '');
    expectError(await s.request('POST', '/signup/activation', { headers: json, body: { uuid } }), 400, 'invalid_uuid');

    const first = await s.login('nina', 'secret-pass-1');
    const me = await s.request('GET', '/auth', { token: first.jwt });
    assert.equal(me.body.data.attributes.status, 'on');
    assert.ok(me.body.data.meta.verified);
    const roles = await s.request('GET', `/users/${me.body.data.id}/roles`, { token: first.jwt });
    assert.deepEqual(roles.body.data, [], 'a signed-up user has no role');

    const asked = await s.request('POST', '/auth/change', { headers: json, body: { contact: 'NINA@example.com', change_url: 'https://site.example/change' } });
    assert.equal(asked.status, 202);
    const change = await smtp.waitFor((m) => /password/i.test(m.subject ?? '') && recipients(m).includes('nina@example.com'));
    assert.ok(change.text && change.html);
    const changeLink = linkIn(change);
    assert.equal(`${changeLink.origin}${changeLink.pathname}`, 'https://site.example/change');
    assert.deepEqual([...changeLink.searchParams.keys()], ['uuid']);

    const changed = await s.request('PATCH', '/auth/change', {
      headers: json,
      body: { uuid: changeLink.searchParams.get('uuid'), password: 'brand-new-pass-2', login: true },
    });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.body.data.attributes.username, 'nina');
    assert.ok(changed.body.meta.jwt && changed.body.meta.renew);
    assert.equal((await s.request('GET', '/auth', { token: changed.body.meta.jwt })).status, 200);
    // The old refresh token died with the old password; the old password no longer works.
    expectError(await s.request('POST', '/auth', { token: first.renew }), 401);
    expectError(await s.request('POST', '/auth', { body: { username: 'nina', password: 'secret-pass-1' } }), 401, 'login_failed');
    assert.ok((await s.login('nina', 'brand-new-pass-2')).jwt);
    // Single use.
    expectError(
      await s.request('PATCH', '/auth/change', { headers: json, body: { uuid: changeLink.searchParams.get('uuid'), password: 'another-pass-3' } }),
      400,
      'invalid_uuid',
    );
  });

  test('signup refuses a used username or email, missing fields and bad links (400), and creates nothing', async () => {
    assert.equal((await signup({ username: 'omar', email: 'omar@example.com' })).status, 202);
    expectError(await signup({ username: 'omar', email: 'other@example.com' }), 400, 'username_taken');
    expectError(await signup({ username: 'omar2', email: 'Omar@Example.com' }), 400, 'email_taken');
    expectError(await signup({ username: 'omar3' }), 400);
    expectError(await signup({ username: 'omar3', email: 'omar3@example.com', activation_url: undefined }), 400);
    expectError(await signup({ username: 'omar3', email: 'omar3@example.com', activation_url: 'javascript:alert(1)' }), 400);
    expectError(await signup({ username: 'omar3', email: 'omar3@example.com', password: 'short' }), 400);
    expectError(await signup({ username: 'omar3', email: 'omar3@example.com', roles: ['admin'] }), 400);
    const admin = await s.adminToken();
    const list = await s.request('GET', '/users?filter[username]=omar2,omar3', { token: admin });
    assert.equal(list.body.meta.pagination.count, 0);
  });

  test('activation with an unknown, missing or expired uuid gives 400 invalid_uuid', async () => {
    expectError(await s.request('POST', '/signup/activation', { headers: json, body: { uuid: '00000000-0000-4000-8000-000000000000' } }), 400, 'invalid_uuid');
    expectError(await s.request('POST', '/signup/activation', { headers: json, body: {} }), 400, 'invalid_uuid');
    assert.equal((await signup({ username: 'pia', email: 'pia@example.com' })).status, 202);
    const mail = await smtp.waitFor((m) => recipients(m).includes('pia@example.com'));
    // 24 hours pass.
    await s.server.ctx.db.updateTable('account_tokens').set({ expires: '2000-01-01T00:00:00+00:00' }).execute();
    expectError(await s.request('POST', '/signup/activation', { headers: json, body: { uuid: linkIn(mail).searchParams.get('uuid') } }), 400, 'invalid_uuid');
    expectError(await s.request('POST', '/auth', { body: { username: 'pia', password: 'secret-pass-1' } }), 401, 'login_failed');
  });

  test('one activation uuid used by parallel requests activates exactly once', async () => {
    assert.equal((await signup({ username: 'vera', email: 'vera@example.com' })).status, 202);
    const uuid = linkIn(await smtp.waitFor((m) => recipients(m).includes('vera@example.com'))).searchParams.get('uuid');
    const results = await Promise.all(Array.from({ length: 5 }, () => s.request('POST', '/signup/activation', { headers: json, body: { uuid } })));
    assert.deepEqual(results.map((r) => r.status).sort(), [202, 400, 400, 400, 400]);
  });

  test('POST /auth/change answers 202 for an unknown contact and sends nothing; bad bodies give 400', async () => {
    const before = smtp.attempts;
    const res = await s.request('POST', '/auth/change', { headers: json, body: { contact: 'nobody@example.com', change_url: 'https://site.example/change' } });
    assert.equal(res.status, 202);
    await s.server.ctx.mailer.idle();
    assert.equal(smtp.attempts, before);
    expectError(await s.request('POST', '/auth/change', { headers: json, body: { contact: 'nina@example.com' } }), 400);
    expectError(await s.request('POST', '/auth/change', { headers: json, body: { change_url: 'https://site.example/change' } }), 400);
    expectError(await s.request('PATCH', '/auth/change', { headers: json, body: { uuid: 'nope', password: 'long-enough-1' } }), 400, 'invalid_uuid');
    expectError(await s.request('PATCH', '/auth/change', { headers: json, body: { password: 'long-enough-1' } }), 400, 'invalid_uuid');
  });

  test('a refused delivery (SMTP 451) is retried and arrives; a permanent refusal (550) is not retried', async () => {
    smtp.refuseNext.push(451);
    assert.equal((await signup({ username: 'quinn', email: 'quinn@example.com' })).status, 202);
    await smtp.waitFor((m) => recipients(m).includes('quinn@example.com'));

    const mailer = s.server.ctx.mailer;
    await mailer.idle();
    const attemptsBefore = smtp.attempts;
    smtp.refuseNext.push(550);
    assert.equal((await signup({ username: 'rita', email: 'rita@example.com' })).status, 202);
    await mailer.idle();
    assert.equal(smtp.attempts, attemptsBefore + 1);
    assert.ok(!smtp.received.some((m) => recipients(m).includes('rita@example.com')));
  });
});

describe('mail on a default start (outbox)', () => {
  test('without FOLIO_SMTP_URL each mail is an .eml file in the outbox; its link activates the account', async () => {
    const s = await startServer({ FOLIO_SIGNUP: 'on' });
    try {
      const res = await s.request('POST', '/signup', {
        headers: json,
        body: { username: 'sam', password: 'secret-pass-1', email: 'sam@example.com', activation_url: 'http://127.0.0.1:9/activate' },
      });
      assert.equal(res.status, 202);
      const [mail] = await waitUntil(async () => {
        const mails = await readOutbox(s.dataDir);
        return mails.length ? mails : undefined;
      }, 'the outbox file');
      assert.equal(recipients(mail), 'sam@example.com');
      assert.equal(mail.from?.value[0].address, 'folio@localhost');
      assert.ok(mail.text && mail.html);
      const uuid = linkIn(mail).searchParams.get('uuid');
      assert.equal((await s.request('POST', '/signup/activation', { headers: json, body: { uuid } })).status, 202);
      assert.ok((await s.login('sam', 'secret-pass-1')).jwt);
    } finally {
      await s.close();
    }
  });

  test('an SMTP server that holds or refuses never delays nor fails the request; close() does not wait out a retry delay', async () => {
    const smtp = await startSmtp();
    // An hour between tries: a close() that waited for the retry would hang the run (the runner's
    // hang guard fails it), not merely be slow.
    const s = await startServer({ FOLIO_SIGNUP: 'on', FOLIO_SMTP_URL: smtp.url }, { mailRetryDelaysMs: [3_600_000] });
    const jobs = () => s.server.ctx.db.selectFrom('jobs').selectAll().where('kind', '=', 'mail').execute();
    try {
      // The SMTP server holds its answer: the request is answered while the mail is still unsent.
      const release = smtp.hold();
      const res = await s.request('POST', '/signup', {
        headers: json,
        body: { username: 'tom', password: 'secret-pass-1', email: 'tom@example.com', activation_url: 'https://site.example/a' },
      });
      assert.equal(res.status, 202);
      assert.equal(smtp.received.length, 0, 'answered before the mail was delivered');
      // Refused for now (4xx): the job waits for its retry, an hour away.
      smtp.refuseNext.push(451);
      release();
      await waitUntil(async () => ((await jobs())[0]?.attempts === 1 ? true : undefined), 'the refused attempt');
      await s.server.close();
      // Closed without waiting for the retry: the mail is still queued, tried once, for the next start.
      const outside = await connectOutside(s);
      const left = await outside.all<{ state: string; attempts: number }>("select state, attempts from jobs where kind = 'mail'");
      await outside.close();
      assert.deepEqual(left.map((j) => [j.state, Number(j.attempts)]), [['pending', 1]]);
      assert.equal(smtp.received.length, 0);
    } finally {
      await s.close();
      await smtp.close();
    }
  });
});

describe('the mail queue', () => {
  test('a failure is logged: each retry, then the give-up', async () => {
    const smtp = await startSmtp();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-mail-'));
    const database = await createTestDatabase();
    const lines: string[] = [];
    const env = { FOLIO_DATA_DIR: dir, FOLIO_ADMIN_PASSWORD: 'admin-secret-1', FOLIO_SMTP_URL: smtp.url, ...(database ? { FOLIO_DATABASE_URL: database.url } : {}) };
    const server = await createServer(loadConfig(env, { logRequests: false, mailRetryDelaysMs: [10] }), { log: (l) => lines.push(l) });
    try {
      smtp.refuseNext.push(451, 451);
      await server.ctx.mailer.send({ to: 'x@example.com', subject: 'Hi', text: 'text', html: '<p>html</p>' });
      await server.ctx.mailer.idle();
      assert.equal(smtp.attempts, 2);
      assert.equal(smtp.received.length, 0);
      const mailLines = lines.filter((l) => l.startsWith('mail "Hi" to x@example.com'));
      assert.match(mailLines[0], /failed \(attempt 1\), retrying in 10 ms/);
      assert.match(mailLines[1], /not done, giving up after 2 attempt/);
      // Given up: kept for a while as failed, without the message (it may hold a sign-up link).
      const failed = await server.ctx.db.selectFrom('jobs').selectAll().where('kind', '=', 'mail').execute();
      assert.deepEqual(failed.map((j) => [j.state, j.attempts, j.payload]), [['failed', 2, null]]);
    } finally {
      await server.close();
      await smtp.close();
      await database?.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a mail queued in a transaction that rolls back is never sent', async () => {
    const smtp = await startSmtp();
    const s = await startServer({ FOLIO_SMTP_URL: smtp.url });
    try {
      const { ctx } = s.server;
      await assert.rejects(
        inTransaction(ctx, undefined, async (trx) => {
          await ctx.mailer.send({ to: 'ghost@example.com', subject: 'Never', text: 't', html: '<p>h</p>' }, trx);
          throw new Error('the write fails after queuing its mail');
        }),
        /the write fails/,
      );
      await inTransaction(ctx, undefined, (trx) => ctx.mailer.send({ to: 'kept@example.com', subject: 'Kept', text: 't', html: '<p>h</p>' }, trx));
      await smtp.waitFor((m) => recipients(m) === 'kept@example.com');
      await ctx.mailer.idle();
      assert.deepEqual(smtp.received.map(recipients), ['kept@example.com']);
      assert.equal(smtp.attempts, 1);
    } finally {
      await s.close();
      await smtp.close();
    }
  });

  test('a mail waiting for a retry when the server stops is delivered after the next start', async () => {
    const down = await startSmtp();
    const url = down.url;
    await down.close(); // nothing listens there now
    const first = await startServer({ FOLIO_SMTP_URL: url }, { mailRetryDelaysMs: [60_000] });
    let second: FolioServer | null = null;
    const smtp = await startSmtp();
    try {
      await first.server.ctx.mailer.send({ to: 'later@example.com', subject: 'Later', text: 't', html: '<p>h</p>' });
      const jobs = () => first.server.ctx.db.selectFrom('jobs').selectAll().execute();
      await waitUntil(async () => ((await jobs())[0]?.attempts === 1 ? true : undefined), 'the first attempt');
      await first.server.close();
      // The next start (here with a reachable SMTP server), once the retry is due.
      second = await createServer(loadConfig({ ...sameData(first), FOLIO_SMTP_URL: smtp.url }, { logRequests: false }), { log: () => {} });
      await second.ctx.db.updateTable('jobs').set({ next_at: Date.now() }).execute();
      second.ctx.jobs.wake();
      await smtp.waitFor((m) => recipients(m) === 'later@example.com');
      await second.ctx.mailer.idle();
      assert.equal(smtp.received.length, 1);
    } finally {
      await second?.close();
      await first.close();
      await smtp.close();
    }
  });

  test('closing the server delivers what is still queued (outbox)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-mail-'));
    try {
      const server = await createServer(loadConfig({ FOLIO_DATA_DIR: dir, FOLIO_ADMIN_PASSWORD: 'admin-secret-1' }, { logRequests: false }), { log: () => {} });
      const { url } = await server.listen(0, '127.0.0.1');
      const res = await fetch(`${url}/auth/change`, { method: 'POST', headers: json, body: JSON.stringify({ contact: 'nobody@example.com', change_url: 'https://x.example/c' }) });
      assert.equal(res.status, 202);
      await server.ctx.mailer.send({ to: 'late@example.com', subject: 'Late', text: 't', html: '<p>h</p>' });
      await server.close();
      const mails = await readOutbox(dir);
      assert.deepEqual(mails.map(recipients), ['late@example.com']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
