// A category's place on an object has `params`, as BEdita's `object_categories.params` (read back
// in `attributes.categories[].params`).
import type { Kysely } from 'kysely';
import type { SqlDialect } from '../dialect/dialect.js';

export async function up(db: Kysely<any>, _d: SqlDialect): Promise<void> {
  await db.schema.alterTable('object_categories').addColumn('params', 'text').execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward only');
}
