// BEdita 5's categories, tags and date ranges over the legacy terms: categories belong to
// an object type (their name is unique per type, as BEdita's `categories_objecttypeidname_uq`;
// legacy ones have none), have a parent, labels per language and `enabled`; tags get labels and
// `enabled`; date items get BEdita's `params`. The categories table is rebuilt to trade its
// global unique name for the per-type one (SQLite cannot drop a column's unique constraint);
// ids, and the objects' links to them, are kept.
import { sql, type Kysely } from 'kysely';
import type { SqlDialect } from '../dialect/dialect.js';

export async function up(db: Kysely<any>, d: SqlDialect): Promise<void> {
  await db.schema
    .createTable('categories_new')
    .addColumn('id', 'integer', (c) => d.schema.generatedId(c.primaryKey()))
    .addColumn('object_type_id', 'integer', (c) => c.references('object_types.id').onDelete('cascade'))
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('label', 'varchar(255)', (c) => c.notNull())
    .addColumn('labels', 'text') // JSON: language → label, `default` the plain label
    .addColumn('parent_id', 'integer')
    .addColumn('enabled', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('created', 'varchar(32)', (c) => c.notNull())
    .addColumn('modified', 'varchar(32)')
    .execute();
  await sql`insert into categories_new (id, name, label, created, modified) select id, name, label, created, created from categories`.execute(db);
  await db.schema
    .createTable('object_categories_new')
    .addColumn('object_id', 'integer', (c) => c.notNull().references('objects.id').onDelete('cascade'))
    .addColumn('category_id', 'integer', (c) => c.notNull().references('categories_new.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('object_categories_key', ['object_id', 'category_id'])
    .execute();
  await sql`insert into object_categories_new (object_id, category_id) select object_id, category_id from object_categories`.execute(db);
  await db.schema.dropTable('object_categories').execute();
  await db.schema.dropTable('categories').execute();
  await db.schema.alterTable('categories_new').renameTo('categories').execute();
  await db.schema.alterTable('object_categories_new').renameTo('object_categories').execute();
  await d.schema.continueIds(db, 'categories');
  await db.schema.createIndex('object_categories_category_id').on('object_categories').column('category_id').execute();
  // Legacy categories (no type) keep their global names; typed ones are unique per type.
  await db.schema.createIndex('categories_type_name').on('categories').columns(['object_type_id', 'name']).unique().execute();
  await db.schema.createIndex('categories_name').on('categories').column('name').execute();
  await db.schema.createIndex('categories_parent').on('categories').column('parent_id').execute();

  await db.schema.alterTable('tags').addColumn('labels', 'text').execute();
  await db.schema.alterTable('tags').addColumn('enabled', 'boolean', (c) => c.notNull().defaultTo(true)).execute();
  await db.schema.alterTable('tags').addColumn('modified', 'varchar(32)').execute();
  await sql`update tags set modified = created`.execute(db);
  await db.schema.alterTable('date_items').addColumn('params', 'text').execute(); // JSON
  await db.schema.createIndex('date_items_start').on('date_items').columns(['start_date', 'object_id']).execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward only');
}
