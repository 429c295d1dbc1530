// Static properties (BEdita 5: the columns of a type's tables, listed by `/model/properties` beside
// the custom "dynamic" ones): Folio's core attributes and meta fields of every object, owned by
// `objects`, and the fields a family's own schema adds (users). Each has BEdita's id, the UUID v5
// of `<owner type>.<name>` in the nil namespace, so `objects.title` has the same id as in BEdita.
import { createHash } from 'node:crypto';
import type { Request } from 'express';
import type { AppContext } from '../../context.js';
import { resourceUrl, type Resource } from '../../http/jsonapi.js';
import { model, type ObjectType } from '../objects/model.js';
import { objectTypeSchema, resourceSchemaContribution, type PropertySchema } from '../objects/schema.js';

export interface StaticProperty {
  id: string;
  name: string;
  /** The property type its schema fragment reads as. */
  type: string;
  objectTypeName: string;
  description: string | null;
  required: boolean;
}

/** UUID v5 of `name` in the nil namespace (BEdita's Text::uuid5). */
function uuid5(name: string): string {
  const h = createHash('sha1').update(Buffer.alloc(16)).update(name).digest();
  h[6] = (h[6] & 0x0f) | 0x50;
  h[8] = (h[8] & 0x3f) | 0x80;
  const hex = h.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The property type a served fragment stands for (as BEdita infers one from a column). */
function propertyTypeOf(p: PropertySchema): string {
  const types = ([] as unknown[]).concat(p.type ?? []).filter((t) => t !== 'null');
  if (Array.isArray(p.enum) && ['on', 'draft', 'off'].every((v) => (p.enum as unknown[]).includes(v))) return 'status';
  if (types.length !== 1) return 'json';
  if (types[0] !== 'string') return ['integer', 'number', 'boolean'].includes(String(types[0])) ? String(types[0]) : 'json';
  const byFormat: Record<string, string> = { 'date-time': 'datetime', date: 'date', email: 'email', uri: 'url' };
  if (typeof p.format === 'string' && byFormat[p.format]) return byFormat[p.format];
  return typeof p.maxLength === 'number' && p.maxLength <= 255 ? 'string' : 'text';
}

/** Static properties a type declares itself (not those of its ancestors), in schema order. */
function ownStatic(ctx: AppContext, t: ObjectType): StaticProperty[] {
  const root = t.parentId === null;
  const custom = new Set(t.properties.map((p) => p.name));
  // The core type's own fields (migration 0132), as BEdita's columns.
  const fields = t.properties
    .filter((p) => p.isStatic && p.objectTypeName === t.name)
    .map((p) => ({ id: uuid5(`${t.name}.${p.name}`), name: p.name, type: p.type, objectTypeName: t.name, description: p.description, required: p.required }));
  const schema = resourceSchemaContribution(ctx, t.name)?.schema(ctx) ?? (root ? objectTypeSchema(t) : null);
  if (!schema) return fields;
  const inherited = root ? new Set<string>() : new Set(Object.keys(objectTypeSchema(model(ctx).types.get(t.lineage[t.lineage.length - 1])!).properties));
  return Object.entries(schema.properties)
    .filter(([name, p]) => !custom.has(name) && !inherited.has(name) && !p.writeOnly)
    .map(([name, p]) => ({
      id: uuid5(`${t.name}.${name}`),
      name,
      type: propertyTypeOf(p),
      objectTypeName: t.name,
      description: typeof p.description === 'string' ? p.description : null,
      required: schema.required.includes(name),
    }))
    .concat(fields);
}

/** Every static property of the model, the root type's first. */
export function staticProperties(ctx: AppContext): StaticProperty[] {
  return [...model(ctx).types.values()].flatMap((t) => ownStatic(ctx, t));
}

export function serializeStaticProperty(req: Request, p: StaticProperty): Resource {
  return {
    id: p.id,
    type: 'properties',
    attributes: { name: p.name, property_type_name: p.type, object_type_name: p.objectTypeName, description: p.description, required: p.required },
    meta: { created: null, modified: null },
    links: { self: resourceUrl(req, `/model/properties/${p.id}`) },
  };
}
