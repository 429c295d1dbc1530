// The change counter behind every cache of query results (db/read-cache.ts, http/response-cache.ts):
// a number that changes whenever the data may have changed. A cached result is valid only while
// the number it was read under is current. One implementation per engine:
//  - SQLite (dialect/sqlite.ts): every statement this process runs that is not read-only counts
//    (whatever kysely method ran it, `returning` included), plus SQLite's `data_version`, which
//    changes on every commit of another connection or process.
//  - PostgreSQL (to come): a counter row the database holds, incremented by every writing
//    transaction (a statement trigger), read at the start of a cached read; other instances'
//    writes then invalidate this one's caches, so a read after a write elsewhere is never stale.
// `bump()` counts a change the database cannot see, such as the in-memory model being reloaded.
export interface DataVersion {
  current(): number;
  bump(): void;
}
