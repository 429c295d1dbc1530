// Media thumbnails: presets with their real pixel sizes, EXIF rotation, the async flow, files
// that cannot be thumbnailed, errors, visibility, and free options behind FOLIO_THUMBS_ALLOW_ANY.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { expectError, startServer, type TestServer } from './helpers/server.js';
import { bombPng, corruptJpeg, png, rotatedJpeg, textFile } from './helpers/media-files.js';
import { processAlive, queuesIdle, waitUntil } from './helpers/wait.js';
import { HELPER_IDLE_MS, imageHelperPid } from '../src/thumbs/sharp-pipeline.js';

/** One-step upload of a media object, published unless told otherwise; returns its id. */
async function media(s: TestServer, type: string, name: string, raw: Buffer, contentType: string, status = 'on'): Promise<string> {
  const token = await s.adminToken();
  const res = await s.request('POST', `/${type}/upload/${name}`, { token, raw, headers: { 'Content-Type': contentType } });
  assert.equal(res.status, 201, res.text);
  const id = res.body.data.id;
  if (status !== 'draft') {
    const patched = await s.request('PATCH', `/${type}/${id}`, { token, body: { data: { id, type, attributes: { status } } } });
    assert.equal(patched.status, 200, patched.text);
  }
  return id;
}

/** Fetch a thumbnail url and read its real pixel size. */
async function pixels(url: string, token?: string) {
  const res = await fetch(url, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
  assert.equal(res.status, 200, `GET ${url}`);
  const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
  return { width: meta.width, height: meta.height, format: meta.format, type: res.headers.get('content-type'), cache: res.headers.get('cache-control') };
}

describe('thumbnails with presets', () => {
  let s: TestServer;
  let pngId: string;
  let jpegId: string;
  before(async () => {
    s = await startServer();
    pngId = await media(s, 'images', 'wide.png', await png(1000, 500), 'image/png');
    jpegId = await media(s, 'images', 'rotated.jpg', await rotatedJpeg(), 'image/jpeg');
  });
  after(() => s.close());

  const thumbs = async (query: string) => {
    const res = await s.request('GET', `/media/thumbs${query}`);
    assert.equal(res.status, 200, res.text);
    return res.body.meta.thumbnails as any[];
  };

  test('each preset gives its pixel size, keeping the aspect ratio', async () => {
    const expected: Record<string, [number, number]> = { default: [800, 400], small: [100, 50], medium: [400, 200] };
    for (const [preset, [w, h]] of Object.entries(expected)) {
      const [t] = await thumbs(`/${pngId}?preset=${preset}`);
      assert.equal(t.id, pngId);
      assert.match(t.uuid, /^[0-9a-f-]{36}$/);
      assert.equal(t.ready, true);
      assert.equal(t.acceptable, undefined);
      assert.match(t.url, new RegExp(`^${s.url}/media/thumbs/${t.uuid}/[0-9a-f]{24}\\.png$`));
      const p = await pixels(t.url);
      assert.deepEqual([p.width, p.height], [w, h], preset);
      assert.equal(p.type, 'image/png');
      assert.equal(p.cache, 'public, max-age=31536000, immutable');
    }
    const [plain] = await thumbs(`/${pngId}`);
    assert.equal(plain.url, (await thumbs(`/${pngId}?preset=default`))[0].url, 'no preset means default');
  });

  test('EXIF orientation is applied and small images are never enlarged', async () => {
    const expected: Record<string, [number, number]> = { small: [100, 200], medium: [200, 400], default: [200, 400] };
    for (const [preset, [w, h]] of Object.entries(expected)) {
      const [t] = await thumbs(`/${jpegId}?preset=${preset}`);
      const p = await pixels(t.url);
      assert.deepEqual([p.width, p.height], [w, h], preset);
      assert.equal(p.format, 'jpeg');
    }
  });

  test('concurrent requests for a new thumbnail make one file and agree on it', async () => {
    const id = await media(s, 'images', 'busy.png', await png(900, 900), 'image/png');
    const answers = await Promise.all(Array.from({ length: 6 }, () => thumbs(`/${id}?preset=medium`)));
    const urls = new Set(answers.map(([t]) => t.url));
    assert.equal(urls.size, 1);
    assert.ok(answers.every(([t]) => t.ready));
    const [t] = answers[0];
    const dir = path.join(s.dataDir, 'files', 'thumbs', t.uuid.slice(0, 2), t.uuid);
    assert.deepEqual(fs.readdirSync(dir), [new URL(t.url).pathname.split('/').pop()], 'one file, no temp files left');
    const p = await pixels(t.url);
    assert.deepEqual([p.width, p.height], [400, 400]);
  });

  test('GET /media/thumbs?ids= answers one entry per media object', async () => {
    const list = await thumbs(`?ids=${pngId},${jpegId}&preset=small`);
    assert.deepEqual(list.map((t) => t.id), [pngId, jpegId]);
    assert.ok(list.every((t) => t.ready));
    const indexed = await thumbs(`?ids[0]=${jpegId}&ids[1]=${pngId}&preset=small`);
    assert.deepEqual(indexed.map((t) => t.id), [jpegId, pngId]);
  });

  test('the async preset answers ready:false at once and is ready once its job is done', async () => {
    const id = await media(s, 'images', 'later.png', await png(1200, 900), 'image/png');
    const [first] = await thumbs(`/${id}?preset=async`);
    assert.equal(first.ready, false);
    assert.equal(first.acceptable, undefined);
    await queuesIdle(s.server);
    const [t] = await thumbs(`/${id}?preset=async`);
    assert.equal(t.ready, true, 'ready once the job queue is idle');
    assert.equal(t.url, first.url);
    const p = await pixels(t.url);
    assert.deepEqual([p.width, p.height], [800, 600]);
  });

  test('files that cannot be thumbnailed answer acceptable:false, never 500', async () => {
    const corrupt = await media(s, 'images', 'broken.jpg', corruptJpeg(), 'image/jpeg');
    const text = await media(s, 'files', 'notes.txt', textFile(), 'text/plain');
    const bomb = await media(s, 'images', 'bomb.png', bombPng(), 'image/png');
    for (const id of [corrupt, text, bomb]) {
      for (const preset of ['default', 'default', 'async']) {
        const [t] = await thumbs(`/${id}?preset=${preset}`);
        assert.equal(t.acceptable, false, `${id} ${preset}`);
        assert.equal(t.ready, false);
      }
    }
    const noStream = await s.request('POST', '/images', { token: await s.adminToken(), body: { data: { type: 'images', attributes: { status: 'on' } } } });
    const [empty] = await thumbs(`/${noStream.body.data.id}`);
    assert.deepEqual(empty, { id: noStream.body.data.id, uuid: null, ready: false, acceptable: false });
  });

  test('bad requests: unknown preset and options give 400, unknown or non-media ids 404', async () => {
    expectError(await s.request('GET', `/media/thumbs/${pngId}?preset=huge`), 400, 'unknown_preset');
    expectError(await s.request('GET', `/media/thumbs/${pngId}?options[w]=10`), 400, 'thumb_options_not_allowed');
    expectError(await s.request('GET', '/media/thumbs/999999'), 404);
    expectError(await s.request('GET', `/media/thumbs?ids=${pngId},999999`), 404);
    const doc = await s.request('POST', '/documents', { token: await s.adminToken(), body: { data: { type: 'documents', attributes: { status: 'on' } } } });
    expectError(await s.request('GET', `/media/thumbs/${doc.body.data.id}`), 404);
    expectError(await s.request('GET', '/media/thumbs/abc'), 400, 'invalid_ids');
    expectError(await s.request('GET', '/media/thumbs'), 400, 'invalid_ids');
    expectError(await s.request('GET', `/media/thumbs/${pngId}?ids=${pngId}`), 400, 'invalid_ids');
    const many = Array.from({ length: 101 }, (_, i) => i + 1).join(',');
    expectError(await s.request('GET', `/media/thumbs?ids=${many}`), 400, 'invalid_ids');
    expectError(await s.request('GET', `/media/thumbs/${'0'.repeat(8)}-0000-4000-8000-000000000000/${'a'.repeat(24)}.png`), 404);
  });

  test('thumbnails of draft media are hidden from anonymous clients', async () => {
    const id = await media(s, 'images', 'secret.png', await png(300, 300), 'image/png', 'draft');
    expectError(await s.request('GET', `/media/thumbs/${id}`), 404);
    const token = await s.adminToken();
    const res = await s.request('GET', `/media/thumbs/${id}?preset=small`, { token });
    const [t] = res.body.meta.thumbnails;
    assert.equal(t.ready, true);
    expectError(await s.request('GET', new URL(t.url).pathname), 404);
    const p = await pixels(t.url, token);
    assert.deepEqual([p.width, p.height], [100, 100]);
    assert.equal(p.cache, 'private, no-cache');
  });
});

describe('thumbnails with FOLIO_THUMBS_ALLOW_ANY=1', () => {
  let s: TestServer;
  let id: string;
  before(async () => {
    s = await startServer({ FOLIO_THUMBS_ALLOW_ANY: '1' });
    id = await media(s, 'images', 'wide.png', await png(1000, 500), 'image/png');
  });
  after(() => s.close());

  test('free options set size, fit and format', async () => {
    const res = await s.request('GET', `/media/thumbs/${id}?options[w]=50&options[h]=50&options[fit]=cover&options[fm]=webp`);
    assert.equal(res.status, 200, res.text);
    const [t] = res.body.meta.thumbnails;
    assert.match(t.url, /\.webp$/);
    const p = await pixels(t.url);
    assert.deepEqual([p.width, p.height, p.format], [50, 50, 'webp']);
    const h = await s.request('GET', `/media/thumbs/${id}?options[h]=100`);
    const q = await pixels(h.body.meta.thumbnails[0].url);
    assert.deepEqual([q.width, q.height], [200, 100]);
  });

  test('bad options give 400', async () => {
    expectError(await s.request('GET', `/media/thumbs/${id}?options[w]=0`), 400, 'invalid_thumb_options');
    expectError(await s.request('GET', `/media/thumbs/${id}?options[w]=99999`), 400, 'invalid_thumb_options');
    expectError(await s.request('GET', `/media/thumbs/${id}?options[blur]=3`), 400, 'invalid_thumb_options');
    expectError(await s.request('GET', `/media/thumbs/${id}?options[fit]=stretch`), 400, 'invalid_thumb_options');
    expectError(await s.request('GET', `/media/thumbs/${id}?options[fm]=gif`), 400, 'invalid_thumb_options');
    expectError(await s.request('GET', `/media/thumbs/${id}?options=1`), 400, 'invalid_thumb_options');
    expectError(await s.request('GET', `/media/thumbs/${id}?preset=small&options[w]=5`), 400, 'invalid_thumb_options');
  });
});

// Image work runs in a helper process (thumbs/sharp-pipeline.ts): started with the first job,
// gone when idle, and its end (a decoder crashing on a hostile file) never ends the server.
describe('the image helper process', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer();
  });
  after(() => s.close());


  test('dimensions and thumbnails are made in a process of their own, which ends when idle', async () => {
    const id = await media(s, 'images', 'helper.png', await png(640, 320), 'image/png');
    const pid = imageHelperPid();
    assert.ok(pid !== null && pid !== process.pid, `a helper process read the upload's dimensions: ${pid}`);
    const read = await s.request('GET', `/images/${id}`);
    const stream = read.body.included?.find((r: { type: string }) => r.type === 'streams');
    assert.deepEqual([stream?.meta.width, stream?.meta.height], [640, 320], read.text);
    const [t] = (await s.request('GET', `/media/thumbs/${id}?preset=small`)).body.meta.thumbnails;
    assert.equal(t.ready, true);
    const small = await pixels(t.url);
    assert.deepEqual([small.width, small.height], [100, 50]);
    // Idle for HELPER_IDLE_MS: it ends, and the server goes on without it.
    await waitUntil(() => (processAlive(pid!) ? undefined : true), `the idle helper ${pid} ended`, HELPER_IDLE_MS * 6);
    assert.equal(imageHelperPid(), null);
    const [again] = (await s.request('GET', `/media/thumbs/${id}?preset=medium`)).body.meta.thumbnails;
    assert.equal(again.ready, true, 'a new helper made the next one');
    const medium = await pixels(again.url);
    assert.deepEqual([medium.width, medium.height], [400, 200]);
  });

  test('a helper that ends while the server uses it costs that job alone: never a 500, and the next upload and thumbnail work', async () => {
    const id = await media(s, 'images', 'big.png', await png(4000, 4000), 'image/png');
    // Rendering a 16-megapixel image keeps the helper busy; it is killed as soon as it is seen.
    const thumb = s.request('GET', `/media/thumbs/${id}?preset=default`);
    const pid = await waitUntil(() => imageHelperPid() ?? undefined, 'a helper for the thumbnail');
    process.kill(pid, 'SIGKILL');
    const res = await thumb;
    // Killed before it answered, the thumbnail is refused (and remembered, as for a file that
    // crashes its decoder); after, it is there. Never a 500.
    assert.equal(res.status, 200, res.text);
    await waitUntil(() => (processAlive(pid) ? undefined : true), `the killed helper ${pid} is gone`);
    const next = await media(s, 'images', 'after.png', await png(300, 150), 'image/png');
    assert.notEqual(imageHelperPid(), pid);
    const [t] = (await s.request('GET', `/media/thumbs/${next}?preset=small`)).body.meta.thumbnails;
    assert.equal(t.ready, true, 'a new helper made it');
    const small = await pixels(t.url);
    assert.deepEqual([small.width, small.height], [100, 50]);
  });
});
