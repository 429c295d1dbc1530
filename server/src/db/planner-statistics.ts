// The query planner's statistics, kept in step with the data. Both engines plan from
// table statistics: SQLite from sqlite_stat1, gathered only by ANALYZE (Folio used to run
// `PRAGMA optimize` only when the file was opened, before the migrations), PostgreSQL from pg_statistic, gathered by autovacuum up to a
// minute after 10% of a table changed. A site filled right after its first start (an import, a
// restore, a desktop user's first hour) would otherwise keep plans made for empty tables: measured
// on 20,000 documents, an uncached read cost 4-5x more than after a restart.
// The drivers count the rows each statement writes (wrote); past THRESHOLD rows the dialect's
// refresh runs shortly after, outside any request, and again every PERIOD_MS on a long-running
// server. Each refresh is bounded (SQLite: `analysis_limit`; PostgreSQL: ANALYZE of the changed
// tables only, on the database server) and a refresh that could not run (a transaction open on
// SQLite's one connection, the write lock held elsewhere; on PostgreSQL, changes its statistics
// collector has not counted yet) is tried again a little later.
// Both engines re-plan their prepared statements after it: SQLite expires every prepared statement
// on ANALYZE (they are re-prepared at their next run); PostgreSQL invalidates cached plans of the
// tables analysed.

export interface PlannerStatistics {
  /** Rows a statement wrote (the drivers call this). */
  wrote(rows: number): void;
  /** Refreshes now, waiting for it. */
  refresh(): Promise<void>;
  /** Refreshes shortly, off the caller's path (after the migrations: not before the first answer). */
  soon(): void;
  /** Runs a refresh that is due at once and waits for one under way (background work drained: tests, shutdown). */
  settle(): Promise<void>;
  /** Stops the timers and waits for a refresh under way (the database is closing). */
  stop(): Promise<void>;
}

/** Rows written, in any table, after which the statistics are looked at again. */
export const THRESHOLD = 5_000;
/** How long after the threshold is crossed the refresh runs (a bulk write is usually still going on). */
const DELAY_MS = 500;
/** Tries of a refresh that could not run, one DELAY_MS apart, before waiting for the next THRESHOLD rows. */
const ATTEMPTS = 20;
/** A refresh on a long-running server, whatever was written (SQLite recommends it every few hours). */
const PERIOD_MS = 60 * 60 * 1000;

/**
 * `refresh()` does the dialect's work and tells whether it could (false: try again a little later,
 * up to ATTEMPTS times).
 * `log` hears of failures only.
 */
export function plannerStatistics(refresh: () => Promise<boolean>, log: (line: string) => void = () => {}): PlannerStatistics {
  let written = 0;
  let failed = 0;
  let due: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let stopped = false;
  const run = (): Promise<void> => {
    running ??= (async () => {
      written = 0;
      try {
        if (await refresh()) failed = 0;
        else if (++failed < ATTEMPTS) schedule();
      } catch (err) {
        log(`planner statistics not refreshed: ${(err as Error).message}`);
      }
    })().finally(() => (running = null));
    return running;
  };
  const schedule = () => {
    if (due || stopped) return;
    due = setTimeout(() => {
      due = null;
      void run();
    }, DELAY_MS);
    due.unref();
  };
  const periodic = setInterval(() => void run(), PERIOD_MS);
  periodic.unref();
  return {
    wrote(rows) {
      written += rows;
      if (written >= THRESHOLD) {
        failed = 0;
        schedule();
      }
    },
    refresh: run,
    soon: () => schedule(),
    async settle() {
      // A refresh that could not run (a transaction open) is due again: tried until it ran.
      for (let i = 0; i < ATTEMPTS && (due || running); i++) {
        await running;
        if (!due) continue;
        clearTimeout(due);
        due = null;
        await run();
        if (due) await new Promise((r) => setTimeout(r, 10));
      }
    },
    async stop() {
      stopped = true;
      clearInterval(periodic);
      if (due) clearTimeout(due);
      due = null;
      await running;
    },
  };
}
