// Media: the `streams` table (file metadata; the bytes are in the file store under the uuid).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('streams')
    .addColumn('uuid', 'varchar(36)', (c) => c.primaryKey())
    // No foreign-key cascade: the media family removes rows and files itself on purge.
    .addColumn('object_id', 'integer', (c) => c.references('objects.id'))
    .addColumn('file_name', 'varchar(255)', (c) => c.notNull())
    .addColumn('mime_type', 'varchar(255)', (c) => c.notNull())
    .addColumn('file_size', 'bigint', (c) => c.notNull())
    .addColumn('hash_md5', 'varchar(32)', (c) => c.notNull())
    .addColumn('hash_sha1', 'varchar(40)', (c) => c.notNull())
    .addColumn('hash_sha256', 'varchar(64)', (c) => c.notNull())
    .addColumn('width', 'integer')
    .addColumn('height', 'integer')
    .addColumn('created', 'varchar(32)', (c) => c.notNull())
    .addColumn('modified', 'varchar(32)', (c) => c.notNull())
    .addColumn('created_by', 'integer')
    .execute();
  await db.schema.createIndex('streams_object').on('streams').column('object_id').execute();
  await db.schema.createIndex('streams_sha256').on('streams').column('hash_sha256').execute();
  await db.schema.createIndex('streams_created').on('streams').columns(['created', 'uuid']).execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward only');
}
