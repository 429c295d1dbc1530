// BEdita 5's model attributes: object types carry `table`, `associations`, `hidden`,
// `is_translatable` and `translation_rules`; property types become rows of their own
// (`property_types`: a name and a JSON Schema fragment, the built-in ones `core_type`), so a
// custom property may use any of them. Defaults of the built-in types are BEdita 5's (its
// migrations: events with DateRanges, media types with Streams; the table of each).
import type { Kysely } from 'kysely';
import type { SqlDialect } from '../dialect/dialect.js';

/** Folio's built-in property types and their fragments (nullable is added per property). */
const CORE_PROPERTY_TYPES: Array<[string, Record<string, unknown>]> = [
  ['string', { type: 'string', maxLength: 255 }],
  ['text', { type: 'string', contentMediaType: 'text/html' }],
  ['integer', { type: 'integer' }],
  ['number', { type: 'number' }],
  ['boolean', { type: 'boolean' }],
  ['date', { type: 'string', format: 'date' }],
  ['datetime', { type: 'string', format: 'date-time' }],
  ['json', { type: ['object', 'array', 'string', 'number', 'boolean'] }],
  ['email', { type: 'string', format: 'email', maxLength: 255 }],
  ['url', { type: 'string', format: 'uri', maxLength: 2048 }],
  // BEdita 5's other core types, so that its project models apply unchanged.
  ['status', { type: 'string', enum: ['on', 'off', 'draft'] }],
  ['text_plain', { type: 'string', contentMediaType: 'text/plain' }],
  ['json_object', { type: 'object' }],
  ['string_array', { type: 'array', items: { type: 'string' } }],
  ['string_map', { type: 'object', additionalProperties: { type: 'string' } }],
];

/** BEdita 5's table of each built-in type; sub-types of `media` store as media. */
const CORE_TABLES: Record<string, string> = {
  profiles: 'BEdita/Core.Profiles',
  users: 'BEdita/Core.Users',
  locations: 'BEdita/Core.Locations',
  folders: 'BEdita/Core.Folders',
  links: 'BEdita/Core.Links',
};

export async function up(db: Kysely<any>, d: SqlDialect): Promise<void> {
  await db.schema
    .alterTable('object_types')
    .addColumn('table_name', 'varchar(255)', (c) => c.notNull().defaultTo('BEdita/Core.Objects'))
    .execute();
  await db.schema.alterTable('object_types').addColumn('associations', 'text').execute(); // JSON list or null
  await db.schema.alterTable('object_types').addColumn('hidden', 'text').execute(); // JSON list or null
  await db.schema.alterTable('object_types').addColumn('is_translatable', 'boolean', (c) => c.notNull().defaultTo(true)).execute();
  await db.schema.alterTable('object_types').addColumn('translation_rules', 'text').execute(); // JSON object or null

  const types = await db.selectFrom('object_types').select(['id', 'name', 'parent_id', 'core_type']).execute();
  const byId = new Map(types.map((t) => [Number(t.id), t]));
  const underMedia = (t: (typeof types)[number]) => {
    for (let cur: (typeof types)[number] | undefined = t, n = 0; cur && n < 100; cur = cur.parent_id === null ? undefined : byId.get(Number(cur.parent_id)), n++) {
      if (cur.name === 'media') return true;
    }
    return false;
  };
  // Types whose objects already carry categories, tags or date items (written through the legacy
  // layout) keep showing them: they get the association on an existing database.
  const carrying = async (link: string) =>
    new Set(
      (await db.selectFrom(link).innerJoin('objects', 'objects.id', `${link}.object_id`).select('objects.object_type_id as type_id').distinct().execute()).map((r) =>
        Number(r.type_id),
      ),
    );
  const withCategories = await carrying('object_categories');
  const withTags = await carrying('object_tags');
  const withDates = await carrying('date_items');
  for (const t of types) {
    const id = Number(t.id);
    const associations: string[] = [];
    if (underMedia(t)) associations.push('Streams');
    if ((t.core_type && t.name === 'events') || withDates.has(id)) associations.push('DateRanges');
    if (withCategories.has(id)) associations.push('Categories');
    if (withTags.has(id)) associations.push('Tags');
    await db
      .updateTable('object_types')
      .set({
        table_name: CORE_TABLES[t.name] && t.core_type ? CORE_TABLES[t.name] : underMedia(t) ? 'BEdita/Core.Media' : 'BEdita/Core.Objects',
        associations: associations.length ? JSON.stringify(associations) : null,
      })
      .where('id', '=', id)
      .execute();
  }

  await db.schema
    .createTable('property_types')
    .addColumn('id', 'integer', (c) => d.schema.generatedId(c.primaryKey()))
    .addColumn('name', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('params', 'text') // JSON Schema fragment
    .addColumn('core_type', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('created', 'varchar(32)', (c) => c.notNull())
    .addColumn('modified', 'varchar(32)', (c) => c.notNull())
    .execute();
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, '+00:00');
  await db
    .insertInto('property_types')
    .values(CORE_PROPERTY_TYPES.map(([name, params]) => ({ name, params: JSON.stringify(params), core_type: true, created: now, modified: now })))
    .execute();
  // Custom property types may have longer names than the ten built-in ones.
  await d.schema.widenVarchar(db, 'properties', 'property_type_name', 64);
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward only');
}
