// The only home of SQLite-specific code: opening the file with the pragmas Folio relies on,
// binding booleans (better-sqlite3 refuses JS booleans), and SQLite-only SQL (FTS5 lives here too).
import Database from 'better-sqlite3';
import { SqliteDialect, type Dialect } from 'kysely';

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

/** `nativeBinding`: path of a better-sqlite3 addon to load instead of the installed one. */
export function openSqlite(file: string, nativeBinding: string | null = null): SqliteHandle {
  const raw = new Database(file, nativeBinding ? { nativeBinding } : {});
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
  return { dialect: new SqliteDialect({ database: wrapped }), raw };
}

/** Integrity check used by tests and the crash-safety suite. */
export function integrityCheck(raw: Database.Database): string {
  return String(raw.pragma('integrity_check', { simple: true }));
}
