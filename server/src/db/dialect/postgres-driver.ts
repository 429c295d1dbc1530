// PostgreSQL's connection side: the pool, the write lock every transaction takes, the data version
// the database holds and reads back at each commit, the planner statistics, and the upkeep every
// start makes sure of (version triggers, kept secrets, deferrable foreign keys).
import pg from 'pg';
import { preparedStatementName } from '../prepared.js';
import {
  CompiledQuery,
  PostgresDialect,
  PostgresDriver,
  sql,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type PostgresDialectConfig,
  type TransactionSettings,
} from 'kysely';
import { ACCOUNTS_TABLES, ACCOUNTS_VERSION_ROW, LIST_COLUMNS, LISTS_VERSION_ROW, MODEL_TABLES, MODEL_VERSION_ROW, SETTINGS_TABLES, SETTINGS_VERSION_ROW, WINDOWS_VERSION_ROW, type DataVersion } from '../data-version.js';
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
const COMMIT_READING_VERSIONS = `select id, version, current_setting('folio.version_bumped_' || id, true) = 'on' as bumped from folio_data_version; commit`;

/** `bumped` (the rows a commit read): whether this transaction moved the row (folio_bump_version's flag). */
export type VersionRows = Array<{ id: number | string; version: number | string; bumped?: boolean | null }>;

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

/** What pg's Result makes of a RowDescription (pg 8: its field list, a parser per field, an empty row). */
interface RowShape {
  fields: pg.FieldDef[];
  parsers: unknown;
  empty: unknown;
}
/** The parts of pg's Query and Result a RowShape is read from and given to (pinned by the tests). */
interface QueryInternals {
  name: string;
  callback?: unknown;
  listeners(event: string): unknown[];
  _checkForMultirow(): void;
  _accumulateRows: unknown;
  _result: { addFields(fields: pg.FieldDef[]): void; fields: pg.FieldDef[]; _parsers: unknown; _prebuiltEmptyResultObject: unknown };
}
const sameFields = (a: pg.FieldDef[], b: pg.FieldDef[]) => {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i].name !== b[i].name || a[i].dataTypeID !== b[i].dataTypeID || a[i].format !== b[i].format) return false;
  return true;
};

/**
 * A connection's queries of named statements, each reusing what pg made of the statement's
 * RowDescription the last time it ran there. pg builds a parser per column and an empty row from
 * every RowDescription it receives (each execution of a named statement gets one): for an
 * object's ~35 columns that was 13 µs of an uncached PostgreSQL read's ~260 (perf, issue 48). The description is still received and
 * compared field by field (name, type, format); a different one (another schema) is built anew.
 */
function shapedQueries(): new (config: pg.QueryConfig, callback: (err: Error | null, res: pg.QueryResult) => void) => pg.Query {
  const shapes = new Map<string, RowShape>();
  return class ShapedQuery extends (pg.Query as unknown as new (text: string, values: unknown, callback: unknown) => pg.Query) {
    // Made from the text, values and callback, the name set after: pg copies a config object
    // property by property (Object.getOwnPropertyDescriptors), about 8 µs a statement.
    constructor(config: pg.QueryConfig, callback: unknown) {
      super(config.text, config.values, callback);
      (this as unknown as QueryInternals).name = config.name!;
    }
    handleRowDescription(msg: { fields: pg.FieldDef[] }): void {
      const q = this as unknown as QueryInternals;
      q._checkForMultirow();
      const known = shapes.get(q.name);
      const result = q._result;
      if (known && sameFields(known.fields, msg.fields)) {
        result.fields = msg.fields;
        result._parsers = known.parsers;
        result._prebuiltEmptyResultObject = known.empty;
      } else {
        result.addFields(msg.fields);
        shapes.set(q.name, { fields: msg.fields, parsers: result._parsers, empty: result._prebuiltEmptyResultObject });
      }
      q._accumulateRows = q.callback || !q.listeners('row').length;
    }
  } as never;
}

/**
 * The memory a sort or hash of one statement may take before it spills to temporary files, raised
 * to WORK_MEM_MB for Folio's connections where the server gives less (PostgreSQL's default is
 * 4 MB; a server set higher keeps its own). A ranked search hashes its matches with their
 * documents (about 4.6 kB each, kept in their rows): at 20,000 documents of the bench's text a
 * word in 2,200 of them made a hash of 8 MB, written to and read back from two temporary files,
 * 55-60 ms; with room for it in memory, 25 ms (decisions, "A search's hash stays in memory").
 */
const WORK_MEM_MB = 16;
const WORK_MEM_AT_LEAST = `select set_config('work_mem', '${WORK_MEM_MB}MB', false) where pg_size_bytes(current_setting('work_mem')) < ${WORK_MEM_MB * 1024 * 1024}`;

/**
 * A pool of connections to `url` as Folio uses them. `onVersions` hears the version rows each
 * commit read (COMMIT_READING_VERSIONS), once the commit succeeded.
 */
export function createPool(url: string, max: number, log?: (line: string) => void, onVersions?: (rows: VersionRows) => void): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max, types, application_name: 'folio' });
  // The queries of db/prepared.ts (an object by id, the insert of an object…) go as named
  // statements: parsed and planned once per connection (a create's insert: planning was ~0.1 ms).
  pool.on('connect', (client) => {
    // Sent before anything else on the connection (pg runs a client's queries in turn).
    client.query(WORK_MEM_AT_LEAST).catch((err: Error) => log?.(`work_mem left as the server sets it: ${err.message}`));
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    // Per connection: PostgreSQL keeps a named statement's result type for the connection's life
    // (a schema change makes it refuse the statement: "cached plan must not change result type").
    const ShapedQuery = shapedQueries();
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (text: unknown, values?: unknown, callback?: unknown) => {
      if (text === COMMIT_READING_VERSIONS && callback === undefined) {
        // Two results: the rows, then the commit's (what kysely reads: no rows).
        return (query(text, values) as Promise<pg.QueryResult[]>).then((results) => {
          onVersions?.(results[0].rows as VersionRows);
          return results[results.length - 1];
        });
      }
      // A named statement of this file's own (the version read: { name, text }) goes the same way.
      const own = text !== null && typeof text === 'object' && typeof (text as pg.QueryConfig).name === 'string' && typeof (text as { submit?: unknown }).submit !== 'function' ? (text as pg.QueryConfig) : undefined;
      const name = own ? own.name : typeof text === 'string' && Array.isArray(values) ? preparedStatementName(text) : undefined;
      if (!name) return query(text, values, callback);
      const config = own ? { name, text: own.text, values: Array.isArray(values) ? values : own.values } : { name, text: text as string, values: values as unknown[] };
      if (own && typeof values === 'function') callback = values;
      if (typeof callback === 'function') return query(new ShapedQuery(config, callback as never));
      return new Promise<pg.QueryResult>((resolve, reject) => {
        query(new ShapedQuery(config, (err, res) => (err ? reject(err) : resolve(res))));
      });
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
 * settings tables, publication windows set, and users' identities (data-version.ts).
 */
const DATA = 1;
const MODEL = MODEL_VERSION_ROW;
const SETTINGS = SETTINGS_VERSION_ROW;
const WINDOWS = WINDOWS_VERSION_ROW;
const ACCOUNTS = ACCOUNTS_VERSION_ROW;
const LISTS = LISTS_VERSION_ROW;

export function openPostgres(url: string, poolSize: number, log?: (line: string) => void): PostgresHandle {
  /** The highest value seen of each row (they only grow). */
  const seen = new Map<number, number>([[DATA, 0], [MODEL, 0], [SETTINGS, 0], [WINDOWS, 0], [ACCOUNTS, 0], [LISTS, 0]]);
  const see = (rows: VersionRows) => {
    for (const row of rows) {
      const id = Number(row.id);
      if (seen.has(id)) seen.set(id, Math.max(seen.get(id)!, Number(row.version)));
    }
  };
  /**
   * Values the data row took at this process's own commits (each under the write lock, so the
   * value before it was one less): a read along that started before such a commit and read after
   * it saw only this process's writes move the row (db/read-along.ts). The latest OWN_KEPT.
   */
  const own = new Set<number>();
  const OWN_KEPT = 4096;
  const pool = createPool(url, poolSize, log, (rows) => {
    see(rows);
    for (const row of rows) {
      if (Number(row.id) !== DATA || row.bumped !== true) continue;
      own.add(Number(row.version));
      if (own.size > OWN_KEPT) own.delete(own.values().next().value!);
    }
  });
  /** This process's writes, counted as they run (each moves current() at once). */
  let local = 0;
  /**
   * Its writes committed alone, outside a transaction: they may have moved the settings, windows,
   * accounts or lists row, which only a transaction's commit reads back.
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
      accounts: () => seen.get(ACCOUNTS)! + alone,
      lists: () => seen.get(LISTS)! + alone,
      bump: () => {
        local++;
        alone++;
      },
      along: {
        column: VERSIONS_ALONG,
        see: (value) => {
          if (typeof value !== 'string') return;
          see(value.split(',').map((pair) => {
            const [id, version] = pair.split(':');
            return { id, version };
          }));
        },
        seen: () => seen.get(DATA)!,
        onlyOwnSince: (from) => {
          const to = seen.get(DATA)!;
          if (to - from > OWN_KEPT) return false;
          for (let v = from + 1; v <= to; v++) if (!own.has(v)) return false;
          return true;
        },
      },
    },
  };
}

/** The version rows as one text (`id:version,…`), selected beside a read's own columns (DataVersion.along). */
const VERSIONS_ALONG = `(select string_agg(id::text || ':' || version::text, ',') from folio_data_version)`;

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
 *    the settings tables, a fourth for publication bounds set, a fifth for users' identities and a
 *    sixth for lists' members (DataVersion.settings(), windows(), accounts(), lists()): the reads
 *    that depend on nothing else stay cached across other writes;
 *  - the table of kept secrets (keptSecret);
 *  - foreign keys deferrable (still checked at once by default): a restore defers them to commit,
 *    as SQLite's defer_foreign_keys does.
 */
export async function installDatabaseUpkeep(db: Kysely<any>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`create table if not exists folio_data_version (id integer primary key, version bigint not null)`.execute(trx);
    // Secrets every instance must share (the JWT secret when FOLIO_JWT_SECRET is unset); never
    // in backups (see postgres-backup.ts). Made before the tables are listed: its version triggers come with
    // the start that makes it, not the next one.
    await sql`create table if not exists folio_secrets (name varchar(64) primary key, value text not null)`.execute(trx);
    await sql`insert into folio_data_version (id, version) values (${DATA}, 1), (${MODEL}, 1), (${SETTINGS}, 1), (${WINDOWS}, 1), (${ACCOUNTS}, 1), (${LISTS}, 1) on conflict (id) do nothing`.execute(trx);
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
    // The version triggers each table has already, as made here: made again only where one is
    // missing or differs. Making a trigger locks its table against autovacuum, and a start waited
    // for an autovacuum of a table to be cancelled (1 s, deadlock_timeout) for every table it was
    // working on (after an import, the search documents' table: 1.3-2.0 s to the first answer).
    const present = await sql<{ key: string }>`select c.relname || ' ' || t.tgname || ' ' || t.tgtype || ' ' || encode(t.tgargs, 'hex') as key
      from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = current_schema() and not t.tgisinternal and t.tgenabled = 'O' and t.tgqual is null and t.tgattr = ''::int2vector
        and t.tgfoid = 'folio_bump_version'::regproc`.execute(trx);
    const made = new Set(present.rows.map((r) => r.key));
    // pg_trigger's tgtype: 1 a row trigger, 4 insert, 8 delete, 16 update, 32 truncate (after, not before).
    const has = (table: string, trigger: string, type: number, row: number) => made.has(`${table} ${trigger} ${type} ${Buffer.from(`${row}\0`).toString('hex')}`);
    for (const { name } of tables.rows) {
      const t = sql.table(name);
      const rows: Array<[string, number]> = [['folio_data_version', DATA]];
      if (MODEL_TABLES.includes(name)) rows.push(['folio_model_version', MODEL]);
      if (SETTINGS_TABLES.includes(name)) rows.push(['folio_settings_version', SETTINGS]);
      if (ACCOUNTS_TABLES.includes(name)) rows.push(['folio_accounts_version', ACCOUNTS]);
      for (const [trigger, row] of rows) {
        if (!has(name, trigger, 1 | 4 | 8 | 16, row)) {
          await sql`create or replace trigger ${sql.id(trigger)} after insert or update or delete on ${t} for each row execute function ${bump(row)}`.execute(trx);
        }
        if (!has(name, `${trigger}_truncate`, 32, row)) {
          await sql`create or replace trigger ${sql.id(`${trigger}_truncate`)} after truncate on ${t} for each statement execute function ${bump(row)}`.execute(trx);
        }
      }
    }
    // A row that gets a publication bound: the next bound may now be sooner (a bound taken away
    // only makes the one held too early, which ends an epoch for nothing: harmless).
    await sql`create or replace trigger folio_windows_version after insert or update of publish_start, publish_end on objects for each row
      when (new.publish_start is not null or new.publish_end is not null) execute function ${bump(WINDOWS)}`.execute(trx);
    // A list's members and their order (DataVersion.lists()): an object made or deleted, or one of
    // LIST_COLUMNS changed; an edit of its content leaves the row (and deep pages their anchors).
    const listColumns = LIST_COLUMNS.map((c) => sql.id(c));
    const changed = sql.join(LIST_COLUMNS.map((c) => sql`old.${sql.id(c)} is distinct from new.${sql.id(c)}`), sql` or `);
    await sql`create or replace trigger folio_lists_version after insert or delete on objects for each row execute function ${bump(LISTS)}`.execute(trx);
    await sql`create or replace trigger folio_lists_version_update after update of ${sql.join(listColumns)} on objects for each row
      when (${changed}) execute function ${bump(LISTS)}`.execute(trx);
    await sql`create or replace trigger folio_lists_version_truncate after truncate on objects for each statement execute function ${bump(LISTS)}`.execute(trx);
    // A user's identity also holds its object's status and trash state: a change of either on a
    // user's row moves the accounts row (a user is created, and purged, with its `users` row).
    await sql.raw(`create or replace function folio_bump_accounts_of_user() returns trigger language plpgsql as $$
      declare done text := 'folio.version_bumped_${ACCOUNTS}';
      begin
        if current_setting(done, true) is distinct from 'on' and exists (select 1 from users where id = new.id) then
          update folio_data_version set version = version + 1 where id = ${ACCOUNTS};
          perform set_config(done, 'on', true);
        end if;
        return null;
      end $$`).execute(trx);
    await sql`create or replace trigger folio_accounts_version after update of status, deleted on objects for each row
      when (old.status is distinct from new.status or old.deleted is distinct from new.deleted) execute function folio_bump_accounts_of_user()`.execute(trx);
    // The nested set rewrites a root's rows on every placement: vacuumed after 1,000 dead rows
    // instead of 20% of the table, so that its index does not fill with dead entries under load.
    await sql`alter table trees set (autovacuum_vacuum_threshold = 1000, autovacuum_vacuum_scale_factor = 0)`.execute(trx);
    const fks = await sql<{ table: string; name: string }>`select cl.relname as table, co.conname as name from pg_constraint co
      join pg_class cl on cl.oid = co.conrelid join pg_namespace n on n.oid = cl.relnamespace
      where co.contype = 'f' and not co.condeferrable and n.nspname = current_schema()`.execute(trx);
    for (const fk of fks.rows) await sql`alter table ${sql.table(fk.table)} alter constraint ${sql.id(fk.name)} deferrable initially immediate`.execute(trx);
  });
}
