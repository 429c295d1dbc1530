// The change counter behind every cache of query results (db/read-cache.ts, http/response-cache.ts):
// a number that changes whenever the data may have changed. A cached result is valid only while
// the number it was read under is current. One implementation per engine:
//  - SQLite (dialect/sqlite.ts): every statement this process runs that is not read-only counts
//    (whatever kysely method ran it, `returning` included), plus SQLite's `data_version`, which
//    changes on every commit of another connection or process. current() is always up to date.
//  - PostgreSQL (dialect/postgres.ts): a counter row the database holds, moved by every writing
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
  bump(): void;
}

/** The tables of the object model: a write to any of them moves the model version. */
export const MODEL_TABLES = ['object_types', 'properties', 'property_types', 'relations', 'relation_types'];
/** The row of `folio_data_version` that holds the model version (row 1: PostgreSQL's data version). */
export const MODEL_VERSION_ROW = 2;
