// Scheduled publishing: every object has a publication window, `publish_start` and
// `publish_end` (UTC instants as text, null = open); anonymous clients see an `on` object only
// inside it. `publication_states` remembers, per object, whether anonymous clients could see it
// when it was last looked at, so `objects.publish` / `objects.unpublish` fire once per change.
import { sql, type Kysely } from 'kysely';
import type { SqlDialect } from '../dialect/dialect.js';

export async function up(db: Kysely<any>, _d: SqlDialect): Promise<void> {
  await db.schema.alterTable('objects').addColumn('publish_start', 'varchar(32)').execute();
  await db.schema.alterTable('objects').addColumn('publish_end', 'varchar(32)').execute();
  await db.schema.createIndex('objects_publish_start').on('objects').column('publish_start').execute();
  await db.schema.createIndex('objects_publish_end').on('objects').column('publish_end').execute();
  await db.schema
    .createTable('publication_states')
    .addColumn('object_id', 'integer', (c) => c.primaryKey().references('objects.id').onDelete('cascade'))
    .addColumn('public', 'boolean', (c) => c.notNull())
    .addColumn('changed', 'varchar(32)', (c) => c.notNull())
    .execute();
  // What anonymous clients see today is the starting point: no event for the past.
  await sql`insert into publication_states (object_id, public, changed)
    select id, true, modified from objects where status = 'on' and deleted = ${false}`.execute(db);
}
