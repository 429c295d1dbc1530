// SQLite's full-text index of objects keeps every word's first two and three letters as well
// (dialect/sqlite.ts, OBJECTS_FTS, `prefix = '2 3'`): the last word of a search is a prefix, and
// FTS5 read and merged the list of every word starting with a short one (at 20,000 objects a
// search for `is` took 110 ms where a whole word takes 15-25). An index made without it is made
// again from the objects' rows, in one transaction, at the first start of this version.
// PostgreSQL: nothing (its GIN index answers a prefix itself).
import type { Kysely } from 'kysely';
import type { SqlDialect } from '../dialect/dialect.js';

export async function up(db: Kysely<any>, d: SqlDialect): Promise<void> {
  await d.search.addPrefixIndex?.(db);
}
