// Two Folio processes on one database (in the PostgreSQL pass one PostgreSQL database; on SQLite
// one file, shared by both processes) and one data folder, with the JWT secret the data keeps:
// writes spread over both are read on the other at once; one is killed with SIGKILL mid-load and
// every acknowledged write is still there; the mail it was sending and the async thumbnail it
// had queued are done by the survivor once the dead one's lease runs out.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import sharp from 'sharp';
import { startChildServer, type ChildServer } from './helpers/child-server.js';
import { connectOutside } from './helpers/outside.js';
import { ADMIN } from './helpers/server.js';
import { recipients, startSmtp, waitUntil, type TestSmtp } from './helpers/smtp.js';
import { createTestDatabase, type TestDatabase } from './helpers/test-database.js';

const JSONAPI = { Accept: 'application/vnd.api+json', 'Content-Type': 'application/vnd.api+json' };

let dataDir: string;
let database: TestDatabase | null;
let smtp: TestSmtp;
let survivor: ChildServer;
let victim: ChildServer;

async function call(base: string, method: string, p: string, token?: string, body?: unknown, raw?: { data: Buffer; type: string }) {
  const headers: Record<string, string> = { ...JSONAPI, ...(token ? { Authorization: `Bearer ${token}` } : {}) };
  if (raw) headers['Content-Type'] = raw.type;
  const res = await fetch(base + p, { method, headers, body: raw ? new Uint8Array(raw.data) : body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, text };
}

/** Pending jobs of `kind`, read straight from the shared database. */
async function pendingJobs(kind: string): Promise<number> {
  const outside = await connectOutside({ dataDir, databaseUrl: database?.url ?? null }, { readonly: true });
  try {
    const [row] = await outside.all<{ n: number }>("select count(*) as n from jobs where kind = ? and state = 'pending'", [kind]);
    return Number(row.n);
  } finally {
    await outside.close();
  }
}

before(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-instances-'));
  database = await createTestDatabase();
  smtp = await startSmtp();
  // No FOLIO_JWT_SECRET: the instances agree through the secret the data keeps.
  const env = { FOLIO_SIGNUP: 'on', FOLIO_MAIL_LIMIT: '0', FOLIO_SMTP_URL: smtp.url, ...(database ? { FOLIO_DATABASE_URL: database.url } : {}) };
  survivor = await startChildServer(dataDir, env);
  victim = await startChildServer(dataDir, env);
});

after(async () => {
  await victim?.kill();
  await survivor?.stop();
  await smtp?.close();
  await database?.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test('two processes, one killed mid-load: nothing acknowledged is lost, its mail and thumbnail are done by the other', { timeout: 60_000 }, async () => {
  const login = await call(survivor.url, 'POST', '/auth', undefined, { username: ADMIN.username, password: ADMIN.password });
  assert.equal(login.status, 200, login.text);
  const token: string = login.body.meta.jwt;

  // A big image (64 Mpx, a solid colour: a small file) takes a while to thumbnail.
  const image = await sharp({ create: { width: 8000, height: 8000, channels: 3, background: '#3a7' } }).png().toBuffer();
  const upload = await call(survivor.url, 'POST', '/images/upload/big.png', token, undefined, { data: image, type: 'image/png' });
  assert.equal(upload.status, 201, upload.text);
  const imageId = upload.body.data.id;

  let victimDead = false;
  const acknowledged = new Map<string, string>();
  let readBack = 0;
  /** A writer: creates documents alternately on both, reading each on the other process at once. */
  const writer = async (w: number) => {
    for (let i = 0; i < 40; i++) {
      const onVictim = (i + w) % 2 === 1 && !victimDead;
      const [here, there] = onVictim ? [victim, survivor] : [survivor, victim];
      const title = `w${w}-${i}`;
      const res = await call(here.url, 'POST', '/documents', token, { data: { type: 'documents', attributes: { title, status: 'on' } } }).catch(() => null);
      if (!res) continue; // the victim died under the request: not acknowledged
      assert.equal(res.status, 201, res.text);
      acknowledged.set(res.body.data.id, title);
      if (victimDead && there === victim) continue;
      const read = await call(there.url, 'GET', `/documents/${res.body.data.id}`).catch(() => null);
      if (!read) continue; // the victim died meanwhile
      assert.equal(read.status, 200, `a write on one is read on the other at once: ${read.text}`);
      assert.equal(read.body.data.attributes.title, title);
      readBack++;
    }
  };
  const load = Promise.all(Array.from({ length: 6 }, (_, w) => writer(w)));

  // Mid-load, the victim queues a mail and starts sending it; the SMTP server holds the answer.
  await waitUntil(() => (acknowledged.size >= 60 ? true : undefined), 20_000, 'the load to get going');
  const release = smtp.hold();
  const signup = await call(victim.url, 'POST', '/signup', undefined, { username: 'late', password: 'late-secret-1', email: 'late@example.com', activation_url: 'https://site.example/activate' });
  assert.equal(signup.status, 202, signup.text);
  await waitUntil(() => (smtp.held === 1 ? true : undefined), 10_000, 'the victim to start sending the mail');
  // …and queues an async thumbnail, then dies (SIGKILL: no shutdown, no release of its jobs).
  const thumb = await call(victim.url, 'GET', `/media/thumbs/${imageId}?preset=async`, token);
  assert.equal(thumb.status, 200, thumb.text);
  assert.equal(thumb.body.meta.thumbnails[0].ready, false);
  await victim.kill();
  victimDead = true;
  const killedAt = Date.now();
  await waitUntil(() => (smtp.dropped === 1 ? true : undefined), 5000, 'the SMTP server to see the victim gone');
  release();
  assert.equal(await pendingJobs('thumbnail'), 1, 'the thumbnail job was left behind by the victim');
  assert.equal(await pendingJobs('mail'), 1, 'the mail job was left behind by the victim');

  await load;
  assert.ok(readBack >= 50, `writes were read back on the other process (${readBack})`);
  assert.ok(acknowledged.size > 100, `a load of writes was acknowledged (${acknowledged.size})`);
  // Every acknowledged write is there, on the survivor.
  const ids = [...acknowledged.keys()];
  for (let i = 0; i < ids.length; i += 20) {
    const reads = await Promise.all(ids.slice(i, i + 20).map((id) => call(survivor.url, 'GET', `/documents/${id}`)));
    reads.forEach((r, j) => {
      assert.equal(r.status, 200, `acknowledged document ${ids[i + j]} is there`);
      assert.equal(r.body.data.attributes.title, acknowledged.get(ids[i + j]));
    });
  }

  // The survivor takes the dead one's jobs over when their lease runs out.
  const activation = await smtp.waitFor((m) => recipients(m) === 'late@example.com', 30_000);
  assert.match(activation.text ?? '', /https:\/\/site\.example\/activate\?uuid=/);
  await waitUntil(
    async () => ((await call(survivor.url, 'GET', `/media/thumbs/${imageId}?preset=async`, token)).body.meta.thumbnails[0].ready ? true : undefined),
    30_000,
    'the thumbnail queued by the victim',
  );
  assert.equal(await pendingJobs('thumbnail'), 0);
  assert.equal(await pendingJobs('mail'), 0);
  assert.ok(Date.now() - killedAt < 30_000);
});
