// PostgreSQL keeps 3,000 of the search documents' most common words in the planner's statistics
// instead of 1,000, then gathers them again (dialect/postgres.ts, widenWordStatistics): a search
// for a word in a few percent of a large site's documents is planned from its own frequency, not
// from PostgreSQL's default guess. SQLite: nothing (FTS5 plans no search from statistics).
import type { Kysely } from 'kysely';
import type { SqlDialect } from '../dialect/dialect.js';

export async function up(db: Kysely<any>, d: SqlDialect): Promise<void> {
  await d.search.widenWordStatistics?.(db);
}
