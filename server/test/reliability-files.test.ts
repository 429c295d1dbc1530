// Files: no request reads or writes outside the data dir (traversal in upload names, stream ids,
// thumbnail names and options, legacy file names), and an upload cut off midway or over the size
// limit leaves no file and no row behind.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { tinyPng } from './helpers/fixtures.js';
import { rawRequest } from './helpers/raw-http.js';
import { startServer, type TestServer } from './helpers/server.js';
import { waitUntil } from './helpers/wait.js';

/** Every file under `dir`, relative. */
function allFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)));
}

describe('files stay inside the data dir', () => {
  let s: TestServer;
  let admin: string;
  let secret: string;
  const marker = `evil-${crypto.randomBytes(4).toString('hex')}`;
  before(async () => {
    s = await startServer({ FOLIO_UPLOAD_MAX_BYTES: '200000', FOLIO_THUMBS_ALLOW_ANY: '1' });
    admin = await s.adminToken();
    // The secret kept for the server (in the data dir with SQLite, in the database with PostgreSQL).
    secret = s.server.ctx.jwtSecret;
  });
  after(() => s.close());

  /** Places a traversal through a stored name could reach, up to 6 levels above the store. */
  function escapedCopies(): string[] {
    const found: string[] = [];
    for (let up = 0; up <= 6; up++) {
      const dir = path.resolve(s.dataDir, 'files', 'streams', 'xx', ...Array(up).fill('..'));
      for (const name of fs.existsSync(dir) ? fs.readdirSync(dir) : []) if (name.includes(marker)) found.push(path.join(dir, name));
    }
    for (const f of allFiles(s.dataDir)) if (f.includes(marker)) found.push(f);
    return found;
  }

  test('hostile upload names are stored under generated names only', async () => {
    const png = await tinyPng(3);
    const names = [
      `..%2F..%2F..%2F${marker}.png`, `..%2F${marker}.png`, `%2Ftmp%2F${marker}.png`, `..%5C..%5C${marker}.png`, `${marker}%00.png`,
      `.${marker}`, `${marker}%2F..%2F..%2Fsecret`, `${'a'.repeat(300)}${marker}.png`,
    ];
    for (const [i, name] of names.entries()) {
      for (const p of [`/streams/upload/${name}`, `/images/upload/${name}`]) {
        const r = await s.request('POST', p, { token: admin, raw: Buffer.concat([png, Buffer.from([i])]), headers: { 'Content-Type': 'image/png' } });
        assert.ok([201, 400, 404].includes(r.status), `${p}: ${r.status} ${r.text}`);
        if (r.status === 201) {
          const stream = r.body.data.type === 'streams' ? r.body.data : r.body.included.find((x: { type: string }) => x.type === 'streams');
          const dl = await fetch(`${s.url}/streams/download/${stream.id}`, { headers: { Authorization: `Bearer ${admin}` } });
          assert.equal(dl.status, 200);
          const disposition = dl.headers.get('content-disposition') ?? '';
          assert.doesNotMatch(disposition, /filename="[^"]*[/\\]/, `download name keeps no path: ${disposition}`);
          await dl.arrayBuffer();
        }
      }
    }
    // The legacy /files upload takes the file name from the path as well.
    for (const name of [`..%2F..%2F${marker}.png`, `%2Fetc%2F${marker}.png`]) {
      const r = await s.request('POST', `/files/images/${name}`, {
        token: admin,
        raw: Buffer.concat([png, crypto.randomBytes(8)]),
        headers: { 'Content-Type': 'image/png', Accept: 'application/json, text/javascript' },
      });
      assert.ok([200, 400, 404].includes(r.status), `legacy ${name}: ${r.status} ${r.text}`);
    }
    assert.deepEqual(escapedCopies(), []);
  });

  test('traversal in stream ids, thumbnail names and options never reads a file', async () => {
    const probes = [
      '/streams/download/..%2F..%2Fsecret', '/streams/download/..%2Ffolio.sqlite', '/streams/download/%2Fetc%2Fpasswd', '/streams/..%2F..%2Fsecret',
      '/streams/download/....%2F%2F....%2F%2Fsecret', '/streams/download/%2e%2e%2f%2e%2e%2fsecret', '/media/thumbs/..%2F..%2Fsecret',
      '/media/thumbs/00000000-0000-0000-0000-000000000000/..%2F..%2F..%2F..%2Fsecret', '/media/thumbs/..%2F..%2F..%2Fsecret/x.png',
      '/media/thumbs/1?options[format]=..%2F..%2Fsecret', '/media/thumbs/1?options[w]=..%2F..&options[h]=1', '/media/thumbs/1?preset=..%2F..%2Fsecret',
      '/media/thumbs?ids=..%2Fsecret,1&preset=default', '/admin/..%2F..%2Fsecret', '/admin/%2e%2e/%2e%2e/data/secret',
    ];
    for (const p of probes) {
      for (const token of [undefined, admin]) {
        const r = await s.request('GET', p, { token });
        // /admin/* answers the admin UI's index.html for any path (the UI routes itself).
        if (!p.startsWith('/admin')) assert.ok(r.status >= 400 && r.status < 500, `${p}: ${r.status}`);
        assert.ok(!r.text.includes(secret), `${p} leaks the secret`);
        assert.ok(!r.text.includes('SQLite format'), `${p} leaks the database`);
        assert.ok(!/root:.*:0:0:/.test(r.text), `${p} leaks /etc/passwd`);
      }
    }
  });

  test('an upload cut off midway leaves no file and no stream', async () => {
    const before = await s.request('GET', '/streams?page_size=100', { token: admin });
    const filesBefore = allFiles(s.dataDir).filter((f) => !f.startsWith('folio.sqlite')).sort();
    const png = await tinyPng(9);
    const head = (p: string, extra: string) =>
      `POST ${p} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${admin}\r\nContent-Type: image/png\r\n${extra}\r\n`;
    await rawRequest(s.url, [head('/streams/upload/cut.png', 'Content-Length: 150000\r\n'), png, crypto.randomBytes(30_000)], { abortAfterWrite: true });
    await rawRequest(s.url, [head('/images/upload/cut.png', 'Content-Length: 150000\r\n'), png, crypto.randomBytes(30_000)], { abortAfterWrite: true });
    await rawRequest(s.url, [head('/streams/upload/chunked.png', 'Transfer-Encoding: chunked\r\n'), `${(png.length + 10).toString(16)}\r\n`, png], { abortAfterWrite: true });
    await rawRequest(s.url, [head(`/files/images/cut-${crypto.randomBytes(3).toString('hex')}.png`, 'Content-Length: 150000\r\n').replace('\r\n\r\n', '\r\nAccept: text/javascript\r\n\r\n'), png], { abortAfterWrite: true });
    // The server notices the aborts asynchronously: wait until the files are as before.
    const same = () => JSON.stringify(allFiles(s.dataDir).filter((f) => !f.startsWith('folio.sqlite')).sort()) === JSON.stringify(filesBefore);
    await waitUntil(() => (same() ? true : undefined), 'the files of the cut uploads to be gone');
    const after = await s.request('GET', '/streams?page_size=100', { token: admin });
    assert.equal(after.body.meta.pagination.count, before.body.meta.pagination.count);
    assert.equal((await s.request('GET', '/status')).status, 200);
  });

  test('an upload over FOLIO_UPLOAD_MAX_BYTES gives 413 and leaves nothing', async () => {
    const filesBefore = allFiles(s.dataDir).filter((f) => !f.startsWith('folio.sqlite')).sort();
    const big = Buffer.concat([await tinyPng(11), crypto.randomBytes(250_000)]);
    for (const p of ['/streams/upload/big.png', '/images/upload/big.png']) {
      const r = await s.request('POST', p, { token: admin, raw: big, headers: { 'Content-Type': 'image/png' } });
      assert.equal(r.status, 413, r.text);
      assert.equal(r.body.error.status, '413');
    }
    const same = () => JSON.stringify(allFiles(s.dataDir).filter((f) => !f.startsWith('folio.sqlite')).sort()) === JSON.stringify(filesBefore);
    await waitUntil(() => (same() ? true : undefined), 'the files of the refused uploads to be gone');
  });
});
