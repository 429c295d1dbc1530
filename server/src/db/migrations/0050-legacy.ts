// Legacy envelope data: categories and tags (created on first use), geo tags and date items of
// objects, and the upload tokens of `/files`. The JSON API shows them in objects' meta.
import type { Kysely } from 'kysely';
import type { SqlDialect } from '../dialect/dialect.js';

export async function up(db: Kysely<any>, d: SqlDialect): Promise<void> {
  for (const table of ['categories', 'tags']) {
    await db.schema
      .createTable(table)
      .addColumn('id', 'integer', (c) => d.schema.generatedId(c.primaryKey()))
      .addColumn('name', 'varchar(255)', (c) => c.notNull().unique())
      .addColumn('label', 'varchar(255)', (c) => c.notNull())
      .addColumn('created', 'varchar(32)', (c) => c.notNull())
      .execute();
    const link = `object_${table}`;
    const key = table === 'tags' ? 'tag_id' : 'category_id';
    await db.schema
      .createTable(link)
      .addColumn('object_id', 'integer', (c) => c.notNull().references('objects.id').onDelete('cascade'))
      .addColumn(key, 'integer', (c) => c.notNull().references(`${table}.id`).onDelete('cascade'))
      .addPrimaryKeyConstraint(`${link}_pk`, ['object_id', key])
      .execute();
    await db.schema.createIndex(`${link}_${key}`).on(link).column(key).execute();
  }

  await db.schema
    .createTable('geo_tags')
    .addColumn('id', 'integer', (c) => d.schema.generatedId(c.primaryKey()))
    .addColumn('object_id', 'integer', (c) => c.notNull().references('objects.id').onDelete('cascade'))
    .addColumn('title', 'varchar(255)')
    .addColumn('address', 'text')
    .addColumn('latitude', 'double precision')
    .addColumn('longitude', 'double precision')
    .addColumn('gmaps_lookats', 'text') // JSON
    .execute();
  await db.schema.createIndex('geo_tags_object').on('geo_tags').column('object_id').execute();

  await db.schema
    .createTable('date_items')
    .addColumn('id', 'integer', (c) => d.schema.generatedId(c.primaryKey()))
    .addColumn('object_id', 'integer', (c) => c.notNull().references('objects.id').onDelete('cascade'))
    .addColumn('start_date', 'varchar(32)')
    .addColumn('end_date', 'varchar(32)')
    .addColumn('days', 'text') // JSON array of weekday numbers
    .execute();
  await db.schema.createIndex('date_items_object').on('date_items').column('object_id').execute();

  // One row per file `/files` accepted (the bytes are an unlinked stream of the media family);
  // it stays after the token is used (object_id set) so that the quota counts every accepted
  // byte. Expired unused rows are removed together with their stream.
  await db.schema
    .createTable('upload_tokens')
    .addColumn('id', 'integer', (c) => d.schema.generatedId(c.primaryKey()))
    .addColumn('token_hash', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('object_type', 'varchar(64)', (c) => c.notNull())
    .addColumn('stream_uuid', 'varchar(36)', (c) => c.notNull())
    .addColumn('file_size', 'integer', (c) => c.notNull())
    .addColumn('object_id', 'integer')
    .addColumn('created', 'varchar(32)', (c) => c.notNull())
    .addColumn('expires', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('upload_tokens_user').on('upload_tokens').column('user_id').execute();
  await db.schema.createIndex('upload_tokens_expires').on('upload_tokens').column('expires').execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward only');
}
