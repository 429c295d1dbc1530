// Custom properties (`/model/properties`): create, update (description, required, label, position),
// delete (their stored values go with them), and the list of every type's own ones, in order.
import type { Request } from 'express';
import type { AppContext } from '../../context.js';
import { nowIso } from '../../db/time.js';
import { badRequest, notFound } from '../../http/errors.js';
import { resourceUrl, type Resource } from '../../http/jsonapi.js';
import { CORE_ATTRIBUTES, META_FIELDS, model, relationNamesOf, typeByName, type PropertyDef } from '../objects/model.js';
import { resourceSchema, validateAgainstSchema, type ResourceSchema } from '../objects/schema.js';
import { dropPropertyValues } from '../objects/kernel.js';
import { bumpRevision, NAME, writeModel } from './service.js';

export const PROPERTY_SCHEMA: ResourceSchema = resourceSchema({
  name: { type: 'string', maxLength: 64, isMeta: false },
  property_type_name: { type: 'string', maxLength: 64, isMeta: false },
  object_type_name: { type: 'string', maxLength: 64, isMeta: false },
  description: { type: ['string', 'null'], isMeta: false },
  required: { type: 'boolean', default: false, isMeta: false },
  label: { type: ['string', 'null'], maxLength: 255, isMeta: false },
  position: { type: ['integer', 'null'], minimum: 1, isMeta: false },
  created: { type: 'string', format: 'date-time', isMeta: true },
  modified: { type: 'string', format: 'date-time', isMeta: true },
}, ['name', 'property_type_name', 'object_type_name']);

/** The custom properties of every type (the core types' own fields are static properties). */
export function allProperties(ctx: AppContext): PropertyDef[] {
  const seen = new Map<number, PropertyDef>();
  for (const t of model(ctx).types.values()) for (const p of t.properties) if (!p.isStatic) seen.set(p.id, p);
  return [...seen.values()].sort((a, b) => a.id - b.id);
}

export function serializeProperty(req: Request, p: PropertyDef): Resource {
  return {
    id: String(p.id),
    type: 'properties',
    attributes: { name: p.name, property_type_name: p.type, object_type_name: p.objectTypeName, description: p.description, required: p.required, label: p.label, position: p.position },
    meta: { created: p.created, modified: p.modified },
    links: { self: resourceUrl(req, `/model/properties/${p.id}`) },
  };
}

export function requireProperty(ctx: AppContext, key: string): PropertyDef {
  const p = allProperties(ctx).find((x) => String(x.id) === key);
  if (!p) throw notFound(`No property ${key}`);
  return p;
}

export async function createProperty(ctx: AppContext, attributes: Record<string, unknown>): Promise<PropertyDef> {
  const a = validateAgainstSchema(ctx, 'model:properties', 1, PROPERTY_SCHEMA, attributes, false);
  const name = a.name as string;
  const owner = typeByName(ctx, a.object_type_name as string);
  if (!owner) throw badRequest(`Unknown object type "${String(a.object_type_name)}"`, 'invalid_data');
  if (!model(ctx).propertyTypes.has(a.property_type_name as string)) throw badRequest(`Unknown property type "${String(a.property_type_name)}" (see /model/property_types)`, 'invalid_data');
  if (!NAME.test(name)) throw badRequest(`Property name "${name}" must be lower snake case`, 'invalid_name');
  if ([...CORE_ATTRIBUTES, ...META_FIELDS, 'id', 'type'].includes(name)) throw badRequest(`"${name}" is a core property`, 'invalid_name');
  const clash = [...model(ctx).types.values()].some(
    (t) => (t.lineage.includes(owner.name) || owner.lineage.includes(t.name)) && t.properties.some((p) => p.name === name),
  );
  if (clash) throw badRequest(`A property "${name}" already exists on ${owner.name}, its parents or sub-types`, 'property_exists');
  if (relationNamesOf(ctx, owner.name).some((r) => r.name === name)) throw badRequest(`"${name}" is a relation of ${owner.name}`, 'invalid_name');
  const now = nowIso();
  const id = await writeModel(ctx, async (trx) => {
    const row = await trx
      .insertInto('properties')
      .values({
        name,
        property_type_name: a.property_type_name as string,
        object_type_id: owner.id,
        description: (a.description as string | null | undefined) ?? null,
        required: (a.required as boolean | undefined) ?? false,
        label: (a.label as string | null | undefined) || null,
        position: (a.position as number | null | undefined) ?? null,
        created: now,
        modified: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await bumpRevision(trx, ctx, owner.name);
    return Number(row.id);
  });
  return requireProperty(ctx, String(id));
}

export async function updateProperty(ctx: AppContext, p: PropertyDef, attributes: Record<string, unknown>): Promise<PropertyDef> {
  const a = validateAgainstSchema(ctx, 'model:properties', 1, PROPERTY_SCHEMA, attributes, true);
  for (const k of ['name', 'property_type_name', 'object_type_name'] as const) {
    const current = { name: p.name, property_type_name: p.type, object_type_name: p.objectTypeName }[k];
    if (a[k] !== undefined && a[k] !== current) throw badRequest(`"${k}" of a property cannot change; delete it and add a new one`, 'immutable_field');
  }
  const set: Record<string, unknown> = {};
  if (a.description !== undefined) set.description = a.description;
  if (a.required !== undefined) set.required = a.required;
  if (a.label !== undefined) set.label = (a.label as string | null) || null;
  if (a.position !== undefined) set.position = a.position;
  if (Object.keys(set).length) {
    await writeModel(ctx, async (trx) => {
      await trx.updateTable('properties').set({ ...set, modified: nowIso() }).where('id', '=', p.id).execute();
      await bumpRevision(trx, ctx, p.objectTypeName);
    });
  }
  return requireProperty(ctx, String(p.id));
}

/** Remove a property; its stored values go with it. */
export async function deleteProperty(ctx: AppContext, p: PropertyDef): Promise<void> {
  const typeIds = [...model(ctx).types.values()].filter((t) => t.lineage.includes(p.objectTypeName)).map((t) => t.id);
  await writeModel(ctx, async (trx) => {
    await trx.deleteFrom('properties').where('id', '=', p.id).execute();
    await dropPropertyValues(ctx, trx, typeIds, p.name);
    await bumpRevision(trx, ctx, p.objectTypeName);
  });
}
