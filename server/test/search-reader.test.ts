// SQLite's reader threads (db/dialect/sqlite-reader.ts): a search's matches and count, a list's
// count and the steps to a deep page are read on a thread with a connection of its own, never on
// the event loop's. Checked through the HTTP API (a
// search sees every write answered before it, whatever it changed; sorted and ranked searches,
// translations, a signed-in reader's drafts) and on the reader itself over a real file (the same
// rows as the server's connection, nothing but plain reads, every failure handed back to the
// caller, no thread left once the database closes).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { readerStatistics, sqliteReaderThreads } from '../src/db/dialect/sqlite-reader.js';
import { startServer, type TestServer } from './helpers/server.js';
import { onPostgres } from './helpers/test-database.js';

const JSONAPI = 'application/vnd.api+json';

describe('searches read on a reader thread (SQLite)', { skip: onPostgres && 'SQLite reader threads' }, () => {
  let s: TestServer;
  let admin: string;
  const titles = (r: { body: { data: Array<{ attributes: { title: string } }> } }) => r.body.data.map((d) => d.attributes.title).sort();

  before(async () => {
    s = await startServer();
    admin = await s.adminToken();
  });
  after(async () => {
    await s.close();
  });

  test('every write answered before a search is in it: creates, edits, status changes, deletes, each asked at once', async () => {
    const threadsBefore = readerStatistics.threads;
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const created = await s.request('POST', '/documents', { token: admin, body: { data: { type: 'documents', attributes: { title: `Quayside ${i}`, body: `<p>pelican ${i}</p>`, status: 'on' } } } });
      assert.equal(created.status, 201, created.text);
      ids.push(String(created.body.data.id));
      // Asked the moment the create was answered: found, anonymously and by its own number.
      const found = await s.request('GET', '/objects?q=pelican');
      assert.equal(found.status, 200, found.text);
      assert.equal(found.body.meta.pagination.count, i + 1);
      assert.ok(found.body.data.some((d: { id: string }) => d.id === ids[i]));
    }
    // An edit: the new word is found at once, the old one no longer.
    const edited = await s.request('PATCH', `/documents/${ids[0]}`, { token: admin, body: { data: { id: ids[0], type: 'documents', attributes: { body: '<p>cormorant</p>' } } } });
    assert.equal(edited.status, 200, edited.text);
    assert.deepEqual(titles(await s.request('GET', '/objects?q=cormorant')), ['Quayside 0']);
    assert.equal((await s.request('GET', '/objects?q=pelican')).body.meta.pagination.count, 11);
    // Back to draft: gone for anonymous readers, still found by the admin.
    await s.request('PATCH', `/documents/${ids[1]}`, { token: admin, body: { data: { id: ids[1], type: 'documents', attributes: { status: 'draft' } } } });
    assert.equal((await s.request('GET', '/objects?q=pelican')).body.meta.pagination.count, 10);
    assert.equal((await s.request('GET', '/objects?q=pelican', { token: admin })).body.meta.pagination.count, 11);
    // Deleted (to the trash): gone for everyone.
    assert.equal((await s.request('DELETE', `/documents/${ids[2]}`, { token: admin })).status, 204);
    assert.equal((await s.request('GET', '/objects?q=pelican', { token: admin })).body.meta.pagination.count, 10);
    // Sorted searches count every match on the reader too, and page the same.
    const sorted = await s.request('GET', '/documents?q=pelican&sort=-id&page_size=3&page=2');
    assert.equal(sorted.status, 200, sorted.text);
    assert.equal(sorted.body.meta.pagination.count, 9);
    assert.deepEqual(
      sorted.body.data.map((d: { id: string }) => d.id),
      ids.filter((_, i) => i > 2).reverse().slice(3, 6),
    );
    assert.ok(readerStatistics.threads > threadsBefore, 'the searches were read on a reader thread');
  });

  test('many searches at once, with writes between them, each answered as the data stood', async () => {
    const made = await Promise.all(
      Array.from({ length: 30 }, (_, i) => s.request('POST', '/documents', { token: admin, body: { data: { type: 'documents', attributes: { title: `Breakwater ${i}`, body: `<p>gannet tag${i}z</p>`, status: 'on' } } } })),
    );
    assert.ok(made.every((r) => r.status === 201));
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => s.request('GET', `/objects?q=${encodeURIComponent(`gannet tag${i}z`)}`)));
    for (const [i, r] of answers.entries()) {
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(titles(r), [`Breakwater ${i}`]);
    }
    const all = await Promise.all(Array.from({ length: 10 }, () => s.request('GET', '/objects?q=gannet&page_size=50')));
    for (const r of all) assert.equal(r.body.meta.pagination.count, 30);
  });

  test("a list's count is read there too, every create and delete counted at once", async () => {
    const threadsBefore = readerStatistics.threads;
    const count = async (query: string) => {
      const r = await s.request('GET', `/documents?${query}`);
      assert.equal(r.status, 200, r.text);
      return r.body.meta.pagination.count as number;
    };
    const start = await count('page_size=1');
    const startFiltered = await count('filter[title]=Jetty&page_size=1');
    const made: string[] = [];
    for (let i = 1; i <= 5; i++) {
      const created = await s.request('POST', '/documents', { token: admin, body: { data: { type: 'documents', attributes: { title: 'Jetty', status: 'on' } } } });
      assert.equal(created.status, 201, created.text);
      made.push(String(created.body.data.id));
      assert.equal(await count('page_size=1'), start + i);
      assert.equal(await count('filter[title]=Jetty&page_size=1'), startFiltered + i);
    }
    assert.equal((await s.request('DELETE', `/documents/${made[0]}`, { token: admin })).status, 204);
    assert.equal(await count('page_size=1'), start + 4);
    assert.equal(await count('filter[title]=Jetty&page_size=1'), startFiltered + 4);
    assert.ok(readerStatistics.threads > threadsBefore, 'the counts were read on a reader thread');
  });

  test('a search with a language reads the translations on the reader too', async () => {
    const doc = await s.request('POST', '/documents', { token: admin, body: { data: { type: 'documents', attributes: { title: 'Harbour light', status: 'on', lang: 'en' } } } });
    assert.equal(doc.status, 201, doc.text);
    const id = String(doc.body.data.id);
    const tr = await s.request('POST', '/translations', { token: admin, body: { data: { type: 'translations', attributes: { object_id: Number(id), lang: 'it', status: 'on', translated_fields: { title: 'Faro del porto' } } } } });
    assert.equal(tr.status, 201, tr.text);
    const found = await s.request('GET', '/objects?q=faro&lang=it');
    assert.equal(found.status, 200, found.text);
    assert.deepEqual(
      found.body.data.map((d: { id: string }) => d.id),
      [id],
    );
  });
});

describe('the reader threads over a file (SQLite)', { skip: onPostgres && 'SQLite reader threads' }, () => {
  let dir: string;
  let file: string;
  let db: Database.Database;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-reader-'));
    file = path.join(dir, 'r.sqlite');
    db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.exec('create table t (id integer primary key, name text, flag integer)');
  });
  after(() => {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('the same rows as the server connection, the last commit included; writes and errors handed back; nothing left once closed', async () => {
    const readers = sqliteReaderThreads(file, null);
    const runningBefore = readerStatistics.running;
    try {
      for (let i = 1; i <= 5; i++) {
        db.prepare('insert into t (name, flag) values (?, ?)').run(`row ${i}`, i % 2);
        const away = await readers.read('select id, name, flag from t where flag = ? order by id', [1]);
        assert.deepEqual(away, db.prepare('select id, name, flag from t where flag = ? order by id').all(1));
      }
      // A statement that writes is refused there (its connection only reads), and wrote nothing.
      assert.equal(await readers.read('insert into t (name, flag) values (?, ?) returning id', ['intruder', 0]), undefined);
      assert.equal(await readers.read('delete from t', []), undefined);
      assert.equal((db.prepare('select count(*) as n from t').get() as { n: number }).n, 5);
      // An error (a missing table) is handed back: the caller runs the statement and reports it.
      assert.equal(await readers.read('select * from missing', []), undefined);
      // Reads at once: each its own answer.
      const many = await Promise.all(Array.from({ length: 20 }, (_, i) => readers.read('select name from t where id = ?', [(i % 5) + 1])));
      assert.deepEqual(
        many.map((r) => (r as Array<{ name: string }>)[0].name),
        Array.from({ length: 20 }, (_, i) => `row ${(i % 5) + 1}`),
      );
      assert.ok(readerStatistics.running > runningBefore, 'a thread runs');
    } finally {
      readers.close();
    }
    assert.equal(readerStatistics.running, runningBefore, 'no thread left');
    // Closed: every read is handed back.
    assert.equal(await readers.read('select 1 as one', []), undefined);
  });

  test('a second thread starts while the first is busy and ends when idle; the first stays', async () => {
    const readers = sqliteReaderThreads(file, null, { idleMs: 50, max: 2 });
    // About a tenth of a second of SQLite's work.
    const slow = 'with recursive n(i) as (select 1 union all select i + 1 from n where i < 3000000) select count(*) as c from n';
    try {
      const started = readerStatistics.started;
      const running = readerStatistics.running;
      const both = await Promise.all([readers.read(slow, []), readers.read(slow, [])]);
      assert.deepEqual(both, [[{ c: 3000000 }], [{ c: 3000000 }]]);
      // Two threads; the second may already have ended (idle 50 ms) while the first still ran.
      assert.equal(readerStatistics.started, started + 2, 'two threads for two reads at once');
      await new Promise((r) => setTimeout(r, 400));
      assert.equal(readerStatistics.running, running + 1, 'the second ended when idle, the first stays');
      assert.deepEqual(await readers.read('select 2 as two', []), [{ two: 2 }]);
      assert.equal(readerStatistics.started, started + 2, 'read by the first, no new thread');
    } finally {
      readers.close();
    }
  });

  test('a file the thread cannot open leaves every read with the caller', async () => {
    const readers = sqliteReaderThreads(path.join(dir, 'absent.sqlite'), null);
    try {
      assert.equal(await readers.read('select 1 as one', []), undefined);
      const started = readerStatistics.started;
      // Not tried again for each read.
      assert.equal(await readers.read('select 1 as one', []), undefined);
      assert.equal(readerStatistics.started, started);
    } finally {
      readers.close();
    }
  });
});
