// The model in memory: object types (with parents and custom properties) and relations (with
// their left and right types), loaded from the database at start and reloaded after every model
// write. Reads are synchronous, so routes can decide from a path whether it names a type.
import type { Kysely, Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Database } from '../../db/tables.js';

declare module '../../context.js' {
  interface AppContext {
    /** The object model (types, properties, relations) as loaded from the database. */
    model: ModelHolder;
  }
}


type Db = Kysely<Database> | Transaction<Database>;

/** Folio's first ten property types (the contract's); `property_types` holds them and any other. */
export const PROPERTY_TYPES = ['string', 'text', 'integer', 'number', 'boolean', 'date', 'datetime', 'json', 'email', 'url'] as const;

/** A property type: its values must match `params`, a JSON Schema fragment (BEdita 5's `property_types`). */
export interface PropertyTypeDef {
  id: number;
  name: string;
  params: Record<string, unknown>;
  coreType: boolean;
  created: string;
  modified: string;
}

/** BEdita 5's associations a type may name: which extra data its objects carry. */
export const ASSOCIATIONS = ['Categories', 'Tags', 'DateRanges', 'Streams', 'Permissions'] as const;
export type AssociationName = (typeof ASSOCIATIONS)[number];

/** Attributes every object has (the `objects` row's own columns). */
export const CORE_ATTRIBUTES = ['status', 'uname', 'title', 'description', 'body', 'lang', 'extra', 'publish_start', 'publish_end'] as const;
export const META_FIELDS = ['locked', 'created', 'modified', 'published', 'created_by', 'modified_by'] as const;

export interface PropertyDef {
  id: number;
  name: string;
  /** Its property type's name (`property_types.name`). */
  type: string;
  /** Its property type's JSON Schema fragment (not yet nullable; see schema.ts nullableFragment). */
  params: Record<string, unknown>;
  description: string | null;
  required: boolean;
  /** The name editors read (null: none given). */
  label: string | null;
  /** Its place among its type's properties (null: after the placed ones). */
  position: number | null;
  /** One of the core type's own fields (BEdita's static properties): not changed through /model/properties. */
  isStatic: boolean;
  /** The type that declares it (sub-types inherit it). */
  objectTypeName: string;
  created: string;
  modified: string;
}

export interface ObjectType {
  id: number;
  name: string;
  singular: string;
  description: string | null;
  parentId: number | null;
  parentName: string | null;
  isAbstract: boolean;
  enabled: boolean;
  coreType: boolean;
  revision: number;
  created: string;
  modified: string;
  /** This type's name and its ancestors' names, nearest first. */
  lineage: string[];
  /** Custom properties, inherited ones first (hidden ones included: see `hidden`). */
  properties: PropertyDef[];
  /** BEdita's `table`, e.g. `BEdita/Core.Objects` (read back as stored). */
  table: string;
  /** Associations of this type (BEdita: `Categories`, `Tags`, `DateRanges`…); [] when none. */
  associations: string[];
  /** Properties left out of this type (not in its schema, not written, not shown); [] when none. */
  hidden: string[];
  isTranslatable: boolean;
  /** Property → true (always translatable) or false (never); null when the type has none. */
  translationRules: Record<string, boolean> | null;
  /** Template of a site's preview link of a draft (`{type}`, `{id}`, `{uname}`, `{token}`), or null. */
  previewUrl: string | null;
}

export interface RelationDef {
  id: number;
  name: string;
  inverseName: string;
  label: string | null;
  inverseLabel: string | null;
  description: string | null;
  params: unknown;
  created: string;
  modified: string;
  /** Type names declared on each side (abstract names cover their sub-types). */
  left: string[];
  right: string[];
}

export interface Model {
  types: Map<string, ObjectType>;
  typesById: Map<number, ObjectType>;
  relations: RelationDef[];
  /** Property types by name. */
  propertyTypes: Map<string, PropertyTypeDef>;
}

const jsonList = (text: string | null): string[] => {
  const v = text ? (JSON.parse(text) as unknown) : null;
  return Array.isArray(v) ? v.map(String) : [];
};

async function loadModel(db: Db): Promise<Model> {
  const typeRows = await db.selectFrom('object_types').selectAll().orderBy('id').execute();
  // Placed properties first, by position; the others after them, by creation.
  const propRows = (await db.selectFrom('properties').selectAll().orderBy('id').execute()).sort(
    (a, b) => (a.position ?? Number.MAX_SAFE_INTEGER) - (b.position ?? Number.MAX_SAFE_INTEGER) || Number(a.id) - Number(b.id),
  );
  const relRows = await db.selectFrom('relations').selectAll().orderBy('id').execute();
  const sideRows = await db.selectFrom('relation_types').selectAll().orderBy('id').execute();
  const propertyTypeRows = await db.selectFrom('property_types').selectAll().orderBy('id').execute();
  const propertyTypes = new Map<string, PropertyTypeDef>(
    propertyTypeRows.map((r) => [
      r.name,
      { id: Number(r.id), name: r.name, params: r.params ? (JSON.parse(r.params) as Record<string, unknown>) : {}, coreType: Boolean(r.core_type), created: r.created, modified: r.modified },
    ]),
  );
  const rowsById = new Map(typeRows.map((t) => [Number(t.id), t]));
  const types = new Map<string, ObjectType>();
  const typesById = new Map<number, ObjectType>();
  for (const t of typeRows) {
    const lineage: string[] = [];
    const chain: number[] = [];
    for (let cur: typeof t | undefined = t; cur && !chain.includes(Number(cur.id)); cur = cur.parent_id === null ? undefined : rowsById.get(Number(cur.parent_id))) {
      chain.push(Number(cur.id));
      lineage.push(cur.name);
    }
    const properties: PropertyDef[] = [];
    for (const typeId of [...chain].reverse()) {
      for (const p of propRows) {
        if (Number(p.object_type_id) !== typeId) continue;
        properties.push({
          id: Number(p.id),
          name: p.name,
          type: p.property_type_name,
          params: propertyTypes.get(p.property_type_name)?.params ?? {},
          description: p.description,
          required: Boolean(p.required),
          label: p.label ?? null,
          position: p.position === null || p.position === undefined ? null : Number(p.position),
          isStatic: Boolean(p.is_static),
          objectTypeName: rowsById.get(typeId)!.name,
          created: p.created,
          modified: p.modified,
        });
      }
    }
    const type: ObjectType = {
      id: Number(t.id),
      name: t.name,
      singular: t.singular,
      description: t.description,
      parentId: t.parent_id === null ? null : Number(t.parent_id),
      parentName: t.parent_id === null ? null : (rowsById.get(Number(t.parent_id))?.name ?? null),
      isAbstract: Boolean(t.is_abstract),
      enabled: Boolean(t.enabled),
      coreType: Boolean(t.core_type),
      revision: Number(t.revision),
      created: t.created,
      modified: t.modified,
      lineage,
      properties,
      table: t.table_name,
      associations: jsonList(t.associations),
      hidden: jsonList(t.hidden),
      isTranslatable: Boolean(t.is_translatable),
      translationRules: t.translation_rules ? (JSON.parse(t.translation_rules) as Record<string, boolean>) : null,
      previewUrl: t.preview_url ?? null,
    };
    types.set(type.name, type);
    typesById.set(type.id, type);
  }
  const relations: RelationDef[] = relRows.map((r) => {
    const sides = sideRows.filter((s) => Number(s.relation_id) === Number(r.id));
    const names = (side: string) => sides.filter((s) => s.side === side).map((s) => typesById.get(Number(s.object_type_id))?.name).filter((n): n is string => !!n);
    return {
      id: Number(r.id),
      name: r.name,
      inverseName: r.inverse_name,
      label: r.label,
      inverseLabel: r.inverse_label,
      description: r.description,
      params: r.params === null ? null : JSON.parse(r.params),
      created: r.created,
      modified: r.modified,
      left: names('left'),
      right: names('right'),
    };
  });
  return { types, typesById, relations, propertyTypes };
}

/** The model loaded in a server (AppContext.model). */
export interface ModelHolder {
  model?: Model;
}

const holder = (ctx: AppContext) => ctx.model;

/** Load (or reload, after a committed model write) the model into the context. */
export async function reloadModel(ctx: AppContext): Promise<Model> {
  const model = await loadModel(ctx.db);
  holder(ctx).model = model;
  // Answers cached under the old model (schemas, relationships, lists) are stale now.
  ctx.dataVersion.bump();
  return model;
}

/**
 * What the request middleware awaits so that a request sees the model as of the model version
 * (DataVersion.model) it starts under, after another process or instance changed it. `loaded` is
 * the version read before the load that made the model in memory, so it never claims more than
 * the load saw. A request that finds a reload under way waits for it and then, if that reload
 * began before its version, loads again: a reload that had read part of the model before the
 * change must not answer for it (the change would then stay unseen until the next model change).
 */
export function modelFollower(ctx: AppContext): () => Promise<void> | undefined {
  let loaded = ctx.dataVersion.model();
  let reload: Promise<void> | null = null;
  const latest = async () => {
    const fresh = ctx.dataVersion.refresh();
    if (typeof fresh !== 'number') await fresh;
    return ctx.dataVersion.model();
  };
  const load = async () => {
    // Loaded again while the version moves during a load (a few times at most; a later request
    // then loads again).
    for (let attempt = 0; attempt < 3; attempt++) {
      const before = await latest();
      await reloadModel(ctx);
      loaded = before;
      if ((await latest()) === before) return;
    }
  };
  const follow = async () => {
    if (reload) await reload;
    if (ctx.dataVersion.model() === loaded) return;
    reload ??= load().finally(() => (reload = null));
    await reload;
  };
  // Nothing to wait for (every request but the first after a change of the model): no promise.
  return () => (ctx.dataVersion.model() === loaded ? undefined : follow());
}

export function model(ctx: AppContext): Model {
  const m = holder(ctx).model;
  if (!m) throw new Error('the object model is not loaded yet (objects family not wired)');
  return m;
}

export const typeByName = (ctx: AppContext, name: string): ObjectType | undefined => model(ctx).types.get(name);
export const typeById = (ctx: AppContext, id: number): ObjectType | undefined => model(ctx).typesById.get(id);

/** Whether objects of the type carry the extra data of an association (`Categories`, `Tags`, `DateRanges`…). */
export const hasAssociation = (type: ObjectType, association: AssociationName): boolean => type.associations.includes(association);

/** Whether translations of the type's objects may hold `field`: its `translation_rules` first, else `fallback`. */
export function translatableField(type: ObjectType, field: string, fallback: boolean): boolean {
  if (!type.isTranslatable) return false;
  const rule = type.translationRules?.[field];
  return typeof rule === 'boolean' ? rule : fallback;
}

/** The custom properties objects of the type show and accept (its hidden ones left out). */
export const visibleProperties = (type: ObjectType): PropertyDef[] => type.properties.filter((p) => !type.hidden.includes(p.name));

/** True when `name` is `ancestor` or one of its sub-types. */
export function isSubtypeOf(ctx: AppContext, name: string, ancestor: string): boolean {
  return typeByName(ctx, name)?.lineage.includes(ancestor) ?? false;
}

/** Whether no other type (enabled or not) extends `type`: an object found under its name is of that very type. */
export function isLeafType(ctx: AppContext, type: ObjectType): boolean {
  for (const t of model(ctx).types.values()) if (t !== type && t.lineage.includes(type.name)) return false;
  return true;
}

/** Enabled, non-abstract types under `of` (default: every one), by name. */
export function concreteTypeNames(ctx: AppContext, of = 'objects'): string[] {
  return [...model(ctx).types.values()].filter((t) => !t.isAbstract && t.enabled && t.lineage.includes(of)).map((t) => t.name);
}

/** The type behind `/{name}`: enabled and not abstract; users keep their own family's routes. */
export function endpointType(ctx: AppContext, name: string | undefined): ObjectType | undefined {
  const t = name ? typeByName(ctx, name) : undefined;
  return t && !t.isAbstract && t.enabled && t.name !== 'users' ? t : undefined;
}

/** A relation by id, name or inverse name, with the side the name reads from. */
export function findRelation(ctx: AppContext, key: string): { relation: RelationDef; inverse: boolean } | undefined {
  for (const relation of model(ctx).relations) {
    if (relation.name === key || String(relation.id) === key) return { relation, inverse: false };
    if (relation.inverseName === key) return { relation, inverse: true };
  }
  return undefined;
}

/** Whether objects of `typeName` may stand on a side given by type names (abstract names cover sub-types). */
export function typeAllowedOn(ctx: AppContext, typeName: string, side: string[]): boolean {
  const lineage = typeByName(ctx, typeName)?.lineage ?? [];
  return side.some((s) => lineage.includes(s));
}

export type RelationName = Readonly<{ name: string; relation: RelationDef; inverse: boolean }>;

/** relationNamesOf's answers per loaded model (a reload makes a new Model: the old answers go with it). */
const relationNamesByModel = new WeakMap<Model, Map<string, readonly RelationName[]>>();

/**
 * Relation names readable from objects of a type: `name` when it is on the left, `inverse_name`
 * on the right. Worked out once per type and model (every read of an object asks): shared, so
 * never changed by a caller.
 */
export function relationNamesOf(ctx: AppContext, typeName: string): readonly RelationName[] {
  const m = model(ctx);
  let byType = relationNamesByModel.get(m);
  if (!byType) relationNamesByModel.set(m, (byType = new Map()));
  let out = byType.get(typeName);
  if (!out) {
    const names: RelationName[] = [];
    for (const relation of m.relations) {
      if (typeAllowedOn(ctx, typeName, relation.left)) names.push(Object.freeze({ name: relation.name, relation, inverse: false }));
      if (typeAllowedOn(ctx, typeName, relation.right)) names.push(Object.freeze({ name: relation.inverseName, relation, inverse: true }));
    }
    out = Object.freeze(names);
    // Only names of types the model has are kept (a path's unknown name asks too).
    if (m.types.has(typeName)) byType.set(typeName, out);
  }
  return out;
}
