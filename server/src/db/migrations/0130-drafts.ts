// Drafts: one per object at most, the pending changes an editor keeps beside the live object
// (resources/drafts/). The row goes with its object when the object is purged; a trashed object
// keeps it. Object types get `preview_url`, the template of a site's preview link of a draft.
import type { Kysely } from 'kysely';
import type { SqlDialect } from '../dialect/dialect.js';

export async function up(db: Kysely<any>, _d: SqlDialect): Promise<void> {
  await db.schema
    .createTable('drafts')
    .addColumn('object_id', 'integer', (c) => c.primaryKey().references('objects.id').onDelete('cascade'))
    // JSON text: the attributes as sent (validated), and the relationships: {name: [identifiers]}.
    .addColumn('attributes', 'text', (c) => c.notNull())
    .addColumn('relationships', 'text', (c) => c.notNull())
    .addColumn('created', 'varchar(32)', (c) => c.notNull())
    .addColumn('modified', 'varchar(32)', (c) => c.notNull())
    .addColumn('created_by', 'integer')
    .addColumn('modified_by', 'integer')
    .addColumn('submitted', 'varchar(32)')
    // A scheduled publication: when, and by whom (the rights used when it runs).
    .addColumn('publish_at', 'varchar(32)')
    .addColumn('publish_by', 'integer')
    .execute();
  await db.schema.createIndex('drafts_modified_by').on('drafts').column('modified_by').execute();
  await db.schema.alterTable('object_types').addColumn('preview_url', 'text').execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward only');
}
