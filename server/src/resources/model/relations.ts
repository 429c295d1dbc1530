// Relations (`/model/relations`) and the object types on their sides.
import type { Request } from 'express';
import type { Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Database } from '../../db/tables.js';
import { nowIso } from '../../db/time.js';
import { ApiError, badRequest, forbidden, notFound } from '../../http/errors.js';
import { relationshipLinks, resourceUrl, type Resource } from '../../http/jsonapi.js';
import { CORE_ATTRIBUTES, META_FIELDS, findRelation, model, typeByName, type ObjectType, type RelationDef } from '../objects/model.js';
import { SYSTEM, visibleObjectsTable } from '../objects/read.js';
import { resourceSchema, validateAgainstSchema, type ResourceSchema } from '../objects/schema.js';
import { NAME, writeModel } from './service.js';

export const RELATION_SCHEMA: ResourceSchema = resourceSchema({
  name: { type: 'string', maxLength: 64, isMeta: false },
  inverse_name: { type: 'string', maxLength: 64, isMeta: false },
  label: { type: ['string', 'null'], maxLength: 255, isMeta: false },
  inverse_label: { type: ['string', 'null'], maxLength: 255, isMeta: false },
  description: { type: ['string', 'null'], isMeta: false },
  params: { type: ['object', 'null'], isMeta: false },
  created: { type: 'string', format: 'date-time', isMeta: true },
  modified: { type: 'string', format: 'date-time', isMeta: true },
}, ['name', 'inverse_name']);

export function serializeRelation(req: Request, r: RelationDef): Resource {
  const path = `/model/relations/${r.id}`;
  return {
    id: String(r.id),
    type: 'relations',
    attributes: {
      name: r.name,
      inverse_name: r.inverseName,
      label: r.label,
      inverse_label: r.inverseLabel,
      description: r.description,
      params: r.params ?? {},
    },
    meta: { created: r.created, modified: r.modified },
    links: { self: resourceUrl(req, path) },
    relationships: {
      left_object_types: relationshipLinks(req, path, 'left_object_types'),
      right_object_types: relationshipLinks(req, path, 'right_object_types'),
    },
  };
}

export function requireRelation(ctx: AppContext, key: string): RelationDef {
  const found = findRelation(ctx, key);
  if (!found) throw notFound(`No relation "${key}"`);
  return found.relation;
}

/** Property names of the types on a relation's sides (a relation name should not shadow one). */
function checkRelationNames(ctx: AppContext, name: string, inverse: string, self?: RelationDef) {
  for (const n of [name, inverse]) {
    if (!NAME.test(n)) throw badRequest(`Relation name "${n}" must be lower snake case`, 'invalid_name');
    if ([...CORE_ATTRIBUTES, ...META_FIELDS, 'relationships', 'parents', 'children', 'parent', 'streams', 'roles', 'history'].includes(n)) {
      throw badRequest(`"${n}" cannot name a relation`, 'invalid_name');
    }
    const other = findRelation(ctx, n);
    if (other && other.relation !== self) throw badRequest(`A relation named "${n}" already exists`, 'relation_exists');
  }
  if (name === inverse) throw badRequest('"name" and "inverse_name" must differ', 'invalid_name');
}

function checkSideProperties(ctx: AppContext, names: string[], types: ObjectType[]) {
  for (const t of types) {
    const clash = t.properties.find((p) => names.includes(p.name));
    if (clash) throw badRequest(`Relation name "${clash.name}" equals a property of ${t.name}`, 'invalid_name');
  }
}

/** A relation's `params` is the JSON Schema its links' params must match: one Ajv cannot compile is 400. */
function checkParamsSchema(ctx: AppContext, params: unknown): void {
  if (params === undefined || params === null || !Object.keys(params as object).length) return;
  try {
    ctx.schemas.ajv.compile(params as Record<string, unknown>);
  } catch (err) {
    throw new ApiError(400, 'invalid_params', `"params" must be a JSON Schema: ${(err as Error).message}`, undefined, { fields: ['params'] });
  }
}

export async function createRelation(ctx: AppContext, attributes: Record<string, unknown>): Promise<RelationDef> {
  const a = validateAgainstSchema(ctx, 'model:relations', 1, RELATION_SCHEMA, attributes, false);
  checkParamsSchema(ctx, a.params);
  checkRelationNames(ctx, a.name as string, a.inverse_name as string);
  const now = nowIso();
  const id = await writeModel(ctx, async (trx) => {
    const row = await trx
      .insertInto('relations')
      .values({
        name: a.name as string,
        inverse_name: a.inverse_name as string,
        label: (a.label as string | null | undefined) ?? null,
        inverse_label: (a.inverse_label as string | null | undefined) ?? null,
        description: (a.description as string | null | undefined) ?? null,
        params: a.params === undefined || a.params === null ? null : JSON.stringify(a.params),
        created: now,
        modified: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return Number(row.id);
  });
  return requireRelation(ctx, String(id));
}

export async function updateRelation(ctx: AppContext, r: RelationDef, attributes: Record<string, unknown>): Promise<RelationDef> {
  const a = validateAgainstSchema(ctx, 'model:relations', 1, RELATION_SCHEMA, attributes, true);
  checkParamsSchema(ctx, a.params);
  const name = (a.name as string | undefined) ?? r.name;
  const inverse = (a.inverse_name as string | undefined) ?? r.inverseName;
  checkRelationNames(ctx, name, inverse, r);
  const sideTypes = [...r.left, ...r.right].map((n) => typeByName(ctx, n)!).filter(Boolean);
  checkSideProperties(ctx, [name, inverse], sideTypes);
  const set: Record<string, unknown> = { name, inverse_name: inverse, modified: nowIso() };
  for (const k of ['label', 'inverse_label', 'description'] as const) if (a[k] !== undefined) set[k] = a[k];
  if (a.params !== undefined) set.params = a.params === null ? null : JSON.stringify(a.params);
  await writeModel(ctx, (trx) => trx.updateTable('relations').set(set).where('id', '=', r.id).execute());
  return requireRelation(ctx, String(r.id));
}

export async function deleteRelation(ctx: AppContext, r: RelationDef): Promise<void> {
  await writeModel(ctx, async (trx) => {
    const used = await trx.selectFrom('object_relations').select('id').where('relation_id', '=', r.id).limit(1).executeTakeFirst();
    if (used) throw forbidden(`Objects are related through "${r.name}"; remove those relations first`, 'relation_in_use');
    await trx.deleteFrom('relation_types').where('relation_id', '=', r.id).execute();
    await trx.deleteFrom('relations').where('id', '=', r.id).execute();
  });
}

/** Objects of these types already related through `r` on `side` (the side's type can then not go). */
async function sideInUse(trx: Transaction<Database>, ctx: AppContext, r: RelationDef, side: 'left' | 'right', t: ObjectType): Promise<boolean> {
  const typeIds = [...model(ctx).types.values()].filter((x) => x.lineage.includes(t.name)).map((x) => x.id);
  const column = side === 'left' ? 'object_relations.left_id' : 'object_relations.right_id';
  const row = await trx
    .selectFrom('object_relations')
    .innerJoin(visibleObjectsTable(ctx, SYSTEM, trx, { trashed: 'any' }), 'objects.id', column)
    .select('object_relations.id')
    .where('object_relations.relation_id', '=', r.id)
    .where('objects.object_type_id', 'in', typeIds)
    .limit(1)
    .executeTakeFirst();
  return !!row;
}

/** Add, replace or remove the object types on one side of a relation. */
export async function writeRelationSide(
  ctx: AppContext,
  r: RelationDef,
  side: 'left' | 'right',
  keys: string[],
  mode: 'add' | 'replace' | 'remove',
): Promise<void> {
  const types = keys.map((k) => {
    const t = /^\d+$/.test(k) ? model(ctx).typesById.get(Number(k)) : typeByName(ctx, k);
    if (!t) throw badRequest(`Unknown object type "${k}"`, 'invalid_object_type');
    return t;
  });
  const current = side === 'left' ? r.left : r.right;
  if (mode === 'remove') {
    const missing = types.find((t) => !current.includes(t.name));
    if (missing) throw badRequest(`${missing.name} is not a ${side} type of "${r.name}"`, 'invalid_object_type');
  }
  if (mode !== 'remove') checkSideProperties(ctx, [r.name, r.inverseName], types);
  const removed = mode === 'remove' ? types : mode === 'replace' ? current.filter((n) => !types.some((t) => t.name === n)).map((n) => typeByName(ctx, n)!) : [];
  const added = mode === 'remove' ? [] : types.filter((t) => !current.includes(t.name));
  await writeModel(ctx, async (trx) => {
    for (const t of removed) {
      if (await sideInUse(trx, ctx, r, side, t)) throw forbidden(`Objects of type ${t.name} are related through "${r.name}"`, 'relation_in_use');
      await trx.deleteFrom('relation_types').where('relation_id', '=', r.id).where('side', '=', side).where('object_type_id', '=', t.id).execute();
    }
    for (const t of new Map(added.map((x) => [x.id, x])).values()) {
      await trx.insertInto('relation_types').values({ relation_id: r.id, object_type_id: t.id, side }).execute();
    }
    await trx.updateTable('relations').set({ modified: nowIso() }).where('id', '=', r.id).execute();
  });
}
