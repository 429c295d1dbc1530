// Search documents staged in the database. /operations made its creates' documents
// before the write lock (0126) but brought them back to the server as text, to send them again
// with the insert: on PostgreSQL, writing to the socket was a quarter of such a request's CPU.
// They now stay in an unlogged table, folio_search_staged, under references the insert joins
// (dialect/postgres.ts, stageDocuments and withDocuments); the request drops its rows when its
// unit of work is over, and every start drops what a stopped server left. SQLite: nothing.
import type { Kysely } from 'kysely';
import type { SqlDialect } from '../dialect/dialect.js';

export async function up(db: Kysely<any>, d: SqlDialect): Promise<void> {
  await d.search.upgrade(db);
}
