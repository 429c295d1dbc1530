// The full-text search document function, faster: on PostgreSQL the function the
// `objects` trigger calls becomes PL/pgSQL, whose plans are kept for the session (see
// dialect/postgres.ts); the documents it makes are the same, so nothing is rebuilt. SQLite: nothing.
import type { Kysely } from 'kysely';
import type { SqlDialect } from '../dialect/dialect.js';

export async function up(db: Kysely<any>, d: SqlDialect): Promise<void> {
  await d.search.upgrade(db);
}
