// The job queue in the database (jobs/queue.ts), with two servers on one database (SQLite: one
// file; in the PostgreSQL pass, one database): every job is done once by one of them; a job held
// by an instance that died is taken over when its lease runs out; a server that stops releases
// the job it runs; async thumbnails are one job per (stream, options) whichever instance asks.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createServer, type FolioServer } from '../src/app.js';
import { loadConfig, type Config } from '../src/config.js';
import { nowIso } from '../src/db/time.js';
import { png } from './helpers/media-files.js';
import { sameData, startServer, type TestServer } from './helpers/server.js';
import { readOutbox, recipients, startSmtp } from './helpers/smtp.js';
import { waitUntil } from './helpers/wait.js';

const FAST: Partial<Config> = { jobPollMs: 100, jobLeaseMs: 600, mailRetryDelaysMs: [50] };

/** A second server on `a`'s database and data folder. */
async function another(a: TestServer, env: Record<string, string> = {}, overrides: Partial<Config> = {}): Promise<{ server: FolioServer; url: string }> {
  const server = await createServer(loadConfig({ ...sameData(a), FOLIO_JWT_SECRET: a.server.ctx.jwtSecret, ...env }, { logRequests: false, ...FAST, ...overrides }), {
    log: () => {},
  });
  return { server, url: (await server.listen(0, '127.0.0.1')).url };
}

const mail = (n: number) => ({ to: `user${n}@example.com`, subject: `Mail ${n}`, text: 't', html: '<p>h</p>' });

describe('the job queue on two servers', () => {
  let a: TestServer;
  let b: { server: FolioServer; url: string };
  before(async () => {
    a = await startServer({}, FAST);
    b = await another(a);
  });
  after(async () => {
    await b.server.close();
    await a.close();
  });

  test('mail queued on both servers is delivered once each (outbox)', async () => {
    const sends = Array.from({ length: 40 }, (_, i) => (i % 2 ? a.server : b.server).ctx.mailer.send(mail(i)));
    await Promise.all(sends);
    await a.server.ctx.mailer.idle();
    await b.server.ctx.mailer.idle();
    const mails = await readOutbox(a.dataDir);
    assert.deepEqual(mails.map(recipients).sort(), Array.from({ length: 40 }, (_, i) => `user${i}@example.com`).sort());
    assert.equal((await a.server.ctx.db.selectFrom('jobs').select('id').execute()).length, 0, 'done jobs are deleted');
  });

  test('a job claimed by an instance that died is taken over once its lease runs out', async () => {
    // What a killed instance leaves behind: a job it claimed, its lease still running.
    const leaseUntil = Date.now() + 700;
    await a.server.ctx.db
      .insertInto('jobs')
      .values({ kind: 'mail', payload: JSON.stringify(mail(99)), dedupe_key: null, state: 'pending', created: nowIso(), next_at: Date.now() - 1000, lease_until: leaseUntil, lease_owner: 'a-dead-instance' })
      .execute();
    a.server.ctx.jobs.wake();
    b.server.ctx.jobs.wake();
    const [done] = await waitUntil(async () => {
      const mails = (await readOutbox(a.dataDir)).filter((m) => recipients(m) === 'user99@example.com');
      return mails.length ? mails : undefined;
    }, 'the mail of the dead instance');
    assert.ok(done.date && done.date.getTime() >= leaseUntil - 1000, 'not before the lease ran out');
    assert.ok(Date.now() >= leaseUntil);
    await a.server.ctx.mailer.idle();
    assert.equal((await readOutbox(a.dataDir)).filter((m) => recipients(m) === 'user99@example.com').length, 1);
  });

  test('an async thumbnail asked on both servers at once is one job, rendered once, ready on both', async () => {
    const token = await a.adminToken();
    const pic = await png(1200, 600);
    const up = await a.request('POST', '/images/upload/wide.png', { token, raw: pic, headers: { 'Content-Type': 'image/png' } });
    assert.equal(up.status, 201, up.text);
    const id = up.body.data.id;
    const ask = (url: string) =>
      fetch(`${url}/media/thumbs/${id}?preset=async`, { headers: { Authorization: `Bearer ${token}`, Accept: 'application/vnd.api+json' } }).then(async (r) => {
        assert.equal(r.status, 200);
        return (await r.json()).meta.thumbnails[0] as { ready: boolean; url: string };
      });
    const first = await Promise.all(Array.from({ length: 6 }, (_, i) => ask(i % 2 ? a.url : b.url)));
    assert.ok(first.every((t) => t.url.endsWith(first[0].url.slice(first[0].url.indexOf('/media/thumbs/')))));
    const jobs = await a.server.ctx.db.selectFrom('jobs').selectAll().where('kind', '=', 'thumbnail').execute();
    assert.ok(jobs.length <= 1, `one pending job at most, got ${jobs.length}`);
    for (const url of [a.url, b.url]) await waitUntil(async () => ((await ask(url)).ready ? true : undefined), 'the async thumbnail');
    const thumb = await fetch(first[0].url, { headers: { Authorization: `Bearer ${token}` } });
    assert.equal(thumb.status, 200);
    assert.equal(thumb.headers.get('content-type'), 'image/png');
  });
});

describe('stopping a server with a job under way', () => {
  test('the job is released at the end of the grace time and another instance does it', async () => {
    const smtp = await startSmtp();
    const a = await startServer({ FOLIO_SMTP_URL: smtp.url }, { ...FAST, jobShutdownGraceMs: 300 });
    let b: { server: FolioServer; url: string } | null = null;
    try {
      const release = smtp.hold();
      await a.server.ctx.mailer.send(mail(1));
      await waitUntil(() => (smtp.held === 1 ? true : undefined), 'the delivery to start');
      // The SMTP server answers only after release(): a stop that waited for the job to end would
      // never return (the runner's hang guard fails it); it returns after its grace time instead.
      await a.server.close();
      assert.equal(smtp.received.length, 0, 'the job was still under way when the server stopped');
      release();
      // The next instance finds the job released (not leased, attempt not counted) and sends it.
      b = await another(a, { FOLIO_SMTP_URL: smtp.url });
      await smtp.waitFor((m) => recipients(m) === 'user1@example.com');
      await b.server.ctx.mailer.idle();
    } finally {
      await b?.server.close();
      await a.close();
      await smtp.close();
    }
  });
});
