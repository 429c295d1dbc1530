// Translations: an object's text fields in other languages, one row per object and
// language, with its own status; searched per language (dialect: an index kept by triggers).
import type { Kysely } from 'kysely';
import type { SqlDialect } from '../dialect/dialect.js';

export async function up(db: Kysely<any>, d: SqlDialect): Promise<void> {
  await db.schema
    .createTable('translations')
    .addColumn('id', 'integer', (c) => d.schema.generatedId(c.primaryKey()))
    .addColumn('object_id', 'integer', (c) => c.notNull().references('objects.id').onDelete('cascade'))
    .addColumn('lang', 'varchar(64)', (c) => c.notNull())
    .addColumn('status', 'varchar(16)', (c) => c.notNull().defaultTo('draft'))
    .addColumn('translated_fields', 'text', (c) => c.notNull())
    .addColumn('created', 'varchar(32)', (c) => c.notNull())
    .addColumn('modified', 'varchar(32)', (c) => c.notNull())
    .addColumn('created_by', 'integer')
    .addColumn('modified_by', 'integer')
    .execute();
  await db.schema.createIndex('translations_object_lang').on('translations').columns(['object_id', 'lang']).unique().execute();
  await db.schema.createIndex('translations_lang').on('translations').columns(['lang', 'status']).execute();
  await d.search.createTranslationIndex(db);
}
