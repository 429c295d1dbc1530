// Annotations (BEdita 5's `/annotations`): notes of users on objects. They live and go
// with their object (hidden while it is in the trash, deleted when it is purged).
import type { Kysely } from 'kysely';
import type { SqlDialect } from '../dialect/dialect.js';

export async function up(db: Kysely<any>, d: SqlDialect): Promise<void> {
  await db.schema
    .createTable('annotations')
    .addColumn('id', 'integer', (c) => d.schema.generatedId(c.primaryKey()))
    .addColumn('object_id', 'integer', (c) => c.notNull().references('objects.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('description', 'text')
    // JSON text, or null.
    .addColumn('params', 'text')
    .addColumn('created', 'varchar(32)', (c) => c.notNull())
    .addColumn('modified', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('annotations_object').on('annotations').columns(['object_id', 'id']).execute();
  await db.schema.createIndex('annotations_user').on('annotations').column('user_id').execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward only');
}
