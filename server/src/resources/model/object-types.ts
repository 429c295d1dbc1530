// Object types (`/model/object_types`): BEdita 5's attributes, the contract's naming rules, and
// their create, update and delete.
import type { Request } from 'express';
import type { Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Database } from '../../db/tables.js';
import { nowIso } from '../../db/time.js';
import { reindexHiddenFields } from '../../db/dialect/hidden-search.js';
import { badRequest, forbidden, notFound } from '../../http/errors.js';
import { relationshipLinks, resourceUrl, type Resource } from '../../http/jsonapi.js';
import { ASSOCIATIONS, CORE_ATTRIBUTES, model, typeByName, type ObjectType } from '../objects/model.js';
import { SYSTEM, visibleObjects } from '../objects/read.js';
import { resourceSchema, validateAgainstSchema, type ResourceSchema } from '../objects/schema.js';
import { bumpRevision, NAME, RESERVED_ROUTES, writeModel } from './service.js';

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
  // The site's preview link of a draft: an absolute http(s) URL with placeholders (checkPreviewUrl).
  preview_url: { type: ['string', 'null'], maxLength: 2048, isMeta: false },
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

/** The placeholders a preview URL template may hold. */
const PREVIEW_PLACEHOLDERS = ['{type}', '{id}', '{uname}', '{token}'];

/**
 * `preview_url` of a type: an absolute http(s) URL once its placeholders are filled (any other
 * `{…}` is refused), or null; 400 otherwise.
 */
function checkPreviewUrl(value: unknown): string | null {
  if (value === null || value === undefined || value === '') return null;
  const template = String(value);
  const filled = template.replace(/\{[^{}]*\}/g, (p) => (PREVIEW_PLACEHOLDERS.includes(p) ? 'x' : '\u0000'));
  let url: URL | null = null;
  try {
    url = filled.includes('\u0000') ? null : new URL(filled);
  } catch {
    url = null;
  }
  if (!url || !['http:', 'https:'].includes(url.protocol) || !url.host) {
    throw badRequest(`"preview_url" must be an absolute http(s) URL template (placeholders ${PREVIEW_PLACEHOLDERS.join(', ')})`, 'invalid_data');
  }
  return template;
}

const jsonOrNull = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));
const alias = (name: string) => name.split('_').map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');

/** A type's writable attributes as read back (the API's `attributes`, the model document's item). */
export function objectTypeAttributes(t: ObjectType): Record<string, unknown> {
  return {
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
    preview_url: t.previewUrl,
  };
}

export function serializeObjectType(req: Request, ctx: AppContext, t: ObjectType): Resource {
  const path = `/model/object_types/${t.id}`;
  const relations = model(ctx).relations;
  return {
    id: String(t.id),
    type: 'object_types',
    attributes: objectTypeAttributes(t),
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
        preview_url: checkPreviewUrl(a.preview_url),
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
  if (a.preview_url !== undefined) set.preview_url = checkPreviewUrl(a.preview_url);
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
    // The search documents of its objects follow what the type shows.
    if (set.hidden !== undefined && set.hidden !== jsonOrNull(t.hidden.length ? t.hidden : null)) await reindexHiddenFields(trx, ctx.dialect, [t.id]);
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
