// The model as code, applied (`POST /model/project`, `npm run model apply`): the differences
// between a document (project-document.ts) and the model, per section and item, written in one
// transaction through the model family's own write functions, so every rule of the single
// endpoints holds. The writes run on a context whose `db` is the transaction and whose model is
// its own (writeModel reloads it from the transaction), so a later item sees what an earlier one
// made and nobody else sees anything before the commit.
import type { AppContext } from '../../context.js';
import { ApiError, badRequest } from '../../http/errors.js';
import { validateAttributes } from '../accounts/schemas.js';
import { allApplications, createApplication, updateApplication, deleteApplication, type ApplicationRow } from '../applications/service.js';
import { model, reloadModel, typeByName } from '../objects/model.js';
import { validatePermissions } from '../permissions/rules.js';
import { allRoles, createRole, deleteRole, updateRole, usersOfRole, type RoleInput, type RoleRow } from '../roles/service.js';
import { allTerms, createTerm, removeTerm, termUses, updateTerm, type TermKind, type TermRow } from '../terms/vocabulary.js';
import { createPropertyType, deletePropertyType, updatePropertyType } from './property-types.js';
import { createObjectType, deleteObjectType, updateObjectType } from './object-types.js';
import { allProperties, createProperty, deleteProperty, updateProperty } from './properties.js';
import { createRelation, deleteRelation, updateRelation, writeRelationSide } from './relations.js';
import { linksOfRelation, objectsOfType, valuesOfProperty } from './service.js';
import {
  changesOf,
  checkDocument,
  exportProject,
  FIELDS,
  keyOf,
  modelError,
  normalized,
  refOf,
  SECTIONS,
  type FieldChanges,
  type ProjectDiff,
  type ProjectItem,
  type ProjectModel,
  type Section,
} from './project-document.js';

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
    // A property a core type has as its own field (BEdita's static ones: profiles' `city`…) is there already.
    const ownField = (i: ProjectItem) => section === 'properties' && !!typeByName(ctx, String(i.object))?.properties.some((x) => x.isStatic && x.name === i.name);
    const creates = items.filter((i) => !have.has(keyOf(section, i)) && !ownField(i));
    const updates = items.flatMap((item) => {
      const before = have.get(keyOf(section, item));
      const changes = before ? changesOf(ctx, section, item, before) : {};
      return Object.keys(changes).length ? [{ item, changes }] : [];
    });
    const absent = current[section].filter((i) => !want.has(keyOf(section, i)));
    const isCore = (i: ProjectItem) => (section === 'object_types' && coreTypes.has(String(i.name))) || (section === 'roles' && coreRoles.has(String(i.name)));
    const removes = options.delete ? absent.filter((i) => !isCore(i)) : [];
    const kept = [
      ...absent.filter((i) => !removes.includes(i)).map((i) => ({ ...refOf(section, i), reason: isCore(i) ? CORE_REASON : 'not in the file (removed only with delete)' })),
      ...items.filter((i) => !have.has(keyOf(section, i)) && ownField(i)).map((i) => ({ ...refOf(section, i), reason: 'a field of the core type' })),
    ];
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
  const toProperty = (item: ProjectItem) => ({ ...pick(item, ['name', 'description', 'required', 'label', 'position']), ...(item.object !== undefined ? { object_type_name: item.object } : {}), ...(item.property !== undefined ? { property_type_name: item.property } : {}) });
  for (const item of creates('properties')) await step('properties', item, wanted, () => createProperty(ctx, toProperty(item)));
  for (const { item, changes } of updates('properties')) {
    const prop = allProperties(ctx).find((x) => x.name === item.name && x.objectTypeName === item.object)!;
    await step('properties', item, wanted, () => updateProperty(ctx, prop, { ...changed(changes, item, ['description', 'required', 'label', 'position']), ...('property' in changes ? { property_type_name: item.property } : {}) }));
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
