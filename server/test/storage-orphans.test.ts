// The orphan sweep (resources/streams/orphans.ts): stored stream files and thumbnail folders that
// no stream row names are removed once older than a day, from the local folder and an S3 bucket
// (s3rver on loopback) alike; young ones (an upload between its put and its commit) and those a
// row names stay. The sweep is one queued job for every instance on the data, run by one of them.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createServer, type FolioServer } from '../src/app.js';
import { loadConfig, type Config } from '../src/config.js';
import { ORPHAN_AGE_MS, STORAGE_SWEEP_JOB, queueOrphanSweep, sweepOrphanedFiles } from '../src/resources/streams/orphans.js';
import { png } from './helpers/media-files.js';
import { putObject, startS3, type TestBucket } from './helpers/s3.js';
import { sameData, startServer, type TestServer } from './helpers/server.js';
import { letTimePass, waitUntil } from './helpers/wait.js';

const THUMB = `${'ab12'.repeat(6)}.png`;
const shard = (uuid: string) => uuid.slice(0, 2);

/** One storage under test: how to plant a file behind the server's back, and what is stored. */
interface Planter {
  plantStream(uuid: string): Promise<void>;
  plantThumb(uuid: string): Promise<void>;
  /** Uuids with a stored stream file / a thumbnail folder. */
  streams(): Promise<string[]>;
  thumbs(): Promise<string[]>;
}

function localPlanter(s: TestServer): Planter {
  const root = path.join(s.dataDir, 'files');
  const write = (file: string) => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, crypto.randomBytes(100));
  };
  const uuids = (family: string) =>
    fs.readdirSync(path.join(root, family)).flatMap((d) => fs.readdirSync(path.join(root, family, d))).sort();
  return {
    plantStream: async (uuid) => write(path.join(root, 'streams', shard(uuid), uuid)),
    plantThumb: async (uuid) => write(path.join(root, 'thumbs', shard(uuid), uuid, THUMB)),
    streams: async () => uuids('streams'),
    thumbs: async () => uuids('thumbs'),
  };
}

function bucketPlanter(bucket: TestBucket, prefix: string): Planter {
  const uuids = async (family: string) => [...new Set((await bucket.keys(`${prefix}/${family}/`)).map((k) => k.split('/')[3]))].sort();
  return {
    plantStream: (uuid) => putObject(bucket, `${prefix}/streams/${shard(uuid)}/${uuid}`, crypto.randomBytes(100)),
    plantThumb: (uuid) => putObject(bucket, `${prefix}/thumbs/${shard(uuid)}/${uuid}/${THUMB}`, crypto.randomBytes(100)),
    streams: () => uuids('streams'),
    thumbs: () => uuids('thumbs'),
  };
}

/**
 * Old orphans (a stream file with thumbnails, a thumbnail folder alone), then — after the cutoff
 * the sweep is given — young orphans; a stream uploaded through the API with a thumbnail is named
 * by its row. The sweep removes the old orphans only.
 */
async function sweepScenario(s: TestServer, planter: Planter) {
  const token = await s.adminToken();
  const upload = await s.request('POST', '/images/upload/kept.png', { token, raw: await png(64, 48), headers: { 'Content-Type': 'image/png' } });
  assert.equal(upload.status, 201, upload.text);
  const kept: string = upload.body.included[0].id;
  const thumb = await s.request('GET', `/media/thumbs/${upload.body.data.id}?preset=small`, { token });
  assert.equal(thumb.body.meta.thumbnails[0].ready, true, thumb.text);

  const oldOrphan = crypto.randomUUID();
  const oldThumbsOnly = crypto.randomUUID();
  await planter.plantStream(oldOrphan);
  await planter.plantThumb(oldOrphan);
  await planter.plantThumb(oldThumbsOnly);
  // Modification times may be kept in whole seconds: deliberate time on both sides of the cut-off.
  await letTimePass(1100);
  const cutoff = Date.now();
  await letTimePass(1100);
  const young = crypto.randomUUID();
  await planter.plantStream(young);
  await planter.plantThumb(young);

  const before = { streams: await planter.streams(), thumbs: await planter.thumbs() };
  assert.deepEqual(before.streams, [kept, oldOrphan, young].sort());
  assert.deepEqual(before.thumbs, [kept, oldOrphan, oldThumbsOnly, young].sort());

  const removed = await sweepOrphanedFiles(s.server.ctx, cutoff + ORPHAN_AGE_MS);
  assert.deepEqual(removed, { streams: 1, thumbs: 2 });
  assert.deepEqual(await planter.streams(), [kept, young].sort());
  assert.deepEqual(await planter.thumbs(), [kept, young].sort());
  // The stream a row names still downloads whole.
  const download = await s.request('GET', `/streams/download/${kept}`, { token });
  assert.equal(download.status, 200);
  // Nothing left to do: a second sweep removes nothing.
  assert.deepEqual(await sweepOrphanedFiles(s.server.ctx, cutoff + ORPHAN_AGE_MS), { streams: 0, thumbs: 0 });
}

describe('orphan sweep on local storage', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer();
  });
  after(async () => s?.close());

  test('old orphaned stream files and thumbnail folders go; young and named ones stay', async () => {
    await sweepScenario(s, localPlanter(s));
  });
});

describe('orphan sweep on S3 storage', () => {
  let bucket: TestBucket;
  let s: TestServer;
  const prefix = 'site-o';
  before(async () => {
    bucket = await startS3();
    s = await startServer(bucket.env(prefix));
  });
  after(async () => {
    await s?.close();
    await bucket?.close();
  });

  test('old orphaned objects go; young and named ones stay', async () => {
    await sweepScenario(s, bucketPlanter(bucket, prefix));
    assert.ok(!fs.existsSync(path.join(s.dataDir, 'files', 'streams')), 'nothing in the local folder');
  });
});

describe('the sweep as a job shared by the instances', () => {
  const FAST: Partial<Config> = { jobPollMs: 100 };
  let a: TestServer;
  /** A second server on a's database and data folder. */
  let b: FolioServer;
  before(async () => {
    a = await startServer({}, FAST);
    b = await createServer(loadConfig({ ...sameData(a), FOLIO_JWT_SECRET: a.server.ctx.jwtSecret }, { logRequests: false, ...FAST }), { log: () => {} });
  });
  after(async () => {
    await b?.close();
    await a?.close();
  });

  const sweeps = () => a.server.ctx.db.selectFrom('jobs').selectAll().where('kind', '=', STORAGE_SWEEP_JOB).execute();

  test('every instance queues the next sweep: one job, due at the next boundary', async () => {
    const now = Date.now();
    await Promise.all([queueOrphanSweep(a.server.ctx, now), queueOrphanSweep(b.ctx, now), queueOrphanSweep(a.server.ctx, now)]);
    const jobs = await sweeps();
    assert.equal(jobs.length, 1);
    assert.equal(jobs[0].state, 'pending');
    assert.ok(jobs[0].next_at > now && jobs[0].next_at <= now + 6 * 3600_000, `due within the interval: ${jobs[0].next_at - now} ms`);
  });

  test('when due, one instance runs it: a two-day-old orphan is removed, a fresh one stays', async () => {
    const planter = localPlanter(a);
    const old = crypto.randomUUID();
    const fresh = crypto.randomUUID();
    await planter.plantStream(old);
    await planter.plantStream(fresh);
    const twoDaysAgo = new Date(Date.now() - 2 * ORPHAN_AGE_MS);
    fs.utimesSync(path.join(a.dataDir, 'files', 'streams', shard(old), old), twoDaysAgo, twoDaysAgo);
    await a.server.ctx.db.updateTable('jobs').set({ next_at: Date.now() }).where('kind', '=', STORAGE_SWEEP_JOB).execute();
    a.server.ctx.jobs.wake();
    b.ctx.jobs.wake();
    await waitUntil(async () => ((await sweeps()).length === 0 ? true : undefined), 'the sweep job to be done');
    assert.deepEqual(await planter.streams(), [fresh]);
  });
});
