// Edit conflicts: every object carries an integer version, moved by the write kernel on
// every write its history records; single-object answers derive their strong ETag from it and
// PATCH / DELETE with If-Match compare against it (412 when another write came first).
import type { Kysely } from 'kysely';
import type { SqlDialect } from '../dialect/dialect.js';

export async function up(db: Kysely<any>, _d: SqlDialect): Promise<void> {
  await db.schema.alterTable('objects').addColumn('version', 'integer', (c) => c.notNull().defaultTo(1)).execute();
}
