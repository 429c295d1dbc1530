// What every family receives: configuration, database, secrets, logger and the background task
// tracker. One AppContext per createServer() call; nothing is global.
import type { Request } from 'express';
import type { Config } from './config.js';
import type { DB } from './db/database.js';
import type { ReadCache } from './db/read-cache.js';
import type { WriteBatcher } from './db/write-batch.js';
import type { ResponseCache } from './http/response-cache.js';
import type { RouteRecord } from './http/router.js';
import type { ObjectsRuntime } from './resources/objects/pipeline.js';

export interface BackgroundTasks {
  /** Run work after the response; errors are logged; close() waits for it. */
  run(name: string, work: () => Promise<unknown>): void;
  /** Resolves when every task started so far has settled. */
  drain(): Promise<void>;
}

export interface AppContext {
  config: Config;
  db: DB;
  /** Costly read results kept until the next write (see db/read-cache.ts). */
  readCache: ReadCache;
  /** Group commit of object writes (see db/write-batch.ts). */
  writes: WriteBatcher;
  /** Anonymous answers of read routes kept until the next write (see http/response-cache.ts). */
  responseCache: ResponseCache;
  /** HS256 secret of access tokens. */
  jwtSecret: string;
  log: (line: string) => void;
  tasks: BackgroundTasks;
  /** Every declared route, for 405 answers and the home document. */
  routes: RouteRecord[];
  /** Shutdown hooks of families (timers, queues), run by close() before the database closes. */
  onClose: Array<() => Promise<void> | void>;
  /** Per-family services registered at wiring time, looked up by name (see resources/index.ts). */
  services: Record<string, unknown>;
  /** The object pipeline's hooks, guards, observers and open units of work (objects/pipeline.ts). */
  objects: ObjectsRuntime;
  /**
   * Checks run on every request after authentication, before any route (e.g. the API key check).
   * A check throws an ApiError to refuse the request; families add theirs at wiring time.
   */
  requestChecks: Array<(req: Request) => void | Promise<void>>;
}

export function createTasks(log: (line: string) => void): BackgroundTasks {
  const pending = new Set<Promise<unknown>>();
  return {
    run(name, work) {
      const p = work()
        .catch((err) => log(`background task ${name} failed: ${(err as Error)?.stack ?? err}`))
        .finally(() => pending.delete(p));
      pending.add(p);
    },
    async drain() {
      while (pending.size) await Promise.allSettled([...pending]);
    },
  };
}
