// A placement in a folder has `params` (JSON), as BEdita's children relation: `meta.relation.params`
// of a folder's children and an object's parents.
import type { Kysely } from 'kysely';
import type { SqlDialect } from '../dialect/dialect.js';

export async function up(db: Kysely<any>, _d: SqlDialect): Promise<void> {
  await db.schema.alterTable('trees').addColumn('params', 'text').execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward only');
}
