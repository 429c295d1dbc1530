// The change counter behind every cache of query results (db/read-cache.ts, http/response-cache.ts):
// a number that changes whenever the data may have changed. A cached result is valid only while
// the number it was read under is current. One implementation per engine:
//  - SQLite (dialect/sqlite.ts): every statement this process runs that is not read-only counts
//    (whatever kysely method ran it, `returning` included), plus SQLite's `data_version`, which
//    changes on every commit of another connection or process. current() is always up to date.
//  - PostgreSQL (dialect/postgres-driver.ts): a counter row the database holds, moved by every writing
//    transaction (a trigger on every table), read by refresh() at the start of a cached read and
//    of a request the response cache may answer; other instances' writes then invalidate this
//    one's caches, so a read that starts after a write answered elsewhere is never stale
//    (requests arriving together share one read that begins after the last of them arrived).
// `bump()` counts a change the database cannot see, such as the in-memory model being reloaded.
export interface DataVersion {
  /** The version as last seen (SQLite: always the latest). */
  current(): number;
  /** The latest version: a number at once when current() is always up to date, else a query. */
  refresh(): number | Promise<number>;
  /**
   * The version of the object model (types, properties, property types, relations) as last refreshed: it changes
   * when another instance or process changes the model, and the request middleware reloads it.
   * Both engines keep it in row MODEL_VERSION_ROW of `folio_data_version`, moved by triggers on
   * MODEL_TABLES; SQLite reads it again only when `data_version` says another connection committed.
   */
  model(): number;
  /**
   * A version for reads of the settings tables only (SETTINGS_TABLES: applications, object
   * permissions, the endpoint policy, webhooks, the term tables): it moves on every write to them, and may move more often.
   * PostgreSQL keeps row SETTINGS_VERSION_ROW, moved by triggers on those tables, so a write to
   * an object leaves these reads cached; SQLite counts this process's statements that may write
   * them (dialect/sqlite.ts writesSettings: any delete, a rollback, an insert or update of one of
   * them) and moves with every commit of another connection.
   */
  settings(): number;
  /**
   * A version that moves whenever an object's publication window is set (a next bound may now be
   * sooner: db/publish-epochs.ts reads it again), and may move more often. PostgreSQL keeps row
   * WINDOWS_VERSION_ROW, moved by a trigger on `objects` when a row gets a bound; SQLite counts
   * this process's statements that may set one (dialect/sqlite.ts writesWindows: an insert into
   * `objects`, an update of it that sets a bound, anything not recognised) and moves with every
   * commit of another connection. An epoch of the publication windows lasts across other writes.
   */
  windows(): number;
  /**
   * A version for a signed-in user's identity (roles, their rights, blocked, session version, the
   * user object's status and trash state: ACCOUNTS_TABLES and those two columns of a user's
   * `objects` row): it moves on every write that may change one, and may move more often.
   * PostgreSQL keeps row ACCOUNTS_VERSION_ROW, moved by triggers on those tables and on a change of
   * `status` or `deleted` of a user's object, so that a write to a document leaves identities
   * cached; SQLite answers current() (its identity read runs in-process).
   */
  accounts(): number;
  /**
   * A version for what a list without filters counts and where its deep pages start (a list's
   * count and anchors, resources/objects/list.ts): it moves on every write that may change which
   * objects such a list holds or their order by id or creation (LIST_COLUMNS of `objects`, an
   * object made or deleted), and may move more often. A write of an object's content (its title,
   * body, properties, `modified`) leaves it: after an edit, deep pages keep their anchors.
   * PostgreSQL keeps row LISTS_VERSION_ROW, moved by triggers on `objects`; SQLite counts this
   * process's statements that may move it (dialect/sqlite.ts writesLists: anything but a plain
   * update of objects that sets none of LIST_COLUMNS, or a plain insert or update of another table)
   * and moves with every commit of another connection.
   */
  lists(): number;
  bump(): void;
  /**
   * The database's version as one column a read selects beside its own (`column`, SQL of a scalar
   * subquery, read in the read's snapshot: PostgreSQL's version rows, SQLite's `data_version`),
   * `see(value)` to take that value in, as refresh() takes in its own read, and `seen()`, the
   * database's own counter as last seen, this process's uncommitted writes left out, and
   * `onlyOwnSince(from)`: whether every move of that counter since `from` was a commit of this
   * process's own (db/read-along.ts; SQLite's never moves it for its own commits).
   * `assume(run)`, where present, runs `run` (a request read along, up to its first wait) with
   * every version read as last seen rather than read afresh (SQLite: no pragma), since its own
   * read confirms it; refresh() still reads.
   */
  along?: { column: string; see(value: unknown): void; seen(): number; onlyOwnSince(from: number): boolean; assume?<T>(run: () => T): T };
}

/** The tables of the object model: a write to any of them moves the model version. */
export const MODEL_TABLES = ['object_types', 'properties', 'property_types', 'relations', 'relation_types'];
/** The row of `folio_data_version` that holds the model version (row 1: PostgreSQL's data version). */
export const MODEL_VERSION_ROW = 2;
/** The row of `folio_data_version` moved by writes to SETTINGS_TABLES (PostgreSQL). */
export const SETTINGS_VERSION_ROW = 3;
/** The row of `folio_data_version` moved when an object's publication window is set (PostgreSQL). */
export const WINDOWS_VERSION_ROW = 4;
/** The row of `folio_data_version` moved by writes to a user's identity (PostgreSQL: DataVersion.accounts()). */
export const ACCOUNTS_VERSION_ROW = 5;
/** The row of `folio_data_version` moved by writes that may change a list's members or order (PostgreSQL: DataVersion.lists()). */
export const LISTS_VERSION_ROW = 6;
/**
 * The columns of `objects` a list without filters depends on (DataVersion.lists()): who sees a
 * row (trash state, status, publication window, type, author) and the orders anchors are kept
 * for (id, creation). Not `modified`: a list sorted by it keeps its anchors under the data version.
 */
export const LIST_COLUMNS = ['id', 'deleted', 'status', 'publish_start', 'publish_end', 'object_type_id', 'created_by', 'created'];
/** The tables behind DataVersion.accounts() (with `status` and `deleted` of a user's `objects` row). */
export const ACCOUNTS_TABLES = ['users', 'roles', 'roles_users'];
/** The tables behind DataVersion.settings(): read once per settings version, not per write. */
export const SETTINGS_TABLES = ['applications', 'object_perms', 'endpoints', 'endpoint_permissions', 'webhooks', 'object_categories', 'object_tags', 'geo_tags', 'date_items'];
