// SQLite writes every commit to the WAL file first and copies the WAL back into the database file
// later, in a checkpoint; with `synchronous = NORMAL` a commit never waits for the disk, a
// checkpoint does (it syncs the WAL, then the database file). SQLite runs a checkpoint itself
// after the commit that takes the WAL past `wal_autocheckpoint` pages (1,000 by default), on the
// connection that committed: on the server's one connection, the event loop's thread, where it
// held every request back while the disk synced. Measured on the bench's 20,000 documents, one
// create per transaction: 743 µs per create in wall time against 368 µs of CPU; without those
// checkpoints 302 µs against 308.
//
// Here a thread of its own, with its own connection to the file, runs the checkpoints instead
// (`wal_checkpoint(PASSIVE)`: it never waits for a lock, and readers and the writer go on while
// it copies). The server's connection tells it after each commit (`wrote`); it checkpoints
// CHECKPOINT_DELAY_MS later, so that a run of commits is copied back once. The server's own
// `wal_autocheckpoint` stays, raised to BACKSTOP_PAGES: it runs only when this thread could not
// keep the WAL under it (it never started, or a transaction alone wrote more than that), and
// skips while this thread's checkpoint holds the lock.
//
// The thread starts once START_AFTER_COMMITS commits were told (a start's own few commits, a
// migration's, leave it unstarted: it costs about 9 MB of memory) and ends after
// CHECKPOINTER_IDLE_MS without one. Any
// failure (it cannot start, a checkpoint fails, it ends) leaves the checkpoints to SQLite's own on
// the server's connection, as before: nothing is lost either way, a checkpoint only moves where
// pages live.
import { Worker } from 'node:worker_threads';
import { moduleOf } from './sqlite-reader.js';

/** How long after a commit the thread checkpoints (commits meanwhile join that checkpoint). */
export const CHECKPOINT_DELAY_MS = 50;

/**
 * The server's connection checkpoints itself past this many pages of WAL (`wal_autocheckpoint`):
 * 10,000 pages of 4 KiB, 40 MB, under the WAL_SIZE_LIMIT the file is cut back to.
 */
export const BACKSTOP_PAGES = 10_000;

/** Commits told before the thread starts (again, after it ended idle). */
export const START_AFTER_COMMITS = 8;

/** How long the thread stays after the last commit it was told of. */
export const CHECKPOINTER_IDLE_MS = 60_000;

/** How long the thread's connection waits for a lock (a checkpoint takes none it waits for; its open may). */
const CHECKPOINTER_BUSY_MS = 1000;

/** How long closing the database waits for the thread to close its connection (a checkpoint under way finishes first). */
const CLOSE_WAIT_MS = 5000;

/** The thread's code (CommonJS, evaluated, as the reader threads'). */
const CHECKPOINTER_CODE = `const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.file, { fileMustExist: true, ...(workerData.nativeBinding ? { nativeBinding: workerData.nativeBinding } : {}) });
db.pragma('busy_timeout = ' + workerData.busyMs);
let timer = null;
const checkpoint = () => {
  timer = null;
  try {
    const [row] = db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ done: true, busy: row.busy, log: row.log, checkpointed: row.checkpointed });
  } catch (err) {
    parentPort.postMessage({ done: true, error: String((err && err.message) || err) });
  }
};
parentPort.on('message', (m) => {
  if (m === 'close') {
    if (timer) clearTimeout(timer);
    db.close();
    Atomics.store(workerData.closed, 0, 1);
    Atomics.notify(workerData.closed, 0);
    return;
  }
  if (!timer) timer = setTimeout(checkpoint, workerData.delayMs);
});
`;

export interface Checkpointer {
  /** A write committed on the server's connection: a checkpoint follows shortly. */
  wrote(): void;
  /** Ends the thread after closing its connection (before the server's own closes, so that one is the last and removes the WAL). */
  close(): void;
}

/** Every database's checkpoint threads together, since the process started (tests). */
export const checkpointStatistics = {
  started: 0,
  running: 0,
  checkpoints: 0,
  failures: 0,
  /** The last checkpoint's figures: pages in the WAL, and of those copied back. */
  last: null as { log: number; checkpointed: number } | null,
};

/** The checkpoint thread of `file` (never an in-memory database: it has no WAL). */
export function sqliteCheckpointer(
  file: string,
  nativeBinding: string | null,
  { delayMs = CHECKPOINT_DELAY_MS, idleMs = CHECKPOINTER_IDLE_MS, startAfter = START_AFTER_COMMITS } = {},
): Checkpointer {
  let worker: Worker | null = null;
  /** Commits told while no thread runs. */
  let unstarted = 0;
  /** A signal was sent and its checkpoint has not reported yet: further commits join it. */
  let armed = false;
  /** The thread could not start or failed: SQLite's own checkpoints do the work from now on. */
  let broken = false;
  let closed = false;
  let lastSignal = 0;
  let idleCheck: NodeJS.Timeout | null = null;
  const counts = checkpointStatistics;

  /** Set to 1 by the thread once its connection is closed. */
  let closedFlag = new Int32Array(new SharedArrayBuffer(4));

  /**
   * Its connection closed first, waited for here (a checkpoint under way finishes): the server's
   * connection, closed next, is then the file's last and removes the WAL. Then the thread ends.
   */
  const end = (wait = true) => {
    const w = worker;
    if (!w) return;
    worker = null;
    armed = false;
    counts.running--;
    if (idleCheck) clearInterval(idleCheck);
    idleCheck = null;
    try {
      if (wait) {
        w.postMessage('close');
        Atomics.wait(closedFlag, 0, 0, CLOSE_WAIT_MS);
      }
    } catch {
      // The thread is gone already.
    }
    void w.terminate();
  };

  const start = (): Worker | null => {
    const module = moduleOf();
    if (!module) {
      broken = true;
      return null;
    }
    let w: Worker;
    closedFlag = new Int32Array(new SharedArrayBuffer(4));
    try {
      w = new Worker(CHECKPOINTER_CODE, {
        eval: true,
        workerData: { module, file, nativeBinding, busyMs: CHECKPOINTER_BUSY_MS, delayMs, closed: closedFlag },
        resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 2 },
      });
    } catch {
      broken = true;
      return null;
    }
    w.unref();
    counts.started++;
    counts.running++;
    w.on('message', (m: { done?: boolean; error?: string; log?: number; checkpointed?: number }) => {
      if (!m?.done || worker !== w) return;
      armed = false;
      if (m.error) {
        counts.failures++;
        broken = true;
        end();
      } else {
        counts.checkpoints++;
        counts.last = { log: Number(m.log), checkpointed: Number(m.checkpointed) };
      }
    });
    w.on('error', () => {
      broken = true;
      if (worker === w) end(false);
    });
    w.on('exit', () => {
      if (worker === w) {
        worker = null;
        armed = false;
        counts.running--;
        if (idleCheck) clearInterval(idleCheck);
        idleCheck = null;
      }
    });
    idleCheck = setInterval(() => {
      if (Date.now() - lastSignal >= idleMs) end();
    }, Math.max(1000, idleMs / 2));
    idleCheck.unref();
    return w;
  };

  return {
    wrote() {
      if (armed || closed || broken) return;
      if (!worker) {
        if (++unstarted < startAfter) return;
        unstarted = 0;
        worker = start();
        if (!worker) return;
      }
      armed = true;
      lastSignal = Date.now();
      worker.postMessage(1);
    },
    close() {
      closed = true;
      end();
    },
  };
}
