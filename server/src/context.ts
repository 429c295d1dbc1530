// What every family receives: configuration, database, secrets, logger, the background task
// tracker and the services built once in createServer(), with their types. One AppContext per
// createServer() call; nothing is global, nothing is looked up by name. The services a family of
// resources/ defines (the write kernel, the model, schemas, streams, thumbnails, webhooks) add
// their member where they are defined (`declare module '…/context.js'`), so this module imports
// nothing from resources/ and no import circle runs through it.
import type { Request } from 'express';
import type { Config } from './config.js';
import type { DB } from './db/database.js';
import type { SqlDialect } from './db/dialect/dialect.js';
import type { ReadCache } from './db/read-cache.js';
import type { WriteBatcher } from './db/write-batch.js';
import type { ResponseCache } from './http/response-cache.js';
import type { RouteRecord } from './http/router.js';
import type { PublishEpochs } from './db/publish-epochs.js';
import type { TokenCache } from './http/auth.js';
import type { JobQueue } from './jobs/queue.js';
import type { Mailer } from './mail/mailer.js';
import type { Storage } from './storage/storage.js';

export interface BackgroundTasks {
  /** Run work after the response; errors are logged; close() waits for it. */
  run(name: string, work: () => Promise<unknown>): void;
  /** Resolves when every task started so far has settled. */
  drain(): Promise<void>;
}

export interface AppContext {
  config: Config;
  db: DB;
  /** What differs between SQLite and PostgreSQL: search, JSON values, driver errors (db/dialect/dialect.ts). */
  dialect: SqlDialect;
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
  /** Changes whenever the data may have changed; caches hold results of one version (db/data-version.ts). */
  dataVersion: PublishEpochs;
  /** Verified access tokens, kept while valid (http/auth.ts). */
  tokens: TokenCache;
  /** Per base name, the last uname suffix handed out: a guess checked before use (objects/uname.ts). */
  unameHints: Map<string, number>;
  /** The URL the server listens on, once it does (links outside requests when no public URL is set). */
  ownUrl: string | null;
  /** Background work kept in the database, done by any instance (jobs/queue.ts). */
  jobs: JobQueue;
  mailer: Mailer;
  /** Where stream files and thumbnails live: the local folder or an S3 bucket (storage/storage.ts). */
  storage: Storage;
  /**
   * Checks run on every request after authentication, before any route (the API key, endpoint
   * permissions): a check throws an ApiError to refuse the request. The families declare them;
   * the composition root (app.ts createContext) lists them once.
   */
  requestChecks: ReadonlyArray<(req: Request) => void | Promise<void>>;
}

/** `settle`: other background work drain() waits for (the planner statistics' refresh). */
export function createTasks(log: (line: string) => void, settle: () => Promise<void> = async () => {}): BackgroundTasks {
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
      await settle();
    },
  };
}
