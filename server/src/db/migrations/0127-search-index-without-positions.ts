// SQLite's full-text index of objects without word positions (creates): `detail =
// column` (dialect/sqlite.ts). Folio's searches are words, never phrases; the positions cost half
// of what indexing an object costs, most of it in the commit of every single create. The index is
// made again from the objects' rows, once, at the first start of this version (measured: 9 s for
// 100,000 objects with 1.7 kB bodies). PostgreSQL: nothing.
import type { Kysely } from 'kysely';
import type { SqlDialect } from '../dialect/dialect.js';

export async function up(db: Kysely<any>, d: SqlDialect): Promise<void> {
  if (d.name === 'sqlite') await d.search.upgrade(db);
}
