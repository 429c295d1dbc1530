// What backups need from the database engine, as one small interface: a consistent read snapshot
// while the server keeps writing, the list of tables with their columns, the id sequences, and
// what a restore must switch off for one transaction. Rows themselves are read and written with
// kysely only, so the same backup restores into SQLite or PostgreSQL. The SQLite implementation
// is db/dialect/sqlite-backup.ts; the PostgreSQL one (db/dialect/postgres-backup.ts) takes the
// snapshot with a REPEATABLE READ, READ ONLY transaction and reads sequences with pg_sequences.
import type { Kysely } from 'kysely';
import type { Config } from '../../config.js';
import { postgresBackupEngine } from '../../db/dialect/postgres-backup.js';
import { sqliteBackupEngine } from '../../db/dialect/sqlite-backup.js';

export interface ColumnInfo {
  name: string;
  /** Stored as 0/1 on SQLite: written to the backup as true/false, so every engine reads it back. */
  boolean: boolean;
}

export interface TableInfo {
  name: string;
  columns: ColumnInfo[];
}

export interface BackupEngine {
  /** `sqlite` or `postgres`: recorded in the manifest (a backup restores into either). */
  readonly dialect: string;
  /**
   * Run `read` inside one read-only snapshot of the database that never blocks the server's
   * writers: everything it reads is the state of one instant.
   */
  withSnapshot<T>(read: (db: Kysely<any>) => Promise<T>): Promise<T>;
  /** The tables holding data (derived ones such as full-text indexes and kysely's own left out). */
  tables(db: Kysely<any>): Promise<TableInfo[]>;
  /** Names of the migrations applied to this database. */
  migrations(db: Kysely<any>): Promise<string[]>;
  /** Last value of each table's id sequence (ids past the highest row included: purged ones). */
  sequences(db: Kysely<any>): Promise<Record<string, number>>;
  /** Inside the restore transaction, before any row is touched: check foreign keys at commit only. */
  deferConstraints(trx: Kysely<any>): Promise<void>;
  /** Inside the restore transaction, after the rows: set the sequences to the backup's values. */
  setSequences(trx: Kysely<any>, sequences: Record<string, number>): Promise<void>;
  /** Most bind parameters one statement may carry (multi-row inserts are cut to fit). */
  readonly maxParameters: number;
}

/** The engine of the configured database. */
export function backupEngine(config: Config): BackupEngine {
  if (config.databaseUrl) return postgresBackupEngine(config);
  return sqliteBackupEngine(config);
}
