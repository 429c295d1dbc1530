// The only home of SQLite-specific code: opening the file with the pragmas Folio relies on,
// binding booleans (better-sqlite3 refuses JS booleans), and SQLite-only SQL (FTS5 lives here too).
import Database from 'better-sqlite3';
import { CompiledQuery, SqliteDialect, SqliteDriver, type DatabaseConnection, type Dialect, type Driver, type SqliteDialectConfig } from 'kysely';

export interface SqliteHandle {
  dialect: Dialect;
  raw: Database.Database;
}

const toBindable = (v: unknown) => (typeof v === 'boolean' ? (v ? 1 : 0) : v);
const mapParams = (args: unknown[]) => args.map((a) => (Array.isArray(a) ? a.map(toBindable) : toBindable(a)));

/** Wrap a statement so kysely's parameters (booleans included) bind on SQLite. */
function wrapStatement(stmt: Database.Statement): Database.Statement {
  return new Proxy(stmt, {
    get(target, prop, receiver) {
      if (prop === 'all' || prop === 'run' || prop === 'iterate' || prop === 'get') {
        const fn = (target as unknown as Record<string, (...a: unknown[]) => unknown>)[prop];
        return (...args: unknown[]) => fn.apply(target, mapParams(args));
      }
      const value = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
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

export function openSqlite(file: string): SqliteHandle {
  const raw = new Database(file);
  raw.pragma('journal_mode = WAL');
  raw.pragma('foreign_keys = ON');
  raw.pragma('busy_timeout = 5000');
  raw.pragma('synchronous = NORMAL');
  const wrapped = new Proxy(raw, {
    get(target, prop, receiver) {
      if (prop === 'prepare') return (sql: string) => wrapStatement(target.prepare(sql));
      const value = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { dialect: new ImmediateSqliteDialect({ database: wrapped }), raw };
}

/** Integrity check used by tests and the crash-safety suite. */
export function integrityCheck(raw: Database.Database): string {
  return String(raw.pragma('integrity_check', { simple: true }));
}
