// Search documents computed before the write lock. On PostgreSQL the tokenizer was
// two thirds of a bulk insert's database time, all of it under the write lock that serialises
// writes: /operations now computes its creates' documents first and inserts them with the rows
// (dialect/postgres.ts, withDocuments), and the `objects` trigger leaves a row whose document came
// with its insert alone. The trigger function is replaced; documents stay as they are. SQLite:
// nothing.
import type { Kysely } from 'kysely';
import type { SqlDialect } from '../dialect/dialect.js';

export async function up(db: Kysely<any>, d: SqlDialect): Promise<void> {
  await d.search.upgrade(db);
}
