// /model: object types, custom properties, property types and relations (admins write, users read) and the
// JSON Schema of every type at /model/schema/{type} (anyone reads).
import type { Request } from 'express';
import type { AppContext } from '../../context.js';
import { badRequest, forbidden, notFound } from '../../http/errors.js';
import { identifiersInput, sendLinks, sendList, sendNoContent, type Resource } from '../../http/jsonapi.js';
import { crudRoutes, includeRelated, type RelatedResources } from '../../http/crud.js';
import { baseUrl } from '../../http/links.js';
import { parseListQuery, type FieldKind } from '../../http/query.js';
import type { RouteDef } from '../../http/router.js';
import { model, relationNamesOf, reloadModel, typeByName, type ObjectType, type PropertyDef, type PropertyTypeDef, type RelationDef } from '../objects/model.js';
import { translatableFields } from '../translations/service.js';
import { objectTypeSchema, registerResourceSchema, resourceSchema, resourceSchemaContribution, type ResourceSchema } from '../objects/schema.js';
import { createObjectType, deleteObjectType, requireObjectType, serializeObjectType, updateObjectType } from './object-types.js';
import { allProperties, createProperty, deleteProperty, requireProperty, serializeProperty, updateProperty } from './properties.js';
import { createRelation, deleteRelation, requireRelation, serializeRelation, updateRelation, writeRelationSide } from './relations.js';
import { allPropertyTypes, createPropertyType, deletePropertyType, requirePropertyType, serializePropertyType, updatePropertyType } from './property-types.js';
import { serializeStaticProperty, staticProperties, type StaticProperty } from './static-properties.js';
import { applyProject } from './project.js';
import { exportProject } from './project-document.js';

const isStatic = (p: PropertyDef | StaticProperty): p is StaticProperty => typeof p.id === 'string';
const staticImmutable = (p: StaticProperty) => forbidden(`"${p.name}" is a static property of ${p.objectTypeName}: it cannot change or be removed (hide it with the type's "hidden")`, 'static_property');

/**
 * A list of in-memory model items: field filters (equality and operators), `q` over the text
 * fields, sort and pages, all checked by parseListQuery's allow-lists.
 */
function sendModelList<T>(
  req: Request,
  res: Parameters<RouteDef['handler']>[1],
  items: T[],
  fields: Record<string, FieldKind>,
  value: (item: T, field: string) => unknown,
  serialize: (item: T) => Resource,
  /** Further filters of this list: each is asked, present or not, for the items it keeps. */
  special: Record<string, (values: string[] | undefined) => (item: T) => boolean> = {},
  more: {
    /** Filters with nested values (`filter[by_relation][name]=…`), given when present. */
    structured?: Record<string, (raw: unknown) => (item: T) => boolean>;
    /** What `include=` takes, with each item's related resources. */
    includes?: RelatedResources<T>;
  } = {},
) {
  const structured = more.structured ?? {};
  const q = parseListQuery(req, { fields, special: ['query', ...Object.keys(special)], structured: Object.keys(structured), includes: Object.keys(more.includes ?? {}), defaultSort: 'id' });
  for (const [name, keep] of Object.entries(special)) items = items.filter(keep(q.special[name]));
  for (const [name, raw] of Object.entries(q.structured)) items = items.filter(structured[name](raw));
  let out = items.filter((item) =>
    q.filters.every((f) => {
      const v = value(item, f.field);
      const cmp = typeof v === 'boolean' ? Number(v) : v;
      const x = f.values[0];
      switch (f.op) {
        case 'null': return v === null || v === undefined;
        case 'notnull': return v !== null && v !== undefined;
        case 'eq': return f.values.some((y) => y === cmp);
        case 'ne': return !f.values.some((y) => y === cmp);
        case 'gt': return (cmp as number) > (x as number);
        case 'gte': return (cmp as number) >= (x as number);
        case 'lt': return (cmp as number) < (x as number);
        default: return (cmp as number) <= (x as number);
      }
    }),
  );
  if (q.special.query) {
    const words = q.special.query[0].toLowerCase().split(/\s+/).filter(Boolean);
    out = out.filter((item) => {
      const text = Object.keys(fields).map((f) => value(item, f)).filter((v) => typeof v === 'string').join(' ').toLowerCase();
      return words.every((w) => text.includes(w));
    });
  }
  for (const s of [...q.sort].reverse()) {
    out = [...out].sort((a, b) => {
      const va = value(a, s.field) as string | number;
      const vb = value(b, s.field) as string | number;
      const c = va === vb ? 0 : va === null ? -1 : vb === null ? 1 : va < vb ? -1 : 1;
      return s.desc ? -c : c;
    });
  }
  const rows = out.slice(q.offset, q.offset + q.pageSize);
  const page = rows.map(serialize);
  const included = more.includes ? includeRelated(req, rows.map((r, i) => [r, page[i]]), more.includes, q.include) : undefined;
  sendList(req, res, page, { count: out.length, page: q.page, pageSize: q.pageSize }, { included });
}

/** Default schemas of the non-object resources; their families may register richer ones. */
function registerDefaultSchemas(ctx: AppContext) {
  const meta = { type: 'string', format: 'date-time', isMeta: true };
  const defaults: Record<string, ResourceSchema> = {
    roles: resourceSchema(
      { name: { type: 'string', maxLength: 32, isMeta: false }, description: { type: ['string', 'null'], isMeta: false }, unchangeable: { type: 'boolean', default: false, isMeta: true }, created: meta, modified: meta },
      ['name'],
    ),
    streams: resourceSchema({
      file_name: { type: 'string', maxLength: 255, isMeta: false },
      mime_type: { type: 'string', maxLength: 255, isMeta: false },
      file_size: { type: 'integer', isMeta: true },
      hash_sha256: { type: 'string', isMeta: true },
      width: { type: ['integer', 'null'], isMeta: true },
      height: { type: ['integer', 'null'], isMeta: true },
      url: { type: 'string', format: 'uri', isMeta: true },
      created: meta,
      modified: meta,
    }),
    applications: resourceSchema(
      {
        name: { type: 'string', maxLength: 255, isMeta: false },
        description: { type: ['string', 'null'], isMeta: false },
        enabled: { type: 'boolean', default: true, isMeta: false },
        api_key: { type: 'string', isMeta: true },
        client_secret: { type: 'string', isMeta: true },
        created: meta,
        modified: meta,
        last_used: { type: ['string', 'null'], format: 'date-time', isMeta: true },
      },
      ['name'],
    ),
  };
  for (const [name, schema] of Object.entries(defaults)) {
    if (!resourceSchemaContribution(ctx, name)) registerResourceSchema(ctx, name, { schema: () => schema, revision: () => 1 });
  }
}

/**
 * What BEdita's schema of an object type adds to its properties: `translatable` (the fields a
 * translation may hold, sorted), `associations`, and `relations` by the name seen from the type
 * (its inverse name where the type is on the right) with their label, params and the types on
 * the other side (the BEdita Manager builds its relation panels from them).
 */
function beditaSchemaMembers(ctx: AppContext, type: ObjectType) {
  const relations: Record<string, { label: string | null; params: unknown; types: string[] }> = {};
  for (const { name, relation, inverse } of relationNamesOf(ctx, type.name)) {
    relations[name] = { label: inverse ? relation.inverseLabel : relation.label, params: relation.params ?? null, types: [...(inverse ? relation.left : relation.right)].sort() };
  }
  return { translatable: [...translatableFields(type)].sort(), associations: [...type.associations], relations };
}

/** The boolean query flags a /model/project request may carry (`1`/`true`, `0`/`false`); anything else is 400. */
function projectFlags(req: Request, names: string[]): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const [key, value] of Object.entries(req.query)) {
    if (!names.includes(key)) throw badRequest(`Unknown query parameter "${key}"${names.length ? ` (known: ${names.join(', ')})` : ''}`, 'invalid_parameter');
    if (!['1', 'true', '0', 'false'].includes(String(value))) throw badRequest(`"${key}" must be 1 or 0`, 'invalid_parameter');
    out[key] = value === '1' || value === 'true';
  }
  for (const name of names) out[name] ??= false;
  return out;
}

/** A plain JSON answer, `application/json` exactly (no charset: JSON is UTF-8 by definition). */
function sendPlainJson(res: Parameters<RouteDef['handler']>[1], body: unknown) {
  res.setHeader('Content-Type', 'application/json');
  res.status(200).send(Buffer.from(JSON.stringify(body, null, 2) + '\n'));
}

function requireStaticProperty(ctx: AppContext, key: string): StaticProperty {
  const p = staticProperties(ctx).find((x) => x.id === key);
  if (!p) throw notFound(`No property ${key}`);
  return p;
}

/** BEdita's `filter[parent]=<type name or id>` of /model/object_types: the types directly below it. */
function childTypesOf(ctx: AppContext, values: string[]): (t: ObjectType) => boolean {
  if (values.length !== 1) throw badRequest('filter[parent] takes one object type', 'invalid_filter');
  const parent = /^\d+$/.test(values[0]) ? [...model(ctx).types.values()].find((t) => t.id === Number(values[0])) : typeByName(ctx, values[0]);
  if (!parent) throw badRequest(`filter[parent]: unknown object type "${values[0]}"`, 'invalid_filter');
  return (t) => t.parentName === parent.name;
}

/**
 * BEdita's `filter[by_relation][name]=<relation or inverse name>` (`[side]=right|left`, default
 * right; `[descendants]=1` adds their sub-types): the object types on that side of the relation
 * as seen from the name — `right` the types it leads to, `left` the types that have it.
 */
function typesByRelation(ctx: AppContext, raw: unknown): (t: ObjectType) => boolean {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw badRequest('filter[by_relation] takes [name], and optionally [side] and [descendants]', 'invalid_filter');
  const { name, side = 'right', descendants, ...rest } = raw as Record<string, unknown>;
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined) throw badRequest(`filter[by_relation][${unknown}] is unknown; use name, side, descendants`, 'invalid_filter');
  if (typeof name !== 'string' || !name) throw badRequest('filter[by_relation][name] is required', 'invalid_filter');
  if (side !== 'right' && side !== 'left') throw badRequest('filter[by_relation][side] must be right or left', 'invalid_filter');
  if (descendants !== undefined && !['0', '1', 'true', 'false'].includes(String(descendants))) throw badRequest('filter[by_relation][descendants] must be true or false', 'invalid_filter');
  const names = new Set<string>();
  for (const r of model(ctx).relations) {
    // Following `name` leads to the right side of the relation it names, to the left of the one it is the inverse of.
    if (r.name === name) (side === 'right' ? r.right : r.left).forEach((n) => names.add(n));
    if (r.inverseName === name) (side === 'right' ? r.left : r.right).forEach((n) => names.add(n));
  }
  const withSubtypes = descendants === '1' || descendants === 'true';
  return (t) => names.has(t.name) || (withSubtypes && t.lineage.some((n) => names.has(n)));
}

/** include=left_object_types,right_object_types of /model/relations: the types on each side. */
const relationSideIncludes = (ctx: AppContext): RelatedResources<RelationDef> =>
  Object.fromEntries(
    (['left', 'right'] as const).map((side) => [
      `${side}_object_types`,
      (req: Request, r: RelationDef) => r[side].map((n) => typeByName(ctx, n)).filter((t): t is ObjectType => !!t).map((t) => serializeObjectType(req, ctx, t)),
    ]),
  );

export async function modelRoutes(ctx: AppContext): Promise<RouteDef[]> {
  await reloadModel(ctx);
  registerDefaultSchemas(ctx);
  const side = (req: Request) => (String(req.params.side) === 'left_object_types' ? 'left' : 'right') as 'left' | 'right';
  return [
    // ---- object types, custom properties, relations: admins write, users read ----
    ...crudRoutes<ObjectType>({
      path: '/model/object_types',
      writes: ['object_types', 'properties', 'relation_types'],
      type: 'object_types',
      guards: { read: 'user' },
      list: (req, res) =>
        sendModelList(
          req,
          res,
          [...model(ctx).types.values()],
          { id: 'integer', name: 'string', singular: 'string', description: 'string', parent_name: 'string', is_abstract: 'boolean', enabled: 'boolean', core_type: 'boolean' },
          (t, f) => ({ id: t.id, name: t.name, singular: t.singular, description: t.description, parent_name: t.parentName, is_abstract: t.isAbstract, enabled: t.enabled, core_type: t.coreType })[f],
          (t) => serializeObjectType(req, ctx, t),
          { parent: (values) => (values ? childTypesOf(ctx, values) : () => true) },
          { structured: { by_relation: (raw) => typesByRelation(ctx, raw) } },
        ),
      find: (key) => requireObjectType(ctx, key),
      idOf: (t) => t.id,
      create: async (attributes) => ({ row: await createObjectType(ctx, attributes) }),
      update: (t, attributes) => updateObjectType(ctx, t, attributes),
      remove: (t) => deleteObjectType(ctx, t),
      serialize: (req, t) => serializeObjectType(req, ctx, t),
    }),
    ...crudRoutes<PropertyDef | StaticProperty>({
      path: '/model/properties',
      writes: ['properties'],
      type: 'properties',
      guards: { read: 'user' },
      list: (req, res) =>
        sendModelList<PropertyDef | StaticProperty>(
          req,
          res,
          [...allProperties(ctx), ...staticProperties(ctx)],
          { id: 'integer', name: 'string', property_type_name: 'string', object_type_name: 'string', description: 'string', required: 'boolean', label: 'string', position: 'integer' },
          (p, f) =>
            ({
              id: isStatic(p) ? null : p.id,
              name: p.name,
              property_type_name: p.type,
              object_type_name: p.objectTypeName,
              description: p.description,
              required: p.required,
              label: isStatic(p) ? null : p.label,
              position: isStatic(p) ? null : p.position,
            })[f],
          (p) => (isStatic(p) ? serializeStaticProperty(req, p) : serializeProperty(req, p)),
          {
            // BEdita 5: `static` (core fields), `dynamic` (custom properties) or `both`; Folio lists the custom ones by default.
            type: (values) => {
              const kind = values?.[0] ?? 'dynamic';
              if (!['static', 'dynamic', 'both'].includes(kind) || (values?.length ?? 0) > 1) throw badRequest('filter[type] must be static, dynamic or both', 'invalid_filter');
              return (p) => kind === 'both' || isStatic(p) === (kind === 'static');
            },
            // Properties objects of that type have: its own and its ancestors'.
            object_type: (values) => {
              if (!values) return () => true;
              const lineage = values.flatMap((name) => {
                const t = typeByName(ctx, name);
                if (!t) throw badRequest(`filter[object_type]: unknown object type "${name}"`, 'invalid_filter');
                return t.lineage;
              });
              return (p) => lineage.includes(p.objectTypeName);
            },
          },
        ),
      find: (key) => (/^\d+$/.test(key) ? requireProperty(ctx, key) : requireStaticProperty(ctx, key)),
      idOf: (p) => p.id,
      create: async (attributes) => ({ row: await createProperty(ctx, attributes) }),
      update: (p, attributes) => (isStatic(p) ? Promise.reject(staticImmutable(p)) : updateProperty(ctx, p, attributes)),
      remove: (p) => (isStatic(p) ? Promise.reject(staticImmutable(p)) : deleteProperty(ctx, p)),
      serialize: (req, p) => (isStatic(p) ? serializeStaticProperty(req, p) : serializeProperty(req, p)),
    }),
    ...crudRoutes<PropertyTypeDef>({
      path: '/model/property_types',
      writes: ['property_types'],
      type: 'property_types',
      guards: { read: 'user' },
      list: (req, res) =>
        sendModelList(
          req,
          res,
          allPropertyTypes(ctx),
          { id: 'integer', name: 'string', core_type: 'boolean' },
          (t, f) => ({ id: t.id, name: t.name, core_type: t.coreType })[f],
          (t) => serializePropertyType(req, t),
        ),
      find: (key) => requirePropertyType(ctx, key),
      idOf: (t) => t.id,
      create: async (attributes) => ({ row: await createPropertyType(ctx, attributes) }),
      update: (t, attributes) => updatePropertyType(ctx, t, attributes),
      remove: (t) => deletePropertyType(ctx, t),
      serialize: serializePropertyType,
    }),
    ...crudRoutes<RelationDef>({
      path: '/model/relations',
      writes: ['relations', 'relation_types'],
      key: 'relation',
      type: 'relations',
      guards: { read: 'user' },
      list: (req, res) =>
        sendModelList(
          req,
          res,
          model(ctx).relations,
          { id: 'integer', name: 'string', inverse_name: 'string', label: 'string', inverse_label: 'string', description: 'string' },
          (r, f) => ({ id: r.id, name: r.name, inverse_name: r.inverseName, label: r.label, inverse_label: r.inverseLabel, description: r.description })[f],
          (r) => serializeRelation(req, r),
          {},
          { includes: relationSideIncludes(ctx) },
        ),
      find: (key) => requireRelation(ctx, key),
      idOf: (r) => r.id,
      create: async (attributes) => ({ row: await createRelation(ctx, attributes) }),
      update: (r, attributes) => updateRelation(ctx, r, attributes),
      remove: (r) => deleteRelation(ctx, r),
      serialize: serializeRelation,
      includes: relationSideIncludes(ctx),
    }),
    {
      method: 'get',
      path: '/model/relations/:relation/:side',
      guard: 'user',
      handler: (req, res) => {
        if (!['left_object_types', 'right_object_types'].includes(String(req.params.side))) throw notFound(`No route for ${req.path}`, 'route_not_found');
        const r = requireRelation(ctx, String(req.params.relation));
        const types = (side(req) === 'left' ? r.left : r.right).map((n) => typeByName(ctx, n)!);
        sendModelList(req, res, types, { id: 'integer', name: 'string' }, (t, f) => (f === 'id' ? t.id : t.name), (t) => serializeObjectType(req, ctx, t));
      },
    },
    ...(['post', 'patch', 'delete'] as const).map(
      (method): RouteDef => ({
        method,
        path: '/model/relations/:relation/relationships/:side',
        guard: 'admin',
        writes: ['relation_types'],
        handler: async (req, res) => {
          if (!['left_object_types', 'right_object_types'].includes(String(req.params.side))) throw notFound(`No route for ${req.path}`, 'route_not_found');
          const r = requireRelation(ctx, String(req.params.relation));
          const items = identifiersInput(req).map((i, n) => {
            if (i.type !== 'object_types') throw badRequest(`data[${n}].type must be object_types`, 'invalid_body');
            return i.id;
          });
          await writeRelationSide(ctx, r, side(req), items, method === 'post' ? 'add' : method === 'patch' ? 'replace' : 'remove');
          if (method === 'delete') sendNoContent(res);
          else sendLinks(req, res);
        },
      }),
    ),
    // ---- the whole model as one plain JSON document (BEdita 5's /model/project) ----
    {
      method: 'get',
      path: '/model/project',
      guard: 'admin',
      produces: 'json',
      handler: async (req, res) => {
        projectFlags(req, []);
        sendPlainJson(res, await exportProject(ctx));
      },
    },
    {
      method: 'post',
      path: '/model/project',
      writes: ['object_types', 'properties', 'property_types', 'relations', 'relation_types', 'categories', 'tags', 'roles', 'applications'],
      guard: 'admin',
      produces: 'json',
      handler: async (req, res) => {
        const flags = projectFlags(req, ['dry_run', 'delete']);
        sendPlainJson(res, await applyProject(ctx, req.body, { dryRun: flags.dry_run, delete: flags.delete }));
      },
    },
    // ---- schema ----
    {
      method: 'get',
      path: '/model/schema/:type',
      guard: 'anonymous',
      produces: 'schema',
      handler: (req, res) => {
        const name = String(req.params.type);
        const contribution = resourceSchemaContribution(ctx, name);
        const type = typeByName(ctx, name);
        let schema: ResourceSchema;
        let revision: number;
        if (contribution) {
          schema = contribution.schema(ctx);
          revision = contribution.revision(ctx);
        } else if (type && type.enabled) {
          schema = { ...objectTypeSchema(type), ...beditaSchemaMembers(ctx, type) };
          revision = type.revision;
        } else {
          throw notFound(`No schema for "${name}"`);
        }
        const { $schema, ...rest } = schema;
        res.setHeader('ETag', `"${name}-${revision}"`);
        res.status(200).send(Buffer.from(JSON.stringify({ $schema, $id: `${baseUrl(req)}/model/schema/${name}`, revision, ...rest })));
      },
    },
  ];
}
