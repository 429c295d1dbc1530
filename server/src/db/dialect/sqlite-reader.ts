// Reads that take milliseconds (a search's matches and their count) run on a reader thread with
// a connection of its own to the same file, not on the event loop's thread. better-sqlite3 is
// synchronous: on the server's one connection a search's statement (2-3 ms at 20,000 documents,
// about 90 ms at a million) held every other request back, and ten searches at once waited on
// each other's statements as well as their answers. In WAL mode another connection reads the last
// commit without taking any lock from the writer, and a statement started after this process's
// commit sees it (the commit is in the WAL index before the writer's answer goes out).
//
// The thread starts with the first such read and ends after READER_IDLE_MS without one (a V8
// isolate and its own page cache: memory given back when idle). Any failure (the thread cannot
// start, a statement fails there, the thread ends) answers undefined: the caller then runs the
// statement on the server's connection, which reports a statement's error as usual.
import { createRequire } from 'node:module';
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import type { ThreadReads } from '../prepared.js';
import { searchRank } from './sqlite-rank.js';

/** How long a reader thread past the first stays after its last read (the first stays: see MAX_READERS). */
export const READER_IDLE_MS = 60_000;

/**
 * Reader threads at most: one per core but one (the event loop's), at least one, four at most. A
 * second starts only while the others are busy, and ends after READER_IDLE_MS without a read; the
 * first, once started, stays for the life of the database, as a pool keeps its minimum: a thread
 * started again costs the read that waits for it 15-30 ms, and ending one gives little back
 * (glibc keeps a thread's malloc arena after the thread ends). Measured at 20,000 documents on
 * 2 cores: one or two readers cost the same per search; each costs about 20 MB of RSS.
 */
const MAX_READERS = Math.max(1, Math.min(4, os.availableParallelism() - 1));

/**
 * Its own page cache (KiB, as `cache_size` takes it negative): SQLite's default. Measured at 20,000
 * documents: 2, 8 and 32 MiB cost the same per search (the OS keeps the file's pages).
 */
const READER_CACHE_KIB = 2048;

/** Statements kept prepared by a reader thread (by text, oldest dropped first). */
const READER_STATEMENTS = 64;

/** How long a reader's statement waits for a lock (only a checkpoint's restart of the WAL takes one). */
const READER_BUSY_MS = 5000;

/**
 * The thread's code (CommonJS, evaluated: no file of its own to find in every build). Its
 * connection only reads (`query_only`): a statement that is not a plain read is refused.
 */
const READER_CODE = `const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.file, { fileMustExist: true, ...(workerData.nativeBinding ? { nativeBinding: workerData.nativeBinding } : {}) });
if (workerData.rankLibrary) db.loadExtension(workerData.rankLibrary);
db.pragma('query_only = 1');
db.pragma('busy_timeout = ' + workerData.busyMs);
db.pragma('cache_size = -' + workerData.cacheKib);
const statements = new Map();
parentPort.on('message', ({ id, sql, params }) => {
  try {
    let st = statements.get(sql);
    if (!st) {
      st = db.prepare(sql);
      if (!st.reader || !st.readonly) throw new Error('not a read');
      statements.set(sql, st);
      if (statements.size > workerData.statements) statements.delete(statements.keys().next().value);
    }
    parentPort.postMessage({ id, rows: st.all(params) });
  } catch (err) {
    parentPort.postMessage({ id, error: String((err && err.message) || err) });
  }
});`;


interface Reader {
  worker: Worker;
  pending: Map<number, (rows: unknown[] | undefined) => void>;
  idle: NodeJS.Timeout | null;
  ended: boolean;
  /** It answered a read: it opened the file. */
  answered: boolean;
}

export interface ReaderThreads {
  read: ThreadReads;
  /** Ends every reader thread (the database closes): reads under way answer undefined. */
  close(): void;
}

/**
 * Every database's reader threads together, since the process started (tests): reads a thread
 * answered, reads handed back to the caller, threads started, threads running now.
 */
export const readerStatistics = { threads: 0, fallbacks: 0, started: 0, running: 0 };

/** Told the SQL of every read sent to a reader thread (tests that look at the plans of what Folio runs). */
export const readerObservers: { sent: ((sql: string) => void) | null } = { sent: null };

/** Where better-sqlite3 is, for a thread to require it (null: not found). */
export const moduleOf = (() => {
  let found: string | null | undefined;
  return () => {
    if (found === undefined) {
      try {
        found = createRequire(import.meta.url).resolve('better-sqlite3');
      } catch {
        found = null;
      }
    }
    return found;
  };
})();

/** Reader threads over `file` (never an in-memory database: another connection would see another one). */
export function sqliteReaderThreads(file: string, nativeBinding: string | null, { idleMs = READER_IDLE_MS, max = MAX_READERS } = {}): ReaderThreads {
  const readers: Reader[] = [];
  let nextId = 1;
  let closed = false;
  /** After a thread failed to start, reads stay on the server's connection. */
  let broken = false;
  const counts = readerStatistics;

  const end = (r: Reader) => {
    if (r.ended) return;
    r.ended = true;
    counts.running--;
    if (r.idle) clearTimeout(r.idle);
    const i = readers.indexOf(r);
    if (i >= 0) readers.splice(i, 1);
    for (const done of r.pending.values()) done(undefined);
    r.pending.clear();
    void r.worker.terminate();
  };

  const start = (): Reader | null => {
    const module = moduleOf();
    if (!module) {
      broken = true;
      return null;
    }
    let worker: Worker;
    try {
      worker = new Worker(READER_CODE, {
        eval: true,
        workerData: { module, file, nativeBinding, rankLibrary: searchRank().library, busyMs: READER_BUSY_MS, cacheKib: READER_CACHE_KIB, statements: READER_STATEMENTS },
        // Its own small heap: it holds a few statements and one answer at a time.
        resourceLimits: { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 4 },
      });
    } catch {
      broken = true;
      return null;
    }
    counts.started++;
    counts.running++;
    const r: Reader = { worker, pending: new Map(), idle: null, ended: false, answered: false };
    worker.on('message', (m: { id: number; rows?: unknown[]; error?: string }) => {
      const done = r.pending.get(m.id);
      if (!done) return;
      r.pending.delete(m.id);
      r.answered = true;
      done(m.rows);
      if (r.pending.size === 0) rest(r);
    });
    // A thread that ends for any reason hands its reads back; one that never answered (it could
    // not load the driver or open the file) leaves every read on the server's connection.
    worker.on('error', () => {
      if (!r.answered) broken = true;
      end(r);
    });
    worker.on('exit', () => end(r));
    readers.push(r);
    return r;
  };

  /** Idle: it no longer keeps the process alive; a thread past the first ends after idleMs. */
  const rest = (r: Reader) => {
    r.worker.unref();
    if (r.idle) clearTimeout(r.idle);
    if (readers[0] === r) return;
    r.idle = setTimeout(() => end(r), idleMs);
    r.idle.unref();
  };

  const pick = (): Reader | null => {
    let best: Reader | null = null;
    for (const r of readers) if (!best || r.pending.size < best.pending.size) best = r;
    if (best && (best.pending.size === 0 || readers.length >= max)) return best;
    return start() ?? best;
  };

  const read: ThreadReads = (sql, params) => {
    const r = closed || broken ? null : pick();
    if (!r) {
      counts.fallbacks++;
      return Promise.resolve(undefined);
    }
    const id = nextId++;
    if (r.idle) {
      clearTimeout(r.idle);
      r.idle = null;
    }
    r.worker.ref();
    return new Promise((resolve) => {
      r.pending.set(id, (rows) => {
        if (rows) counts.threads++;
        else counts.fallbacks++;
        resolve(rows);
      });
      readerObservers.sent?.(sql);
      r.worker.postMessage({ id, sql, params });
    });
  };

  return {
    read,
    close() {
      closed = true;
      for (const r of [...readers]) end(r);
    },
  };
}
