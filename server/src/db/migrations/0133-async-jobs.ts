// Jobs made through BEdita's /async_jobs keep its fields: `priority`, `max_attempts` and
// `expires` (an outside runner reads them; Folio's own jobs keep the defaults).
import type { Kysely } from 'kysely';
import type { SqlDialect } from '../dialect/dialect.js';

export async function up(db: Kysely<any>, _d: SqlDialect): Promise<void> {
  await db.schema.alterTable('jobs').addColumn('priority', 'integer', (c) => c.notNull().defaultTo(1)).execute();
  await db.schema.alterTable('jobs').addColumn('max_attempts', 'integer', (c) => c.notNull().defaultTo(1)).execute();
  await db.schema.alterTable('jobs').addColumn('expires', 'varchar(32)').execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward only');
}
