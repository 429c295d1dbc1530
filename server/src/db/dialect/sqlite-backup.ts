// The SQLite side of backups (see resources/backups/engine.ts). The snapshot is a read transaction
// on a separate read-only connection: in WAL mode it sees the database as of its first read and
// never blocks writers, in this process or another (a server while `npm run backup` runs). SQLite's
// online backup API (db.backup()) was the other candidate: it restarts whenever another process
// writes during the copy (so under steady load it may never finish) unless all pages go in one
// step, which blocks the event loop for the whole copy; reading rows in a snapshot does neither.
import path from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import type { Config } from '../../config.js';
import type { BackupEngine, TableInfo } from '../../resources/backups/engine.js';

export function sqliteBackupEngine(config: Config): BackupEngine {
  const file = path.join(config.dataDir, 'folio.sqlite');
  return {
    dialect: 'sqlite',
    maxParameters: 30000,

    async withSnapshot(read) {
      const raw = new Database(file, {
        readonly: true,
        fileMustExist: true,
        ...(config.sqliteNativeBinding ? { nativeBinding: config.sqliteNativeBinding } : {}),
      });
      raw.pragma('busy_timeout = 5000');
      const db = new Kysely<any>({ dialect: new SqliteDialect({ database: raw }) });
      try {
        // A deferred BEGIN: the snapshot is fixed by the first read, taken at once.
        return await db.transaction().execute(async (trx) => {
          await sql`select count(*) from sqlite_master`.execute(trx);
          return read(trx);
        });
      } finally {
        await db.destroy();
      }
    },

    async tables(db) {
      // Ordinary tables only: FTS5 virtual tables and their shadow tables are rebuilt by triggers;
      // the model version is the file's own (a restore's writes move it, as on PostgreSQL).
      const plain = await sql<{ name: string }>`select name from pragma_table_list where schema = 'main' and type = 'table' and name not like 'sqlite_%' and name != 'folio_data_version'`.execute(db);
      const keep = new Set(plain.rows.map((r) => r.name));
      const all = await db.introspection.getTables();
      return all
        .filter((t) => !t.isView && keep.has(t.name))
        .map((t): TableInfo => ({ name: t.name, columns: t.columns.map((c) => ({ name: c.name, boolean: /^bool/i.test(c.dataType) })) }));
    },

    async migrations(db) {
      const rows = await db.selectFrom('kysely_migration').select('name').orderBy('name').execute();
      return rows.map((r) => String(r.name));
    },

    async sequences(db) {
      const exists = await db.selectFrom('sqlite_master').select('name').where('type', '=', 'table').where('name', '=', 'sqlite_sequence').executeTakeFirst();
      if (!exists) return {};
      const rows = await db.selectFrom('sqlite_sequence').select(['name', 'seq']).orderBy('name').execute();
      return Object.fromEntries(rows.map((r) => [String(r.name), Number(r.seq)]));
    },

    async deferConstraints(trx) {
      // Reset by SQLite at the end of the transaction.
      await sql`pragma defer_foreign_keys = on`.execute(trx);
    },

    async setSequences(trx, sequences) {
      const exists = await trx.selectFrom('sqlite_master').select('name').where('type', '=', 'table').where('name', '=', 'sqlite_sequence').executeTakeFirst();
      if (!exists) return;
      await trx.deleteFrom('sqlite_sequence').execute();
      const rows = Object.entries(sequences).map(([name, seq]) => ({ name, seq }));
      if (rows.length) await trx.insertInto('sqlite_sequence').values(rows).execute();
    },
  };
}
