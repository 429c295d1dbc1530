// The rank of a SQLite search (db/dialect/sqlite-rank.ts, server/native/folio-rank.c): where the
// extension was built (`npm run build`), searches rank with folio_rank, which orders one-word and
// several-word searches exactly as SQLite's bm25 does; where it is missing, the server says so and
// ranks with bm25, answering the same pages. Checked through the HTTP API against bm25 run on
// the server's own file, and against a second server, started from a copy of the bundle where no
// library is, on the same data.
// postgres pass: not run (SQLite's full-text index; PostgreSQL ranks with ts_rank)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { findRankLibrary, LIBRARY, searchRank } from '../src/db/dialect/sqlite-rank.js';
import { startServer, type TestServer } from './helpers/server.js';
import { onPostgres } from './helpers/test-database.js';
import { PATIENCE_MS, waitUntil } from './helpers/wait.js';

const root = path.resolve(import.meta.dirname, '..', '..');

/** Documents whose order under bm25 depends on each word's hits, each column's weight, the length and, with two words, their IDF. */
function corpus(): Array<{ title: string; description: string; body: string }> {
  const docs: Array<{ title: string; description: string; body: string }> = [];
  const filler = (n: number) => Array.from({ length: n }, (_, i) => `filler${i % 7}`).join(' ');
  // "harbour" in 30 documents, "lantern" in 4, "lanterns" and "lanternfish" (continuations of the prefix) in 4.
  for (let i = 0; i < 30; i++) {
    const h = 1 + (i % 5);
    const l = i % 9 === 0 ? 3 - (i % 3) : i % 11 === 1 ? 1 : 0;
    docs.push({
      title: i % 6 === 0 ? `Harbour notes ${i}` : `Notes ${i}`,
      description: i % 4 === 0 ? 'by the lantern' : `number ${i}`,
      body: `<p>${'harbour '.repeat(h)}${'lantern '.repeat(l)}${filler(5 + ((i * 13) % 40))}</p>`,
    });
  }
  docs.push({ title: 'Lanterns', description: '', body: '<p>lanterns at the harbour</p>' });
  docs.push({ title: 'Deep sea', description: 'lanternfish', body: `<p>${filler(30)} lanternfish lanternfish</p>` });
  docs.push({ title: 'Quiet', description: '', body: `<p>lanterns ${filler(60)}</p>` });
  docs.push({ title: 'Lanternfish', description: 'glow', body: `<p>${filler(12)} lanternfish</p>` });
  return docs;
}

const QUERIES = ['harbour', 'harb', 'lantern', 'lant', 'lanternfish', 'harbour lant', 'lantern harbour', 'notes harbour', 'filler3 lantern'];

/** What the server sends FTS5 for `q` (sqlite.ts expression): each word quoted, the last a prefix. */
const expression = (q: string) => q.split(' ').map((w, i, all) => `"${w}"${i === all.length - 1 ? '*' : ''}`).join(' ');

describe('the rank of a SQLite search', { skip: onPostgres && 'SQLite full-text ranks' }, () => {
  let s: TestServer;
  let ids: Map<string, string>;
  const pageOf = async (url: string, q: string) => {
    const res = await fetch(`${url}/objects?q=${encodeURIComponent(q)}&page_size=100`, { headers: { Accept: 'application/vnd.api+json' } });
    assert.equal(res.status, 200, q);
    const body = (await res.json()) as { data: Array<{ id: string }>; meta: { pagination: { count: number } } };
    return body.data.map((d) => d.id);
  };

  before(async () => {
    s = await startServer();
    const admin = await s.adminToken();
    ids = new Map();
    for (const doc of corpus()) {
      const created = await s.request('POST', '/documents', { token: admin, body: { data: { type: 'documents', attributes: { ...doc, status: 'on' } } } });
      assert.equal(created.status, 201, created.text);
      ids.set(String(created.body.data.id), doc.title);
    }
  });
  after(async () => {
    await s.close();
  });

  test('searches rank with folio_rank, in the order bm25 gives on the same index', async () => {
    assert.equal(searchRank().rank, 'folio_rank', 'server/native/build has no folio-rank library: run npm run build (it needs a C compiler)');
    const file = new Database(path.join(s.dataDir, 'folio.sqlite'), { readonly: true });
    try {
      const byBm25 = file.prepare(`select rowid from objects_fts where objects_fts match ? order by bm25(objects_fts, 10.0, 3.0, 1.0, 2.0), rowid`).pluck();
      let orders = 0;
      for (const q of QUERIES) {
        const expected = (byBm25.all(expression(q)) as number[]).map(String).filter((id) => ids.has(id));
        assert.ok(expected.length >= 2, `${q}: at least two matches`);
        assert.deepEqual(await pageOf(s.url, q), expected, `${q}: the page in bm25's order`);
        // The order is not merely the ids': the corpus makes bm25 reorder them.
        if (expected.join() !== [...expected].sort((a, b) => Number(a) - Number(b)).join()) orders++;
      }
      assert.ok(orders >= QUERIES.length - 1, `${orders} of ${QUERIES.length} searches ordered other than by id`);
    } finally {
      file.close();
    }
  });

  test('a server without the library says so, ranks with bm25 and answers the same pages', async () => {
    // The bundle where no server/native/build is above it; node_modules and package.json as in the checkout.
    const app = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-rank-'));
    try {
      fs.mkdirSync(path.join(app, 'server', 'dist'), { recursive: true });
      const dist = path.join(root, 'server', 'dist');
      const bundles = fs.readdirSync(dist).filter((f) => /\.bundle(-[\w]+)?\.js$/.test(f));
      assert.ok(bundles.includes('main.bundle.js'), 'server/dist/main.bundle.js is missing: run npm run build');
      for (const f of bundles) fs.copyFileSync(path.join(dist, f), path.join(app, 'server', 'dist', f));
      fs.copyFileSync(path.join(root, 'package.json'), path.join(app, 'package.json'));
      fs.symlinkSync(path.join(root, 'node_modules'), path.join(app, 'node_modules'), 'dir');
      // A second process on the same file (instances), as `npm start` runs it.
      const child = spawn(process.execPath, [path.join(app, 'server', 'dist', 'main.bundle.js')], {
        cwd: app,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: '0', HOST: '127.0.0.1', FOLIO_DATA_DIR: s.dataDir },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      try {
        let out = '';
        const url = await new Promise<string>((resolve, reject) => {
          child.stderr!.on('data', (d) => (out += d));
          child.stdout!.on('data', (d) => {
            out += d;
            const m = /listening on (http:\/\/[^\s]+)/.exec(out);
            if (m) resolve(m[1]);
          });
          void exited.then((code) => reject(new Error(`exited with ${code}: ${out}`)));
          setTimeout(() => reject(new Error(`no start within ${PATIENCE_MS} ms: ${out}`)), PATIENCE_MS).unref();
        });
        // Said once, at its start (the log is written in batches: maybe just after the line above).
        await waitUntil(() => /search: ranking with bm25 \(folio-rank\.\w+ not built/.test(out) || undefined, `the server says it ranks with bm25: ${out}`);
        for (const q of QUERIES) assert.deepEqual(await pageOf(url, q), await pageOf(s.url, q), `${q}: the same page from both servers`);
      } finally {
        child.kill('SIGTERM');
        assert.equal(await exited, 0);
      }
    } finally {
      fs.rmSync(app, { recursive: true, force: true });
    }
  });
});

test('the library is found above the code that runs, and in a packed desktop app beside its archive', () => {
  const built = path.join(root, 'server', 'native', 'build', LIBRARY);
  for (const from of ['server/dist', 'server/dist/db/dialect', 'server/src/db/dialect', 'electron/dist/server/db/dialect']) assert.equal(findRankLibrary(path.join(root, from)), built, from);
  const app = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-rank-app-'));
  try {
    // resources/app.asar holds the code; electron-builder unpacks server/native/build beside it (asarUnpack).
    const code = path.join(app, 'resources', 'app.asar', 'electron', 'dist', 'server', 'db', 'dialect');
    fs.mkdirSync(code, { recursive: true });
    assert.equal(findRankLibrary(code), null, 'nothing unpacked: no library');
    const unpacked = path.join(app, 'resources', 'app.asar.unpacked', 'server', 'native', 'build', LIBRARY);
    fs.mkdirSync(path.dirname(unpacked), { recursive: true });
    fs.writeFileSync(unpacked, '');
    assert.equal(findRankLibrary(code), unpacked);
  } finally {
    fs.rmSync(app, { recursive: true, force: true });
  }
});
