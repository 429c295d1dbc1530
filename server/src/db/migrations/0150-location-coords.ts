// A location's `coords` (BEdita's geometry column, written as WKT: `POINT(<longitude> <latitude>)`)
// is checked as BEdita checks it — the property type `coords` — and its point is kept beside the
// object in `object_coords`, so that `filter[geo]` finds locations by their coords as it finds
// objects by their legacy geo tags (terms/list-filters.ts). The table is derived data: the write
// kernel keeps it (terms/coords.ts), this migration fills it from the coords already stored.
import type { Kysely } from 'kysely';
import type { SqlDialect } from '../dialect/dialect.js';
import { COORDS_PATTERN, pointOf } from '../../resources/terms/coords.js';

export async function up(db: Kysely<any>, _d: SqlDialect): Promise<void> {
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, '+00:00');
  const params = { type: 'string', maxLength: 255, pattern: COORDS_PATTERN };
  await db.insertInto('property_types').values({ name: 'coords', params: JSON.stringify(params), core_type: true, created: now, modified: now }).execute();
  const locations = await db.selectFrom('object_types').select('id').where('name', '=', 'locations').executeTakeFirst();
  await db.schema
    .createTable('object_coords')
    .addColumn('object_id', 'integer', (c) => c.primaryKey().references('objects.id').onDelete('cascade'))
    .addColumn('latitude', 'double precision', (c) => c.notNull())
    .addColumn('longitude', 'double precision', (c) => c.notNull())
    .execute();
  if (!locations) return;
  await db.updateTable('properties').set({ property_type_name: 'coords', modified: now }).where('name', '=', 'coords').where('object_type_id', '=', locations.id).where('is_static', '=', true).execute();
  const rows: Array<{ id: number; properties: string | null }> = await db.selectFrom('objects').select(['id', 'properties']).where('object_type_id', '=', locations.id).where('properties', 'is not', null).execute();
  for (const row of rows) {
    const point = pointOf((JSON.parse(row.properties ?? 'null') as Record<string, unknown> | null)?.coords);
    if (point) await db.insertInto('object_coords').values({ object_id: row.id, ...point }).execute();
  }
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward only');
}
