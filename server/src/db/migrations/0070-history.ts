// The change history of objects: one row per create, update, trash, restore and permanent delete,
// written by the history observer inside the write's own transaction (see resources/history).
// No foreign key to `objects`: a permanently deleted object keeps its history.
import type { Kysely } from 'kysely';
import type { SqlDialect } from '../dialect/dialect.js';

export async function up(db: Kysely<any>, d: SqlDialect): Promise<void> {
  await db.schema
    .createTable('history')
    .addColumn('id', 'integer', (c) => d.schema.generatedId(c.primaryKey()))
    .addColumn('resource_id', 'integer', (c) => c.notNull())
    // What kind of resource: 'objects' for every object type (users and folders included).
    .addColumn('resource_type', 'varchar(32)', (c) => c.notNull())
    // The concrete type at the time of the write, e.g. 'documents'.
    .addColumn('object_type', 'varchar(64)', (c) => c.notNull())
    .addColumn('user_id', 'integer')
    .addColumn('application_id', 'integer')
    .addColumn('user_action', 'varchar(16)', (c) => c.notNull())
    // JSON object: the new values of the fields that changed.
    .addColumn('changed', 'text', (c) => c.notNull())
    .addColumn('created', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('history_resource').on('history').columns(['resource_id', 'id']).execute();
  await db.schema.createIndex('history_user').on('history').columns(['user_id', 'id']).execute();
  await db.schema.createIndex('history_created').on('history').column('created').execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward only');
}
