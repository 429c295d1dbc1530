// The model as code, its document: one plain JSON document in BEdita 5's layout
// (ProjectModel::generate, plus Folio's tags and role permissions) — its sections and fields, the
// export of the current model, comparing an item with the model's, and the checks of a document
// sent to POST /model/project. Applying one: project.ts.
import type { AppContext } from '../../context.js';
import { ApiError, badRequest } from '../../http/errors.js';
import { allApplications } from '../applications/service.js';
import { model } from '../objects/model.js';
import { parsePermissions, validatePermissions } from '../permissions/rules.js';
import { allRoles } from '../roles/service.js';
import { allTerms, termLabels, type TermKind, type TermRow } from '../terms/vocabulary.js';
import { allPropertyTypes } from './property-types.js';
import { allProperties } from './properties.js';
import { objectTypeAttributes } from './object-types.js';

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
export const FIELDS: Record<Section, { fields: string[]; ignored?: string[] }> = {
  applications: { fields: ['description', 'enabled'] },
  roles: { fields: ['description', 'permissions'] },
  property_types: { fields: ['params'] },
  object_types: {
    fields: ['singular', 'description', 'parent_name', 'is_abstract', 'enabled', 'table', 'associations', 'hidden', 'is_translatable', 'translation_rules', 'preview_url'],
    ignored: ['core_type', 'alias'],
  },
  relations: { fields: ['label', 'inverse_name', 'inverse_label', 'description', 'params', 'left', 'right'] },
  // BEdita's properties carry is_nullable, read_only and default_value, which Folio has not;
  // `label` and `position` only when set (a file without them changes neither).
  properties: { fields: ['property', 'description', 'required', 'label', 'position'], ignored: ['is_nullable', 'read_only', 'default_value', 'enabled', 'is_static'] },
  categories: { fields: ['label', 'labels', 'parent', 'enabled'] },
  tags: { fields: ['label', 'labels', 'enabled'] },
};
export const BY_OBJECT: Section[] = ['properties', 'categories'];

// ---- export ----

const byName = (a: ProjectItem, b: ProjectItem) => compareText(a.name, b.name) || compareText(a.object ?? '', b.object ?? '');
const compareText = (a: unknown, b: unknown) => (String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0);

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
    object_types: [...m.types.values()].map(objectTypeAttributes).sort(byName),
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
    properties: allProperties(ctx)
      .map((p) => ({ name: p.name, object: p.objectTypeName, property: p.type, description: p.description, required: p.required, ...(p.label ? { label: p.label } : {}), ...(p.position !== null ? { position: p.position } : {}) }))
      .sort(byName),
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
export function normalized(ctx: AppContext, section: Section, field: string, value: unknown): unknown {
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
export function changesOf(ctx: AppContext, section: Section, wanted: ProjectItem, current: ProjectItem): FieldChanges {
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

export const keyOf = (section: Section, item: ProjectItem) => (BY_OBJECT.includes(section) ? `${String(item.object ?? '')}/${String(item.name)}` : String(item.name));
export const refOf = (section: Section, item: ProjectItem): ItemRef => (BY_OBJECT.includes(section) ? { name: String(item.name), object: (item.object as string | null) ?? null } : { name: String(item.name) });
const describe = (section: Section, item: ProjectItem) => `${section} "${BY_OBJECT.includes(section) && item.object ? `${String(item.object)}.` : ''}${String(item.name)}"`;

/** The sections the document gives, each a list of items with a name and known fields (400 otherwise). */
export function checkDocument(doc: unknown): ProjectModel {
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
export function modelError(section: Section, index: number | null, item: ProjectItem | null, code: string, detail: string): ApiError {
  const where = item ? describe(section, item) : index === null ? `"${section}"` : `${section}[${index}]`;
  return new ApiError(400, code, `${where}: ${detail}`, undefined, { section, ...(item ? { item: refOf(section, item) } : {}) }, undefined, {
    pointer: index === null ? `/${section}` : `/${section}/${index}`,
  });
}
