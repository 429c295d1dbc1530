// SQLite's full-text index of objects keeps word positions again (dialect/sqlite.ts, OBJECTS_FTS):
// without them bm25 tokenized every matching document's text to rank it, and a ranked search of a
// frequent word at a million objects took 13-22 s. An index made without them (migration 0127) is
// made again from the objects' rows, in one transaction, at the first start of this version (about
// a quarter of a millisecond per object of the bench's text). Both indexes also merge their
// segments eight at a time (FTS_AUTOMERGE). PostgreSQL: nothing.
import type { Kysely } from 'kysely';
import type { SqlDialect } from '../dialect/dialect.js';

export async function up(db: Kysely<any>, d: SqlDialect): Promise<void> {
  if (d.name === 'sqlite') await d.search.upgrade(db);
}
