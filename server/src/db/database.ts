// Opens the database named by the configuration and runs the migrations: SQLite in the data
// folder by default, PostgreSQL when FOLIO_DATABASE_URL names one. Everything outside db/dialect
// talks to it through kysely and the dialect's interfaces only (dialect/dialect.ts).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { SqlDialect } from './dialect/dialect.js';
import { installModelVersion, openSqlite, sqliteDialect, withStartLock } from './dialect/sqlite.js';
import { migrateToLatest } from './migrate.js';
import type { DataVersion } from './data-version.js';
import type { PlannerStatistics } from './planner-statistics.js';
import { allowDirectReads, allowThreadReads } from './prepared.js';
import type { Database } from './tables.js';

export type DB = Kysely<Database>;

export interface OpenedDatabase {
  db: DB;
  /** What differs between the engines: search, JSON values, schema, driver errors. */
  dialect: SqlDialect;
  /** The SQLite file; null on PostgreSQL. */
  file: string | null;
  /** Changes whenever the data may have changed (see data-version.ts). */
  dataVersion: DataVersion;
  /** The query planner's statistics, refreshed as the data grows (planner-statistics.ts). */
  statistics: PlannerStatistics;
  /**
   * The JWT secret when none is configured, made on first use: in `$FOLIO_DATA_DIR/secret` (mode
   * 0600) with SQLite; in the database with PostgreSQL, so that every instance agrees.
   */
  keptJwtSecret(): Promise<string>;
  close: () => Promise<void>;
}

export async function openDatabase(config: Config, log?: (line: string) => void): Promise<OpenedDatabase> {
  if (config.databaseUrl) {
    // Loaded only when used: a desktop install never pays for the driver.
    const [{ openPostgres, installDatabaseUpkeep, keptSecret }, { postgresDialect }] = await Promise.all([import('./dialect/postgres-driver.js'), import('./dialect/postgres.js')]);
    const { dialect, dataVersion, statistics, upkeepInstalled } = openPostgres(config.databaseUrl, config.databasePoolSize, log);
    const db = new Kysely<Database>({ dialect });
    try {
      await migrateToLatest(db, postgresDialect, log);
      await installDatabaseUpkeep(db);
      upkeepInstalled();
      await dataVersion.refresh();
      // Migrations may have made tables and indexes, or filled them.
      statistics.soon();
    } catch (err) {
      await statistics.stop();
      await db.destroy();
      throw err;
    }
    return { db, dialect: postgresDialect, file: null, dataVersion, statistics, keptJwtSecret: () => keptSecret(db, 'jwt', newSecret), close: closing(statistics, db) };
  }
  fs.mkdirSync(config.dataDir, { recursive: true });
  const file = path.join(config.dataDir, 'folio.sqlite');
  const { dialect, dataVersion, statistics, directReads, threadReads } = openSqlite(file, config.sqliteNativeBinding, log);
  const db = new Kysely<Database>({ dialect });
  allowDirectReads(db, directReads);
  allowThreadReads(db, threadReads);
  await withStartLock(
    file,
    config.sqliteNativeBinding,
    async () => {
      await migrateToLatest(db, sqliteDialect, log);
      await installModelVersion(db);
    },
    log,
  );
  // Migrations may have made tables and indexes, or filled them; a site filled before this start
  // (a restore, another process) may have outgrown its statistics. Shortly: the first answer does not wait.
  statistics.soon();
  return { db, dialect: sqliteDialect, file, dataVersion, statistics, keptJwtSecret: async () => secretFile(path.join(config.dataDir, 'secret')), close: closing(statistics, db) };
}

/** Closing: the statistics' timers first (a refresh under way finishes), then the connections. */
const closing = (statistics: PlannerStatistics, db: DB) => async () => {
  await statistics.stop();
  await db.destroy();
};

const newSecret = () => crypto.randomBytes(48).toString('base64url');

/**
 * The secret in `file`, made by whichever process asks first: written whole to a file of its own,
 * then linked into place, which fails if another process got there first (then its secret wins),
 * so processes starting together on one data dir agree and never read half a file.
 */
function secretFile(file: string): string {
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim();
  const own = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}`;
  fs.writeFileSync(own, newSecret() + '\n', { mode: 0o600 });
  try {
    fs.linkSync(own, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    fs.rmSync(own, { force: true });
  }
  return fs.readFileSync(file, 'utf8').trim();
}
