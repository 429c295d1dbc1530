// Property types (`/model/property_types`, BEdita 5's `property_types`): a name and `params`, a
// JSON Schema fragment every value of a property of that type must match (e.g. an `enum`). The
// built-in ones are `core_type` and cannot change or go (403); one a property uses cannot go
// (403, as BEdita); a rename follows into the properties using it. Every write reloads the model,
// so schemas and validation follow at once.
import type { Request } from 'express';
import type { AppContext } from '../../context.js';
import { nowIso } from '../../db/time.js';
import { ApiError, badRequest, forbidden, notFound } from '../../http/errors.js';
import { resourceUrl, type Resource } from '../../http/jsonapi.js';
import { model, type PropertyTypeDef } from '../objects/model.js';
import { fragmentProblem, resourceSchema, validateAgainstSchema, type ResourceSchema } from '../objects/schema.js';
import { allProperties } from './properties.js';
import { bumpRevision, NAME, writeModel } from './service.js';

export const PROPERTY_TYPE_SCHEMA: ResourceSchema = resourceSchema(
  {
    name: { type: 'string', maxLength: 64, isMeta: false },
    params: { type: ['object', 'null'], isMeta: false },
    core_type: { type: 'boolean', isMeta: true },
    created: { type: 'string', format: 'date-time', isMeta: true },
    modified: { type: 'string', format: 'date-time', isMeta: true },
  },
  ['name'],
);

export function serializePropertyType(req: Request, t: PropertyTypeDef): Resource {
  return {
    id: String(t.id),
    type: 'property_types',
    attributes: { name: t.name, params: t.params },
    meta: { core_type: t.coreType, created: t.created, modified: t.modified },
    links: { self: resourceUrl(req, `/model/property_types/${t.id}`) },
  };
}

/** A property type by numeric id or name (404 when unknown). */
export function requirePropertyType(ctx: AppContext, key: string): PropertyTypeDef {
  const types = model(ctx).propertyTypes;
  const t = /^\d+$/.test(key) ? [...types.values()].find((x) => String(x.id) === key) : types.get(key);
  if (!t) throw notFound(`No property type "${key}"`);
  return t;
}

export const allPropertyTypes = (ctx: AppContext): PropertyTypeDef[] => [...model(ctx).propertyTypes.values()].sort((a, b) => a.id - b.id);

/** `params` must be a JSON Schema (draft 06) fragment that validates on its own (see fragmentProblem); 400 naming it otherwise. */
function checkParams(ctx: AppContext, params: unknown): string {
  const fragment = (params ?? {}) as Record<string, unknown>;
  const problem = fragmentProblem(ctx.schemas.ajv, fragment);
  if (problem) throw new ApiError(400, 'invalid_data', `"params" is not a valid JSON Schema fragment: ${problem}`, undefined, { fields: ['params'] });
  return JSON.stringify(fragment);
}

function checkName(ctx: AppContext, name: string, self?: PropertyTypeDef) {
  if (!NAME.test(name)) throw badRequest(`Property type name "${name}" must be lower snake case`, 'invalid_name');
  const other = model(ctx).propertyTypes.get(name);
  if (other && other !== self) throw badRequest(`A property type "${name}" already exists`, 'property_type_exists');
}

const immutable = (t: PropertyTypeDef) => forbidden(`"${t.name}" is a core property type: it cannot change or be deleted`, 'core_type');

export async function createPropertyType(ctx: AppContext, attributes: Record<string, unknown>): Promise<PropertyTypeDef> {
  const a = validateAgainstSchema(ctx, 'model:property_types', 1, PROPERTY_TYPE_SCHEMA, attributes, false);
  const name = a.name as string;
  checkName(ctx, name);
  const params = checkParams(ctx, a.params);
  const now = nowIso();
  await writeModel(ctx, (trx) => trx.insertInto('property_types').values({ name, params, core_type: false, created: now, modified: now }).execute());
  return requirePropertyType(ctx, name);
}

/** The types whose schema a property type shapes (their properties use it). */
const typesUsing = (ctx: AppContext, name: string) => [...new Set(allProperties(ctx).filter((p) => p.type === name).map((p) => p.objectTypeName))];

export async function updatePropertyType(ctx: AppContext, t: PropertyTypeDef, attributes: Record<string, unknown>): Promise<PropertyTypeDef> {
  const a = validateAgainstSchema(ctx, 'model:property_types', 1, PROPERTY_TYPE_SCHEMA, attributes, true);
  const name = (a.name as string | undefined) ?? t.name;
  const params = a.params === undefined ? JSON.stringify(t.params) : checkParams(ctx, a.params);
  if (name === t.name && params === JSON.stringify(t.params)) return t;
  if (t.coreType) throw immutable(t);
  checkName(ctx, name, t);
  const users = typesUsing(ctx, t.name);
  await writeModel(ctx, async (trx) => {
    await trx.updateTable('property_types').set({ name, params, modified: nowIso() }).where('id', '=', t.id).execute();
    if (name !== t.name) await trx.updateTable('properties').set({ property_type_name: name }).where('property_type_name', '=', t.name).execute();
    for (const typeName of users) await bumpRevision(trx, ctx, typeName);
  });
  return requirePropertyType(ctx, String(t.id));
}

export async function deletePropertyType(ctx: AppContext, t: PropertyTypeDef): Promise<void> {
  if (t.coreType) throw immutable(t);
  await writeModel(ctx, async (trx) => {
    const used = await trx.selectFrom('properties').select('id').where('property_type_name', '=', t.name).limit(1).executeTakeFirst();
    if (used) throw forbidden(`Properties of type "${t.name}" exist; remove them first`, 'property_type_in_use');
    await trx.deleteFrom('property_types').where('id', '=', t.id).execute();
  });
}
