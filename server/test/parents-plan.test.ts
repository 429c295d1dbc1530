// postgres pass: not run (SQLite's query planner and its sqlite_stat1 statistics)
// The parent folders of many objects at once (every serialised page of objects asks) are read by
// walking the placements of the ids asked, whatever SQLite's statistics say: its bounded ANALYZE
// estimates `objects.deleted = 0` at a few hundred rows, and as an inner join the planner then
// walked every live object once the ids asked outnumbered that (2 s for the 1,000 children of one
// request at 30,000 objects, growing with the table).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CompiledQuery, sql } from 'kysely';
import { parentsStatement } from '../src/resources/folders/service.js';
import { SYSTEM, visibleObjectsTable } from '../src/resources/objects/read.js';
import { startServer, type TestServer } from './helpers/server.js';

describe('parent folders of many objects on SQLite', () => {
  let s: TestServer;
  let token: string;
  const ids: number[] = [];
  let folder: string;

  before(async () => {
    s = await startServer();
    token = await s.adminToken();
    const f = await s.request('POST', '/folders', { token, body: { data: { type: 'folders', attributes: { title: 'Box', status: 'on' } } } });
    assert.equal(f.status, 201, f.text);
    folder = f.body.data.id;
    for (let i = 0; i < 3; i++) {
      const d = await s.request('POST', '/documents', { token, body: { data: { type: 'documents', attributes: { title: `In the box ${i}`, status: 'on' } } } });
      assert.equal(d.status, 201, d.text);
      ids.push(Number(d.body.data.id));
    }
    const placed = await s.request('POST', `/folders/${folder}/relationships/children`, { token, body: { data: ids.map((id) => ({ type: 'documents', id: String(id) })) } });
    assert.ok(placed.status === 200 || placed.status === 204, placed.text);
    // Statistics as the bounded ANALYZE leaves them on a big site: every live object looks like a
    // handful of rows, the placements like many.
    const { db } = s.server.ctx;
    // The server's own statistics refresh (due after its start) runs now, not over these.
    await s.server.ctx.tasks.drain();
    await sql`analyze`.execute(db);
    const stats = await sql<{ idx: string; stat: string }>`select idx, stat from sqlite_stat1 where tbl = 'objects'`.execute(db);
    for (const { idx, stat } of stats.rows) {
      const [, ...rest] = stat.split(' ');
      // A million rows; the first column of each index (deleted, or the id) a couple of rows per value.
      const made = ['1000000', ...rest.map((n, k) => (k === 0 ? '2' : n))].join(' ');
      await sql`update sqlite_stat1 set stat = ${made} where tbl = 'objects' and idx = ${idx}`.execute(db);
    }
    await sql`delete from sqlite_stat1 where tbl = 'trees'`.execute(db);
    await sql`insert into sqlite_stat1 (tbl, idx, stat) select 'trees', name, '5000 1 1' from sqlite_schema where type = 'index' and tbl_name = 'trees'`.execute(db);
    await sql`analyze sqlite_schema`.execute(db);
  });
  after(() => s.close());

  const plan = async (query: { compile(): CompiledQuery<unknown> }) => {
    const compiled = query.compile();
    const rows = await s.server.ctx.db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${compiled.sql}`, [...compiled.parameters]));
    return rows.rows.map((r) => r.detail);
  };
  // 1,000 ids asked, the three placed among them.
  const asked = () => Array.from({ length: 1000 }, (_, i) => ids[i] ?? 1_000_000 + i);

  test('the statistics mislead an inner join into walking the objects first (what the cross join avoids)', async () => {
    const { db } = s.server.ctx;
    const values = asked();
    const inner = db
      .selectFrom('trees')
      .innerJoin(visibleObjectsTable(null, SYSTEM, db, { as: 'parent' }), 'parent.id', 'trees.parent_id')
      .select(['trees.object_id', 'trees.parent_id'])
      .where('trees.object_id', 'in', values);
    const steps = await plan(inner);
    assert.match(steps[0], /\bobjects\b/, `the inner join under these statistics: ${steps.join(' | ')}`);
  });

  test('the parents of 1,000 ids are read from their placements, each parent by its key', async () => {
    const values = asked();
    for (const onlyPublished of [false, true]) {
      const steps = await plan(parentsStatement(s.server.ctx.db, ((i: number) => values[i]) as never, values.length, onlyPublished));
      assert.match(steps[0], /^SEARCH trees\b/, steps.join(' | '));
      assert.match(steps[1], /objects.*\((row)?id=\?/, steps.join(' | '));
    }
  });

  test('the answer still names the parent folder', async () => {
    const r = await s.request('GET', `/folders/${folder}/children?page_size=100`, { token });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.data.map((d: { id: string }) => Number(d.id)).sort(), [...ids].sort());
    const one = await s.request('GET', `/documents/${ids[0]}?include=parents`, { token });
    assert.equal(one.status, 200, one.text);
    assert.deepEqual((one.body.included ?? []).map((d: { id: string }) => d.id), [folder]);
  });
});
