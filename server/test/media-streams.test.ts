// Media: stream upload, read, list, download and delete through the real HTTP interface.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { expectError, startServer, type TestServer } from './helpers/server.js';
import { png, rotatedJpeg, textFile } from './helpers/media-files.js';
import { waitUntil } from './helpers/wait.js';

const LIMIT = 200_000;

/** Files left under the store's folder (temp files included). */
function filesUnder(s: TestServer, dir: string): string[] {
  const root = path.join(s.dataDir, 'files', dir);
  if (!fs.existsSync(root)) return [];
  return fs.readdirSync(root, { recursive: true }).map(String).filter((f) => fs.statSync(path.join(root, f)).isFile());
}

/** A raw HTTP request (paths are sent exactly as given, bodies may be chunked). */
function rawRequest(s: TestServer, method: string, rawPath: string, headers: Record<string, string>, chunks: Buffer[]): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const url = new URL(s.url);
    const req = http.request({ host: url.hostname, port: url.port, method, path: rawPath, headers }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : null }));
    });
    req.on('error', reject);
    for (const c of chunks) req.write(c);
    req.end();
  });
}

describe('streams', () => {
  let s: TestServer;
  let token: string;
  let pngBytes: Buffer;
  before(async () => {
    s = await startServer({ FOLIO_UPLOAD_MAX_BYTES: String(LIMIT) });
    token = await s.adminToken();
    pngBytes = await png(1000, 500);
  });
  after(() => s.close());

  const upload = (name: string, raw: Buffer, contentType?: string, anonymous = false) =>
    s.request('POST', `/streams/upload/${name}`, { token: anonymous ? undefined : token, raw, headers: contentType ? { 'Content-Type': contentType } : {} });

  test('POST /streams/upload/{file_name} stores the file and answers 201 with the stream', async () => {
    const res = await upload('photo.png', pngBytes, 'image/png');
    assert.equal(res.status, 201);
    const d = res.body.data;
    assert.match(d.id, /^[0-9a-f-]{36}$/);
    assert.equal(res.headers.get('location'), `${s.url}/streams/${d.id}`);
    assert.equal(d.type, 'streams');
    assert.deepEqual(d.attributes, { file_name: 'photo.png', mime_type: 'image/png', private_url: false });
    assert.equal(d.meta.file_size, pngBytes.length);
    assert.equal(d.meta.hash_md5, crypto.createHash('md5').update(pngBytes).digest('hex'));
    assert.equal(d.meta.hash_sha1, crypto.createHash('sha1').update(pngBytes).digest('hex'));
    assert.equal(d.meta.width, 1000);
    assert.equal(d.meta.height, 500);
    assert.equal(d.meta.url, `${s.url}/streams/download/${d.id}`);
    assert.match(d.meta.created, /\+00:00$/);
    assert.equal(d.relationships.object.data, null);
    assert.equal(d.relationships.object.links.self, `${s.url}/streams/${d.id}/relationships/object`);
    const stored = filesUnder(s, 'streams').find((f) => f.endsWith(d.id));
    assert.ok(stored, 'the file is stored under its uuid');
    assert.deepEqual(fs.readFileSync(path.join(s.dataDir, 'files', 'streams', stored)), pngBytes);
    assert.deepEqual(filesUnder(s, 'tmp'), []);
  });

  test('an image with EXIF orientation reports its displayed width and height', async () => {
    const res = await upload('rotated.jpg', await rotatedJpeg(), 'image/jpeg');
    assert.equal(res.status, 201);
    assert.equal(res.body.data.meta.width, 200);
    assert.equal(res.body.data.meta.height, 400);
  });

  test('without Content-Type the bytes decide the type, then the file name', async () => {
    const image = await upload('noname', pngBytes);
    assert.equal(image.status, 201);
    assert.equal(image.body.data.attributes.mime_type, 'image/png');
    const text = await upload('notes.txt', textFile());
    assert.equal(text.body.data.attributes.mime_type, 'text/plain');
    assert.equal(text.body.data.meta.width, null);
    const unknown = await upload('blob', textFile(), 'application/octet-stream');
    assert.equal(unknown.body.data.attributes.mime_type, 'application/octet-stream');
  });

  test('a declared type the bytes contradict gives 400 and stores nothing', async () => {
    const before = filesUnder(s, 'streams').length;
    expectError(await upload('fake.png', await rotatedJpeg(), 'image/png'), 400, 'mime_type_mismatch');
    expectError(await upload('fake.jpg', textFile(), 'image/jpeg'), 400, 'mime_type_mismatch');
    expectError(await upload('fake.txt', pngBytes, 'text/plain'), 400, 'mime_type_mismatch');
    assert.equal(filesUnder(s, 'streams').length, before);
    assert.deepEqual(filesUnder(s, 'tmp'), []);
  });

  test('a Content-Type that cannot name a file gives 415', async () => {
    expectError(await upload('x', textFile(), 'multipart/form-data; boundary=x'), 415, 'unsupported_media_type');
    expectError(await upload('x', textFile(), 'not a type'), 415, 'unsupported_media_type');
  });

  test('a declared alias and a text type are accepted as the client says', async () => {
    const jpg = await upload('a.jpg', await rotatedJpeg(), 'image/jpg');
    assert.equal(jpg.body.data.attributes.mime_type, 'image/jpeg');
    const csv = await upload('a.csv', Buffer.from('a,b\n1,2\n'), 'text/csv; charset=utf-8');
    assert.equal(csv.body.data.attributes.mime_type, 'text/csv');
  });

  test('an upload over FOLIO_UPLOAD_MAX_BYTES gives 413 and leaves no partial file', async () => {
    const big = Buffer.alloc(LIMIT + 1, 7);
    const before = filesUnder(s, 'streams').length;
    expectError(await upload('big.bin', big, 'application/octet-stream'), 413, 'payload_too_large');
    // Without Content-Length (chunked) the limit is found while streaming.
    const chunked = await rawRequest(s, 'POST', '/streams/upload/big.bin', { Authorization: `Bearer ${token}`, 'Content-Type': 'application/octet-stream', Accept: 'application/vnd.api+json' }, [
      Buffer.alloc(150_000, 1),
      Buffer.alloc(150_000, 2),
    ]);
    assert.equal(chunked.status, 413);
    assert.equal(chunked.body.error.code, 'payload_too_large');
    assert.equal(filesUnder(s, 'streams').length, before);
    assert.deepEqual(filesUnder(s, 'tmp'), []);
    const exact = await upload('exact.bin', Buffer.alloc(LIMIT, 3), 'application/octet-stream');
    assert.equal(exact.status, 201, 'exactly the limit is fine');
  });

  test('an empty body gives 400; an upload the client abandons leaves no file', async () => {
    expectError(await upload('empty.txt', Buffer.alloc(0), 'text/plain'), 400, 'empty_file');
    const before = filesUnder(s, 'streams').length;
    await new Promise<void>((resolve) => {
      const url = new URL(s.url);
      const req = http.request({ host: url.hostname, port: url.port, method: 'POST', path: '/streams/upload/cut.bin', headers: { Authorization: `Bearer ${token}`, 'Content-Length': '100000' } });
      req.on('error', () => resolve());
      req.write(Buffer.alloc(30_000, 9), () => setTimeout(() => req.destroy(), 50));
    });
    await waitUntil(() => (filesUnder(s, 'tmp').length ? undefined : true), 'the temp file of the abandoned upload to be gone');
    assert.equal(filesUnder(s, 'streams').length, before);
  });

  test('uploading needs authentication', async () => {
    expectError(await upload('a.png', pngBytes, 'image/png', true), 401);
  });

  test('path parts in the file name are dropped; nothing is written outside the store', async () => {
    const res = await upload(encodeURIComponent('../../../etc/passwd'), textFile(), 'text/plain');
    assert.equal(res.status, 201);
    assert.equal(res.body.data.attributes.file_name, 'passwd');
    const win = await upload(encodeURIComponent('..\\..\\evil.txt'), textFile(), 'text/plain');
    assert.equal(win.body.data.attributes.file_name, 'evil.txt');
    // (URL parsers resolve %2E%2E as "..", so this one goes raw)
    const dots = await rawRequest(s, 'POST', '/streams/upload/%2E%2E', { Authorization: `Bearer ${token}`, 'Content-Type': 'text/plain' }, [textFile()]);
    assert.equal(dots.status, 201);
    assert.equal(dots.body.data.attributes.file_name, 'file');
    const raw = await rawRequest(s, 'POST', '/streams/upload/../../../escape.txt', { Authorization: `Bearer ${token}`, 'Content-Type': 'text/plain' }, [textFile()]);
    assert.equal(raw.status, 404);
    assert.ok(!fs.existsSync(path.join(s.dataDir, '..', 'escape.txt')));
    assert.ok(!fs.existsSync(path.join(s.dataDir, 'escape.txt')));
  });

  test('GET /streams/{id}: users see unlinked streams, anonymous clients get 404', async () => {
    const up = await upload('doc.txt', textFile(), 'text/plain');
    const id = up.body.data.id;
    const res = await s.request('GET', `/streams/${id}`, { token });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data, up.body.data);
    expectError(await s.request('GET', `/streams/${id}`), 404);
    expectError(await s.request('GET', `/streams/download/${id}`), 404);
    expectError(await s.request('GET', `/streams/${crypto.randomUUID()}`, { token }), 404);
    expectError(await s.request('GET', '/streams/not-a-uuid', { token }), 404);
  });

  test('GET /streams lists with pagination, filters and the id form', async () => {
    const a = (await upload('list-a.png', pngBytes, 'image/png')).body.data.id;
    const b = (await upload('list-b.txt', textFile(), 'text/plain')).body.data.id;
    const page = await s.request('GET', '/streams?page_size=2', { token });
    assert.equal(page.status, 200);
    assert.equal(page.body.data.length, 2);
    assert.ok(page.body.meta.pagination.count >= 2);
    assert.equal(page.body.meta.pagination.page_size, 2);
    const pngs = await s.request('GET', '/streams?filter[mime_type]=image/png&page_size=100', { token });
    assert.ok(pngs.body.data.every((d: any) => d.attributes.mime_type === 'image/png'));
    assert.ok(pngs.body.data.some((d: any) => d.id === a));
    const byId = await s.request('GET', `/streams?id=${a},${b}`, { token });
    assert.deepEqual(byId.body.data.map((d: any) => d.id).sort(), [a, b].sort());
    expectError(await s.request('GET', '/streams?filter[hash_md5]=x', { token }), 400, 'invalid_filter');
    expectError(await s.request('GET', '/streams?sort=uuid', { token }), 400, 'invalid_sort');
    const anon = await s.request('GET', '/streams');
    assert.equal(anon.status, 200);
    assert.deepEqual(anon.body.data, [], 'unlinked streams are hidden from anonymous lists');
  });

  test('GET /streams/download/{uuid} serves the bytes with type, length, ETag, name and Range', async () => {
    const name = 'Café ünïcode "quoted".png';
    const id = (await upload(encodeURIComponent(name), pngBytes, 'image/png')).body.data.id;
    const res = await fetch(`${s.url}/streams/download/${id}`, { headers: { Authorization: `Bearer ${token}` } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'image/png');
    assert.equal(res.headers.get('content-length'), String(pngBytes.length));
    assert.match(res.headers.get('content-disposition')!, /^attachment; filename="Caf.*"; filename\*=UTF-8''Caf%C3%A9%20%C3%BCn%C3%AFcode%20%22quoted%22\.png$/);
    assert.equal(res.headers.get('accept-ranges'), 'bytes');
    const etag = res.headers.get('etag');
    assert.equal(etag, `"${crypto.createHash('sha1').update(pngBytes).digest('hex')}"`);
    assert.deepEqual(Buffer.from(await res.arrayBuffer()), pngBytes);

    const head = await fetch(`${s.url}/streams/download/${id}`, { method: 'HEAD', headers: { Authorization: `Bearer ${token}`, Accept: 'image/png' } });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-length'), String(pngBytes.length));
    assert.equal((await head.arrayBuffer()).byteLength, 0);

    const part = await fetch(`${s.url}/streams/download/${id}`, { headers: { Authorization: `Bearer ${token}`, Range: 'bytes=8-23' } });
    assert.equal(part.status, 206);
    assert.equal(part.headers.get('content-range'), `bytes 8-23/${pngBytes.length}`);
    assert.equal(part.headers.get('content-length'), '16');
    assert.deepEqual(Buffer.from(await part.arrayBuffer()), pngBytes.subarray(8, 24));

    const unsatisfiable = await fetch(`${s.url}/streams/download/${id}`, { headers: { Authorization: `Bearer ${token}`, Range: `bytes=${pngBytes.length + 10}-` } });
    assert.equal(unsatisfiable.status, 416);
    await unsatisfiable.arrayBuffer();

    // (fetch would add Cache-Control: no-cache to a conditional request, so send it raw)
    const cached = await rawRequest(s, 'GET', `/streams/download/${id}`, { Authorization: `Bearer ${token}`, 'If-None-Match': etag! }, []);
    assert.equal(cached.status, 304);
  });

  test('DELETE /streams/{id} removes the row and the file', async () => {
    const id = (await upload('gone.txt', textFile(), 'text/plain')).body.data.id;
    assert.ok(filesUnder(s, 'streams').some((f) => f.endsWith(id)));
    expectError(await s.request('DELETE', `/streams/${id}`), 401);
    const res = await s.request('DELETE', `/streams/${id}`, { token });
    assert.equal(res.status, 204);
    assert.ok(!filesUnder(s, 'streams').some((f) => f.endsWith(id)));
    expectError(await s.request('GET', `/streams/${id}`, { token }), 404);
  });

  test('GET /model/schema/streams describes the stream resource', async () => {
    const res = await s.request('GET', '/model/schema/streams', { headers: { Accept: 'application/schema+json' } });
    assert.equal(res.status, 200);
    assert.equal(res.body.$id, `${s.url}/model/schema/streams`);
    assert.deepEqual(res.body.required, ['file_name', 'mime_type']);
    assert.equal(res.body.properties.file_name.isMeta, false);
    assert.equal(res.body.properties.hash_sha1.isMeta, true);
    assert.ok(Object.values(res.body.properties).every((p: any) => typeof p.isMeta === 'boolean'));
  });
});
