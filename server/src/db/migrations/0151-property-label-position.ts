// A custom property's `label` (BEdita's: the name the editors read, the machine name staying the
// key) and `position` (its place among its type's properties in forms and the schema; null: after
// those placed, by creation).
import type { Kysely } from 'kysely';
import type { SqlDialect } from '../dialect/dialect.js';

export async function up(db: Kysely<any>, _d: SqlDialect): Promise<void> {
  await db.schema.alterTable('properties').addColumn('label', 'varchar(255)').execute();
  await db.schema.alterTable('properties').addColumn('position', 'integer').execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward only');
}
