// The folder tree: one nested-set node per placement (a folder has exactly one node; a content
// object one node per folder it sits in), and the record of which folders a folder's trashing
// took with it, so that restoring it brings back exactly those.
import type { Kysely } from 'kysely';
import type { SqlDialect } from '../dialect/dialect.js';

export async function up(db: Kysely<any>, d: SqlDialect): Promise<void> {
  await db.schema
    .createTable('trees')
    .addColumn('id', 'integer', (c) => d.schema.generatedId(c.primaryKey()))
    .addColumn('object_id', 'integer', (c) => c.notNull().references('objects.id'))
    .addColumn('parent_id', 'integer', (c) => c.references('objects.id'))
    .addColumn('root_id', 'integer', (c) => c.notNull().references('objects.id'))
    .addColumn('parent_node_id', 'integer', (c) => c.references('trees.id'))
    .addColumn('tree_left', 'integer', (c) => c.notNull())
    .addColumn('tree_right', 'integer', (c) => c.notNull())
    .addColumn('depth_level', 'integer', (c) => c.notNull())
    .addColumn('menu', 'boolean', (c) => c.notNull().defaultTo(true))
    .addUniqueConstraint('trees_parent_object', ['parent_id', 'object_id'])
    .execute();
  await db.schema.createIndex('trees_root_left').on('trees').columns(['root_id', 'tree_left']).execute();
  await db.schema.createIndex('trees_object').on('trees').column('object_id').execute();
  await db.schema.createIndex('trees_parent_node').on('trees').columns(['parent_node_id', 'tree_left']).execute();

  await db.schema
    .createTable('tree_trash')
    .addColumn('object_id', 'integer', (c) => c.primaryKey().references('objects.id'))
    .addColumn('trashed_with', 'integer', (c) => c.notNull().references('objects.id'))
    .execute();
  await db.schema.createIndex('tree_trash_with').on('tree_trash').column('trashed_with').execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward only');
}
