// Claiming rows of a queue table with a lease, shared by the job queue (jobs) and webhook
// deliveries (webhook_deliveries). Such a table has `id`, `state` ('pending' while waiting or
// running), `next_at` (due time), `lease_until` and `lease_owner` (epoch ms; the worker that
// holds the row and until when). One UPDATE claims: on PostgreSQL its subquery picks the due
// rows FOR UPDATE SKIP LOCKED, so concurrent claims of several instances pass over each other's
// rows instead of waiting or taking the same one; on SQLite the statement holds the database's
// write lock. A worker that dies keeps its rows only until the lease runs out.
import type { Expression, ExpressionBuilder, Kysely, SqlBool } from 'kysely';
import type { SqlDialect } from '../db/dialect/dialect.js';
import type { Database } from '../db/tables.js';
import { nowIso } from '../db/time.js';

export type LeasedTable = 'jobs' | 'webhook_deliveries';

/** Rows waiting for a worker: pending, and not held by a live lease. */
const unleased = (eb: ExpressionBuilder<any, any>, now: number) =>
  eb.and([eb('state', '=', 'pending'), eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)])]);

export interface Claim {
  table: LeasedTable;
  owner: string;
  leaseMs: number;
  /** Most rows taken. */
  limit: number;
  /** Only rows whose `column` is one of `values` (the job kinds this instance knows). */
  only?: { column: string; values: string[] };
}

/** Claims up to `limit` due rows for `owner`, oldest due first; answers their ids. */
export async function claimDue(db: Kysely<Database>, dialect: SqlDialect, c: Claim): Promise<number[]> {
  if (c.limit < 1 || (c.only && !c.only.values.length)) return [];
  const now = Date.now();
  const anyDb = db as unknown as Kysely<any>;
  const dueRows = () =>
    anyDb
      .selectFrom(c.table)
      .select('id')
      .where((eb) => unleased(eb, now))
      .where('next_at', '<=', now)
      .$if(!!c.only, (q) => q.where(c.only!.column, 'in', c.only!.values))
      .orderBy('next_at')
      .orderBy('id')
      .limit(c.limit);
  // A plain read first: a look that finds nothing writes nothing (on SQLite a write waits for
  // the database lock, and better-sqlite3 waits synchronously).
  if (!(await dueRows().executeTakeFirst())) return [];
  const due = dialect.locks.skipLocked(dueRows());
  const rows = await anyDb
    .updateTable(c.table)
    .set({ lease_until: now + c.leaseMs, lease_owner: c.owner })
    .where('id', 'in', due)
    .where((eb) => unleased(eb, now))
    .returning('id')
    .execute();
  return rows.map((r) => Number(r.id)).sort((a, b) => a - b);
}

/** When a worker should look again: the next due unleased row, at most `pollMs` away (10 ms at least). */
export async function nextLook(db: Kysely<Database>, table: LeasedTable, pollMs: number): Promise<number> {
  const now = Date.now();
  const next = await (db as unknown as Kysely<any>)
    .selectFrom(table)
    .select((eb) => eb.fn.min('next_at').as('at'))
    .where((eb) => unleased(eb, now))
    .executeTakeFirst();
  const at = next?.at === null || next?.at === undefined ? Infinity : Number(next.at);
  return Math.max(10, Math.min(pollMs, at - now));
}

/**
 * Resolves once no row of `table` that `only` keeps is pending (waiting retries and rows under
 * way included: a row stays pending until its outcome is written), waking the worker meanwhile.
 * What tests and a quitting desktop app wait on before they look at what a queue did.
 */
export async function nonePending(
  db: Kysely<Database>,
  table: LeasedTable,
  wake: () => void,
  only: (eb: ExpressionBuilder<any, any>) => Expression<SqlBool> = (eb) => eb.and([]),
): Promise<void> {
  for (;;) {
    const row = await (db as unknown as Kysely<any>)
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('state', '=', 'pending')
      .where(only)
      .executeTakeFirstOrThrow();
    if (Number(row.n) === 0) return;
    wake();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Days a finished row (delivered, failed) stays in a queue table, and how often older ones are deleted. */
const KEEP_DAYS = 30;
const PRUNE_EVERY_MS = 3_600_000;

/** Deletes a queue table's finished rows older than KEEP_DAYS, at most once an hour (a log, not an archive). */
export function createPruner(db: Kysely<Database>, table: LeasedTable): () => Promise<void> {
  let lastPrune = 0;
  return async () => {
    if (Date.now() - lastPrune < PRUNE_EVERY_MS) return;
    lastPrune = Date.now();
    const before = nowIso(new Date(Date.now() - KEEP_DAYS * 86_400_000));
    await (db as unknown as Kysely<any>).deleteFrom(table).where('state', '!=', 'pending').where('created', '<', before).execute();
  };
}
