// Alt text on images: a custom property `alt_text` (property type `string`,
// at most 255 characters) of the core type `images`, so it is validated, searched, translated and
// exported like any property; the caption is the core `description` (see docs/decisions.md,
// "Alt text and caption"). A database that already has an `alt_text` on images or above keeps it.
import { sql, type Kysely } from 'kysely';

const DESCRIPTION = 'What the image shows, for people who cannot see it (read by screen readers, shown when the image cannot load). Leave empty for a decorative image.';

export async function up(db: Kysely<any>): Promise<void> {
  const lineage = await db.selectFrom('object_types').select(['id', 'name']).where('name', 'in', ['objects', 'media', 'images']).execute();
  const images = lineage.find((t) => t.name === 'images');
  if (!images) return;
  const taken = await db
    .selectFrom('properties')
    .select('id')
    .where('name', '=', 'alt_text')
    .where('object_type_id', 'in', lineage.map((t) => t.id))
    .executeTakeFirst();
  if (taken) return;
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, '+00:00');
  await db.insertInto('properties').values({ name: 'alt_text', property_type_name: 'string', object_type_id: images.id, description: DESCRIPTION, required: false, created: now, modified: now }).execute();
  await db.updateTable('object_types').set({ revision: sql`revision + 1`, modified: now }).where('id', '=', images.id).execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward only');
}
