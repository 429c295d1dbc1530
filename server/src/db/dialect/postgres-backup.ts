// The PostgreSQL side of backups (see resources/backups/engine.ts). The snapshot is one REPEATABLE
// READ, READ ONLY transaction on a connection of its own: every table is read as of the same
// instant while every instance keeps writing (it takes no lock a writer waits for). Id sequences
// are the identity columns' sequences; a restore defers the foreign keys, which every start makes
// deferrable (dialect/postgres.ts, installDatabaseUpkeep).
import { Kysely, PostgresDialect, sql } from 'kysely';
import type { Config } from '../../config.js';
import type { BackupEngine, TableInfo } from '../../resources/backups/engine.js';

/**
 * Tables that are not data: derived (the search index, documents staged for an insert), the data
 * version, kysely's own, and the kept secrets (a backup file must not carry what signs the live
 * server's tokens).
 */
const DERIVED = new Set(['objects_search', 'translations_search', 'folio_search_staged', 'folio_data_version', 'folio_secrets', 'kysely_migration', 'kysely_migration_lock']);

/** Tables with an identity column `id`, and the sequence behind it. */
async function identitySequences(db: Kysely<any>): Promise<Array<{ table: string; sequence: string }>> {
  const res = await sql<{ table: string; sequence: string }>`select c.table_name as table, pg_get_serial_sequence(quote_ident(c.table_name), 'id') as sequence
    from information_schema.columns c
    where c.table_schema = current_schema() and c.column_name = 'id' and c.is_identity = 'YES'
    order by c.table_name`.execute(db);
  return res.rows.filter((r) => r.sequence && !DERIVED.has(r.table));
}

export function postgresBackupEngine(config: Config): BackupEngine {
  const url = config.databaseUrl!;
  return {
    dialect: 'postgres',
    // PostgreSQL's limit is 65,535 per statement.
    maxParameters: 30000,

    async withSnapshot(read) {
      // Loaded when used, as openDatabase loads it: a SQLite install never pays for the driver.
      const [{ createPool }, { default: Cursor }] = await Promise.all([import('./postgres-driver.js'), import('pg-cursor')]);
      // A cursor streams each table (kysely's stream()) instead of reading it whole.
      const db = new Kysely<any>({ dialect: new PostgresDialect({ pool: createPool(url, 1), cursor: Cursor }) });
      try {
        return await db.transaction().setIsolationLevel('repeatable read').setAccessMode('read only').execute(read);
      } finally {
        await db.destroy();
      }
    },

    async tables(db) {
      const res = await sql<{ table: string; column: string; type: string }>`select c.table_name as table, c.column_name as column, c.data_type as type
        from information_schema.columns c join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
        where c.table_schema = current_schema() and t.table_type = 'BASE TABLE'
        order by c.table_name, c.ordinal_position`.execute(db);
      const tables = new Map<string, TableInfo>();
      for (const r of res.rows) {
        if (DERIVED.has(r.table)) continue;
        let t = tables.get(r.table);
        if (!t) tables.set(r.table, (t = { name: r.table, columns: [] }));
        t.columns.push({ name: r.column, boolean: r.type === 'boolean' });
      }
      return [...tables.values()];
    },

    async migrations(db) {
      const rows = await db.selectFrom('kysely_migration').select('name').orderBy('name').execute();
      return rows.map((r) => String(r.name));
    },

    async sequences(db) {
      const out: Record<string, number> = {};
      for (const { table, sequence } of await identitySequences(db)) {
        // Like sqlite_sequence: the last id handed out; a sequence never used has none.
        const res = await sql<{ last: number | null }>`select last_value as last from pg_sequences
          where format('%I.%I', schemaname, sequencename) = ${sequence} or sequencename = ${sequence}`.execute(db);
        const last = res.rows[0]?.last;
        if (last !== null && last !== undefined) out[table] = Number(last);
      }
      return out;
    },

    async deferConstraints(trx) {
      // Until the commit, for this transaction only.
      await sql`set constraints all deferred`.execute(trx);
    },

    async setSequences(trx, sequences) {
      // The backup's value, or past the highest id restored when the backup has none (SQLite keeps
      // no sequence for a table that never had a row).
      for (const { table, sequence } of await identitySequences(trx)) {
        const top = await sql<{ top: number | null }>`select max(id) as top from ${sql.table(table)}`.execute(trx);
        const last = Math.max(sequences[table] ?? 0, Number(top.rows[0]?.top ?? 0));
        if (last > 0) await sql`select setval(${sequence}::regclass, ${last}, true)`.execute(trx);
        else await sql`select setval(${sequence}::regclass, 1, false)`.execute(trx);
      }
    },
  };
}
