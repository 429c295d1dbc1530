// The core types' own fields, as BEdita 5's core model defines them (its `profiles`, `users`,
// `locations` and `media` tables): properties of those types marked `is_static`, so that they are
// listed as static properties, are part of the type (not changed or removed through
// /model/properties) and are written, searched, filtered and sorted like any property. A name a
// custom property already uses on the type, an ancestor or a sub-type is left to that property.
import type { Kysely } from 'kysely';
import type { SqlDialect } from '../dialect/dialect.js';

const PROFILE_FIELDS: Array<[string, string]> = [
  ['name', 'string'], ['surname', 'string'], ['email', 'email'], ['person_title', 'string'], ['gender', 'string'],
  ['birthdate', 'date'], ['deathdate', 'date'], ['company', 'boolean'], ['company_name', 'string'], ['company_kind', 'string'],
  ['street_address', 'text'], ['city', 'string'], ['zipcode', 'string'], ['country', 'string'], ['state_name', 'string'],
  ['phone', 'string'], ['website', 'url'], ['national_id_number', 'string'], ['vat_number', 'string'], ['pseudonym', 'string'],
];

/** Fields by type; users keep name, surname and email in their account (the `users` table). */
export const CORE_TYPE_FIELDS: Record<string, Array<[string, string]>> = {
  profiles: PROFILE_FIELDS,
  users: [...PROFILE_FIELDS.filter(([name]) => !['name', 'surname', 'email'].includes(name)), ['user_preferences', 'json']],
  locations: [['coords', 'string'], ['address', 'text'], ['locality', 'string'], ['postal_code', 'string'], ['country_name', 'string'], ['region', 'string']],
  media: [['name', 'text'], ['provider', 'string'], ['provider_uid', 'string'], ['provider_url', 'url'], ['provider_thumbnail', 'url'], ['provider_extra', 'json']],
};

export async function up(db: Kysely<any>, _d: SqlDialect): Promise<void> {
  await db.schema.alterTable('properties').addColumn('is_static', 'boolean', (c) => c.notNull().defaultTo(false)).execute();
  const types: Array<{ id: number; name: string; parent_id: number | null }> = await db.selectFrom('object_types').select(['id', 'name', 'parent_id']).execute();
  const props: Array<{ name: string; object_type_id: number }> = await db.selectFrom('properties').select(['name', 'object_type_id']).execute();
  const byId = new Map(types.map((t) => [Number(t.id), t]));
  const ancestors = (id: number): number[] => {
    const out: number[] = [];
    for (let cur = byId.get(id); cur && !out.includes(Number(cur.id)); cur = cur.parent_id === null ? undefined : byId.get(Number(cur.parent_id))) out.push(Number(cur.id));
    return out;
  };
  const related = (id: number) => types.filter((t) => ancestors(Number(t.id)).includes(id) || ancestors(id).includes(Number(t.id))).map((t) => Number(t.id));
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, '+00:00');
  for (const [typeName, fields] of Object.entries(CORE_TYPE_FIELDS)) {
    const type = types.find((t) => t.name === typeName);
    if (!type) continue;
    const near = new Set(related(Number(type.id)));
    const taken = new Set(props.filter((p) => near.has(Number(p.object_type_id))).map((p) => p.name));
    const rows = fields
      .filter(([name]) => !taken.has(name))
      .map(([name, propertyType]) => ({ name, property_type_name: propertyType, object_type_id: Number(type.id), description: null, required: false, is_static: true, created: now, modified: now }));
    if (rows.length) await db.insertInto('properties').values(rows).execute();
  }
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward only');
}
