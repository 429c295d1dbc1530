// Private streams (BEdita 5's `private_url`): an upload with `private_url=true` makes a
// stream whose bytes (downloads, thumbnail files) only an authenticated reader of its object gets.
import type { Kysely } from 'kysely';
import type { SqlDialect } from '../dialect/dialect.js';

export async function up(db: Kysely<any>, _d: SqlDialect): Promise<void> {
  await db.schema.alterTable('streams').addColumn('private_url', 'boolean', (c) => c.notNull().defaultTo(false)).execute();
}
