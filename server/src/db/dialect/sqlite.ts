// The only home of SQLite-specific code: opening the file with the pragmas Folio relies on,
// binding booleans (better-sqlite3 refuses JS booleans), and SQLite-only SQL (FTS5 lives here too).
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { LIST_COLUMNS, MODEL_TABLES, MODEL_VERSION_ROW, SETTINGS_TABLES, type DataVersion } from '../data-version.js';
import { LruMap } from '../lru.js';
import { draftTranslationsWhere, type Aggregates, type DriverErrors, type JsonText, type ObjectSearch, type RowLocks, type SchemaDialect, type SqlDialect } from './dialect.js';
import { refillObjectsIndex } from './hidden-search.js';
import { searchWords } from './search-words.js';
import { loadSearchRank, searchRank } from './sqlite-rank.js';
import { BACKSTOP_PAGES, sqliteCheckpointer, type Checkpointer } from './sqlite-checkpoint.js';
import { sqliteReaderThreads, type ReaderThreads } from './sqlite-reader.js';
import { plannerStatistics, type PlannerStatistics } from '../planner-statistics.js';
import type { DirectReads, ThreadReads } from '../prepared.js';
import {
  CompiledQuery,
  SqliteDialect,
  SqliteDriver,
  sql,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type SqliteDatabase,
  type SqliteDialectConfig,
  type SqliteStatement,
} from 'kysely';

const toBindable = (v: unknown) => (typeof v === 'boolean' ? (v ? 1 : 0) : v);

/** kysely's parameters as SQLite binds them (better-sqlite3 refuses JS booleans). */
function bindable(params: readonly unknown[]): unknown[] {
  for (let i = 0; i < params.length; i++) {
    if (typeof params[i] === 'boolean') return params.map(toBindable);
  }
  return params as unknown[];
}

/**
 * Transactions start with BEGIN IMMEDIATE: the write lock is taken up front, waiting up to
 * busy_timeout for another process (a CLI, a backup) to let go. A deferred BEGIN would read first
 * and then fail at its first write with SQLITE_BUSY_SNAPSHOT, which no timeout can cure.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  constructor(private readonly driverConfig: SqliteDialectConfig) {
    super(driverConfig);
  }
  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.driverConfig);
  }
}

/** How many prepared statements stay cached per connection (kysely builds few distinct texts). */
const STATEMENT_CACHE_SIZE = 500;

/**
 * A function making a row object from a row's values, with the statement's columns as literal
 * keys: better-sqlite3 builds each row by setting its properties one by one, looking every column
 * name up as it goes (a few µs per row of `objects`' thirty columns, about a sixth of reading one
 * by id: issue 48); rows read as arrays and made by one object literal cost a fraction of that,
 * and share one shape. Column names are quoted as JSON strings (no name can end the literal); a
 * name given twice keeps its last value, as better-sqlite3's objects do; a column `__proto__` is
 * an ordinary property (better-sqlite3 would set the row's prototype to its value).
 */
function rowMaker(columns: readonly string[]): (values: unknown[]) => Record<string, unknown> {
  // `__proto__: x` in a literal sets the prototype (better-sqlite3's own rows do that too): a
  // computed key makes it an ordinary property.
  const fields = columns.map((name, i) => `${name === '__proto__' ? `[${JSON.stringify(name)}]` : JSON.stringify(name)}: v[${i}]`).join(', ');
  return new Function('v', `return { ${fields} };`) as (values: unknown[]) => Record<string, unknown>;
}

const makeRows = (make: (values: unknown[]) => Record<string, unknown>, rows: unknown[]): unknown[] => {
  for (let i = 0; i < rows.length; i++) rows[i] = make(rows[i] as unknown[]);
  return rows;
};

/**
 * Statements that change no data themselves (the writes inside a transaction count on their own).
 * Not a rollback: what a read inside the transaction kept after one of its writes is undone by it.
 */
const TRANSACTION_CONTROL = /^\s*(?:begin|commit|end|savepoint|release)\b/i;
/** A plain insert or update, and the table it writes (a delete, `insert or replace`, DDL: none). */
const PLAIN_WRITE = /^\s*(?:insert\s+into|update)\s+"?([A-Za-z_][A-Za-z0-9_]*)"?[\s(]/i;
const SETTINGS = new Set(SETTINGS_TABLES);

/**
 * Whether a statement that is not a read may change what a read of the settings tables answers
 * (DataVersion.settings): a plain insert or update of a table that is none of them cannot (no
 * trigger writes them, and no foreign key cascades on update); a delete can (foreign keys cascade
 * to object permissions and terms), and so can anything this does not recognise.
 */
export function writesSettings(text: string): boolean {
  if (TRANSACTION_CONTROL.test(text)) return false;
  const write = PLAIN_WRITE.exec(text);
  return !write || SETTINGS.has(write[1]);
}

/** A plain update of `objects` (kysely's quoting or none): what follows `set`. */
const OBJECTS_UPDATE = /^\s*update\s+"?objects"?\s+set\s([\s\S]*)$/i;
/** Where an update's assignments end: its condition, its `returning` list or a `from`. */
const AFTER_ASSIGNMENTS = /^\s(?:where|returning|from)\b/i;
/** One assignment's target: `"name" =` or `name =`. */
const ASSIGNED = /^\s*"?([A-Za-z_][A-Za-z0-9_]*)"?\s*=/;

/**
 * The columns an update's assignments set (the text after `set`), read outside parentheses and
 * quotes; null when they cannot be told (then the update counts as any write).
 */
export function assignedColumns(afterSet: string): string[] | null {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  let end = afterSet.length;
  for (let i = 0; i < afterSet.length; i++) {
    const c = afterSet[i];
    if (c === "'" || c === '"') {
      const close = afterSet.indexOf(c, i + 1);
      if (close < 0) return null;
      i = close;
    } else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (depth === 0 && c === ',') {
      parts.push(afterSet.slice(start, i));
      start = i + 1;
    } else if (depth === 0 && /\s/.test(c) && AFTER_ASSIGNMENTS.test(afterSet.slice(i, i + 12))) {
      end = i;
      break;
    }
  }
  if (depth !== 0) return null;
  parts.push(afterSet.slice(start, end));
  const names: string[] = [];
  for (const part of parts) {
    const name = ASSIGNED.exec(part);
    if (!name) return null;
    names.push(name[1].toLowerCase());
  }
  return names;
}

/**
 * Whether a statement that is not a read may write one of `columns` of `objects`: an update of it
 * that sets none of them cannot, nor can a plain insert or update of another table (no trigger
 * writes `objects`, no foreign key cascades on update); an insert into `objects`, any delete, a
 * rollback, and anything this does not recognise can.
 */
function mayWriteObjectColumns(text: string, columns: readonly string[]): boolean {
  if (TRANSACTION_CONTROL.test(text)) return false;
  const update = OBJECTS_UPDATE.exec(text);
  if (update) {
    const assigned = assignedColumns(update[1]);
    return assigned === null || assigned.some((c) => columns.includes(c));
  }
  const write = PLAIN_WRITE.exec(text);
  return !write || write[1].toLowerCase() === 'objects';
}

/**
 * Whether a statement may change which objects a list without filters holds, or their order by id
 * or creation (DataVersion.lists): whether it may write one of LIST_COLUMNS (object permissions
 * move the settings version, which lists follow too).
 */
export const writesLists = (text: string) => mayWriteObjectColumns(text, LIST_COLUMNS);

/** Bounds of publication windows (DataVersion.windows). */
const WINDOW_COLUMNS = ['publish_start', 'publish_end'];

/** Whether a statement may set a publication bound (DataVersion.windows; a delete only takes bounds away, counted all the same). */
export const writesWindows = (text: string) => mayWriteObjectColumns(text, WINDOW_COLUMNS);

/** What else than data a statement may change, as bits: the versions it moves beside the data version. */
const WriteKind = { Settings: 1, Lists: 2, Windows: 4 } as const;
function writeKinds(text: string): number {
  return (writesSettings(text) ? WriteKind.Settings : 0) | (writesLists(text) ? WriteKind.Lists : 0) | (writesWindows(text) ? WriteKind.Windows : 0);
}

/** The statement kysely's SQLite driver runs: binds booleans, and counts writes and the rows they wrote. */
class Statement implements SqliteStatement {
  readonly reader: boolean;
  /** Rows of a statement that returns some: read as arrays, made by rowMaker. */
  private readonly make: ((values: unknown[]) => Record<string, unknown>) | null;
  /** What else than data a write may change (WriteKind), when it is one. */
  private readonly kinds: number;
  constructor(
    readonly raw: Database.Statement,
    private readonly onWrite: (kinds: number) => void,
    /** After a write ran (a commit among them). */
    private readonly onWritten: () => void,
    private readonly statistics: PlannerStatistics,
  ) {
    this.reader = raw.reader;
    this.kinds = raw.readonly ? 0 : writeKinds(raw.source);
    this.make = raw.reader ? rowMaker(raw.raw(true).columns().map((c) => c.name)) : null;
  }
  /** Every row of the statement run with `params`, as objects. */
  rows(params: readonly unknown[]): unknown[] {
    const rows = this.raw.all(bindable(params));
    return this.make ? makeRows(this.make, rows) : rows;
  }
  all(params: readonly unknown[]): unknown[] {
    // A statement that returns rows may write too (`insert … returning`): kysely runs it here.
    if (this.raw.readonly) return this.rows(params);
    this.onWrite(this.kinds);
    const rows = this.rows(params);
    this.statistics.wrote(rows.length);
    this.onWritten();
    return rows;
  }
  run(params: readonly unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint } {
    // Any statement that is not a read (writes, begin/commit/rollback, DDL) may change what the
    // next read sees: cached results are dropped whether it succeeds or fails.
    this.onWrite(this.kinds);
    const result = this.raw.run(bindable(params));
    this.statistics.wrote(Number(result.changes));
    this.onWritten();
    return result;
  }
  iterate(params: readonly unknown[]): IterableIterator<unknown> {
    if (!this.raw.readonly) this.onWrite(this.kinds);
    const rows = this.raw.iterate(bindable(params)) as IterableIterator<unknown[]>;
    const make = this.make;
    if (!make) return rows;
    return (function* () {
      for (const values of rows) yield make(values);
    })();
  }
}

/**
 * kysely prepares every query it runs; preparing (parsing and planning) costs more than running
 * the small queries of a request. Statements are kept by SQL text, least recently used dropped
 * first. A statement still iterating (`busy`) is not shared: a fresh one is prepared instead.
 * Also counts this connection's writes, for dataVersion().
 */
class Connection implements SqliteDatabase {
  private readonly cache = new LruMap<string, Statement>(STATEMENT_CACHE_SIZE);
  writes = 0;
  /** Of those, the ones that may change a read of the settings tables. */
  settingsWrites = 0;
  /** And the ones that may change a list's members or their order. */
  listsWrites = 0;
  /** And the ones that may set a publication bound. */
  windowsWrites = 0;
  private readonly onWrite = (kinds: number) => {
    this.writes++;
    if (kinds & WriteKind.Settings) this.settingsWrites++;
    if (kinds & WriteKind.Lists) this.listsWrites++;
    if (kinds & WriteKind.Windows) this.windowsWrites++;
  };
  /** A write ran: once no transaction is open it committed (or was a statement of its own), and its pages wait in the WAL. */
  private readonly onWritten = () => {
    if (!this.raw.inTransaction) this.checkpoints.wrote();
  };
  constructor(
    readonly raw: Database.Database,
    private readonly statistics: PlannerStatistics,
    readonly readers: ReaderThreads,
    private readonly checkpoints: Checkpointer,
  ) {}
  prepare(text: string): Statement {
    const hit = this.cache.get(text);
    if (hit && !hit.raw.busy) return hit;
    const stmt = new Statement(this.raw.prepare(text), this.onWrite, this.onWritten, this.statistics);
    if (!hit) this.cache.set(text, stmt);
    return stmt;
  }
  close(): void {
    this.readers.close();
    // Its connection closed before this one, which is then the file's last and removes the WAL.
    this.checkpoints.close();
    this.raw.close();
  }
  /**
   * A read run at once, outside kysely's driver (db/prepared.ts), unless a transaction is open on
   * the connection (its reads must wait for it, through kysely) or the statement is no plain read.
   * Outside a transaction the connection only ever runs one statement at a time, so a read here
   * sees what it would have seen queued behind kysely's lock: the last commit.
   */
  readNow(text: string, params: readonly unknown[]): unknown[] | undefined {
    if (!this.raw.open || this.raw.inTransaction) return undefined;
    const stmt = this.prepare(text);
    return stmt.raw.readonly ? stmt.rows(params) : undefined;
  }
}

export interface SqliteHandle {
  dialect: Dialect;
  raw: Database.Database;
  /**
   * Changes whenever the database may have changed: on every write of this process (counted per
   * statement) and on every commit of another connection (SQLite's data_version).
   */
  dataVersion: DataVersion;
  /** Refreshed after large writes and every hour (see planner-statistics.ts). */
  statistics: PlannerStatistics;
  /** Prepared reads run without kysely's driver (db/prepared.ts). */
  directReads: DirectReads;
  /** Long reads run on a reader thread (dialect/sqlite-reader.ts, db/prepared.ts). */
  threadReads: ThreadReads;
}

/** How long a statement waits for another process's write lock. */
const BUSY_TIMEOUT_MS = 5000;
/** How long a refresh of the statistics waits for another process's write lock before trying again later. */
const STATISTICS_BUSY_MS = 20;

/** Rows of an index SQLite reads to estimate its statistics (bounded cost at any table size). */
const ANALYSIS_LIMIT = 400;

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** Rows a table must have gained or lost since its statistics (and at least a quarter of them) to be analysed again. */
const STALE_ROWS = 1000;

/**
 * ANALYZE of every indexed table whose row count moved by STALE_ROWS and a quarter since its
 * statistics were gathered (never analysed: since zero). `PRAGMA optimize` alone waits for a
 * tenfold change: a site filled from 9,000 to 22,000 objects kept 9,000-row estimates, and a list
 * query of the reference server went from 7 to 70 ms. Each ANALYZE reads at most ANALYSIS_LIMIT
 * rows of an index (measured: 16-50 ms for `objects` at 22,000 rows and nine indexes, about the
 * same at any size). Only tables with an index are looked at (the others have one plan whatever
 * their size): their count(*) reads their smallest index, not the rows (count(*) of the
 * full-text tables' bodies took 300 ms); a refresh with nothing due costs a few ms and writes
 * nothing (small changes never commit, so other processes see no data_version move for them).
 * Not inside a transaction of the one connection (it would join it), and never waiting long for
 * the write lock.
 */
function refreshStatistics(raw: Database.Database): boolean {
  if (!raw.open || raw.inTransaction) return false;
  raw.pragma(`busy_timeout = ${STATISTICS_BUSY_MS}`);
  try {
    const hasStatistics = raw.prepare(`select 1 from sqlite_schema where name = 'sqlite_stat1'`).get();
    const analysed = new Map(
      hasStatistics
        ? (raw.prepare(`select tbl, max(cast(substr(stat, 1, instr(stat || ' ', ' ') - 1) as integer)) as n from sqlite_stat1 group by tbl`).all() as Array<{ tbl: string; n: number }>).map((r) => [r.tbl, r.n])
        : [],
    );
    const indexed = raw.prepare(`select distinct tbl_name from sqlite_schema where type = 'index'`).pluck().all() as string[];
    for (const table of indexed) {
      const rows = Number(raw.prepare(`select count(*) from ${quoted(table)}`).pluck().get() ?? 0);
      const known = analysed.get(table) ?? 0;
      if (Math.abs(rows - known) >= Math.max(STALE_ROWS, known / 4)) raw.exec(`analyze ${quoted(table)}`);
    }
    return true;
  } catch (err) {
    if (errors.isBusy(err)) return false;
    throw err;
  } finally {
    raw.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  }
}

/**
 * How long a start waits for another process's migrations before it gives up: the holder is a
 * live process (the system drops the lock of one that ended), and at a million objects a migration
 * that makes the full-text index again takes minutes (0152: 274 s, close to the old 5-minute bound).
 */
const START_LOCK_WAIT_MS = 30 * 60_000;

/**
 * Runs `work` (a start's migrations) while no other process on the same SQLite file runs its own:
 * kysely takes no migration lock on SQLite and commits each statement, so processes started
 * together on a new file saw each other's half-done migrations (a table rebuilt by one was
 * missing for another). The lock is SQLite's exclusive lock on a small file of its own beside the
 * database (`folio.sqlite-start.lock`): the operating system drops it when its process ends,
 * however it ends, and the next process waits for it (up to START_LOCK_WAIT_MS), then finds the
 * migrations done. Not the database file itself: its own connection must write meanwhile.
 */
export async function withStartLock<T>(file: string, nativeBinding: string | null, work: () => Promise<T>, log?: (line: string) => void): Promise<T> {
  // Starts in one process take turns here first: the lock's wait blocks the thread, and would
  // block the very start it waits for.
  const key = path.resolve(file);
  const before = startsInProcess.get(key) ?? Promise.resolve();
  const mine = before.then(() => lockedStart(key, nativeBinding, work, log));
  const settled = mine.then(
    () => undefined,
    () => undefined,
  );
  startsInProcess.set(key, settled);
  void settled.then(() => {
    if (startsInProcess.get(key) === settled) startsInProcess.delete(key);
  });
  return mine;
}

/** The last start under way in this process, per database file. */
const startsInProcess = new Map<string, Promise<void>>();

async function lockedStart<T>(file: string, nativeBinding: string | null, work: () => Promise<T>, log?: (line: string) => void): Promise<T> {
  const lock = new Database(`${file}-start.lock`, nativeBinding ? { nativeBinding } : {});
  try {
    try {
      lock.pragma('busy_timeout = 0');
      lock.exec('begin exclusive');
    } catch (err) {
      if ((err as { code?: string }).code !== 'SQLITE_BUSY') throw err;
      // Said before the wait, which holds the thread: a start that seems to hang says why.
      log?.(`database: another process is starting on ${path.basename(file)} (its migrations); waiting for it`);
      await nextTurn();
      lock.pragma(`busy_timeout = ${START_LOCK_WAIT_MS}`);
      lock.exec('begin exclusive');
    }
    try {
      return await work();
    } finally {
      lock.exec('commit');
    }
  } finally {
    lock.close();
  }
}

/** How many times `pragma data_version` was read, every database of the process together (tests count it). */
export const dataVersionStatistics = { pragmaReads: 0 };

/** SQLite's `data_version` as a column of a read (its read transaction's), for DataVersion.along. */
const ALONG_COLUMN = '(select data_version from pragma_data_version())';

/** The size the WAL file is cut back to after a checkpoint (bytes; SQLite's `journal_size_limit`). */
export const WAL_SIZE_LIMIT = 64 * 1024 * 1024;

/** `nativeBinding`: path of a better-sqlite3 addon to load instead of the installed one. */
export function openSqlite(file: string, nativeBinding: string | null = null, log?: (line: string) => void): SqliteHandle {
  const raw = new Database(file, nativeBinding ? { nativeBinding } : {});
  loadSearchRank(raw, log);
  raw.pragma('journal_mode = WAL');
  raw.pragma('foreign_keys = ON');
  raw.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  raw.pragma('synchronous = NORMAL');
  // The WAL goes back to at most this size once a checkpoint has written it all back: without a
  // limit a large transaction (a restore, a type's search documents made again, an import) left
  // it at its own size, gigabytes at a million objects, until the last connection closed.
  raw.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT}`);
  // A 16 MiB page cache instead of SQLite's 2 MiB: a write walks a b-tree path in each of the
  // objects indexes and the full-text index; with 2 MiB those pages were read again from the OS
  // on most inserts (measured on 100,000 objects: 297 → 247 µs per insert). Filled only as pages
  // are read, so the idle footprint does not change.
  raw.pragma('cache_size = -16384');
  // Checkpoints run on a thread of their own (sqlite-checkpoint.ts); this connection's own only
  // past BACKSTOP_PAGES of WAL.
  raw.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
  // Table statistics for the query planner (bounded work, a few ms at any size): without them
  // it cannot tell a selective index from one that matches every row, and picks badly. Gathered
  // after the migrations and then as the data grows (planner-statistics.ts).
  raw.pragma(`analysis_limit = ${ANALYSIS_LIMIT}`);
  const statistics = plannerStatistics(async () => refreshStatistics(raw), log);
  const readers = sqliteReaderThreads(file, nativeBinding);
  const connection = new Connection(raw, statistics, readers, sqliteCheckpointer(file, nativeBinding));
  const external = raw.prepare('pragma data_version').pluck();
  // Other connections' commits, read at most once per turn of the event loop: a request asks 5-8
  // times (auth, read cache, response cache), at about 8 µs each. Reused until the loop's next
  // check phase, and read again by refresh(), which every request calls as it starts: a value read
  // in a check phase itself (the write batch's flush runs there) would otherwise outlive the next
  // poll phase, where a request that began after another process answered a write is handled.
  let externalSeen: number | null = null;
  /** The last value read of `data_version` (by the pragma, or along with a read: DataVersion.along). */
  let lastExternal = raw.open ? (external.get() as number) : -1;
  const forget = () => {
    externalSeen = null;
  };
  /** Reads the pragma, kept for the rest of the turn. */
  const readExternal = () => {
    dataVersionStatistics.pragmaReads++;
    externalSeen = lastExternal = raw.open ? (external.get() as number) : -1;
    setImmediate(forget);
    return externalSeen;
  };
  /**
   * Set while a request read along runs its synchronous part (DataVersion.along.assume): its
   * caches are checked against the value as last seen, not a fresh pragma, which its own read
   * confirms (db/read-along.ts). Nothing is kept for the turn: another request in it reads the
   * pragma as usual.
   */
  let assumed = false;
  const externalVersion = () => (externalSeen !== null ? externalSeen : assumed ? lastExternal : readExternal());
  const current = () => externalVersion() * 2 ** 32 + connection.writes;
  // The model version (installModelVersion), read again only when another connection committed:
  // a process alone on its file never asks, and a request after another process changed the
  // model sees the new version (the middleware then reloads the model).
  let modelRead: Database.Statement | null = null;
  let modelReadAt: number | null = null;
  let modelVersion = 0;
  const model = () => {
    const external = externalVersion();
    if (external !== modelReadAt && raw.open) {
      modelRead ??= raw.prepare('select version from folio_data_version where id = ?').pluck();
      modelVersion = Number(modelRead.get(MODEL_VERSION_ROW) ?? 0);
      modelReadAt = external;
    }
    return modelVersion;
  };
  return {
    dialect: new ImmediateSqliteDialect({ database: connection }),
    raw,
    statistics,
    directReads: (text, params) => connection.readNow(text, params),
    threadReads: (text, params) => readers.read(text, bindable(params)),
    dataVersion: {
      // Both counters only grow: their combination changes whenever either does.
      current,
      refresh: () => {
        // Read now, whoever asks: a request read along confirms with it (confirmByRefresh).
        readExternal();
        return current();
      },
      model,
      // Moved by this process's writes that may change a settings read, and by every commit of
      // another connection (which may have written anything).
      settings: () => externalVersion() * 2 ** 32 + connection.settingsWrites,
      // The same for a list's members and their order.
      lists: () => externalVersion() * 2 ** 32 + connection.listsWrites,
      // The same for a publication bound set.
      windows: () => externalVersion() * 2 ** 32 + connection.windowsWrites,
      accounts: current,
      bump: () => {
        connection.writes++;
        connection.settingsWrites++;
        connection.listsWrites++;
        connection.windowsWrites++;
      },
      // A read by id or a list page may take `data_version` along in its own statement (the same
      // read transaction, so the same snapshot) instead of reading the pragma as its request
      // starts (db/read-along.ts): about a tenth of an uncached read's CPU. This connection's own
      // commits never move it, so any move is another connection's commit.
      along: {
        column: ALONG_COLUMN,
        see: (value) => {
          if (typeof value !== 'number' && typeof value !== 'bigint') return;
          const seen = Number(value);
          // It only grows: a value read before one already seen says nothing new.
          if (seen > lastExternal) {
            // Another connection committed: what this turn held is read again (current() moves).
            lastExternal = seen;
            forget();
          }
          // Read by the statement just now: as good as the pragma read now, for the rest of the
          // turn (what the request does after its read, its answer's caches, asks no pragma).
          if (externalSeen === null && seen === lastExternal) {
            externalSeen = seen;
            setImmediate(forget);
          }
        },
        seen: () => lastExternal,
        onlyOwnSince: (from) => lastExternal === from,
        assume(run) {
          const outer = assumed;
          assumed = true;
          try {
            return run();
          } finally {
            assumed = outer;
          }
        },
      },
    },
  };
}

/**
 * What every start makes sure of, after the migrations: the model version other processes on the
 * file watch (DataVersion.model), a counter row of `folio_data_version` moved by triggers on the
 * model tables, as PostgreSQL's installDatabaseUpkeep keeps it. Idempotent, in one transaction
 * (BEGIN IMMEDIATE), so processes starting together take turns. Never in backups (sqlite-backup.ts).
 */
export async function installModelVersion(db: Kysely<any>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`create table if not exists folio_data_version (id integer primary key, version integer not null)`.execute(trx);
    await sql`insert into folio_data_version (id, version) values (${MODEL_VERSION_ROW}, 1) on conflict (id) do nothing`.execute(trx);
    // SQLite has row triggers only; the model tables are small and rarely written.
    for (const table of MODEL_TABLES) {
      for (const op of ['insert', 'update', 'delete']) {
        await sql`create trigger if not exists ${sql.id(`folio_model_version_${op}_${table}`)} after ${sql.raw(op)} on ${sql.table(table)}
          begin update folio_data_version set version = version + 1 where id = ${sql.lit(MODEL_VERSION_ROW)}; end`.execute(trx);
      }
    }
  });
}

/** Integrity check used by tests and the crash-safety suite. */
export function integrityCheck(raw: Database.Database): string {
  return String(raw.pragma('integrity_check', { simple: true }));
}

// ---- Full-text search of objects (FTS5) ----
// Triggers keep objects_fts in step with every write to `objects`, whichever family writes, in
// the same transaction. Indexed: title, description, body and the string values of `properties`.

const ftsRow = (r: string) =>
  `${r}.title, ${r}.description, ${r}.body, ` +
  `(select group_concat(value, ' ') from json_each(case when json_valid(${r}.properties) then ${r}.properties else '{}' end) where type = 'text')`;

/**
 * The objects' full-text index keeps each word's positions (FTS5's default, `detail = full`).
 * Folio asks for words, never phrases, but ranks every match with bm25, which counts a word's hits
 * per column: from the positions, or, without them (`detail = column`, migrations 0127-0151), by
 * tokenizing each matching document's text again. At a million objects of the bench's text a
 * ranked search of a word in every document took 13-22 s that way, one in 14,600 of them 0.2 s;
 * with positions about 16 times less (FTS5 alone, 20,000 rows: 254 -> 16 ms and 3.2 -> 0.2 ms).
 * Writing the positions costs an insert about 4% (293 -> 306 us in single-row transactions), the
 * index twice the pages (the file a tenth more).
 *
 * It keeps no copy of the text (`content = ''`, migration 0153): Folio reads only an index row's
 * rowid and bm25, never its columns, and the text is in `objects`. Without the copy a write no
 * longer stores each object's text a second time (4.2 GB of a million objects' 16.8 GB file), and
 * a changed or deleted object's old document is struck out by its rowid (`contentless_delete`,
 * SQLite 3.43) instead of being read back and tokenized again. FTS5 alone, the bench's text in
 * batches of 100: an insert 111 -> 86 us, a single-row update 891 -> 771 us, the same search cost.
 */
/*
 * It keeps the first two and three letters of every word as entries of their own (`prefix = '2 3'`,
 * migration 0154). The last word of a search is a prefix (decisions, Search); without these
 * entries FTS5 reads the list of every word that starts with a short one and merges them all
 * before it answers (at 20,000 documents of the bench's text, `is` 47 ms of the statement's 95,
 * with its list of 21,000 matches read whole), where with them it reads one list, newest first,
 * and stops at the search window (resources/objects/list.ts, SEARCH_WINDOW): the uncached search
 * row's 159 words 954 -> 272 ms of statements. Each write stores those entries too (decisions,
 * "A ranked search ranks its newest 1,000 matches").
 */
const OBJECTS_FTS = `create virtual table objects_fts using fts5(title, description, body, props, content = '', contentless_delete = 1, prefix = '2 3', tokenize = 'unicode61 remove_diacritics 2')`;
/** Whether objects_fts as sqlite_schema keeps it (`sql`) is OBJECTS_FTS's form: positions, no copy of the text, prefixes of 2 and 3. */
const isTodaysIndex = (made: string) => /content\s*=\s*''/i.test(made) && !/detail\s*=/i.test(made) && /prefix\s*=\s*'2 3'/i.test(made);

/**
 * FTS5 merges its segments once `automerge` of them are at one level (default 4). At 8 an index
 * is rewritten half as many times as it grows: measured on FTS5 alone with the bench's text, an
 * insert in batches of 50 cost 240 -> 214 us, a single-row update (which deletes the old
 * document and adds the new one) 661 -> 397 us; a search reads at most twice as many segments per
 * level, which measured within noise (ranked frequent word 15.6 -> 16.7 ms, rare 0.18 ms both).
 * Kept in the index's own config table: set once, when the index is made.
 */
const FTS_AUTOMERGE = 8;
const tuneIndex = (db: Kysely<any>, table: 'objects_fts' | 'translations_fts') =>
  (table === 'objects_fts'
    ? sql`insert into objects_fts(objects_fts, rank) values ('automerge', ${sql.lit(FTS_AUTOMERGE)})`
    : sql`insert into translations_fts(translations_fts, rank) values ('automerge', ${sql.lit(FTS_AUTOMERGE)})`
  ).execute(db);

async function createObjectsIndex(db: Kysely<any>): Promise<void> {
  await sql.raw(OBJECTS_FTS).execute(db);
  await tuneIndex(db, 'objects_fts');
  await sql.raw(`create trigger objects_fts_insert after insert on objects begin
    insert into objects_fts(rowid, title, description, body, props) values (new.id, ${ftsRow('new')}); end`).execute(db);
  await sql.raw(`create trigger objects_fts_delete after delete on objects begin
    delete from objects_fts where rowid = old.id; end`).execute(db);
  await sql.raw(`create trigger objects_fts_update after update of title, description, body, properties on objects begin
    delete from objects_fts where rowid = old.id;
    insert into objects_fts(rowid, title, description, body, props) values (new.id, ${ftsRow('new')}); end`).execute(db);
  await sql.raw(`insert into objects_fts(rowid, title, description, body, props) select o.id, ${ftsRow('o')} from objects as o`).execute(db);
}

const search: ObjectSearch = {
  // Migrations 0152, 0153 and 0154: an index in an older form is made again as OBJECTS_FTS makes it, in
  // one transaction: the table only (the triggers that fill it name it and stay, migration 0129's),
  // filled from every object's row with the fields its type hides left out, as those triggers fill
  // it. Older forms: without positions (`detail = column`, migration 0127 or a createIndex of
  // versions 0127-0151), with its own copy of the text (every index before 0153) or without the
  // entries of the words' first letters (every index before 0154). An index in
  // today's form, or none yet, is left as it is: the migrations that called this before (0091,
  // 0126-0128) find nothing to do on a new database, and a later one on an upgraded one.
  async upgrade(db) {
    const made = await sql<{ sql: string }>`select sql from sqlite_schema where name = 'objects_fts'`.execute(db);
    if (!made.rows[0] || isTodaysIndex(made.rows[0].sql)) return;
    await db.transaction().execute(async (trx) => {
      await sql`drop table objects_fts`.execute(trx);
      await sql.raw(OBJECTS_FTS).execute(trx);
      await tuneIndex(trx, 'objects_fts');
      await refillObjectsIndex(trx);
      // translations_fts (0094) exists by the time any older form can: its merges as objects_fts's.
      await tuneIndex(trx, 'translations_fts');
    });
    // The transaction wrote the whole index to the WAL (gigabytes for a million objects): written
    // back and the file emptied now, not left at that size until the next restart.
    await sql`pragma wal_checkpoint(TRUNCATE)`.execute(db);
  },
  createIndex: createObjectsIndex,

  // Each quoted string is one FTS5 token: a search is words, never a phrase (decisions, Search).
  // A word with an underscore, which unicode61 splits, becomes its parts.
  expression(text) {
    const words = searchWords(text).flatMap((w) => w.split('_')).filter(Boolean);
    if (!words.length) return null;
    return words.map((w, i) => `"${w}"${i === words.length - 1 ? '*' : ''}`).join(' ');
  },

  // bm25 is lower for better matches; weights: title 10, description 3, body 1, properties 2.
  // folio_rank where it was built (sqlite-rank.ts): bm25's order, a one-word search without its IDF,
  // so not comparable with translations_fts' bm25 (a search with translations ranks both with bm25).
  ranks: (expr, comparable = false) =>
    sql`(select rowid as search_id, ${sql.raw(comparable ? 'bm25' : searchRank().rank)}(objects_fts, 10.0, 3.0, 1.0, 2.0) as search_rank from objects_fts where objects_fts match ${expr})`,

  ids: (expr) => sql<number>`(select rowid from objects_fts where objects_fts match ${expr})`,

  // A search narrows to its matches first, each then looked up by id: the type must not steer
  // SQLite to the (type, deleted) index, which it probes once per type for every match (measured:
  // 7 ms instead of 1.9 ms for 1,247 matches). A unary + keeps the column out of index choice.
  typeColumn: (column) => sql<number>`+${sql.ref(column)}`,

  // One FTS5 row per translation (rowid = its id): the text values of its fields; lang and status
  // are kept beside them unindexed, so a query names its language without a join.
  async createTranslationIndex(db) {
    await sql`create virtual table translations_fts using fts5(fields, lang unindexed, status unindexed, object_id unindexed, tokenize = 'unicode61 remove_diacritics 2')`.execute(db);
    await tuneIndex(db, 'translations_fts');
    const row = `new.id, (select group_concat(value, ' ') from json_each(case when json_valid(new.translated_fields) then new.translated_fields else '{}' end) where type = 'text'), new.lang, new.status, new.object_id`;
    await sql.raw(`create trigger translations_fts_insert after insert on translations begin
      insert into translations_fts(rowid, fields, lang, status, object_id) values (${row}); end`).execute(db);
    await sql.raw(`create trigger translations_fts_delete after delete on translations begin
      delete from translations_fts where rowid = old.id; end`).execute(db);
    await sql.raw(`create trigger translations_fts_update after update on translations begin
      delete from translations_fts where rowid = old.id;
      insert into translations_fts(rowid, fields, lang, status, object_id) values (${row}); end`).execute(db);
  },

  // The inner LIMIT keeps SQLite from flattening the matches into the grouping (bm25 may not run
  // inside an aggregate).
  translationRanks: (expr, lang, drafts) =>
    sql`(select search_id, min(search_rank) as search_rank from (select object_id as search_id, bm25(translations_fts) as search_rank from translations_fts
      where translations_fts match ${expr}${lang === null ? sql`` : sql` and lang = ${lang}`}${draftTranslationsWhere(drafts)} limit -1) as t group by search_id)`,
};

const json: JsonText = {
  // json_extract gives numbers and booleans (as 1/0) typed already. Dates compare as instants
  // (stored with any offset) or calendar days: normalised to UTC text or YYYY-MM-DD.
  property(column, name, kind) {
    const value = sql`json_extract(${sql.ref(column)}, ${'$.' + name})`;
    if (kind === 'date') return sql`strftime('%Y-%m-%dT%H:%M:%S+00:00', ${value})`;
    if (kind === 'day') return sql`date(${value})`;
    return value;
  },
  withoutProperty: (column, name) => sql<string | null>`json_remove(${sql.ref(column)}, ${'$.' + name})`,
};

// An ORDER BY inside an aggregate: SQLite 3.44 and later (better-sqlite3 bundles a newer one).
const aggregates: Aggregates = {
  joinedIds: (value, orderBy) => sql<string | null>`group_concat(${value}, ',' order by ${orderBy})`,
};

const schema: SchemaDialect = {
  forMigrations: (db) => db,
  generatedId: (c) => c.autoIncrement(),
  // sqlite_sequence follows the highest id inserted, explicit ones included.
  async continueIds() {},
  async widenVarchar() {},
};

const errors: DriverErrors = {
  isConstraintViolation: (err) => /^SQLITE_CONSTRAINT/.test(String((err as { code?: unknown })?.code ?? '')),
  // better-sqlite3 reports extended codes (SQLITE_BUSY_SNAPSHOT, SQLITE_BUSY_RECOVERY…).
  isBusy: (err) => /^SQLITE_(BUSY|LOCKED)/.test(String((err as { code?: unknown })?.code ?? '')),
  // SQLite keeps any text, NUL characters included.
  isUnstorableText: () => false,
};

const locks: RowLocks = { skipLocked: (query) => query };

export const sqliteDialect: SqlDialect = { name: 'sqlite', search, json, aggregates, schema, errors, locks };
