// Prepared statements (db/prepared.ts) run as named statements on PostgreSQL, and each connection
// reuses what pg made of a statement's RowDescription the last time it ran there
// (dialect/postgres-driver.ts shapedQueries): the rows of every later run must be the rows pg
// itself would make — every column, parsed by its type. On SQLite the same reads run natively.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { prepared } from '../src/db/prepared.js';
import { startServer, type TestServer } from './helpers/server.js';

interface Probe {
  id: number;
  uname: string;
  locked: number | boolean;
  created_by: number;
  publish_start: string | null;
  extra: string | null;
}

// Two statements of different shapes, each asked again and again on the same connections.
const probe = prepared<Probe, [number]>((db, p) => db.selectFrom('objects').select(['id', 'uname', 'locked', 'created_by', 'publish_start', 'extra']).where('id', '=', p(0)));
const titles = prepared<{ title: string | null; n: number }, [number]>((db, p) =>
  db
    .selectFrom('objects')
    .select((eb) => ['title', eb.fn.countAll<number>().as('n')])
    .where('id', '>=', p(0))
    .groupBy('title')
    .orderBy('title'),
);

describe('named statements keep their rows from one run to the next', () => {
  let s: TestServer;
  const ids: number[] = [];
  before(async () => {
    s = await startServer();
    const admin = await s.adminToken();
    for (const [title, attributes] of [
      ['Tide tables', { publish_start: '2026-01-02T03:04:05+00:00', extra: { harbour: 'north' } }],
      ['Buoy list', {}],
    ] as const) {
      const r = await s.request('POST', '/documents', { token: admin, body: { data: { type: 'documents', attributes: { title, status: 'on', ...attributes } } } });
      assert.equal(r.status, 201, r.text);
      ids.push(Number(r.body.data.id));
    }
  });
  after(() => s.close());

  test('each run of a statement reads every column with its type, whatever ran between', async () => {
    const db = s.server.ctx.db;
    const first = await probe(db, ids[0]);
    assert.equal(first.length, 1);
    const row = first[0];
    assert.equal(typeof row.id, 'number');
    assert.equal(typeof row.created_by, 'number');
    assert.equal(Number(row.locked), 0);
    assert.match(String(row.publish_start), /^2026-01-02T03:04:05/);
    assert.deepEqual(JSON.parse(String(row.extra)), { harbour: 'north' });
    for (let round = 0; round < 25; round++) {
      // Another statement of another shape in between, on whichever connection the pool gives.
      const grouped = await titles(db, ids[0]);
      assert.deepEqual(grouped.map((g) => [g.title, Number(g.n)]), [['Buoy list', 1], ['Tide tables', 1]]);
      const [again, other] = await Promise.all([probe(db, ids[0]), probe(db, ids[1])]);
      assert.deepEqual(again, first);
      assert.equal(other[0].id, ids[1]);
      assert.equal(other[0].publish_start, null);
      assert.equal(other[0].extra, null);
      assert.deepEqual(Object.keys(other[0]).sort(), Object.keys(row).sort());
    }
  });

  test('reads by id through the API answer the same body every time', async () => {
    const bodies = new Set<string>();
    for (let i = 0; i < 5; i++) {
      // A write between reads: the answer is read again from the database each time.
      const r = await s.request('GET', `/documents/${ids[0]}`);
      assert.equal(r.status, 200);
      bodies.add(JSON.stringify(r.body.data));
      const touch = await s.request('PATCH', `/documents/${ids[1]}`, { token: await s.adminToken(), body: { data: { type: 'documents', id: String(ids[1]), attributes: { description: `round ${i}` } } } });
      assert.equal(touch.status, 200, touch.text);
    }
    assert.equal(bodies.size, 1);
  });
});
