// Two Folio processes on one database and one bucket (s3rver on loopback), with the JWT secret the
// data keeps. In the PostgreSQL pass each process has a data folder of its own, as instances on
// different machines share no disk (the secret is then in the database); on SQLite the database
// file is in the data folder, so both share that folder, but the files are in the bucket all the
// same. A file uploaded on one is downloaded (Range) on the other; writes spread over both are
// read on the other at once; one is killed with SIGKILL mid-load and every acknowledged write is
// still there; the mail it was sending and the async thumbnail it had queued are done by the
// survivor once the dead one's lease runs out, the thumbnail put into the bucket and served.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import sharp from 'sharp';
import { startChildServer, type ChildServer } from './helpers/child-server.js';
import { connectOutside } from './helpers/outside.js';
import { startS3, type TestBucket } from './helpers/s3.js';
import { ADMIN } from './helpers/server.js';
import { recipients, startSmtp, type TestSmtp } from './helpers/smtp.js';
import { waitUntil } from './helpers/wait.js';
import { createTestDatabase, type TestDatabase } from './helpers/test-database.js';

const JSONAPI = { Accept: 'application/vnd.api+json', 'Content-Type': 'application/vnd.api+json' };

/** The survivor's data folder, and the victim's (the same one on SQLite). */
let dataDir: string;
let victimDir: string;
let bucket: TestBucket;
const PREFIX = 'site';
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
  victimDir = database ? fs.mkdtempSync(path.join(os.tmpdir(), 'folio-instances-')) : dataDir;
  smtp = await startSmtp();
  bucket = await startS3();
  // No FOLIO_JWT_SECRET: the instances agree through the secret the data keeps.
  const env = {
    FOLIO_SIGNUP: 'on',
    FOLIO_MAIL_LIMIT: '0',
    FOLIO_SMTP_URL: smtp.url,
    ...bucket.env(PREFIX),
    ...(database ? { FOLIO_DATABASE_URL: database.url } : {}),
  };
  survivor = await startChildServer(dataDir, env);
  victim = await startChildServer(victimDir, env);
});

after(async () => {
  await victim?.kill();
  await survivor?.stop();
  await smtp?.close();
  await bucket?.close();
  await database?.drop();
  for (const dir of new Set([dataDir, victimDir])) if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** Files under a data folder's local store (none: they are in the bucket). */
const localFiles = (dir: string) =>
  ['streams', 'thumbs'].flatMap((family) => {
    const root = path.join(dir, 'files', family);
    return fs.existsSync(root) ? (fs.readdirSync(root, { recursive: true }) as string[]).filter((f) => fs.statSync(path.join(root, f)).isFile()) : [];
  });

/** Bytes `start`…`end` of the stream `uuid` from the server at `base`, as a Range request. */
async function downloadRange(base: string, token: string, uuid: string, start: number, end: number) {
  const res = await fetch(`${base}/streams/download/${uuid}`, { headers: { Range: `bytes=${start}-${end}`, Authorization: `Bearer ${token}` } });
  return { status: res.status, contentRange: res.headers.get('content-range'), body: Buffer.from(await res.arrayBuffer()) };
}

test('a file uploaded on one instance is downloaded with a Range request on the other', async () => {
  const login = await call(victim.url, 'POST', '/auth', undefined, { username: ADMIN.username, password: ADMIN.password });
  assert.equal(login.status, 200, login.text);
  const bytes = crypto.randomBytes(300_000);
  const upload = await call(victim.url, 'POST', '/streams/upload/data.bin', login.body.meta.jwt, undefined, { data: bytes, type: 'application/octet-stream' });
  assert.equal(upload.status, 201, upload.text);
  const uuid: string = upload.body.data.id;
  assert.deepEqual(await bucket.keys(`${PREFIX}/streams/`), [`${PREFIX}/streams/${uuid.slice(0, 2)}/${uuid}`]);
  const part = await downloadRange(survivor.url, login.body.meta.jwt, uuid, 123_456, 200_000);
  assert.equal(part.status, 206);
  assert.equal(part.contentRange, `bytes 123456-200000/${bytes.length}`);
  assert.ok(part.body.equals(bytes.subarray(123_456, 200_001)), 'the bytes of the range');
  assert.deepEqual(localFiles(dataDir).concat(localFiles(victimDir)), [], 'no file in a local store');
  if (database) assert.ok(!fs.existsSync(path.join(dataDir, 'secret')) && !fs.existsSync(path.join(victimDir, 'secret')), 'the JWT secret is in the database');
});

test('two processes, one killed mid-load: nothing acknowledged is lost, its mail and thumbnail are done by the other', async () => {
  const login = await call(survivor.url, 'POST', '/auth', undefined, { username: ADMIN.username, password: ADMIN.password });
  assert.equal(login.status, 200, login.text);
  const token: string = login.body.meta.jwt;

  // A big image (64 Mpx, a solid colour: a small file) takes a while to thumbnail.
  const image = await sharp({ create: { width: 8000, height: 8000, channels: 3, background: '#3a7' } }).png().toBuffer();
  const upload = await call(survivor.url, 'POST', '/images/upload/big.png', token, undefined, { data: image, type: 'image/png' });
  assert.equal(upload.status, 201, upload.text);
  const imageId = upload.body.data.id;
  const imageUuid: string = upload.body.included[0].id;
  const head = await downloadRange(victim.url, token, imageUuid, 0, 7);
  assert.equal(head.status, 206, 'uploaded on the survivor, read on the victim');
  assert.ok(head.body.equals(image.subarray(0, 8)));

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
  await waitUntil(() => (acknowledged.size >= 60 ? true : undefined), 'the load to get going');
  const release = smtp.hold();
  const signup = await call(victim.url, 'POST', '/signup', undefined, { username: 'late', password: 'late-secret-1', email: 'late@example.com', activation_url: 'https://site.example/activate' });
  assert.equal(signup.status, 202, signup.text);
  await waitUntil(() => (smtp.held === 1 ? true : undefined), 'the victim to start sending the mail');
  // …and queues an async thumbnail, then dies (SIGKILL: no shutdown, no release of its jobs).
  const thumb = await call(victim.url, 'GET', `/media/thumbs/${imageId}?preset=async`, token);
  assert.equal(thumb.status, 200, thumb.text);
  assert.equal(thumb.body.meta.thumbnails[0].ready, false);
  await victim.kill();
  victimDead = true;
  await waitUntil(() => (smtp.dropped === 1 ? true : undefined), 'the SMTP server to see the victim gone');
  release();
  // The mail job is the victim's for sure (its SMTP answer was held): left behind, under its lease.
  // The thumbnail job is in the same queue, which the survivor polls too: on a busy machine the
  // survivor may take it first. Either way it must end done by the survivor (checked below).
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
  const activation = await smtp.waitFor((m) => recipients(m) === 'late@example.com');
  assert.match(activation.text ?? '', /https:\/\/site\.example\/activate\?uuid=/);
  const entry = await waitUntil(
    async () => {
      const e = (await call(survivor.url, 'GET', `/media/thumbs/${imageId}?preset=async`, token)).body.meta.thumbnails[0];
      return e.ready ? (e as { url: string }) : undefined;
    },
    'the thumbnail queued by the victim',
  );
  // The job is marked done after its work is visible (the file stored, the mail accepted): wait for the rows.
  await waitUntil(async () => ((await pendingJobs('thumbnail')) === 0 ? true : undefined), 'the thumbnail job to be done');
  await waitUntil(async () => ((await pendingJobs('mail')) === 0 ? true : undefined), 'the mail job to be done');
  // The survivor rendered it into the bucket, and serves it from there.
  const name = entry.url.split('/').pop()!;
  assert.deepEqual(await bucket.keys(`${PREFIX}/thumbs/`), [`${PREFIX}/thumbs/${imageUuid.slice(0, 2)}/${imageUuid}/${name}`]);
  assert.ok(entry.url.startsWith(survivor.url), entry.url);
  const served = await fetch(entry.url, { headers: { Authorization: `Bearer ${token}` } });
  assert.equal(served.status, 200);
  const meta = await sharp(Buffer.from(await served.arrayBuffer())).metadata();
  assert.deepEqual([meta.width, meta.height], [600, 600], 'the async preset: within 800×600');
  assert.deepEqual(localFiles(dataDir).concat(localFiles(victimDir)), [], 'no file in a local store');
});
