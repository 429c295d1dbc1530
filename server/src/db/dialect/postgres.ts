// The only home of PostgreSQL-specific code: the connection pool, the write lock, the data
// version the database holds, full-text search (tsvector + GIN) and the rest of SqlDialect.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { preparedStatementName } from '../prepared.js';
import {
  ColumnNode,
  CompiledQuery,
  DataTypeNode,
  OrderByItemNode,
  RawNode,
  OperationNodeTransformer,
  PostgresDialect,
  PostgresDriver,
  sql,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type CreateIndexNode,
  type Kysely,
  type KyselyPlugin,
  type QueryId,
  type PostgresDialectConfig,
  type Compilable,
  type InsertQueryBuilder,
  type TransactionSettings,
} from 'kysely';
import { MODEL_TABLES, MODEL_VERSION_ROW, SETTINGS_TABLES, SETTINGS_VERSION_ROW, WINDOWS_VERSION_ROW, type DataVersion } from '../data-version.js';
import { draftTranslationsWhere, type Aggregates, type DriverErrors, type JsonText, type ObjectSearch, type RowLocks, type SchemaDialect, type SqlDialect } from './dialect.js';
import { searchWords } from './search-words.js';
import { plannerStatistics, type PlannerStatistics } from '../planner-statistics.js';

/**
 * Key of the advisory lock every transaction takes first. SQLite lets one transaction write at a
 * time (BEGIN IMMEDIATE); taking one lock at BEGIN gives PostgreSQL the same order across every
 * instance on the database, so the checks a write makes before writing (a free uname, the
 * nested-set positions of the tree, the last admin) hold until it commits. Reads outside
 * transactions never wait for it; group commit (db/write-batch.ts) amortises it.
 */
const WRITE_LOCK_KEY = 0x466f6c696f; // "Folio"

/**
 * Raw statements that change nothing a cache holds: reads and transaction control, and the
 * writes of search documents staged for an insert (stageDocuments), which no read shows.
 */
const READ_ONLY_SQL = /^\s*(select|with|begin|start|commit|rollback|savepoint|release|show|set|explain)\b|^\s*(insert\s+into|delete\s+from)\s+folio_search_staged\s/i;

/** Whether a compiled statement may write: anything but a read, a select with a writing CTE included. */
function mayWrite(query: CompiledQuery): boolean {
  const node = query.query;
  if (node.kind === 'RawNode') return !READ_ONLY_SQL.test(query.sql);
  if (node.kind !== 'SelectQueryNode') return true;
  return node.with?.expressions.some((cte) => cte.expression.kind !== 'SelectQueryNode') ?? false;
}
const COUNTED = Symbol('writes counted');
/** Set on a connection between BEGIN and COMMIT / ROLLBACK. */
const IN_TRANSACTION = Symbol('in a transaction');

/**
 * The commit of every transaction, with the version rows read just before it in the same round
 * trip (two statements in one simple query): they hold what this transaction moved, so this
 * process knows the versions its own write left without asking again at its next request (which
 * would see its own write as a change and empty the caches a second time), and whether it set a
 * publication window or wrote a settings table. createPool hands the rows to its `onVersions`.
 */
const COMMIT_READING_VERSIONS = 'select id, version from folio_data_version; commit';

export type VersionRows = Array<{ id: number | string; version: number | string }>;

class LockingPostgresDriver extends PostgresDriver {
  constructor(
    config: PostgresDialectConfig,
    /** A statement that may write ran: its row count, and whether it ran alone (committed at once, outside a transaction). */
    private readonly onWrite: (rows: number, alone: boolean) => void,
  ) {
    super(config);
  }

  /**
   * Every statement that may write moves this process's part of the data version once it has run
   * (as on SQLite): a cached read later in the same request (the object a PATCH answers with, the
   * object-permission flag) never comes from before the write. Other instances' writes are seen
   * through the counter the database holds, read as each request starts.
   */
  override async acquireConnection(): Promise<DatabaseConnection> {
    const connection = (await super.acquireConnection()) as TrackedConnection;
    if (!connection[COUNTED]) {
      connection[COUNTED] = true;
      const execute = connection.executeQuery.bind(connection);
      connection.executeQuery = async <R>(query: CompiledQuery) => {
        const result = await execute<R>(query);
        if (mayWrite(query)) {
          this.onWrite(Number(result.numAffectedRows ?? result.rows.length), !connection[IN_TRANSACTION]);
        }
        return result;
      };
    }
    return connection;
  }

  override async beginTransaction(connection: TrackedConnection, settings: TransactionSettings): Promise<void> {
    // The usual case, a write with default settings: BEGIN and the lock in one round trip (two
    // statements in one simple query; it has no parameters).
    if (!settings.isolationLevel && !settings.accessMode) {
      await connection.executeQuery(CompiledQuery.raw(`begin; select pg_advisory_xact_lock(${WRITE_LOCK_KEY})`));
    } else {
      await super.beginTransaction(connection, settings);
      // A read-only transaction (a backup's snapshot) writes nothing: it needs no turn.
      if (settings.accessMode !== 'read only') await connection.executeQuery(CompiledQuery.raw(`select pg_advisory_xact_lock(${WRITE_LOCK_KEY})`));
    }
    connection[IN_TRANSACTION] = true;
  }

  /** Set once folio_data_version exists (installDatabaseUpkeep ran): the migrations commit plainly. */
  readVersionsAtCommit = false;

  override async commitTransaction(connection: TrackedConnection): Promise<void> {
    try {
      await connection.executeQuery(CompiledQuery.raw(this.readVersionsAtCommit ? COMMIT_READING_VERSIONS : 'commit'));
    } finally {
      connection[IN_TRANSACTION] = false;
    }
  }

  override async rollbackTransaction(connection: TrackedConnection): Promise<void> {
    try {
      await super.rollbackTransaction(connection);
    } finally {
      connection[IN_TRANSACTION] = false;
    }
  }
}

type TrackedConnection = DatabaseConnection & { [COUNTED]?: true; [IN_TRANSACTION]?: boolean };

class LockingPostgresDialect extends PostgresDialect {
  readonly driver: LockingPostgresDriver;
  constructor(driverConfig: PostgresDialectConfig, onWrite: (rows: number, alone: boolean) => void = () => {}) {
    super(driverConfig);
    this.driver = new LockingPostgresDriver(driverConfig, onWrite);
  }
  override createDriver(): Driver {
    return this.driver;
  }
}

/** bigint (count(*), sum(), bigint columns) and numeric read as JS numbers, as SQLite gives them. */
const NUMERIC_OIDS = new Set([20, 1700]);
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    NUMERIC_OIDS.has(oid) && format !== 'binary' ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

/**
 * A pool of connections to `url` as Folio uses them. `onVersions` hears the version rows each
 * commit read (COMMIT_READING_VERSIONS), once the commit succeeded.
 */
export function createPool(url: string, max: number, log?: (line: string) => void, onVersions?: (rows: VersionRows) => void): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max, types, application_name: 'folio' });
  // The queries of db/prepared.ts (an object by id, the insert of an object…) go as named
  // statements: parsed and planned once per connection (a create's insert: planning was ~0.1 ms).
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (text: unknown, values?: unknown, callback?: unknown) => {
      if (text === COMMIT_READING_VERSIONS && callback === undefined) {
        // Two results: the rows, then the commit's (what kysely reads: no rows).
        return (query(text, values) as Promise<pg.QueryResult[]>).then((results) => {
          onVersions?.(results[0].rows as VersionRows);
          return results[results.length - 1];
        });
      }
      const name = typeof text === 'string' && Array.isArray(values) ? preparedStatementName(text) : undefined;
      return name ? query({ name, text, values }, callback) : query(text, values, callback);
    };
  });
  // An idle connection the server dropped (a restart, a failover) is replaced on next use.
  pool.on('error', (err) => log?.(`database connection lost: ${err.message}`));
  return pool;
}

export interface PostgresHandle {
  dialect: Dialect;
  pool: pg.Pool;
  /** The counter the database holds (see installDataVersion), plus this process's bumps. */
  dataVersion: DataVersion;
  /** Refreshed after large writes and every hour (see planner-statistics.ts). */
  statistics: PlannerStatistics;
  /** installDatabaseUpkeep has run: every commit from now on reads the version rows back. */
  upkeepInstalled(): void;
}

/**
 * ANALYZE of the tables of this schema with many changes since their last analysis (autovacuum's
 * own rule, 10% of the rows, but now rather than at its next round, up to a minute later, and
 * from 500 rows on for tables that start empty). Runs on the database server: it samples a
 * bounded number of rows per table (300 x default_statistics_target) and keeps Node's thread free.
 * False when no table is due. Search documents staged for an insert (stageDocuments) are left out:
 * nothing reads them but that insert, by key.
 */
async function analyzeChanged(pool: pg.Pool): Promise<boolean> {
  const due = await pool.query<{ name: string }>(
    `select relname as name from pg_stat_user_tables where schemaname = current_schema() and n_mod_since_analyze >= greatest(500, 0.1 * n_live_tup)
       and relname <> 'folio_search_staged'`,
  );
  // None due yet: each connection reports its changes to the collector up to seconds after them.
  if (!due.rows.length) return false;
  await pool.query(`analyze ${due.rows.map((r) => pg.escapeIdentifier(r.name)).join(', ')}`);
  return true;
}

/**
 * Rows of folio_data_version: any data, the object model (types, properties, relations), the
 * settings tables, and publication windows set (data-version.ts).
 */
const DATA = 1;
const MODEL = MODEL_VERSION_ROW;
const SETTINGS = SETTINGS_VERSION_ROW;
const WINDOWS = WINDOWS_VERSION_ROW;

export function openPostgres(url: string, poolSize: number, log?: (line: string) => void): PostgresHandle {
  /** The highest value seen of each row (they only grow). */
  const seen = new Map<number, number>([[DATA, 0], [MODEL, 0], [SETTINGS, 0], [WINDOWS, 0]]);
  const see = (rows: VersionRows) => {
    for (const row of rows) {
      const id = Number(row.id);
      if (seen.has(id)) seen.set(id, Math.max(seen.get(id)!, Number(row.version)));
    }
  };
  const pool = createPool(url, poolSize, log, see);
  /** This process's writes, counted as they run (each moves current() at once). */
  let local = 0;
  /**
   * Its writes committed alone, outside a transaction: they may have moved the settings or the
   * windows row, which only a transaction's commit reads back.
   */
  let alone = 0;
  const statistics = plannerStatistics(() => analyzeChanged(pool), log);
  const readVersion = async () => {
    const res = await pool.query<{ id: number; version: number }>({ name: 'folio-data-version', text: 'select id, version from folio_data_version' });
    see(res.rows);
    return seen.get(DATA)! + local;
  };
  /** The version read under way, and the one queued behind it for callers that came after it began. */
  let reading: Promise<number> | null = null;
  let queued: Promise<number> | null = null;
  const dialect = new LockingPostgresDialect({ pool }, (rows, committedAlone) => {
    local++;
    if (committedAlone) alone++;
    statistics.wrote(rows);
  });
  return {
    dialect,
    pool,
    statistics,
    upkeepInstalled: () => {
      dialect.driver.readVersionsAtCommit = true;
    },
    dataVersion: {
      // Both parts only grow (seen never goes back): their sum changes whenever either does.
      current: () => seen.get(DATA)! + local,
      refresh() {
        // Requests arriving together share one read: a read already under way may have begun
        // before a caller arrived (and miss a write answered just before it), so later callers
        // wait for it and share the next one, which surely begins after they arrived.
        if (!reading) return (reading = readVersion().finally(() => (reading = null)));
        return (queued ??= reading.then(
          () => undefined,
          () => undefined,
        ).then(() => {
          queued = null;
          return (reading ??= readVersion().finally(() => (reading = null)));
        }));
      },
      model: () => seen.get(MODEL)!,
      settings: () => seen.get(SETTINGS)! + alone,
      windows: () => seen.get(WINDOWS)! + alone,
      bump: () => {
        local++;
        alone++;
      },
    },
  };
}

/** The secret kept under `name`, made by `make()` by whichever instance asks first. */
export async function keptSecret(db: Kysely<any>, name: string, make: () => string): Promise<string> {
  await sql`insert into folio_secrets (name, value) values (${name}, ${make()}) on conflict (name) do nothing`.execute(db);
  const row = await sql<{ value: string }>`select value from folio_secrets where name = ${name}`.execute(db);
  return row.rows[0].value;
}

/**
 * What every start makes sure of, after the migrations (idempotent, in one transaction so that
 * instances starting together take turns):
 *  - the data version: one counter row, moved by the first row a transaction writes to any table
 *    (a row trigger that acts once per transaction: a statement that changes no row changes no
 *    version, as SQLite's data_version) or by a TRUNCATE; instances read it before a
 *    cached read, so another instance's write is never answered from a stale cache; a second
 *    row for writes to the object model, so that every instance reloads it; a third for writes to
 *    the settings tables and a fourth for publication bounds set (DataVersion.settings(),
 *    windows()): the reads that depend on nothing else stay cached across other writes;
 *  - the table of kept secrets (keptSecret);
 *  - foreign keys deferrable (still checked at once by default): a restore defers them to commit,
 *    as SQLite's defer_foreign_keys does.
 */
export async function installDatabaseUpkeep(db: Kysely<any>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`create table if not exists folio_data_version (id integer primary key, version bigint not null)`.execute(trx);
    await sql`insert into folio_data_version (id, version) values (${DATA}, 1), (${MODEL}, 1), (${SETTINGS}, 1), (${WINDOWS}, 1) on conflict (id) do nothing`.execute(trx);
    // Moves row TG_ARGV[0] once per transaction (a transaction-local setting remembers it did).
    await sql.raw(`create or replace function folio_bump_version() returns trigger language plpgsql as $$
      declare done text := 'folio.version_bumped_' || tg_argv[0];
      begin
        if current_setting(done, true) is distinct from 'on' then
          update folio_data_version set version = version + 1 where id = tg_argv[0]::integer;
          perform set_config(done, 'on', true);
        end if;
        return null;
      end $$`).execute(trx);
    const tables = await sql<{ name: string }>`select table_name as name from information_schema.tables
      where table_schema = current_schema() and table_type = 'BASE TABLE'
        and table_name not in ('folio_data_version', 'kysely_migration', 'kysely_migration_lock', 'jobs', 'folio_search_staged')`.execute(trx);
    // (jobs: the queue's claims and lease renewals change nothing any cached read shows; nor do
    // search documents staged for an insert, which is a write of its own.)
    // Documents staged by a server that stopped before dropping them (stageDocuments).
    await sql`delete from folio_search_staged where made < now() - interval '1 hour'`.execute(trx);
    const bump = (row: number) => sql.raw(`folio_bump_version('${row}')`);
    for (const { name } of tables.rows) {
      const t = sql.table(name);
      const rows: Array<[string, number]> = [['folio_data_version', DATA]];
      if (MODEL_TABLES.includes(name)) rows.push(['folio_model_version', MODEL]);
      if (SETTINGS_TABLES.includes(name)) rows.push(['folio_settings_version', SETTINGS]);
      for (const [trigger, row] of rows) {
        await sql`create or replace trigger ${sql.id(trigger)} after insert or update or delete on ${t} for each row execute function ${bump(row)}`.execute(trx);
        await sql`create or replace trigger ${sql.id(`${trigger}_truncate`)} after truncate on ${t} for each statement execute function ${bump(row)}`.execute(trx);
      }
    }
    // A row that gets a publication bound: the next bound may now be sooner (a bound taken away
    // only makes the one held too early, which ends an epoch for nothing: harmless).
    await sql`create or replace trigger folio_windows_version after insert or update of publish_start, publish_end on objects for each row
      when (new.publish_start is not null or new.publish_end is not null) execute function ${bump(WINDOWS)}`.execute(trx);
    // The nested set rewrites a root's rows on every placement: vacuumed after 1,000 dead rows
    // instead of 20% of the table, so that its index does not fill with dead entries under load.
    await sql`alter table trees set (autovacuum_vacuum_threshold = 1000, autovacuum_vacuum_scale_factor = 0)`.execute(trx);
    // Secrets every instance must share (the JWT secret when FOLIO_JWT_SECRET is unset); never
    // in backups (see postgres-backup.ts).
    await sql`create table if not exists folio_secrets (name varchar(64) primary key, value text not null)`.execute(trx);
    const fks = await sql<{ table: string; name: string }>`select cl.relname as table, co.conname as name from pg_constraint co
      join pg_class cl on cl.oid = co.conrelid join pg_namespace n on n.oid = cl.relnamespace
      where co.contype = 'f' and not co.condeferrable and n.nspname = current_schema()`.execute(trx);
    for (const fk of fks.rows) await sql`alter table ${sql.table(fk.table)} alter constraint ${sql.id(fk.name)} deferrable initially immediate`.execute(trx);
  });
}

// ---- Full-text search of objects (tsvector + GIN) ----
// objects_search holds one document per object, kept in step by a trigger on `objects` in the
// same transaction as the write (deleted with the object by its foreign key). Weights: title A,
// description B, the text values of `properties` C, body D. Words are split as SQLite's unicode61
// tokenizer splits them (punctuation separates; e-mail addresses and URLs are words too), folded
// to lower case and stripped of accents (the `unaccent` extension, when the server has it).

/** Rank weights of D, C, B, A (body, properties, description, title): SQLite's bm25 ratios. */
const WEIGHTS = '{0.1, 0.2, 0.3, 1.0}';

/**
 * The search document of an object's fields. PL/pgSQL, not SQL: a SQL function called from the
 * trigger is planned again on every call (0.18 ms of a 0.66 ms insert with a 1.7 kB body); a
 * PL/pgSQL one keeps its plans for the session. Migration 0091 replaces the first (SQL) version.
 */
const SEARCH_DOCUMENT_FUNCTION = `create or replace function folio_search_document(title text, description text, body text, properties text)
  returns tsvector stable language plpgsql as $$
  begin
    return setweight(to_tsvector('folio_search', folio_search_words(title)), 'A')
      || setweight(to_tsvector('folio_search', folio_search_words(description)), 'B')
      || setweight(to_tsvector('folio_search', folio_search_words((
           select string_agg(value #>> '{}', ' ') from jsonb_each(
             case when jsonb_typeof(properties::jsonb) = 'object' then properties::jsonb else '{}'::jsonb end)
           where jsonb_typeof(value) = 'string'))), 'C')
      || setweight(to_tsvector('folio_search', folio_search_words(body)), 'D');
  end $$`;

/**
 * The trigger function that keeps an object's search document in step. An insert that brought its
 * document along (`withDocuments`: computed before the write lock was taken) has its row in
 * objects_search already when the trigger fires, at the end of the statement: nothing to compute.
 */
const OBJECTS_SEARCH_TRIGGER_FUNCTION = `create or replace function folio_objects_search() returns trigger language plpgsql as $$
  begin
    if tg_op = 'INSERT' and exists (select 1 from objects_search where id = new.id) then
      return null;
    end if;
    insert into objects_search (id, document) values (new.id, folio_search_document(new.title, new.description, new.body, new.properties))
      on conflict (id) do update set document = excluded.document;
    return null;
  end $$`;

const search: ObjectSearch = {
  async upgrade(db) {
    await sql.raw(SEARCH_DOCUMENT_FUNCTION).execute(db);
    // Migration 0128: documents made ahead of an insert (stageDocuments), until it is over.
    await sql`create unlogged table if not exists folio_search_staged (ref text primary key, document tsvector not null, made timestamptz not null default now())`.execute(db);
    // Migration 0126 (the trigger's skip); before migration 0010 made objects_search there is no trigger to replace.
    const table = await sql<{ t: string | null }>`select to_regclass('objects_search')::text as t`.execute(db);
    if (table.rows[0]?.t) {
      await sql.raw(OBJECTS_SEARCH_TRIGGER_FUNCTION).execute(db);
    }
  },

  async stageDocuments(db, fields) {
    // Outside any transaction: the tokenizer runs without the write lock, beside other writes.
    // The documents stay in the database, in an unlogged table (no WAL; nothing that outlives a
    // crash is needed), under references unique to this call.
    const prefix = `${randomUUID()}:`;
    const column = (k: 'title' | 'description' | 'body' | 'properties') => fields.map((f) => f[k]);
    await sql`insert into folio_search_staged (ref, document)
      select ${prefix} || n, folio_search_document(t, d, b, p)
      from unnest(${column('title')}::text[], ${column('description')}::text[], ${column('body')}::text[], ${column('properties')}::text[])
        with ordinality as u(t, d, b, p, n)`.execute(db);
    const refs = fields.map((_, i) => `${prefix}${i + 1}`);
    return { refs, drop: async () => void (await sql`delete from folio_search_staged where ref = any(${refs}::text[])`.execute(db)) };
  },

  withDocuments<R>(db: Kysely<any>, insert: Compilable<R>, documents: Array<[unknown, unknown]>): Compilable<R> {
    const given = sql`(values ${sql.join(documents.map(([uname, ref]) => sql`(${uname}::text, ${ref}::text)`))}) as given (uname, ref)`;
    return db
      .with('inserted', () => insert as unknown as InsertQueryBuilder<any, any, any>)
      .with('searched', (qc) =>
        (qc as unknown as Kysely<any>)
          .insertInto('objects_search')
          .columns(['id', 'document'])
          .expression(sql`select inserted.id, staged.document from inserted join ${given} on given.uname = inserted.uname
            join folio_search_staged staged on staged.ref = given.ref`),
      )
      .selectFrom('inserted')
      .selectAll() as unknown as Compilable<R>;
  },

  async createIndex(db) {
    // unaccent ships with Debian's server package; creating it needs the CREATE right (it is trusted).
    const unaccent = await sql<{ ok: boolean }>`select exists (select 1 from pg_extension where extname = 'unaccent')
      or (exists (select 1 from pg_available_extensions where name = 'unaccent')
          and ((select rolsuper from pg_roles where rolname = current_user) or has_database_privilege(current_database(), 'CREATE'))) as ok`.execute(db);
    const withUnaccent = Boolean(unaccent.rows[0]?.ok);
    await sql`create text search configuration folio_search (copy = simple)`.execute(db);
    if (withUnaccent) {
      await sql`create extension if not exists unaccent`.execute(db);
      await sql`alter text search configuration folio_search alter mapping for asciiword, asciihword, hword_asciipart, word, hword, hword_part, numword, numhword, hword_numpart with unaccent, simple`.execute(db);
    }
    await sql.raw(`create function folio_search_words(t text) returns text immutable language sql as $$
      select regexp_replace(coalesce(t, ''), '[[:punct:]]+', ' ', 'g') $$`).execute(db);
    await sql.raw(SEARCH_DOCUMENT_FUNCTION).execute(db);
    await sql`create table objects_search (id bigint primary key references objects (id) on delete cascade, document tsvector not null)`.execute(db);
    await sql`create index objects_search_document on objects_search using gin (document)`.execute(db);
    await sql.raw(OBJECTS_SEARCH_TRIGGER_FUNCTION).execute(db);
    await sql`create trigger objects_search after insert or update of title, description, body, properties on objects
      for each row execute function folio_objects_search()`.execute(db);
    await sql`insert into objects_search (id, document) select id, folio_search_document(title, description, body, properties) from objects`.execute(db);
  },

  expression(text) {
    const words = searchWords(text);
    if (!words.length) return null;
    // Quoted operands: a word is never read as an operator. Underscores split it into a phrase.
    return words.map((w, i) => `'${w}'${i === words.length - 1 ? ':*' : ''}`).join(' & ');
  },

  // ts_rank is higher for better matches: negated, ascending order puts the best first as bm25 does.
  ranks: (expr) =>
    sql`(select id as search_id, -ts_rank(${sql.lit(WEIGHTS)}::real[], document, to_tsquery('folio_search', ${expr})) as search_rank
      from objects_search where document @@ to_tsquery('folio_search', ${expr}))`,

  ids: (expr) => sql<number>`(select id from objects_search where document @@ to_tsquery('folio_search', ${expr}))`,

  // A translation's document is built with its language's text search configuration (stemming,
  // stop words: `english` for `en`, `en-GB`…, `italian` for `it`), `simple` where PostgreSQL has
  // none; queries use the same configuration, so words match in their language's forms.
  async createTranslationIndex(db) {
    await sql.raw(`create function folio_ts_config(lang text) returns regconfig stable language plpgsql as $$
      declare
        name text := case lower(split_part(coalesce(lang, ''), '-', 1))
          when 'ar' then 'arabic' when 'hy' then 'armenian' when 'eu' then 'basque' when 'ca' then 'catalan'
          when 'da' then 'danish' when 'nl' then 'dutch' when 'en' then 'english' when 'fi' then 'finnish'
          when 'fr' then 'french' when 'de' then 'german' when 'el' then 'greek' when 'hi' then 'hindi'
          when 'hu' then 'hungarian' when 'id' then 'indonesian' when 'ga' then 'irish' when 'it' then 'italian'
          when 'lt' then 'lithuanian' when 'ne' then 'nepali' when 'no' then 'norwegian' when 'nb' then 'norwegian'
          when 'nn' then 'norwegian' when 'pt' then 'portuguese' when 'ro' then 'romanian' when 'ru' then 'russian'
          when 'sr' then 'serbian' when 'es' then 'spanish' when 'sv' then 'swedish' when 'ta' then 'tamil'
          when 'tr' then 'turkish' when 'yi' then 'yiddish' else 'simple' end;
        found regconfig;
      begin
        select oid::regconfig into found from pg_ts_config where cfgname = name;
        return coalesce(found, 'simple'::regconfig);
      end $$`).execute(db);
    await sql`create table translations_search (id bigint primary key references translations (id) on delete cascade,
      object_id bigint not null, lang varchar(64) not null, status varchar(16) not null, document tsvector not null)`.execute(db);
    await sql`create index translations_search_document on translations_search using gin (document)`.execute(db);
    await sql`create index translations_search_lang on translations_search (lang)`.execute(db);
    await sql.raw(`create function folio_translations_search() returns trigger language plpgsql as $$
      begin
        insert into translations_search (id, object_id, lang, status, document) values (new.id, new.object_id, new.lang, new.status,
          to_tsvector(folio_ts_config(new.lang), folio_search_words((
            select string_agg(value #>> '{}', ' ') from jsonb_each(
              case when jsonb_typeof(new.translated_fields::jsonb) = 'object' then new.translated_fields::jsonb else '{}'::jsonb end)
            where jsonb_typeof(value) = 'string'))))
          on conflict (id) do update set object_id = excluded.object_id, lang = excluded.lang, status = excluded.status, document = excluded.document;
        return null;
      end $$`).execute(db);
    await sql`create trigger translations_search after insert or update on translations
      for each row execute function folio_translations_search()`.execute(db);
  },

  translationRanks: (expr, lang, drafts) =>
    sql`(select object_id as search_id, -ts_rank(document, to_tsquery(folio_ts_config(${lang}), ${expr})) * 0.1 as search_rank
      from translations_search where lang = ${lang}${draftTranslationsWhere(drafts)}
      and document @@ to_tsquery(folio_ts_config(${lang}), ${expr}))`,
};

/** What a stored date-time / date must look like before PostgreSQL is asked to read it. */
const DATE_TIME = '^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])[T ]([01]\\d|2[0-3]):[0-5]\\d(:[0-5]\\d(\\.\\d+)?)?(Z|z|[+-]\\d{2}(:?\\d{2})?)?$';
const DAY = '^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])';

const aggregates: Aggregates = {
  joinedIds: (value, orderBy) => sql<string | null>`string_agg((${value})::text, ',' order by ${orderBy})`,
};

const json: JsonText = {
  property(column, name, kind) {
    const value = sql`(${sql.ref(column)}::jsonb -> ${name}::text)`;
    const text = sql`(${sql.ref(column)}::jsonb ->> ${name}::text)`;
    // Typed as SQLite's json_extract gives them, so comparisons and sorting agree.
    if (kind === 'integer' || kind === 'number') return sql`(case when jsonb_typeof(${value}) = 'number' then ${text}::numeric end)`;
    if (kind === 'boolean') return sql`(case when jsonb_typeof(${value}) = 'boolean' then ${value}::boolean end)`;
    // Dates compare as instants (any offset, as UTC text) or calendar days, as on SQLite; values
    // that are no date (the schema lets none in) read as null instead of failing the cast.
    if (kind === 'date') {
      return sql`(case when ${text} ~ ${DATE_TIME} then to_char((${text})::timestamptz at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"+00:00"') end)`;
    }
    if (kind === 'day') return sql`(case when ${text} ~ ${DAY} then substr(${text}, 1, 10) end)`;
    return text;
  },
  withoutProperty: (column, name) => sql<string | null>`(${sql.ref(column)}::jsonb - ${name}::text)::text`,
};

/**
 * Column types as SQLite reads them. `integer` becomes `bigint`: SQLite's integers are 64-bit, so
 * an id or integer filter of 15 digits is a lookup that finds nothing there, never an out-of-range
 * error. `varchar(n)` becomes `text`: SQLite enforces no length, so a value SQLite keeps must not
 * be a 500 here (lengths are the API's to check).
 */
class SqliteLikeTypes extends OperationNodeTransformer {
  protected override transformDataType(node: DataTypeNode): DataTypeNode {
    if (node.dataType === 'integer') return DataTypeNode.create('bigint');
    if (/^varchar\(\d+\)$/.test(node.dataType)) return DataTypeNode.create('text');
    return node;
  }

  /**
   * Index columns keep nulls where SQLite sorts them (first ascending, last descending), the order
   * lists ask for (http/query.ts, applySort): PostgreSQL's opposite default would leave a sorted
   * page unable to walk the index. Ids are never null: they keep the plain order, as lists sort them.
   */
  protected override transformCreateIndex(node: CreateIndexNode, queryId?: QueryId): CreateIndexNode {
    const columns = node.columns?.map((c) => {
      if (ColumnNode.is(c)) {
        if (c.column.name === 'id') return c;
        return OrderByItemNode.cloneWith(OrderByItemNode.create(c, RawNode.createWithSql('asc')), { nulls: 'first' });
      }
      if (OrderByItemNode.is(c)) {
        const desc = RawNode.is(c.direction!) && c.direction.sqlFragments.join('').trim().toLowerCase() === 'desc';
        return OrderByItemNode.cloneWith(c, { nulls: desc ? 'last' : 'first' });
      }
      return c;
    });
    return super.transformCreateIndex({ ...node, columns }, queryId);
  }
}

const sqliteLikeTypes: KyselyPlugin = {
  transformQuery: (args) => new SqliteLikeTypes().transformNode(args.node),
  transformResult: async (args) => args.result,
};

const schema: SchemaDialect = {
  forMigrations: (db) => db.withPlugin(sqliteLikeTypes),
  generatedId: (c) => c.generatedByDefaultAsIdentity(),
  async continueIds(db, table) {
    await sql`select setval(pg_get_serial_sequence(${table}, 'id'), coalesce(max(id), 0) + 1, false) from ${sql.table(table)}`.execute(db);
  },
  async widenVarchar(db, table, column, length) {
    await db.schema.alterTable(table).alterColumn(column, (c) => c.setDataType(sql.raw(`varchar(${length})`))).execute();
  },
};

const sqlState = (err: unknown) => String((err as { code?: unknown })?.code ?? '');

const errors: DriverErrors = {
  // Class 23: integrity constraint violation (unique, foreign key, not null, check).
  isConstraintViolation: (err) => /^23\d{3}$/.test(sqlState(err)),
  // Serialization failure, deadlock, lock not available, too many connections, cannot connect now.
  isBusy: (err) => ['40001', '40P01', '55P03', '53300', '57P03'].includes(sqlState(err)),
  // A NUL character in a text value (22021) or in JSON text (22P05): PostgreSQL's text cannot hold it.
  isUnstorableText: (err) => ['22021', '22P05'].includes(sqlState(err)),
};

const locks: RowLocks = { skipLocked: (query) => query.forUpdate().skipLocked() as typeof query };

export const postgresDialect: SqlDialect = { name: 'postgres', search, json, aggregates, schema, errors, locks };
