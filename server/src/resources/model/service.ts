// Writes to the model — object types, custom properties, relations and their sides — with the
// contract's rules. Every write is one transaction, then the in-memory model is reloaded.
import type { Request } from 'express';
import { sql, type Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Database } from '../../db/tables.js';
import { nowIso } from '../../db/time.js';
import { transact } from '../../db/transaction.js';
import { badRequest, forbidden, notFound } from '../../http/errors.js';
import { relationshipLinks, resourceUrl, type Resource } from '../../http/jsonapi.js';
import {
  ASSOCIATIONS,
  CORE_ATTRIBUTES,
  META_FIELDS,
  findRelation,
  model,
  relationNamesOf,
  reloadModel,
  typeByName,
  type ObjectType,
  type PropertyDef,
  type RelationDef,
} from '../objects/model.js';
import { resourceSchema, validateAgainstSchema, type ResourceSchema } from '../objects/schema.js';
import { dropPropertyValues } from '../objects/kernel.js';
import { SYSTEM, visibleObjects, visibleObjectsTable } from '../objects/read.js';

/** Paths the product keeps for itself (contract: Routes reserved by the product). */
export const RESERVED_ROUTES = ['admin', 'auth', 'signup', 'status', 'home', 'model', 'trash', 'streams', 'media', 'files', 'posters', 'poster', 'objects', 'users', 'roles', 'folders', 'applications', 'operations', 'history', 'backups', 'webhooks'];
const NAME = /^[a-z][a-z0-9_]*$/;

/**
 * Run one model write, then reload the in-memory model. Inside a caller's transaction (a context
 * whose `db` is one: see project.ts) the write joins it and the context's own model is reloaded
 * from it; a failure is left to the caller, which rolls back and reloads.
 */
export async function writeModel<T>(ctx: AppContext, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  const joined = ctx.db.isTransaction;
  try {
    const out = await transact(ctx.db, work);
    if (joined) await reloadModel(ctx);
    return out;
  } catch (err) {
    if (ctx.dialect.errors.isConstraintViolation(err)) throw badRequest('The change conflicts with an existing entry of the model', 'model_conflict');
    throw err;
  } finally {
    if (!joined) await reloadModel(ctx);
  }
}

/** Bump the schema revision of types (and their sub-types) whose schema changed. */
export async function bumpRevision(trx: Transaction<Database>, ctx: AppContext, typeName: string): Promise<void> {
  const ids = [...model(ctx).types.values()].filter((t) => t.lineage.includes(typeName)).map((t) => t.id);
  if (ids.length) await trx.updateTable('object_types').set({ revision: sql`revision + 1`, modified: nowIso() }).where('id', 'in', ids).execute();
}

// ---- object types ----

export const OBJECT_TYPE_SCHEMA: ResourceSchema = resourceSchema({
  name: { type: 'string', maxLength: 64, isMeta: false },
  singular: { type: 'string', maxLength: 64, isMeta: false },
  description: { type: ['string', 'null'], isMeta: false },
  parent_name: { type: ['string', 'null'], maxLength: 64, isMeta: false },
  is_abstract: { type: 'boolean', default: false, isMeta: false },
  enabled: { type: 'boolean', default: true, isMeta: false },
  // BEdita 5's attributes (issue 29).
  table: { type: 'string', maxLength: 255, isMeta: false },
  associations: { type: ['array', 'null'], items: { type: 'string', enum: [...ASSOCIATIONS] }, uniqueItems: true, isMeta: false },
  hidden: { type: ['array', 'null'], items: { type: 'string' }, uniqueItems: true, isMeta: false },
  is_translatable: { type: 'boolean', default: true, isMeta: false },
  translation_rules: { type: ['object', 'null'], additionalProperties: { type: 'boolean' }, isMeta: false },
  // Read-only: sent as attributes they are ignored, as BEdita 5 ignores fields it does not accept.
  core_type: { type: 'boolean', isMeta: true },
  alias: { type: 'string', isMeta: true },
  relations: { type: 'array', isMeta: true },
  created: { type: 'string', format: 'date-time', isMeta: true },
  modified: { type: 'string', format: 'date-time', isMeta: true },
}, ['name']);

/** BEdita 5's table classes Folio knows (`table` of a type, plugin syntax). */
const TABLES = ['BEdita/Core.Objects', 'BEdita/Core.Profiles', 'BEdita/Core.Locations', 'BEdita/Core.Links', 'BEdita/Core.Media', 'BEdita/Core.Users', 'BEdita/Core.Folders'];
/** Only the built-in types store as these. */
const CORE_ONLY_TABLES = ['BEdita/Core.Users', 'BEdita/Core.Folders'];
/** Core attributes a type may hide (status and uname every object keeps: the contract relies on them). */
const HIDEABLE_CORE = CORE_ATTRIBUTES.filter((a) => a !== 'status' && a !== 'uname');

/** `table` of a new or changed type: a known one; media types store as media, nothing else does. */
function checkTable(table: string, underMedia: boolean): string {
  if (!TABLES.includes(table) || CORE_ONLY_TABLES.includes(table)) throw badRequest(`"${table}" is not a valid model table name`, 'invalid_table');
  if (underMedia !== (table === 'BEdita/Core.Media')) {
    throw badRequest(underMedia ? '"table": media types are stored in "BEdita/Core.Media"' : '"table": "BEdita/Core.Media" is for sub-types of media', 'invalid_table');
  }
  return table;
}

/** `associations` of a type: known names (the schema's enum); `Streams` only on media types. */
function checkAssociations(list: string[] | null | undefined, underMedia: boolean): string | null {
  if (!list) return null;
  if (list.includes('Streams') && !underMedia) throw badRequest('"associations": Streams is for media types only', 'invalid_data');
  return JSON.stringify(list);
}

/** `hidden` of a type: properties it has (core attributes but status and uname, custom ones of its lineage). */
function checkHidden(list: string[] | null | undefined, properties: string[]): string | null {
  if (!list) return null;
  for (const name of list) {
    if (!(HIDEABLE_CORE as readonly string[]).includes(name) && !properties.includes(name)) {
      throw badRequest(`"hidden": "${name}" is not a property of the type that can be hidden`, 'invalid_data');
    }
  }
  return JSON.stringify(list);
}

const jsonOrNull = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));
const alias = (name: string) => name.split('_').map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');

export function serializeObjectType(req: Request, ctx: AppContext, t: ObjectType): Resource {
  const path = `/model/object_types/${t.id}`;
  const relations = model(ctx).relations;
  return {
    id: String(t.id),
    type: 'object_types',
    attributes: {
      name: t.name,
      singular: t.singular,
      description: t.description,
      parent_name: t.parentName,
      is_abstract: t.isAbstract,
      enabled: t.enabled,
      table: t.table,
      associations: t.associations.length ? t.associations : null,
      hidden: t.hidden.length ? t.hidden : null,
      is_translatable: t.isTranslatable,
      translation_rules: t.translationRules,
    },
    meta: {
      alias: alias(t.name),
      core_type: t.coreType,
      revision: t.revision,
      created: t.created,
      modified: t.modified,
      properties: t.properties.map((p) => p.name),
      relations: relations.filter((r) => r.left.some((n) => t.lineage.includes(n))).map((r) => r.name)
        .concat(relations.filter((r) => r.right.some((n) => t.lineage.includes(n))).map((r) => r.inverseName)),
    },
    links: { self: resourceUrl(req, path) },
    relationships: {
      left_relations: relationshipLinks(req, path, 'left_relations'),
      right_relations: relationshipLinks(req, path, 'right_relations'),
    },
  };
}

/** An object type by numeric id or name (404 when unknown). */
export function requireObjectType(ctx: AppContext, key: string): ObjectType {
  const t = /^\d+$/.test(key) ? model(ctx).typesById.get(Number(key)) : typeByName(ctx, key);
  if (!t) throw notFound(`No object type "${key}"`);
  return t;
}

function checkTypeName(ctx: AppContext, name: string, self?: ObjectType) {
  if (!NAME.test(name)) throw badRequest(`Object type name "${name}" must be lower snake case (a-z, 0-9, _), starting with a letter`, 'invalid_name');
  if (RESERVED_ROUTES.includes(name)) throw badRequest(`"${name}" is a reserved route and cannot name a type`, 'invalid_name');
  const other = typeByName(ctx, name);
  if (other && other !== self) throw badRequest(`An object type "${name}" already exists`, 'type_exists');
  if ([...model(ctx).types.values()].some((t) => t !== self && t.singular === name)) throw badRequest(`"${name}" is the singular of another type`, 'invalid_name');
}

function parentOf(ctx: AppContext, name: unknown): ObjectType {
  const parent = typeByName(ctx, typeof name === 'string' ? name : 'objects');
  if (!parent) throw badRequest(`Unknown parent type "${String(name)}"`, 'invalid_parent');
  if (!parent.isAbstract) throw badRequest(`The parent type "${parent.name}" must be abstract`, 'invalid_parent');
  return parent;
}

const defaultSingular = (name: string) => (name.endsWith('ies') ? name.slice(0, -3) + 'y' : name.endsWith('s') ? name.slice(0, -1) : `${name}_item`);

export async function createObjectType(ctx: AppContext, attributes: Record<string, unknown>): Promise<ObjectType> {
  const a = validateAgainstSchema(ctx, 'model:object_types', 1, OBJECT_TYPE_SCHEMA, attributes, false);
  const name = a.name as string;
  checkTypeName(ctx, name);
  const singular = (a.singular as string | undefined) ?? defaultSingular(name);
  if (!NAME.test(singular) || singular === name) throw badRequest('"singular" must be lower snake case and differ from the name', 'invalid_name');
  const parent = parentOf(ctx, a.parent_name);
  const underMedia = parent.lineage.includes('media');
  const table = checkTable((a.table as string | undefined) ?? (underMedia ? 'BEdita/Core.Media' : 'BEdita/Core.Objects'), underMedia);
  const associations = checkAssociations(a.associations as string[] | null | undefined, underMedia);
  const hidden = checkHidden(a.hidden as string[] | null | undefined, parent.properties.map((p) => p.name));
  const now = nowIso();
  const id = await writeModel(ctx, async (trx) => {
    const row = await trx
      .insertInto('object_types')
      .values({
        name,
        singular,
        description: (a.description as string | null | undefined) ?? null,
        parent_id: parent.id,
        is_abstract: (a.is_abstract as boolean | undefined) ?? false,
        enabled: (a.enabled as boolean | undefined) ?? true,
        table_name: table,
        associations,
        hidden,
        is_translatable: (a.is_translatable as boolean | undefined) ?? true,
        translation_rules: jsonOrNull(a.translation_rules),
        core_type: false,
        revision: 1,
        created: now,
        modified: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return Number(row.id);
  });
  return model(ctx).typesById.get(id)!;
}

async function typeInUse(trx: Transaction<Database>, ctx: AppContext, t: ObjectType): Promise<string | null> {
  const obj = await visibleObjects(ctx, SYSTEM, trx, { trashed: 'any' }).select('id').where('object_type_id', '=', t.id).limit(1).executeTakeFirst();
  if (obj) return 'objects of this type exist (trashed ones count)';
  if ([...model(ctx).types.values()].some((s) => s.parentId === t.id)) return 'it has sub-types';
  return null;
}

export async function updateObjectType(ctx: AppContext, t: ObjectType, attributes: Record<string, unknown>): Promise<ObjectType> {
  const a = validateAgainstSchema(ctx, 'model:object_types', 1, OBJECT_TYPE_SCHEMA, attributes, true);
  const set: Record<string, unknown> = {};
  const changes = (k: string, current: unknown) => a[k] !== undefined && a[k] !== current;
  if (t.coreType && (changes('name', t.name) || changes('parent_name', t.parentName) || changes('is_abstract', t.isAbstract) || changes('enabled', t.enabled) || changes('table', t.table))) {
    throw forbidden(`"${t.name}" is a core type: its name, parent, abstractness, table and enabled flag cannot change`, 'core_type');
  }
  if (changes('name', t.name)) {
    checkTypeName(ctx, a.name as string, t);
    set.name = a.name;
  }
  if (changes('singular', t.singular)) {
    const singular = a.singular as string;
    if (!NAME.test(singular) || singular === (set.name ?? t.name)) throw badRequest('"singular" must be lower snake case and differ from the name', 'invalid_name');
    set.singular = singular;
  }
  if (a.description !== undefined) set.description = a.description;
  if (a.enabled !== undefined) set.enabled = a.enabled;
  const parentName = (a.parent_name as string | undefined) ?? t.parentName;
  const underMedia = parentName !== null && (typeByName(ctx, parentName)?.lineage.includes('media') ?? false);
  if (changes('table', t.table) || changes('parent_name', t.parentName)) set.table_name = checkTable((a.table as string | undefined) ?? t.table, underMedia);
  if (a.associations !== undefined) set.associations = checkAssociations(a.associations as string[] | null, underMedia);
  if (a.hidden !== undefined) set.hidden = checkHidden(a.hidden as string[] | null, t.properties.map((p) => p.name));
  if (a.is_translatable !== undefined) set.is_translatable = a.is_translatable;
  if (a.translation_rules !== undefined) set.translation_rules = jsonOrNull(a.translation_rules);
  return writeModel(ctx, async (trx) => {
    if (changes('parent_name', t.parentName) || changes('is_abstract', t.isAbstract)) {
      const why = await typeInUse(trx, ctx, t);
      if (why) throw forbidden(`The parent or abstractness of "${t.name}" cannot change: ${why}`, 'type_in_use');
      if (changes('parent_name', t.parentName)) {
        const parent = parentOf(ctx, a.parent_name);
        if (parent.lineage.includes(t.name)) throw badRequest('A type cannot descend from itself', 'invalid_parent');
        set.parent_id = parent.id;
      }
      if (changes('is_abstract', t.isAbstract)) set.is_abstract = a.is_abstract;
    }
    if (Object.keys(set).length) {
      await trx.updateTable('object_types').set({ ...set, modified: nowIso() }).where('id', '=', t.id).execute();
      await bumpRevision(trx, ctx, t.name);
    }
    return t.id;
  }).then((id) => model(ctx).typesById.get(id)!);
}

export async function deleteObjectType(ctx: AppContext, t: ObjectType): Promise<void> {
  if (t.coreType) throw forbidden(`"${t.name}" is a core type and cannot be deleted`, 'core_type');
  await writeModel(ctx, async (trx) => {
    const why = await typeInUse(trx, ctx, t);
    if (why) throw forbidden(`The type "${t.name}" cannot be deleted: ${why}`, 'type_in_use');
    await trx.deleteFrom('properties').where('object_type_id', '=', t.id).execute();
    await trx.deleteFrom('relation_types').where('object_type_id', '=', t.id).execute();
    await trx.deleteFrom('object_types').where('id', '=', t.id).execute();
  });
}

// ---- properties ----

export const PROPERTY_SCHEMA: ResourceSchema = resourceSchema({
  name: { type: 'string', maxLength: 64, isMeta: false },
  property_type_name: { type: 'string', maxLength: 64, isMeta: false },
  object_type_name: { type: 'string', maxLength: 64, isMeta: false },
  description: { type: ['string', 'null'], isMeta: false },
  required: { type: 'boolean', default: false, isMeta: false },
  created: { type: 'string', format: 'date-time', isMeta: true },
  modified: { type: 'string', format: 'date-time', isMeta: true },
}, ['name', 'property_type_name', 'object_type_name']);

export function allProperties(ctx: AppContext): PropertyDef[] {
  const seen = new Map<number, PropertyDef>();
  for (const t of model(ctx).types.values()) for (const p of t.properties) seen.set(p.id, p);
  return [...seen.values()].sort((a, b) => a.id - b.id);
}

export function serializeProperty(req: Request, p: PropertyDef): Resource {
  return {
    id: String(p.id),
    type: 'properties',
    attributes: { name: p.name, property_type_name: p.type, object_type_name: p.objectTypeName, description: p.description, required: p.required },
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

// ---- relations ----

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

export async function createRelation(ctx: AppContext, attributes: Record<string, unknown>): Promise<RelationDef> {
  const a = validateAgainstSchema(ctx, 'model:relations', 1, RELATION_SCHEMA, attributes, false);
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

// ---- what a removal would lose (POST /model/project refuses those removals) ----

const count = (row: { n: unknown } | undefined) => Number(row?.n ?? 0);

/** Objects of the type or its sub-types, trashed ones included. */
export async function objectsOfType(ctx: AppContext, t: ObjectType): Promise<number> {
  const typeIds = [...model(ctx).types.values()].filter((x) => x.lineage.includes(t.name)).map((x) => x.id);
  return count(await visibleObjects(ctx, SYSTEM, ctx.db, { trashed: 'any' }).select((e) => e.fn.countAll().as('n')).where('object_type_id', 'in', typeIds).executeTakeFirst());
}

/** Objects holding a value of the property (trashed ones included). */
export async function valuesOfProperty(ctx: AppContext, p: PropertyDef): Promise<number> {
  const typeIds = [...model(ctx).types.values()].filter((t) => t.lineage.includes(p.objectTypeName)).map((t) => t.id);
  const value = ctx.dialect.json.property('objects.properties', p.name, 'string');
  return count(
    await visibleObjects(ctx, SYSTEM, ctx.db, { trashed: 'any' }).select((e) => e.fn.countAll().as('n')).where('object_type_id', 'in', typeIds).where(value as never, 'is not', null).executeTakeFirst(),
  );
}

/** Links between objects made through the relation. */
export async function linksOfRelation(ctx: AppContext, r: RelationDef): Promise<number> {
  return count(await ctx.db.selectFrom('object_relations').select((e) => e.fn.countAll().as('n')).where('relation_id', '=', r.id).executeTakeFirst());
}
