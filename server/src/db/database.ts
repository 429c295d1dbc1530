// Opens the database named by the configuration and runs the migrations. Everything outside
// db/dialect talks to it through kysely only, so another dialect can be added here.
import fs from 'node:fs';
import path from 'node:path';
import { Kysely } from 'kysely';
import { ConfigError, type Config } from '../config.js';
import { openSqlite } from './dialect/sqlite.js';
import { migrateToLatest } from './migrate.js';
import type { DataVersion } from './data-version.js';
import type { Database } from './tables.js';

export type DB = Kysely<Database>;

export interface OpenedDatabase {
  db: DB;
  dialectName: 'sqlite';
  file: string;
  /** Changes whenever the data may have changed (see data-version.ts). */
  dataVersion: DataVersion;
  close: () => Promise<void>;
}

export async function openDatabase(config: Config): Promise<OpenedDatabase> {
  if (config.databaseUrl) {
    throw new ConfigError('FOLIO_DATABASE_URL: PostgreSQL is not bundled in this build yet; unset it to use SQLite');
  }
  fs.mkdirSync(config.dataDir, { recursive: true });
  const file = path.join(config.dataDir, 'folio.sqlite');
  const { dialect, dataVersion } = openSqlite(file, config.sqliteNativeBinding);
  const db = new Kysely<Database>({ dialect });
  await migrateToLatest(db);
  return { db, dialectName: 'sqlite', file, dataVersion, close: () => db.destroy() };
}
