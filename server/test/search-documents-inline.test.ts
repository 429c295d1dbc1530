// PostgreSQL keeps each search document in its table's own row (migration 0155,
// dialect/postgres.ts storeDocumentsInline): a document wider than 2 kB used to lie apart in the
// table's TOAST storage, fetched chunk by chunk for every match a search tested or ranked. New
// documents are written inline; the migration rewrites those an older version stored apart, and
// searches find and rank them as before. SQLite's index holds no documents: nothing to check there.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { createServer } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { postgresDialect } from '../src/db/dialect/postgres.js';
import { sameData, startServer, type TestServer } from './helpers/server.js';
import { onPostgres } from './helpers/test-database.js';

const TABLES = ['objects_search', 'translations_search'] as const;

/** What a search table's storage is: its row width setting, its documents' storage, the chunks its TOAST table holds, its GIN index. */
async function storage(db: Kysely<any>, table: (typeof TABLES)[number]) {
  const found = await sql<{ options: string[] | null; toast: string; storage: string }>`select c.reloptions as options, c.reltoastrelid::regclass::text as toast,
      (select attstorage from pg_attribute where attrelid = c.oid and attname = 'document') as storage
    from pg_class c where c.oid = ${table}::regclass`.execute(db);
  const { options, toast, storage } = found.rows[0];
  const chunks = await sql<{ n: string }>`select count(*) as n from ${sql.raw(toast)}`.execute(db);
  const index = await sql<{ def: string }>`select indexdef as def from pg_indexes where tablename = ${table} and indexname = ${`${table}_document`}`.execute(db);
  return { options: options ?? [], storage, chunks: Number(chunks.rows[0].n), index: index.rows[0]?.def ?? null };
}

describe('search documents kept in their rows (PostgreSQL)', { skip: onPostgres ? false : 'PostgreSQL search tables (SQLite: its FTS5 index)' }, () => {
  let t: TestServer;
  let token: string;
  const ids: Record<string, string> = {};
  // About 5 kB of text: a document of about 7 kB, well over the 2 kB at which values are moved apart.
  const longBody = (word: string) => `<p>${Array.from({ length: 400 }, (_, i) => `${word} line${i}`).join(' ')}</p>`;

  before(async () => {
    t = await startServer();
    token = await t.adminToken();
    for (const [key, attributes] of [
      ['inTitle', { title: 'Pelican harbour', body: longBody('tidewater') }],
      ['inBody', { title: 'Coastal notes', body: `${longBody('tidewater')} <p>a pelican passed</p>` }],
      ['other', { title: 'Inland', body: longBody('meadow') }],
    ] as const) {
      const res = await t.request('POST', '/documents', { token, body: { data: { type: 'documents', attributes: { status: 'on', ...attributes } } } });
      assert.equal(res.status, 201, res.text);
      ids[key] = String(res.body.data.id);
    }
    const translated = await t.request('POST', '/translations', {
      token,
      body: { data: { type: 'translations', attributes: { object_id: Number(ids.other), lang: 'it', status: 'on', translated_fields: { title: 'Entroterra', body: longBody('prateria') } } } },
    });
    assert.equal(translated.status, 201, translated.text);
  });
  after(() => t?.close());

  const searched = async (server: { request: TestServer['request'] }, query: string) => {
    const res = await server.request('GET', `/objects?${query}`);
    assert.equal(res.status, 200, res.text);
    return res.body.data.map((d: { id: string }) => d.id) as string[];
  };

  test('new documents are written in their rows, whole: nothing in the TOAST tables', async () => {
    for (const table of TABLES) {
      const s = await storage(t.server.ctx.db, table);
      assert.ok(s.options.includes('toast_tuple_target=8160'), `${table}: ${s.options.join(',')}`);
      assert.equal(s.storage, 'm', `${table}: documents compressed only when a row is wider than a page, never moved apart first`);
      assert.equal(s.chunks, 0, `${table}: no document apart from its row`);
      assert.match(s.index ?? '', /USING gin \(document\)/);
    }
    assert.deepEqual(await searched(t, 'q=pelican'), [ids.inTitle, ids.inBody], 'a title match ranks above a body match');
    assert.deepEqual(await searched(t, 'q=prateria&lang=it'), [ids.other]);
  });

  // A ranked search hashes its matches with their documents (dialect/postgres-driver.ts,
  // WORK_MEM_AT_LEAST): with PostgreSQL's default 4 MB a hash of a few thousand of them went to
  // temporary files. Folio's connections take 16 MB where the server gives less, and keep more.
  test("Folio's connections give a statement's sorts and hashes 16 MB, or what the database gives when that is more", async () => {
    const workMem = async (db: Kysely<any>) => (await sql<{ work_mem: string }>`show work_mem`.execute(db)).rows[0].work_mem;
    const db = t.server.ctx.db;
    const name = (await sql<{ name: string }>`select current_database() as name`.execute(db)).rows[0].name;
    assert.equal((await sql<{ setting: string }>`select reset_val as setting from pg_settings where name = 'work_mem'`.execute(db)).rows[0].setting, '4096', "the test server's own default: 4 MB");
    assert.equal(await workMem(db), '16MB');
    await sql`alter database ${sql.id(name)} set work_mem = '64MB'`.execute(db);
    const second = await createServer(loadConfig({ ...sameData(t), FOLIO_LOGIN_LIMIT: '0' }, { logRequests: false }), { log: () => {} });
    try {
      assert.equal(await workMem(second.ctx.db), '64MB', 'a database given more keeps it');
    } finally {
      await second.close();
      await sql`alter database ${sql.id(name)} reset work_mem`.execute(db);
    }
  });

  // dialect/postgres.ts, widenWordStatistics (migration 0156): 3,000 most common words instead of 1,000.
  test("the planner keeps 3,000 of the documents' most common words", async () => {
    const db = t.server.ctx.db;
    const targets = async () =>
      (await sql<{ table: string; target: number }>`select c.relname as table, a.attstattarget as target from pg_attribute a join pg_class c on c.oid = a.attrelid
        where c.relname in ('objects_search', 'translations_search') and a.attname = 'document' order by 1`.execute(db)).rows.map((r) => [r.table, Number(r.target)]);
    assert.deepEqual(await targets(), [['objects_search', 300], ['translations_search', 300]]);
    // From PostgreSQL's default, as every version before 0156 left them, the migration sets them again; run once more, it changes nothing.
    for (const table of TABLES) await sql`alter table ${sql.table(table)} alter column document set statistics -1`.execute(db);
    await postgresDialect.search.widenWordStatistics!(db);
    assert.deepEqual(await targets(), [['objects_search', 300], ['translations_search', 300]]);
    await postgresDialect.search.widenWordStatistics!(db);
    assert.deepEqual(await targets(), [['objects_search', 300], ['translations_search', 300]]);
  });

  test('the migration rewrites documents an older version stored apart; searches find and rank them as before', async () => {
    const db = t.server.ctx.db;
    // The tables as every version before 0155 made them, their documents written apart again.
    for (const table of TABLES) {
      await sql`alter table ${sql.table(table)} reset (toast_tuple_target)`.execute(db);
      await sql`alter table ${sql.table(table)} alter column document set storage extended`.execute(db);
      await sql`update ${sql.table(table)} set document = document || ''::tsvector`.execute(db);
      const before = await storage(db, table);
      assert.ok(before.chunks > 0, `${table}: the old storage puts the documents apart`);
    }
    await sql`delete from kysely_migration where name = '0155-search-documents-inline'`.execute(db);
    const second = await createServer(loadConfig({ ...sameData(t), FOLIO_LOGIN_LIMIT: '0' }, { logRequests: false }), { log: () => {} });
    try {
      const { url } = await second.listen(0, '127.0.0.1');
      for (const table of TABLES) {
        const s = await storage(second.ctx.db, table);
        assert.ok(s.options.includes('toast_tuple_target=8160'), `${table}: ${s.options.join(',')}`);
        assert.equal(s.chunks, 0, `${table}: every document rewritten into its row`);
        assert.match(s.index ?? '', /USING gin \(document\)/, `${table}: its index made again`);
      }
      const request: TestServer['request'] = async (method, p) => {
        const res = await fetch(url + p, { method, headers: { Accept: 'application/vnd.api+json' } });
        const text = await res.text();
        return { status: res.status, headers: res.headers, body: JSON.parse(text), text };
      };
      assert.deepEqual(await searched({ request }, 'q=pelican'), [ids.inTitle, ids.inBody]);
      assert.deepEqual(await searched({ request }, 'q=tidewat&sort=id'), [ids.inTitle, ids.inBody], 'a prefix, through the GIN index made again');
      assert.deepEqual(await searched({ request }, 'q=prateria&lang=it'), [ids.other]);
      assert.deepEqual(await searched({ request }, 'q=meadow'), [ids.other]);
      // Done once: run again, it rewrites nothing and keeps the indexes it made.
      const indexes = async () => (await sql<{ oid: number }>`select indexrelid::int as oid from pg_index where indrelid in ('objects_search'::regclass, 'translations_search'::regclass) order by 1`.execute(second.ctx.db)).rows;
      const made = await indexes();
      await postgresDialect.search.storeDocumentsInline!(second.ctx.db);
      assert.deepEqual(await indexes(), made);
    } finally {
      await second.close();
    }
  });
});
