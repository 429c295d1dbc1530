// How PostgreSQL plans a ranked search's window (the newest SEARCH_WINDOW + 1 visible matches):
// from the statistics of the columns the visibility names. Behind an expression (SQLite's unary
// + on the type, which keeps SQLite off the type's index) PostgreSQL guessed 0.5% of the rows per
// type asked, so for a word in most documents it expected a few visible matches, read and ranked
// every match, and sorted them, instead of reading the newest along the index and stopping at the
// window (20,000 documents: the search row's statements 3 times dearer). SQLite's plans are
// checked in performance-caches.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CompiledQuery, sql } from 'kysely';
import { startServer, type TestServer } from './helpers/server.js';
import { onPostgres } from './helpers/test-database.js';
import { logStatements, type StatementLog } from './helpers/pg-statements.js';

const ATOMIC = 'application/vnd.api+json;ext="https://jsonapi.org/ext/atomic"';

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Plan Rows': number;
  Plans?: PlanNode[];
}

const nodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)];

describe('a ranked search on PostgreSQL plans from the columns\' statistics', { skip: onPostgres ? false : "PostgreSQL's planner (SQLite's search plans: performance-caches)" }, () => {
  let t: TestServer;
  let token: string;
  let log: StatementLog;
  const PUBLISHED = 400;

  before(async () => {
    // Installed before the server connects: each connection binds the query method it finds.
    log = logStatements();
    t = await startServer();
    token = await t.adminToken();
    for (let start = 0; start < PUBLISHED + 40; start += 100) {
      const operations = Array.from({ length: Math.min(100, PUBLISHED + 40 - start) }, (_, i) => {
        const n = start + i;
        // Every document holds the word; the last 40 are drafts.
        return { op: 'add', data: { type: 'documents', attributes: { title: `Harbour ${n}`, body: `<p>Boats in the harbour, number ${n}.</p>`, status: n < PUBLISHED ? 'on' : 'draft' } } };
      });
      const res = await t.request('POST', '/operations', { token, body: { 'atomic:operations': operations }, headers: { 'Content-Type': ATOMIC, Accept: ATOMIC } });
      assert.equal(res.status, 200, res.text);
    }
    await sql`analyze objects`.execute(t.server.ctx.db);
    await sql`analyze objects_search`.execute(t.server.ctx.db);
  });
  after(async () => {
    await t?.close();
    log?.restore();
  });

  /** The window's statement a search sent, explained with the values it was sent with. */
  async function windowPlan(path: string): Promise<PlanNode[]> {
    const sent = await log.sentDuring(async () => {
      const res = await t.request('GET', path);
      assert.equal(res.status, 200, res.text);
      assert.ok(res.body.data.length > 0, 'the search finds the documents');
    });
    const window = sent.find((s) => /objects_search/.test(s.text) && /limit 1001/.test(s.text));
    assert.ok(window, `the window's statement among ${sent.length} sent`);
    const explained = await t.server.ctx.db.executeQuery<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(CompiledQuery.raw(`explain (format json) ${window.text}`, window.values));
    return nodes(explained.rows[0]['QUERY PLAN'][0].Plan);
  }

  for (const [who, path] of [
    ['anonymous, one type', '/documents?q=harbour'],
    ['anonymous, every type', '/objects?q=harbour'],
  ] as const) {
    test(`the visible objects are expected at about their number (${who})`, async () => {
      const plan = await windowPlan(path);
      const objects = plan.filter((n) => n['Relation Name'] === 'objects');
      assert.ok(objects.length > 0, `the plan reads objects: ${plan.map((n) => n['Node Type']).join(', ')}`);
      const expected = Math.max(...objects.map((n) => n['Plan Rows']));
      // Guessed from an expression, a few rows (400 x 0.5% per type); from the statistics, about 400.
      assert.ok(expected >= PUBLISHED / 2, `expected ${expected} visible objects of ${PUBLISHED}`);
    });
  }
});
