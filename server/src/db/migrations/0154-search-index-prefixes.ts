// SQLite's full-text index of objects keeps the first two and three letters of every word as
// entries of their own (dialect/sqlite.ts, OBJECTS_FTS, `prefix = '2 3'`): a search whose last
// word is short reads one list, newest first, instead of merging the lists of every word that
// starts with it. An index made without them (every version before this one) is made again from
// the objects' rows, in one transaction, at the first start of this version. PostgreSQL: nothing
// (its prefix matches are read from the GIN index).
import type { Kysely } from 'kysely';
import type { SqlDialect } from '../dialect/dialect.js';

export async function up(db: Kysely<any>, d: SqlDialect): Promise<void> {
  if (d.name === 'sqlite') await d.search.upgrade(db);
}
