// The model as code (`/model/project`, `npm run model`): the whole model as one plain JSON
// document in BEdita 5's layout (ProjectModel::generate, plus Folio's tags and role permissions),
// and its apply: the differences per section and item, written in one transaction through the
// model family's own write functions, so every rule of the single endpoints holds. The writes run
// on a context whose `db` is the transaction and whose model is its own (writeModel reloads it
// from the transaction), so a later item sees what an earlier one made and nobody else sees
// anything before the commit.
import type { AppContext } from '../../context.js';
import { ApiError, badRequest } from '../../http/errors.js';
import { validateAttributes } from '../accounts/schemas.js';
import { allApplications, createApplication, updateApplication, deleteApplication, type ApplicationRow } from '../applications/service.js';
import { model, reloadModel } from '../objects/model.js';
import { parsePermissions, validatePermissions } from '../permissions/rules.js';
import { allRoles, createRole, deleteRole, updateRole, usersOfRole, type RoleInput, type RoleRow } from '../roles/service.js';
import { allTerms, createTerm, removeTerm, termLabels, termUses, updateTerm, type TermKind, type TermRow } from '../terms/vocabulary.js';
import { allPropertyTypes, createPropertyType, deletePropertyType, updatePropertyType } from './property-types.js';
import {
  allProperties,
  createObjectType,
  createProperty,
  createRelation,
  deleteObjectType,
  deleteProperty,
  deleteRelation,
  linksOfRelation,
  objectsOfType,
  updateObjectType,
  updateProperty,
  updateRelation,
  valuesOfProperty,
  writeRelationSide,
} from './service.js';

/** The sections of the document, in BEdita's order (tags are Folio's addition). */
export const SECTIONS = ['applications', 'roles', 'property_types', 'object_types', 'relations', 'properties', 'categories', 'tags'] as const;
export type Section = (typeof SECTIONS)[number];
export type ProjectItem = Record<string, unknown>;
export type ProjectModel = Partial<Record<Section, ProjectItem[]>>;

/** What changes in one item: field → {from, to}. */
export type FieldChanges = Record<string, { from: unknown; to: unknown }>;
/** An item named by its identity: `name`, and `object` for properties and categories. */
export type ItemRef = { name: string; object?: string | null };

export interface ProjectDiff {
  dry_run: boolean;
  delete: boolean;
  /** Whether anything was written (false on a dry run and when there was nothing to do). */
  applied: boolean;
  create: Partial<Record<Section, ProjectItem[]>>;
  update: Partial<Record<Section, Array<ItemRef & { changes: FieldChanges }>>>;
  remove: Partial<Record<Section, ItemRef[]>>;
  /** In the database, not in the file, left alone: without `delete`, or core (never removed). */
  kept: Partial<Record<Section, Array<ItemRef & { reason: string }>>>;
}

/** Per section: the fields compared and written, and BEdita's fields that Folio accepts and ignores. */
const FIELDS: Record<Section, { fields: string[]; ignored?: string[] }> = {
  applications: { fields: ['description', 'enabled'] },
  roles: { fields: ['description', 'permissions'] },
  property_types: { fields: ['params'] },
  object_types: {
    fields: ['singular', 'description', 'parent_name', 'is_abstract', 'enabled', 'table', 'associations', 'hidden', 'is_translatable', 'translation_rules'],
    ignored: ['core_type', 'alias'],
  },
  relations: { fields: ['label', 'inverse_name', 'inverse_label', 'description', 'params', 'left', 'right'] },
  // BEdita's properties carry is_nullable, read_only, default_value and label, which Folio has not.
  properties: { fields: ['property', 'description', 'required'], ignored: ['is_nullable', 'read_only', 'default_value', 'label', 'enabled', 'is_static'] },
  categories: { fields: ['label', 'labels', 'parent', 'enabled'] },
  tags: { fields: ['label', 'labels', 'enabled'] },
};
const BY_OBJECT: Section[] = ['properties', 'categories'];

// ---- export ----

const byName = (a: ProjectItem, b: ProjectItem) => compareText(a.name, b.name) || compareText(a.object ?? '', b.object ?? '');
const compareText = (a: unknown, b: unknown) => (String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0);
const emptyToNull = <T>(list: T[]): T[] | null => (list.length ? list : null);

function termItem(ctx: AppContext, kind: TermKind, row: TermRow, rows: TermRow[]): ProjectItem {
  const labels = termLabels(row);
  const item: ProjectItem = { name: row.name, label: labels.default ?? row.label ?? null, labels };
  if (kind === 'categories') {
    const parent = rows.find((r) => Number(r.id) === Number(row.parent_id));
    item.object = row.object_type_id === null ? null : (model(ctx).typesById.get(Number(row.object_type_id))?.name ?? null);
    item.parent = parent?.name ?? null;
  }
  item.enabled = Boolean(row.enabled);
  return item;
}

/** The whole model as one document, every section sorted by name (so it diffs cleanly in git). */
export async function exportProject(ctx: AppContext): Promise<Required<ProjectModel>> {
  const [applications, roles, categories, tags] = await Promise.all([allApplications(ctx.db), allRoles(ctx.db), allTerms(ctx, 'categories'), allTerms(ctx, 'tags')]);
  const m = model(ctx);
  return {
    applications: applications.map((a) => ({ name: a.name, description: a.description, enabled: Boolean(a.enabled) })).sort(byName),
    roles: roles.map((r) => ({ name: r.name, description: r.description, permissions: parsePermissions(r.permissions) })).sort(byName),
    property_types: allPropertyTypes(ctx).filter((t) => !t.coreType).map((t) => ({ name: t.name, params: t.params })).sort(byName),
    object_types: [...m.types.values()]
      .map((t) => ({
        name: t.name,
        singular: t.singular,
        description: t.description,
        parent_name: t.parentName,
        is_abstract: t.isAbstract,
        enabled: t.enabled,
        table: t.table,
        associations: emptyToNull(t.associations),
        hidden: emptyToNull(t.hidden),
        is_translatable: t.isTranslatable,
        translation_rules: t.translationRules,
      }))
      .sort(byName),
    relations: m.relations
      .map((r) => ({
        name: r.name,
        label: r.label,
        inverse_name: r.inverseName,
        inverse_label: r.inverseLabel,
        description: r.description,
        params: r.params ?? null,
        left: [...r.left].sort(),
        right: [...r.right].sort(),
      }))
      .sort(byName),
    properties: allProperties(ctx).map((p) => ({ name: p.name, object: p.objectTypeName, property: p.type, description: p.description, required: p.required })).sort(byName),
    categories: categories.map((row) => termItem(ctx, 'categories', row, categories)).sort(byName),
    tags: tags.map((row) => termItem(ctx, 'tags', row, tags)).sort(byName),
  };
}

// ---- comparing ----

/** JSON with sorted keys: equal values give equal text, whatever the key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

const isEmptyObject = (v: unknown) => v === null || v === undefined || (typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0);

/** A field's value as the database would hold it, so that equal meanings compare equal. */
function normalized(ctx: AppContext, section: Section, field: string, value: unknown): unknown {
  if (section === 'object_types' && (field === 'associations' || field === 'hidden')) return Array.isArray(value) && value.length ? value : null;
  if (section === 'relations' && (field === 'left' || field === 'right')) return Array.isArray(value) ? [...value].map(String).sort() : value;
  if ((section === 'relations' && field === 'params') || (section === 'property_types' && field === 'params')) return isEmptyObject(value) ? null : value;
  if (section === 'roles' && field === 'permissions') {
    try {
      return validatePermissions(ctx, value ?? {});
    } catch {
      return value; // reported by the write
    }
  }
  return value === undefined ? null : value;
}

/** A term's labels after a write of `label` and `labels` (as the vocabulary applies them). */
function termLabelsAfter(item: ProjectItem, current: Record<string, string>): Record<string, string> {
  const labels = { ...(item.labels === undefined ? current : ((item.labels ?? {}) as Record<string, string>)) };
  if (typeof item.label === 'string' && item.label) labels.default = item.label;
  else if (item.label === null || item.label === '') delete labels.default;
  return labels;
}

/** What would change in `current` to make it `wanted`: only the fields the file gives (as BEdita). */
function changesOf(ctx: AppContext, section: Section, wanted: ProjectItem, current: ProjectItem): FieldChanges {
  const out: FieldChanges = {};
  const isTerm = section === 'categories' || section === 'tags';
  for (const field of FIELDS[section].fields) {
    if (isTerm && (field === 'label' || field === 'labels')) continue;
    if (wanted[field] === undefined) continue;
    const to = normalized(ctx, section, field, wanted[field]);
    const from = normalized(ctx, section, field, current[field]);
    if (canonical(to) !== canonical(from)) out[field] = { from, to };
  }
  if (isTerm && (wanted.label !== undefined || wanted.labels !== undefined)) {
    const from = current.labels as Record<string, string>;
    const to = termLabelsAfter(wanted, from);
    if (canonical(to) !== canonical(from)) out.labels = { from, to };
  }
  return out;
}

// ---- the document, checked ----

const keyOf = (section: Section, item: ProjectItem) => (BY_OBJECT.includes(section) ? `${String(item.object ?? '')}/${String(item.name)}` : String(item.name));
const refOf = (section: Section, item: ProjectItem): ItemRef => (BY_OBJECT.includes(section) ? { name: String(item.name), object: (item.object as string | null) ?? null } : { name: String(item.name) });
const describe = (section: Section, item: ProjectItem) => `${section} "${BY_OBJECT.includes(section) && item.object ? `${String(item.object)}.` : ''}${String(item.name)}"`;

/** The sections the document gives, each a list of items with a name and known fields (400 otherwise). */
function checkDocument(doc: unknown): ProjectModel {
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw badRequest('The model must be a JSON object with the sections ' + SECTIONS.join(', '), 'invalid_model');
  const out: ProjectModel = {};
  for (const [key, list] of Object.entries(doc)) {
    if (!(SECTIONS as readonly string[]).includes(key)) throw badRequest(`Unknown section "${key}" (sections: ${SECTIONS.join(', ')})`, 'invalid_model');
    const section = key as Section;
    if (!Array.isArray(list)) throw modelError(section, null, null, 'invalid_model', `"${section}" must be a list`);
    const allowed = new Set(['name', ...(BY_OBJECT.includes(section) ? ['object'] : []), ...FIELDS[section].fields, ...(FIELDS[section].ignored ?? [])]);
    const seen = new Set<string>();
    list.forEach((item: unknown, index) => {
      if (!item || typeof item !== 'object' || Array.isArray(item)) throw modelError(section, index, null, 'invalid_model', 'each item must be an object');
      const it = item as ProjectItem;
      if (typeof it.name !== 'string' || !it.name) throw modelError(section, index, null, 'invalid_model', 'each item needs a "name"');
      if (section === 'properties' && typeof it.object !== 'string') throw modelError(section, index, it, 'invalid_model', 'a property needs its "object" (object type name)');
      const unknown = Object.keys(it).find((k) => !allowed.has(k));
      if (unknown) throw modelError(section, index, it, 'invalid_model', `unknown field "${unknown}"`);
      if (seen.has(keyOf(section, it))) throw modelError(section, index, it, 'invalid_model', 'given twice');
      seen.add(keyOf(section, it));
    });
    out[section] = list as ProjectItem[];
  }
  return out;
}

/** A 400 naming the item (and pointing at it in the document). */
function modelError(section: Section, index: number | null, item: ProjectItem | null, code: string, detail: string): ApiError {
  const where = item ? describe(section, item) : index === null ? `"${section}"` : `${section}[${index}]`;
  return new ApiError(400, code, `${where}: ${detail}`, undefined, { section, ...(item ? { item: refOf(section, item) } : {}) }, undefined, {
    pointer: index === null ? `/${section}` : `/${section}/${index}`,
  });
}

// ---- apply ----

interface Plan {
  create: Map<Section, ProjectItem[]>;
  update: Map<Section, Array<{ item: ProjectItem; changes: FieldChanges }>>;
  remove: Map<Section, ProjectItem[]>;
  diff: ProjectDiff;
}

const CORE_REASON = 'core: never removed';

function plan(ctx: AppContext, wanted: ProjectModel, current: Required<ProjectModel>, coreRoles: Set<string>, options: { dryRun: boolean; delete: boolean }): Plan {
  const p: Plan = { create: new Map(), update: new Map(), remove: new Map(), diff: { dry_run: options.dryRun, delete: options.delete, applied: false, create: {}, update: {}, remove: {}, kept: {} } };
  const coreTypes = new Set([...model(ctx).types.values()].filter((t) => t.coreType).map((t) => t.name));
  for (const section of SECTIONS) {
    const items = wanted[section];
    if (!items) continue;
    const have = new Map(current[section].map((i) => [keyOf(section, i), i]));
    const want = new Set(items.map((i) => keyOf(section, i)));
    const creates = items.filter((i) => !have.has(keyOf(section, i)));
    const updates = items.flatMap((item) => {
      const before = have.get(keyOf(section, item));
      const changes = before ? changesOf(ctx, section, item, before) : {};
      return Object.keys(changes).length ? [{ item, changes }] : [];
    });
    const absent = current[section].filter((i) => !want.has(keyOf(section, i)));
    const isCore = (i: ProjectItem) => (section === 'object_types' && coreTypes.has(String(i.name))) || (section === 'roles' && coreRoles.has(String(i.name)));
    const removes = options.delete ? absent.filter((i) => !isCore(i)) : [];
    const kept = absent.filter((i) => !removes.includes(i)).map((i) => ({ ...refOf(section, i), reason: isCore(i) ? CORE_REASON : 'not in the file (removed only with delete)' }));
    if (creates.length) {
      p.create.set(section, creates);
      p.diff.create[section] = creates;
    }
    if (updates.length) {
      p.update.set(section, updates);
      p.diff.update[section] = updates.map((u) => ({ ...refOf(section, u.item), changes: u.changes }));
    }
    if (removes.length) {
      p.remove.set(section, removes);
      p.diff.remove[section] = removes.map((i) => refOf(section, i));
    }
    if (kept.length) p.diff.kept[section] = kept;
  }
  return p;
}

/** Depth of an item in its tree (object types under their parent, categories under theirs): parents first. */
function depthIn(items: ProjectItem[], parentOf: (item: ProjectItem) => ProjectItem | undefined): Map<ProjectItem, number> {
  const depth = new Map<ProjectItem, number>();
  for (const item of items) {
    let d = 0;
    for (let p = parentOf(item); p && d <= items.length; p = parentOf(p)) d++;
    depth.set(item, d);
  }
  return depth;
}
const sortedByDepth = (items: ProjectItem[], depth: Map<ProjectItem, number>, deepestFirst = false) =>
  [...items].sort((a, b) => (deepestFirst ? -1 : 1) * ((depth.get(a) ?? 0) - (depth.get(b) ?? 0)));

/** Run one item's write; a refusal becomes a 400 naming the item. */
async function step(section: Section, item: ProjectItem, wanted: ProjectModel, work: () => Promise<unknown>): Promise<void> {
  try {
    await work();
  } catch (err) {
    if (!(err instanceof ApiError) || err.status >= 500) throw err;
    const index = wanted[section]?.indexOf(item) ?? -1;
    throw modelError(section, index < 0 ? null : index, item, err.code, err.detail);
  }
}

/** Removals that would lose data: a type with objects, a property with values, a relation with links, a term on objects, a role users have. */
async function losses(ctx: AppContext, p: Plan): Promise<string[]> {
  const out: string[] = [];
  const m = model(ctx);
  for (const item of p.remove.get('object_types') ?? []) {
    const n = await objectsOfType(ctx, m.types.get(String(item.name))!);
    if (n) out.push(`object_types "${String(item.name)}" (${n} object${n > 1 ? 's' : ''}, trashed ones included)`);
  }
  for (const item of p.remove.get('properties') ?? []) {
    const prop = allProperties(ctx).find((x) => x.name === item.name && x.objectTypeName === item.object)!;
    const n = await valuesOfProperty(ctx, prop);
    if (n) out.push(`properties "${String(item.object)}.${String(item.name)}" (values on ${n} object${n > 1 ? 's' : ''})`);
  }
  for (const item of p.remove.get('relations') ?? []) {
    const n = await linksOfRelation(ctx, m.relations.find((r) => r.name === item.name)!);
    if (n) out.push(`relations "${String(item.name)}" (${n} link${n > 1 ? 's' : ''} between objects)`);
  }
  for (const kind of ['categories', 'tags'] as const) {
    const rows = await allTerms(ctx, kind);
    for (const item of p.remove.get(kind) ?? []) {
      const n = await termUses(ctx, kind, Number(termRow(ctx, kind, rows, item)!.id));
      if (n) out.push(`${kind} "${describeTerm(item)}" (on ${n} object${n > 1 ? 's' : ''})`);
    }
  }
  const roles = await allRoles(ctx.db);
  for (const item of p.remove.get('roles') ?? []) {
    const n = await usersOfRole(ctx.db, roles.find((r) => r.name === item.name)!.id);
    if (n) out.push(`roles "${String(item.name)}" (${n} user${n > 1 ? 's' : ''} have it)`);
  }
  return out;
}

const describeTerm = (item: ProjectItem) => `${item.object ? `${String(item.object)}.` : ''}${String(item.name)}`;

function termRow(ctx: AppContext, kind: TermKind, rows: TermRow[], item: { name?: unknown; object?: unknown }): TermRow | undefined {
  if (kind === 'tags') return rows.find((r) => r.name === item.name);
  const typeId = typeof item.object === 'string' ? (model(ctx).types.get(item.object)?.id ?? -1) : null;
  return rows.find((r) => r.name === item.name && (r.object_type_id === null ? null : Number(r.object_type_id)) === typeId);
}

const pick = (item: ProjectItem, fields: string[]) => Object.fromEntries(fields.filter((f) => item[f] !== undefined).map((f) => [f, item[f]]));
const changed = (changes: FieldChanges, item: ProjectItem, fields: string[]) => pick(item, fields.filter((f) => f in changes));

/** The writes of a plan, in an order where every item finds what it names. */
async function write(ctx: AppContext, wanted: ProjectModel, p: Plan): Promise<void> {
  const m = () => model(ctx);
  const creates = (s: Section) => p.create.get(s) ?? [];
  const updates = (s: Section) => p.update.get(s) ?? [];
  const removes = (s: Section) => p.remove.get(s) ?? [];

  // Removals first (what the file names then finds its names free), dependants before what they depend on.
  for (const item of removes('applications')) {
    const row = (await allApplications(ctx.db)).find((a) => a.name === item.name)!;
    await step('applications', item, wanted, () => deleteApplication(ctx.db, row.id));
  }
  for (const item of removes('roles')) {
    const row = (await allRoles(ctx.db)).find((r) => r.name === item.name)!;
    await step('roles', item, wanted, () => deleteRole(ctx.db, row.id));
  }
  for (const kind of ['tags', 'categories'] as const) {
    const rows = await allTerms(ctx, kind);
    const depth = depthIn(removes(kind), (i) => removes(kind).find((x) => x.name === i.parent && x.object === i.object));
    for (const item of sortedByDepth(removes(kind), depth, true)) await step(kind, item, wanted, () => removeTerm(ctx, kind, termRow(ctx, kind, rows, item)!));
  }
  for (const item of removes('relations')) await step('relations', item, wanted, () => deleteRelation(ctx, m().relations.find((r) => r.name === item.name)!));
  for (const item of removes('properties')) {
    await step('properties', item, wanted, () => deleteProperty(ctx, allProperties(ctx).find((x) => x.name === item.name && x.objectTypeName === item.object)!));
  }
  const lineageDepth = (i: ProjectItem) => m().types.get(String(i.name))?.lineage.length ?? 0;
  for (const item of [...removes('object_types')].sort((a, b) => lineageDepth(b) - lineageDepth(a))) {
    await step('object_types', item, wanted, () => deleteObjectType(ctx, m().types.get(String(item.name))!));
  }
  for (const item of removes('property_types')) await step('property_types', item, wanted, () => deletePropertyType(ctx, m().propertyTypes.get(String(item.name))!));

  // Property types, then object types (parents first; `hidden` once their properties exist).
  for (const item of creates('property_types')) await step('property_types', item, wanted, () => createPropertyType(ctx, pick(item, ['name', 'params'])));
  for (const { item } of updates('property_types')) await step('property_types', item, wanted, () => updatePropertyType(ctx, m().propertyTypes.get(String(item.name))!, pick(item, ['params'])));
  const typeItems = [...creates('object_types'), ...updates('object_types').map((u) => u.item)];
  const typeFields = FIELDS.object_types.fields.filter((f) => f !== 'hidden');
  const typeDepth = depthIn(typeItems, (i) => typeItems.find((x) => x.name === (i.parent_name ?? m().types.get(String(i.name))?.parentName)));
  const deferredHidden: ProjectItem[] = [];
  for (const item of sortedByDepth(typeItems, typeDepth)) {
    const change = updates('object_types').find((u) => u.item === item);
    const attributes = change ? changed(change.changes, item, typeFields) : pick(item, ['name', ...typeFields]);
    if (change && 'hidden' in change.changes) deferredHidden.push(item);
    if (!change && normalized(ctx, 'object_types', 'hidden', item.hidden) !== null) deferredHidden.push(item);
    if (change && !Object.keys(attributes).length) continue;
    await step('object_types', item, wanted, () => (change ? updateObjectType(ctx, m().types.get(String(item.name))!, attributes) : createObjectType(ctx, attributes)));
  }

  // Custom properties, then the hidden lists that may name them.
  const toProperty = (item: ProjectItem) => ({ ...pick(item, ['name', 'description', 'required']), ...(item.object !== undefined ? { object_type_name: item.object } : {}), ...(item.property !== undefined ? { property_type_name: item.property } : {}) });
  for (const item of creates('properties')) await step('properties', item, wanted, () => createProperty(ctx, toProperty(item)));
  for (const { item, changes } of updates('properties')) {
    const prop = allProperties(ctx).find((x) => x.name === item.name && x.objectTypeName === item.object)!;
    await step('properties', item, wanted, () => updateProperty(ctx, prop, { ...changed(changes, item, ['description', 'required']), ...('property' in changes ? { property_type_name: item.property } : {}) }));
  }
  for (const item of deferredHidden) await step('object_types', item, wanted, () => updateObjectType(ctx, m().types.get(String(item.name))!, { hidden: item.hidden }));

  // Relations and their sides.
  const relationFields = ['name', 'inverse_name', 'label', 'inverse_label', 'description', 'params'];
  for (const item of creates('relations')) {
    await step('relations', item, wanted, async () => {
      const r = await createRelation(ctx, pick(item, relationFields));
      for (const side of ['left', 'right'] as const) if (Array.isArray(item[side]) && (item[side] as unknown[]).length) await writeRelationSide(ctx, r, side, (item[side] as unknown[]).map(String), 'replace');
    });
  }
  for (const { item, changes } of updates('relations')) {
    await step('relations', item, wanted, async () => {
      const attributes = changed(changes, item, relationFields);
      let r = m().relations.find((x) => x.name === item.name)!;
      if (Object.keys(attributes).length) r = await updateRelation(ctx, r, attributes);
      for (const side of ['left', 'right'] as const) if (side in changes) await writeRelationSide(ctx, r, side, Array.isArray(item[side]) ? (item[side] as unknown[]).map(String) : [], 'replace');
    });
  }

  // Categories (parents first) and tags, as /model/categories and /model/tags write them.
  for (const kind of ['categories', 'tags'] as const) {
    const items = [...creates(kind), ...updates(kind).map((u) => u.item)];
    const depth = depthIn(items, (i) => items.find((x) => x.name === i.parent && x.object === i.object));
    for (const item of sortedByDepth(items, depth)) {
      const change = updates(kind).find((u) => u.item === item);
      await step(kind, item, wanted, async () => {
        const rows = await allTerms(ctx, kind);
        const attributes: Record<string, unknown> = change ? {} : { name: item.name, ...(kind === 'categories' ? { type: item.object } : {}) };
        if (!change || 'labels' in change.changes) Object.assign(attributes, pick(item, ['label', 'labels']));
        if (item.enabled !== undefined && (!change || 'enabled' in change.changes)) attributes.enabled = item.enabled;
        if (kind === 'categories' && item.parent !== undefined && (!change || 'parent' in change.changes)) {
          const parent = item.parent === null ? null : termRow(ctx, kind, rows, { name: item.parent, object: item.object });
          if (parent === undefined) throw badRequest(`parent "${String(item.parent)}" is no category of ${String(item.object)}`, 'invalid_data');
          attributes.parent_id = parent === null ? null : Number(parent.id);
        }
        if (change) await updateTerm(ctx, kind, termRow(ctx, kind, rows, item)!, attributes);
        else await createTerm(ctx, kind, attributes);
      });
    }
  }

  // Roles (their permissions name types) and applications, as /roles and /applications write them.
  for (const item of [...creates('roles'), ...updates('roles').map((u) => u.item)]) {
    const change = updates('roles').find((u) => u.item === item);
    await step('roles', item, wanted, async () => {
      const input = validateAttributes<RoleInput>(ctx, 'roles', change ? changed(change.changes, item, ['description', 'permissions']) : pick(item, ['name', 'description', 'permissions']), !change);
      if (input.permissions !== undefined) input.permissions = validatePermissions(ctx, input.permissions);
      const row: RoleRow | undefined = change ? (await allRoles(ctx.db)).find((r) => r.name === item.name) : undefined;
      if (row) await updateRole(ctx.db, row.id, input);
      else await createRole(ctx.db, input as RoleInput & { name: string });
    });
  }
  for (const item of [...creates('applications'), ...updates('applications').map((u) => u.item)]) {
    const change = updates('applications').find((u) => u.item === item);
    await step('applications', item, wanted, async () => {
      const fields = change ? Object.keys(change.changes) : ['name', 'description', 'enabled'];
      const input = validateAttributes<{ name: string }>(ctx, 'applications', pick(item, fields), !change);
      const row: ApplicationRow | undefined = change ? (await allApplications(ctx.db)).find((a) => a.name === item.name) : undefined;
      if (row) await updateApplication(ctx.db, row.id, input);
      else await createApplication(ctx.db, input);
    });
  }
}

class DryRun extends Error {}

/**
 * Compare the document with the model and, unless a dry run, apply the differences in one
 * transaction: creates and changes always, removals only with `delete` (refused, 400, where data
 * would be lost; core things are never removed). A dry run makes the same writes and rolls them
 * back, so it meets every refusal the apply would. Answers the differences.
 */
export async function applyProject(ctx: AppContext, document: unknown, options: { dryRun: boolean; delete: boolean }): Promise<ProjectDiff> {
  const wanted = checkDocument(document);
  let diff: ProjectDiff | null = null;
  try {
    await ctx.db.transaction().execute(async (trx) => {
      // This transaction's view: its own model, reloaded from the transaction by every write.
      const scoped: AppContext = { ...ctx, db: trx, model: { model: model(ctx) } };
      await reloadModel(scoped);
      const coreRoles = new Set((await allRoles(trx)).filter((r) => r.unchangeable).map((r) => r.name));
      const p = plan(scoped, wanted, await exportProject(scoped), coreRoles, options);
      diff = p.diff;
      const lost = await losses(scoped, p);
      if (lost.length) {
        throw new ApiError(400, 'model_removal_refused', `Removing these would lose data, so nothing was changed: ${lost.join('; ')}`, undefined, { refused: lost });
      }
      await write(scoped, wanted, p);
      if (options.dryRun) throw new DryRun();
    });
  } catch (err) {
    if (!(err instanceof DryRun)) throw err;
  } finally {
    await reloadModel(ctx);
  }
  const d = diff as unknown as ProjectDiff;
  d.applied = !options.dryRun && [d.create, d.update, d.remove].some((s) => Object.keys(s).length > 0);
  return d;
}
