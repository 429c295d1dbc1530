// PostgreSQL keeps each object's and each translation's search document in its table's own row,
// uncompressed, instead of apart in the table's TOAST storage (dialect/postgres.ts,
// storeDocumentsInline): a search reads a match's document with its row. The documents stored
// before are written once more and their GIN indexes made again, in the migration's transaction.
// SQLite: nothing (its full-text index holds no documents).
import type { Kysely } from 'kysely';
import type { SqlDialect } from '../dialect/dialect.js';

export async function up(db: Kysely<any>, d: SqlDialect): Promise<void> {
  await d.search.storeDocumentsInline?.(db);
}
