// SQLite's full-text index of objects keeps no copy of the objects' text (dialect/sqlite.ts,
// OBJECTS_FTS): a search reads only an index row's rowid and rank, and the text is in `objects`.
// An index made with its own copy (every version before this one) is made again from the
// objects' rows, in one transaction, at the first start of this version (about a quarter of a
// millisecond per object of the bench's text), and the file's pages it freed are reused by later
// writes. PostgreSQL: nothing (its documents are tsvectors, no copy of the text).
import type { Kysely } from 'kysely';
import type { SqlDialect } from '../dialect/dialect.js';

export async function up(db: Kysely<any>, d: SqlDialect): Promise<void> {
  if (d.name === 'sqlite') await d.search.upgrade(db);
}
