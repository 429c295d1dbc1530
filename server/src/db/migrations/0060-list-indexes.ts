// Indexes for object lists sorted by date. In `objects` the small columns (deleted, status, lang,
// created) come after body, so reading them for a row walks the body's overflow pages; these
// indexes carry the columns every list filters on, so lists sorted by `created` or `modified`
// (newest first, the usual order) walk the index in order, stop after the page, and count
// without touching the table. `objects_state` answers "is this id active, visible, of which
// type" from the index alone (folder children, relations, every id-list check).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  for (const column of ['created', 'modified']) {
    await db.schema
      .createIndex(`objects_list_${column}`)
      .on('objects')
      .columns(['deleted', `${column} desc`, 'id', 'object_type_id', 'status', 'lang'])
      .execute();
  }
  await db.schema.createIndex('objects_state').on('objects').columns(['id', 'deleted', 'status', 'object_type_id']).execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward only');
}
