// The durable job queue: background work kept in the `jobs` table, so it survives a restart and
// is done by whichever instance on the database is free. `enqueue` writes a row (inside the
// caller's transaction when given one: work of a write that rolls back is never queued); each
// server's worker claims due rows with a lease (jobs/lease.ts), runs at most `concurrency` at a
// time, renews the leases of what it runs, deletes a job once done, retries a failed one after the
// handler's delays and gives it up (state 'failed', logged) after the last or on a permanent
// error. An instance killed mid-job holds it only until its lease runs out; then another takes
// it over (so a job may run twice: handlers are idempotent or accept it, as mail does).
import crypto from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { SqlDialect } from '../db/dialect/dialect.js';
import type { Database } from '../db/tables.js';
import { nowIso } from '../db/time.js';
import { claimDue, createPruner, nextLook, nonePending } from './lease.js';
import { createWorkerLoop } from './worker-loop.js';

export interface JobHandler<P> {
  /** Waits before the 2nd, 3rd… attempt; its length + 1 is the number of tries. */
  retryDelaysMs: number[];
  /** Does the job; throws to fail the attempt. `signal` aborts at shutdown, after the grace time. */
  run(payload: P, signal: AbortSignal): Promise<void>;
  /** A failure that retrying cannot fix (mail refused with SMTP 5xx). */
  isPermanent?(err: unknown): boolean;
  /** The job in log lines. */
  describe(payload: P): string;
  /**
   * A job that queues its next run itself (sweeps): one is always pending, so idle() without
   * kinds leaves it out (name it to wait for it).
   */
  recurring?: boolean;
}

export interface EnqueueOptions {
  /** Queue inside this transaction: the job exists only if it commits; the worker is woken after. */
  trx?: Transaction<Database>;
  /** While a pending job has this key, queuing another with it does nothing. */
  dedupeKey?: string;
  /** Not before this time (epoch ms); default now. */
  runAt?: number;
}

export interface JobQueue {
  /** Declare a kind of job and how to run it (before start()); only known kinds are claimed. */
  define<P>(kind: string, handler: JobHandler<P>): void;
  /** Queue a job (at once, or in `options.trx`). */
  enqueue<P>(kind: string, payload: P, options?: EnqueueOptions): Promise<void>;
  /**
   * Record a job this server will not run (a client's BEdita `async_jobs` entry naming a service
   * of its own): kept as failed, `reason` its error, never claimed. Answers its id.
   */
  record(kind: string, payload: unknown, reason: string): Promise<number>;
  wake(): void;
  /** Resolves when no job of these kinds (or none but recurring ones) is pending, waiting retries included. */
  idle(kinds?: string[]): Promise<void>;
  start(): void;
  /**
   * Stop: run what is due for up to the grace time, let jobs under way finish within it, then
   * abort the rest and release them (another instance or the next start does them).
   */
  stop(): Promise<void>;
}

export interface JobQueueOptions {
  db: Kysely<Database>;
  dialect: SqlDialect;
  log: (line: string) => void;
  /** Runs `fn` after `trx` commits (never on rollback); false when it cannot tell (then the worker polls). */
  afterCommit(trx: Transaction<Database>, fn: () => void): boolean;
  /** How long a claim holds a job without renewal (a dead instance's jobs return after it). */
  leaseMs: number;
  /** Longest sleep between looks at the queue (other instances' jobs, expired leases). */
  pollMs: number;
  /** Jobs run at once by this instance. */
  concurrency: number;
  /** At shutdown: longest time given to due and running jobs. */
  graceMs: number;
}

export function createJobQueue(opts: JobQueueOptions): JobQueue {
  const { db, log } = opts;
  const owner = crypto.randomUUID();
  const handlers = new Map<string, JobHandler<unknown>>();
  /** Jobs this instance runs now, by id. */
  const running = new Map<number, { done: Promise<void>; abort: AbortController }>();
  let heartbeat: NodeJS.Timeout | null = null;
  /** Given-up jobs stay a while for inspection. */
  const pruneOld = createPruner(db, 'jobs');

  const mine = (id: number) => db.updateTable('jobs').where('id', '=', id).where('lease_owner', '=', owner);

  /** Keeps the leases of running jobs alive (a third of the lease between renewals). */
  function renewLeases() {
    if (heartbeat || !running.size) return;
    heartbeat = setInterval(() => {
      if (!running.size) {
        clearInterval(heartbeat!);
        heartbeat = null;
        return;
      }
      db.updateTable('jobs')
        .set({ lease_until: Date.now() + opts.leaseMs })
        .where('id', 'in', [...running.keys()])
        .where('lease_owner', '=', owner)
        .execute()
        .catch((err) => log(`job queue: lease renewal failed: ${(err as Error).message}`));
    }, Math.max(50, Math.floor(opts.leaseMs / 3)));
    heartbeat.unref?.();
  }

  async function runJob(id: number, abort: AbortController): Promise<void> {
    const job = await db.selectFrom('jobs').selectAll().where('id', '=', id).where('lease_owner', '=', owner).executeTakeFirst();
    if (!job) return; // taken over meanwhile (this instance stalled past its lease)
    const handler = handlers.get(job.kind)!;
    let payload: unknown;
    let what = `job ${id} (${job.kind})`;
    let error: unknown = null;
    try {
      payload = JSON.parse(job.payload ?? 'null');
      what = handler.describe(payload);
      await handler.run(payload, abort.signal);
    } catch (err) {
      error = err;
    }
    if (abort.signal.aborted) return; // shutting down: released by stop(), the attempt does not count
    if (error === null) {
      await db.deleteFrom('jobs').where('id', '=', id).where('lease_owner', '=', owner).execute();
      return;
    }
    const attempts = job.attempts + 1;
    const message = (error as Error)?.message ?? String(error);
    const delay = handler.retryDelaysMs[attempts - 1];
    if (delay === undefined || handler.isPermanent?.(error)) {
      await mine(id).set({ state: 'failed', attempts, last_error: message, payload: null, lease_until: null, lease_owner: null }).execute();
      log(`${what} not done, giving up after ${attempts} attempt(s): ${message}`);
    } else {
      await mine(id).set({ attempts, last_error: message, next_at: Date.now() + delay, lease_until: null, lease_owner: null }).execute();
      log(`${what} failed (attempt ${attempts}), retrying in ${delay} ms: ${message}`);
    }
  }

  function launch(id: number): void {
    const abort = new AbortController();
    const done = runJob(id, abort)
      .catch((err) => log(`job ${id}: ${(err as Error)?.stack ?? err}`))
      .finally(() => {
        running.delete(id);
        loop.wake(); // a slot is free
      });
    running.set(id, { done, abort });
    renewLeases();
  }

  /** Starts due jobs while slots are free; a job that ends wakes the loop to fill its slot. */
  async function drain(stopping: () => boolean): Promise<void> {
    await pruneOld();
    while (!stopping()) {
      const free = opts.concurrency - running.size;
      if (free <= 0) return;
      const ids = await claimDue(db, opts.dialect, { table: 'jobs', owner, leaseMs: opts.leaseMs, limit: free, only: { column: 'kind', values: [...handlers.keys()] } });
      for (const id of ids) launch(id);
      if (ids.length < free) return;
    }
  }

  /** Resolves when a running job ends or after `ms`. */
  async function someJobEnds(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([...[...running.values()].map((r) => r.done), new Promise((r) => (timer = setTimeout(r, Math.max(0, ms))))]);
    clearTimeout(timer);
  }

  const loop = createWorkerLoop({ name: 'job queue', log, pollMs: opts.pollMs, drain, nextLook: () => nextLook(db, 'jobs', opts.pollMs) });

  return {
    define(kind, handler) {
      handlers.set(kind, handler as JobHandler<unknown>);
    },
    async enqueue(kind, payload, options = {}) {
      const { trx, dedupeKey, runAt } = options;
      // Already queued: a read answers it, without a write (asked again by every poll of an async thumbnail).
      if (dedupeKey !== undefined && !trx) {
        const queued = await db.selectFrom('jobs').select('id').where('dedupe_key', '=', dedupeKey).where('state', '=', 'pending').executeTakeFirst();
        if (queued) return;
      }
      await (trx ?? db)
        .insertInto('jobs')
        .values({
          kind,
          payload: JSON.stringify(payload),
          dedupe_key: dedupeKey ?? null,
          state: 'pending',
          created: nowIso(),
          next_at: runAt ?? Date.now(),
        })
        // A pending job with the same dedupe key: this one is already queued.
        .onConflict((oc) => oc.doNothing())
        .execute();
      if (!trx) loop.wake();
      else if (!opts.afterCommit(trx, () => loop.wake())) setTimeout(() => loop.wake(), 50).unref?.();
    },
    async record(kind, payload, reason) {
      const row = await db
        .insertInto('jobs')
        .values({ kind, payload: JSON.stringify(payload ?? null), dedupe_key: null, state: 'failed', last_error: reason, created: nowIso(), next_at: Date.now() })
        .returning('id')
        .executeTakeFirstOrThrow();
      return Number(row.id);
    },
    wake: () => loop.wake(),
    async idle(kinds) {
      const recurring = [...handlers].filter(([, h]) => h.recurring).map(([kind]) => kind);
      await nonePending(db, 'jobs', () => loop.wake(), (eb) =>
        eb.and([...(kinds !== undefined ? [eb('kind', 'in', kinds.length ? kinds : [''])] : []), ...(kinds === undefined && recurring.length ? [eb('kind', 'not in', recurring)] : [])]),
      );
    },
    start: () => loop.start(),
    async stop() {
      if (loop.stopped && !running.size) return;
      const deadline = Date.now() + opts.graceMs;
      await loop.stop();
      // What is due now gets its chance (a desktop app quitting still sends the mail just queued).
      const late = () => Date.now() >= deadline;
      try {
        while (!late()) {
          await drain(late);
          if (!running.size) break;
          await someJobEnds(deadline - Date.now());
        }
      } catch (err) {
        log(`job queue: ${(err as Error)?.stack ?? err}`);
      }
      // Still running: abandoned, not counted, and released for another instance at once.
      const abandoned = [...running.keys()];
      for (const r of running.values()) r.abort.abort();
      if (abandoned.length) {
        await db.updateTable('jobs').set({ lease_until: null, lease_owner: null }).where('id', 'in', abandoned).where('lease_owner', '=', owner).execute();
        log(`job queue: ${abandoned.length} job(s) still running at shutdown released for another instance`);
      }
      if (heartbeat) clearInterval(heartbeat);
      heartbeat = null;
    },
  };
}
