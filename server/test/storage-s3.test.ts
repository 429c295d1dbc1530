// FOLIO_STORAGE_URL=s3://…: files and thumbnails in an S3-compatible bucket (s3rver on loopback),
// served by Folio itself with the same answers as from the local folder (Range, ETag, conditional
// GET, HEAD); failed writes leave nothing in the bucket; an unreachable bucket gives 503; a bad
// URL stops the start; backups move a site between the local folder and a bucket.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createServer } from '../src/app.js';
import { ConfigError, loadConfig } from '../src/config.js';
import { runRestoreCli, runServerToExit } from './helpers/child-server.js';
import { corruptJpeg, png, textFile } from './helpers/media-files.js';
import { startS3, type TestBucket } from './helpers/s3.js';
import { ADMIN, expectError, startServer, type TestServer } from './helpers/server.js';
import { waitUntil } from './helpers/wait.js';
import { createTestDatabase, onPostgres } from './helpers/test-database.js';

const LEGACY = 'application/json, text/javascript';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** A request with exactly these headers (fetch adds Cache-Control to conditional ones). */
function call(url: string, method: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Files under the local store's folder of a family (none expected with a bucket). */
const localFiles = (s: TestServer, family: string) => {
  const dir = path.join(s.dataDir, 'files', family);
  return fs.existsSync(dir) ? (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => fs.statSync(path.join(dir, f)).isFile()) : [];
};

async function upload(s: TestServer, token: string, p: string, body: Buffer, type: string, accept?: string) {
  return s.request('POST', p, { token, raw: body, headers: { 'Content-Type': type, ...(accept ? { Accept: accept } : {}) } });
}

describe('files in an S3 bucket', () => {
  let bucket: TestBucket;
  let s: TestServer;
  let local: TestServer;
  let token: string;
  const prefix = 'site-a';
  const streamKeys = async () => (await bucket.keys(`${prefix}/streams/`)).map((k) => k.split('/').pop()!);
  const thumbKeys = async (uuid = '') => bucket.keys(`${prefix}/thumbs/${uuid ? `${uuid.slice(0, 2)}/${uuid}/` : ''}`);

  before(async () => {
    bucket = await startS3();
    s = await startServer({ ...bucket.env(prefix), FOLIO_UPLOAD_MAX_BYTES: String(40 * 1024 * 1024) });
    local = await startServer();
    token = await s.adminToken();
  });
  after(async () => {
    await s?.close();
    await local?.close();
    await bucket?.close();
  });

  test('uploads go to the bucket under the prefix, not to the local folder', async () => {
    const raw = await upload(s, token, '/streams/upload/notes.txt', textFile(), 'text/plain');
    assert.equal(raw.status, 201, raw.text);
    const image = await upload(s, token, '/images/upload/pixel.png', await png(40, 20), 'image/png');
    assert.equal(image.status, 201, image.text);
    const imageStream = image.body.included[0];
    assert.deepEqual([imageStream.meta.width, imageStream.meta.height], [40, 20], 'probed from the received bytes');
    const legacy = await upload(s, token, '/files/images/legacy.png', await png(12, 12), 'image/png', LEGACY);
    assert.equal(legacy.status, 200, legacy.text);
    assert.equal(typeof legacy.body.data.upload_token, 'string');

    const keys = await streamKeys();
    for (const id of [raw.body.data.id, imageStream.id]) assert.ok(keys.includes(id), `stream ${id} is in the bucket`);
    assert.equal(keys.length, 3, 'the legacy upload too');
    const stored = await bucket.keys(`${prefix}/streams/`);
    assert.ok(stored.every((k) => /^site-a\/streams\/[0-9a-f]{2}\/[0-9a-f-]{36}$/.test(k)), stored.join());
    assert.deepEqual(localFiles(s, 'streams'), []);
    assert.deepEqual(fs.readdirSync(path.join(s.dataDir, 'files', 'tmp')), [], 'no temp file is left');
  });

  test('downloads answer like the local folder: whole, HEAD, Range, 416, If-None-Match, If-Match, If-Range', async () => {
    const bytes = crypto.randomBytes(70_000);
    const ids: string[] = [];
    for (const [t, tok] of [
      [s, token],
      [local, await local.adminToken()],
    ] as const) {
      const res = await upload(t, tok, '/streams/upload/data.bin', bytes, 'application/octet-stream');
      assert.equal(res.status, 201, res.text);
      ids.push(res.body.data.id);
    }
    const sha1 = `"${crypto.createHash('sha1').update(bytes).digest('hex')}"`;
    const cases: Array<[string, Record<string, string>]> = [
      ['GET', {}],
      ['HEAD', {}],
      ['GET', { Range: 'bytes=100-199' }],
      ['GET', { Range: 'bytes=-10' }],
      ['GET', { Range: 'bytes=69990-' }],
      ['HEAD', { Range: 'bytes=0-0' }],
      ['GET', { Range: 'bytes=0-9,20-29' }],
      ['GET', { Range: 'bytes=80000-' }],
      ['GET', { Range: 'items=0-5' }],
      ['GET', { 'If-None-Match': sha1 }],
      ['GET', { 'If-None-Match': '"other"' }],
      ['HEAD', { 'If-None-Match': sha1 }],
      ['GET', { 'If-Match': '"other"' }],
      ['GET', { 'If-Match': sha1, Range: 'bytes=5-9' }],
      ['GET', { 'If-Range': sha1, Range: 'bytes=5-9' }],
      ['GET', { 'If-Range': '"stale"', Range: 'bytes=5-9' }],
    ];
    const compared = ['content-type', 'content-length', 'content-range', 'accept-ranges', 'etag', 'cache-control', 'content-disposition', 'content-security-policy'];
    const tokens = [token, await local.adminToken()];
    for (const [method, headers] of cases) {
      const answers: Answer[] = [];
      for (const [i, t] of [s, local].entries()) {
        answers.push(await call(`${t.url}/streams/download/${ids[i]}`, method, { Authorization: `Bearer ${tokens[i]}`, ...headers }));
      }
      const [fromBucket, fromFolder] = answers;
      const what = `${method} ${JSON.stringify(headers)}`;
      assert.equal(fromBucket.status, fromFolder.status, what);
      for (const h of compared) assert.equal(fromBucket.headers[h], fromFolder.headers[h], `${what}: ${h}`);
      assert.equal(Boolean(fromBucket.headers['last-modified']), Boolean(fromFolder.headers['last-modified']), `${what}: last-modified`);
      if (fromBucket.status >= 400) assert.deepEqual(JSON.parse(fromBucket.body.toString()).error, JSON.parse(fromFolder.body.toString()).error, what);
      else assert.deepEqual(fromBucket.body, fromFolder.body, what);
    }
    // Spot checks of what the comparison covered.
    const part = await call(`${s.url}/streams/download/${ids[0]}`, 'GET', { Authorization: `Bearer ${token}`, Range: 'bytes=100-199' });
    assert.equal(part.status, 206);
    assert.equal(part.headers['content-range'], `bytes 100-199/${bytes.length}`);
    assert.deepEqual(part.body, bytes.subarray(100, 200));
    const whole = await call(`${s.url}/streams/download/${ids[0]}`, 'GET', { Authorization: `Bearer ${token}` });
    assert.equal(whole.headers.etag, sha1, 'the SHA-1 ETag, as on the local folder');
    const cached = await call(`${s.url}/streams/download/${ids[0]}`, 'GET', { Authorization: `Bearer ${token}`, 'If-None-Match': sha1 });
    assert.equal(cached.status, 304);
    const unsatisfiable = await call(`${s.url}/streams/download/${ids[0]}`, 'GET', { Authorization: `Bearer ${token}`, Range: 'bytes=80000-' });
    assert.equal(unsatisfiable.status, 416);
    assert.equal(unsatisfiable.headers['content-range'], `bytes */${bytes.length}`);
    assert.equal(JSON.parse(unsatisfiable.body.toString()).error.code, 'range_not_satisfiable');
  });

  test('a large file goes up in parts and comes back whole and by range', async () => {
    const big = crypto.randomBytes(17 * 1024 * 1024 + 123);
    const res = await upload(s, token, '/streams/upload/big.bin', big, 'application/octet-stream');
    assert.equal(res.status, 201, res.text);
    const id = res.body.data.id;
    const whole = await call(`${s.url}/streams/download/${id}`, 'GET', { Authorization: `Bearer ${token}` });
    assert.equal(whole.status, 200);
    assert.equal(whole.body.length, big.length);
    assert.ok(whole.body.equals(big));
    const tail = await call(`${s.url}/streams/download/${id}`, 'GET', { Authorization: `Bearer ${token}`, Range: `bytes=${big.length - 1000}-` });
    assert.equal(tail.status, 206);
    assert.ok(tail.body.equals(big.subarray(big.length - 1000)));
    assert.equal((await s.request('DELETE', `/streams/${id}`, { token })).status, 204);
    assert.ok(!(await streamKeys()).includes(id));
  });

  test('thumbnails are made from the bucket, stored there and served with Range and ETag', async () => {
    const image = await upload(s, token, '/images/upload/thumb-me.png', await png(300, 150), 'image/png');
    assert.equal(image.status, 201, image.text);
    const id = image.body.data.id;
    const uuid = image.body.included[0].id;
    assert.equal((await s.request('PATCH', `/images/${id}`, { token, body: { data: { id, type: 'images', attributes: { status: 'on' } } } })).status, 200);
    const entries = await s.request('GET', `/media/thumbs/${id}?preset=small`);
    assert.equal(entries.status, 200, entries.text);
    const [thumb] = entries.body.meta.thumbnails;
    assert.equal(thumb.ready, true);
    const name = thumb.url.split('/').pop();
    assert.deepEqual(await thumbKeys(uuid), [`${prefix}/thumbs/${uuid.slice(0, 2)}/${uuid}/${name}`]);
    assert.deepEqual(localFiles(s, 'thumbs'), []);

    const served = await call(thumb.url, 'GET');
    assert.equal(served.status, 200);
    assert.equal(served.headers['content-type'], 'image/png');
    assert.equal(served.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.match(String(served.headers.etag), /^W\/"[0-9a-f]+-[0-9a-f]+"$/);
    assert.deepEqual(served.body.subarray(1, 4).toString(), 'PNG');
    assert.equal(Number(served.headers['content-length']), served.body.length);
    const again = await call(thumb.url, 'GET', { 'If-None-Match': String(served.headers.etag) });
    assert.equal(again.status, 304);
    const head = await call(thumb.url, 'HEAD');
    assert.equal(head.status, 200);
    assert.equal(head.headers['content-length'], served.headers['content-length']);
    const range = await call(thumb.url, 'GET', { Range: 'bytes=0-7' });
    assert.equal(range.status, 206);
    assert.deepEqual(range.body, served.body.subarray(0, 8));
    // Made once: asked again, the same file is found in the bucket.
    const second = await s.request('GET', `/media/thumbs/${id}?preset=small`);
    assert.equal(second.body.meta.thumbnails[0].url, thumb.url);
    assert.equal((await thumbKeys(uuid)).length, 1);
    expectError(await s.request('GET', `/media/thumbs/${uuid}/${'0'.repeat(24)}.png`), 404);

    // The background preset: ready later, in the bucket too.
    const queued = await s.request('GET', `/media/thumbs/${id}?preset=async`);
    assert.equal(queued.status, 200);
    await waitUntil(async () => ((await s.request('GET', `/media/thumbs/${id}?preset=async`)).body.meta.thumbnails[0].ready ? true : undefined), 'async thumbnail');
    assert.equal((await thumbKeys(uuid)).length, 2);
  });

  test('a file sharp cannot read is remembered as not acceptable in the bucket', async () => {
    const image = await upload(s, token, '/images/upload/broken.jpg', corruptJpeg(), 'image/jpeg');
    assert.equal(image.status, 201, image.text);
    const uuid = image.body.included[0].id;
    const entries = await s.request('GET', `/media/thumbs/${image.body.data.id}`, { token });
    assert.equal(entries.body.meta.thumbnails[0].acceptable, false);
    const keys = await thumbKeys(uuid);
    assert.equal(keys.length, 1);
    assert.match(keys[0], /\.failed$/);
  });

  test('deleting a stream and purging a media object remove their objects from the bucket', async () => {
    const raw = await upload(s, token, '/streams/upload/gone.txt', textFile(), 'text/plain');
    const uuid = raw.body.data.id;
    assert.ok((await streamKeys()).includes(uuid));
    assert.equal((await s.request('DELETE', `/streams/${uuid}`, { token })).status, 204);
    assert.ok(!(await streamKeys()).includes(uuid));

    const image = await upload(s, token, '/images/upload/purged.png', await png(64, 64), 'image/png');
    const id = image.body.data.id;
    const imageUuid = image.body.included[0].id;
    await s.request('GET', `/media/thumbs/${id}`, { token });
    assert.equal((await thumbKeys(imageUuid)).length, 1);
    assert.equal((await s.request('DELETE', `/images/${id}`, { token })).status, 204);
    assert.ok((await streamKeys()).includes(imageUuid), 'the trash keeps the file');
    assert.equal((await s.request('DELETE', `/trash/${id}`, { token })).status, 204);
    assert.ok(!(await streamKeys()).includes(imageUuid), 'purged: the file is gone');
    assert.deepEqual(await thumbKeys(imageUuid), [], 'and its thumbnails');
  });

  test('a refused upload leaves nothing in the bucket: too large, wrong type, duplicate', async () => {
    const before = await bucket.keys();
    const tooLarge = Buffer.alloc(40 * 1024 * 1024 + 1, 1);
    expectError(await upload(s, token, '/streams/upload/huge.bin', tooLarge, 'application/octet-stream'), 413, 'payload_too_large');
    expectError(await upload(s, token, '/images/upload/notes.txt', textFile(), 'text/plain'), 400, 'mime_type_not_accepted');
    const legacyWrongType = await upload(s, token, '/files/images/notes.txt', textFile(), 'text/plain', LEGACY);
    assert.equal(legacyWrongType.status, 400, legacyWrongType.text);
    const dup = await png(33, 33);
    const first = await upload(s, token, '/files/images/dup.png', dup, 'image/png', LEGACY);
    assert.equal(first.status, 200);
    const afterFirst = await bucket.keys();
    const second = await upload(s, token, '/files/images/dup-again.png', dup, 'image/png', LEGACY);
    assert.equal(second.status, 409, second.text);
    assert.deepEqual(await bucket.keys(), afterFirst, 'the duplicate left no object');
    assert.equal(afterFirst.length, before.length + 1);
    assert.deepEqual(fs.readdirSync(path.join(s.dataDir, 'files', 'tmp')), []);
  });
});

describe('an unreachable bucket', () => {
  test('answers 503 storage_unavailable as JSON, writes nothing, and the server keeps serving', async () => {
    const bucket = await startS3();
    const s = await startServer(bucket.env());
    try {
      const token = await s.adminToken();
      const image = await upload(s, token, '/images/upload/pixel.png', await png(30, 30), 'image/png');
      assert.equal(image.status, 201, image.text);
      const uuid = image.body.included[0].id;
      await bucket.close();

      const down = await s.request('GET', `/streams/download/${uuid}`, { token });
      expectError(down, 503, 'storage_unavailable');
      assert.match(down.headers.get('content-type')!, /json/);
      expectError(await s.request('GET', `/media/thumbs/${image.body.data.id}`, { token }), 503, 'storage_unavailable');
      const count = (await s.request('GET', '/streams', { token })).body.meta.pagination.count;
      expectError(await upload(s, token, '/streams/upload/lost.txt', textFile(), 'text/plain'), 503, 'storage_unavailable');
      expectError(await upload(s, token, '/images/upload/lost.png', await png(8, 8), 'image/png'), 503, 'storage_unavailable');
      assert.equal((await s.request('GET', '/streams', { token })).body.meta.pagination.count, count, 'no row was left');
      assert.deepEqual(fs.readdirSync(path.join(s.dataDir, 'files', 'tmp')), [], 'no temp file was left');
      // A committed delete is not undone by the storage: the row goes, the object is left behind (logged).
      assert.equal((await s.request('DELETE', `/streams/${uuid}`, { token })).status, 204);
      assert.equal((await s.request('GET', '/status')).status, 200);
    } finally {
      await s.close();
    }
  });
});

/**
 * A TCP proxy to the bucket that resets the connection of the first `drops` PUT requests it sees
 * (as a server does to a kept-alive socket it has just closed); everything else passes.
 */
async function droppingProxy(target: string, drops: number) {
  const { hostname, port } = new URL(target);
  const state = { dropped: 0 };
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(port), hostname);
    upstream.pipe(client);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    client.on('close', () => upstream.destroy());
    client.on('data', (chunk: Buffer) => {
      if (state.dropped < drops && chunk.toString('latin1', 0, 4) === 'PUT ') {
        state.dropped++;
        upstream.destroy();
        client.resetAndDestroy();
        return;
      }
      upstream.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: own } = server.address() as net.AddressInfo;
  return { state, endpoint: `http://127.0.0.1:${own}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('a connection dropped under an upload', () => {
  test('the PUT is sent again from its file, up to three tries; past them 503 and nothing is left', async () => {
    const bucket = await startS3();
    const proxy = await droppingProxy(bucket.endpoint, 1);
    const env = { ...bucket.env(), FOLIO_STORAGE_URL: bucket.env().FOLIO_STORAGE_URL.replace(encodeURIComponent(bucket.endpoint), encodeURIComponent(proxy.endpoint)) };
    const s = await startServer(env);
    try {
      const token = await s.adminToken();
      const bytes = crypto.randomBytes(200_000);
      const up = await upload(s, token, '/streams/upload/dropped-once.bin', bytes, 'application/octet-stream');
      assert.equal(up.status, 201, up.text);
      assert.equal(proxy.state.dropped, 1, 'the first PUT was dropped');
      const down = await call(`${s.url}/streams/download/${up.body.data.id}`, 'GET', { Authorization: `Bearer ${token}` });
      assert.equal(down.status, 200);
      assert.ok(down.body.equals(bytes), 'the stored bytes are whole');
      // Every try dropped: a clear 503, no row, no temp file.
      proxy.state.dropped = -1_000;
      const count = (await s.request('GET', '/streams', { token })).body.meta.pagination.count;
      expectError(await upload(s, token, '/streams/upload/dropped-always.bin', bytes, 'application/octet-stream'), 503, 'storage_unavailable');
      assert.equal(proxy.state.dropped, -1_000 + 3, 'three tries, no more');
      assert.equal((await s.request('GET', '/streams', { token })).body.meta.pagination.count, count, 'no row was left');
      assert.deepEqual(fs.readdirSync(path.join(s.dataDir, 'files', 'tmp')), [], 'no temp file was left');
    } finally {
      await s.close();
      await proxy.close();
      await bucket.close();
    }
  });
});

describe('FOLIO_STORAGE_URL', () => {
  test('bad values are refused with a message naming the variable', () => {
    const bad = [
      'http://bucket',
      's3://',
      's3://Bad_Bucket',
      's3://ab',
      's3://bucket/../up',
      's3://bucket/a//b',
      's3://bucket?endpoint=ftp://x',
      's3://bucket?endpoint=not a url',
      's3://bucket?region=Europe West',
      's3://bucket?path_style=maybe',
      's3://bucket?bucket=other',
      's3://bucket?region=a&region=b',
    ];
    for (const url of bad) {
      assert.throws(() => loadConfig({ FOLIO_STORAGE_URL: url }), (err: Error) => err instanceof ConfigError && err.message.startsWith('FOLIO_STORAGE_URL'), url);
    }
    assert.throws(() => loadConfig({ FOLIO_STORAGE_URL: 's3://bucket', AWS_ACCESS_KEY_ID: 'only-one' }), ConfigError);
    const ok = loadConfig({ FOLIO_STORAGE_URL: 's3://my-bucket/sites/a/?endpoint=http%3A%2F%2F127.0.0.1%3A9000&region=eu-west-1&path_style=1', AWS_ACCESS_KEY_ID: 'k', AWS_SECRET_ACCESS_KEY: 's' });
    assert.deepEqual(ok.storage, {
      kind: 's3',
      bucket: 'my-bucket',
      prefix: 'sites/a',
      endpoint: 'http://127.0.0.1:9000',
      region: 'eu-west-1',
      pathStyle: true,
      credentials: { accessKeyId: 'k', secretAccessKey: 's' },
    });
    assert.deepEqual(loadConfig({}).storage, { kind: 'local' });
  });

  test('npm start with a bad FOLIO_STORAGE_URL stops at once with a clear message', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-s3-bad-'));
    try {
      const { code, stderr: err } = await runServerToExit({ FOLIO_DATA_DIR: dataDir, FOLIO_STORAGE_URL: 's3://Not A Bucket' });
      assert.equal(code, 2, err);
      assert.match(err, /configuration error: FOLIO_STORAGE_URL .*bucket/);
      assert.doesNotMatch(err, /at .*\.ts:\d+/, 'no stack trace');
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('moving a site between the local folder and a bucket with a backup', () => {
  let bucket: TestBucket;
  const cleanups: Array<() => Promise<void> | void> = [];
  before(async () => {
    bucket = await startS3();
  });
  after(async () => {
    for (const c of cleanups.reverse()) await c();
    await bucket?.close();
  });

  /** What a site shows of its media: the file's bytes and its thumbnail's bytes. */
  async function media(url: string, jwt: string, id: string, uuid: string) {
    const file = await call(`${url}/streams/download/${uuid}`, 'GET', { Authorization: `Bearer ${jwt}` });
    assert.equal(file.status, 200);
    const entry = await fetch(`${url}/media/thumbs/${id}?preset=small`, { headers: { Authorization: `Bearer ${jwt}`, Accept: 'application/vnd.api+json' } });
    const thumbUrl = ((await entry.json()) as any).meta.thumbnails[0].url as string;
    const thumb = await call(thumbUrl, 'GET', { Authorization: `Bearer ${jwt}` });
    assert.equal(thumb.status, 200);
    return { file: file.body.toString('base64'), etag: file.headers.etag, thumbName: thumbUrl.split('/').pop(), thumb: thumb.body.toString('base64') };
  }

  test(`a backup of a local install restores into ${onPostgres ? 'PostgreSQL + S3' : 'S3'}, and one made on S3 back into the local folder`, async () => {
    // The desktop install: SQLite and the local folder.
    const source = await startServer({ FOLIO_DATABASE_URL: '' });
    cleanups.push(() => source.close());
    const token = await source.adminToken();
    const image = await upload(source, token, '/images/upload/moving.png', await png(120, 80), 'image/png');
    assert.equal(image.status, 201, image.text);
    const id = image.body.data.id;
    const uuid = image.body.included[0].id;
    const seen = await media(source.url, token, id, uuid);
    const backup = await source.request('POST', '/backups', { token });
    assert.equal(backup.status, 201, backup.text);
    const file = path.join(source.dataDir, 'backups', backup.body.data.attributes.file_name);

    // The server: a fresh data dir, the bucket (and PostgreSQL in that pass).
    const database = onPostgres ? await createTestDatabase() : null;
    if (database) cleanups.push(() => database.drop());
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-s3-move-'));
    cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
    const env = { FOLIO_DATA_DIR: dataDir, ...bucket.env('moved'), ...(database ? { FOLIO_DATABASE_URL: database.url } : {}) };
    const run = await runRestoreCli(file, env);
    assert.equal(run.code, 0, run.out);
    assert.match(run.out, /s3:\/\/folio-test\/moved/);
    const keys = await bucket.keys('moved/');
    assert.ok(keys.includes(`moved/streams/${uuid.slice(0, 2)}/${uuid}`), keys.join());
    assert.ok(keys.includes(`moved/thumbs/${uuid.slice(0, 2)}/${uuid}/${seen.thumbName}`), keys.join());
    assert.ok(!fs.existsSync(path.join(dataDir, 'files', 'streams')) || fs.readdirSync(path.join(dataDir, 'files', 'streams')).length === 0);

    // On the restored data dir, database and bucket.
    const server = await createServer(loadConfig({ ...env, FOLIO_LOGIN_LIMIT: '0' }, { logRequests: false }), { log: () => {} });
    cleanups.push(() => server.close());
    const { port } = await server.listen(0, '127.0.0.1');
    const url = `http://127.0.0.1:${port}`;
    const login = await fetch(`${url}/auth`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(ADMIN) });
    assert.equal(login.status, 200);
    const jwt = ((await login.json()) as any).meta.jwt;
    assert.deepEqual(await media(url, jwt, id, uuid), seen, 'the same file, ETag and thumbnail, served from the bucket');

    // And back: a backup made on S3 restores into a local folder.
    const again = await fetch(`${url}/backups`, { method: 'POST', headers: { Authorization: `Bearer ${jwt}` } });
    assert.equal(again.status, 201);
    const s3Backup = path.join(dataDir, 'backups', ((await again.json()) as any).data.attributes.file_name);
    const backDir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-s3-back-'));
    cleanups.push(() => fs.rmSync(backDir, { recursive: true, force: true }));
    const back = await runRestoreCli(s3Backup, { FOLIO_DATA_DIR: backDir });
    assert.equal(back.code, 0, back.out);
    assert.ok(fs.existsSync(path.join(backDir, 'files', 'streams', uuid.slice(0, 2), uuid)));
    assert.ok(fs.existsSync(path.join(backDir, 'files', 'thumbs', uuid.slice(0, 2), uuid, seen.thumbName!)));
  });
});
