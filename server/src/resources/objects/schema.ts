// JSON Schema (draft 06) of every object type, built from the model, plus the schemas other
// families contribute for their resources (roles, streams, applications…). The validator
// compiles the very schema /model/schema/{type} serves, so clients read the server's rule.
import { createRequire } from 'node:module';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { AppContext } from '../../context.js';
import type { Request } from 'express';
import { ApiError, badRequest } from '../../http/errors.js';
import { booleanInput, inputValue } from '../../http/input-values.js';
import { resourceInput, type ResourceInput } from '../../http/jsonapi.js';
import { strictHandling } from '../../http/negotiate.js';
import { hasAssociation, visibleProperties, type ObjectType } from './model.js';

declare module '../../context.js' {
  interface AppContext {
    /** Schemas contributed by families and validators compiled from them. */
    schemas: SchemaRegistry;
  }
}


const require = createRequire(import.meta.url);
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

export const SCHEMA_DRAFT = 'http://json-schema.org/draft-06/schema#';

export interface PropertySchema {
  $id?: string;
  type?: string | string[];
  isMeta: boolean;
  [key: string]: unknown;
}

/** A schema without `$id` (added when served, from the request's base URL). */
export interface ResourceSchema {
  $schema?: string;
  type: 'object';
  properties: Record<string, PropertySchema>;
  required: string[];
  additionalProperties?: boolean;
  [key: string]: unknown;
}

/** What a family registers to describe its resource type at /model/schema/{name}. */
export interface SchemaContribution {
  /** The schema; `revision` changes whenever it does. */
  schema(ctx: AppContext): ResourceSchema;
  revision(ctx: AppContext): number;
}

const ANY_JSON = ['object', 'array', 'string', 'number', 'boolean', 'null'];

/**
 * A property type's fragment as a property's schema: custom properties are nullable, so `null`
 * joins its `type` (and its `enum`); a fragment without a `type` or `enum` that may not match
 * null is wrapped (BEdita 5 wraps every one in `oneOf`; adding `null` keeps error messages plain).
 */
export function nullableFragment(params: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...params };
  if (out.type !== undefined) {
    const types = ([] as unknown[]).concat(out.type);
    out.type = types.includes('null') ? out.type : [...types, 'null'];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
    return out;
  }
  if (Array.isArray(out.enum)) {
    if (!out.enum.includes(null)) out.enum = [...out.enum, null];
    return out;
  }
  return Object.keys(out).length ? { anyOf: [{ type: 'null' }, out] } : out;
}

/** Keywords that reach outside a fragment or change how it compiles: a property type's params may not use them, at any depth. */
const FOREIGN_KEYWORDS = ['$async', '$id', 'id', '$ref', '$schema', '$defs', '$anchor', '$dynamicRef', '$dynamicAnchor', '$recursiveRef', '$recursiveAnchor'];

function foreignKeyword(value: unknown): string | undefined {
  if (Array.isArray(value)) {
    for (const v of value) {
      const found = foreignKeyword(v);
      if (found) return found;
    }
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (FOREIGN_KEYWORDS.includes(k)) return k;
      const found = foreignKeyword(v);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * Why a property type's `params` cannot validate values on its own, or null when it can: a
 * keyword of FOREIGN_KEYWORDS anywhere, a fragment the draft 06 meta-schema refuses, or one Ajv
 * does not compile as a property of an object schema (the way objectTypeSchema embeds it).
 */
export function fragmentProblem(ajv: Ajv, fragment: Record<string, unknown>): string | null {
  if (!fragment || typeof fragment !== 'object' || Array.isArray(fragment)) return 'it must be an object';
  const foreign = foreignKeyword(fragment);
  if (foreign) return `"${foreign}" is not allowed (a fragment must validate values on its own)`;
  try {
    if (!ajv.validateSchema({ $schema: SCHEMA_DRAFT, ...fragment })) return ajv.errorsText(ajv.errors, { dataVar: 'params' });
    ajv.compile({ type: 'object', properties: { value: nullableFragment(fragment) } });
  } catch (err) {
    return (err as Error).message;
  }
  return null;
}

function withIds(properties: Record<string, PropertySchema>): Record<string, PropertySchema> {
  return Object.fromEntries(Object.entries(properties).map(([name, p]) => [name, { $id: `/properties/${name}`, ...p }]));
}

/** The schema of an object type: core attributes, meta and the type's custom properties. */
export function objectTypeSchema(type: ObjectType): ResourceSchema {
  const properties: Record<string, PropertySchema> = {
    title: { type: ['string', 'null'], isMeta: false },
    description: { type: ['string', 'null'], isMeta: false },
    body: { type: ['string', 'null'], isMeta: false },
    lang: { type: ['string', 'null'], maxLength: 32, isMeta: false },
    status: { type: 'string', enum: ['on', 'draft', 'off'], default: 'draft', isMeta: false },
    // Not digits only: a relationship's or a path's `id` may be a uname (BEdita's notNumeric).
    uname: { type: 'string', maxLength: 255, pattern: '^$|\\D', isMeta: false },
    extra: { type: ANY_JSON, isMeta: false },
    publish_start: { type: ['string', 'null'], format: 'date-time', isMeta: false },
    publish_end: { type: ['string', 'null'], format: 'date-time', isMeta: false },
  };
  for (const p of visibleProperties(type)) {
    properties[p.name] = { ...nullableFragment(p.params), ...(p.label ? { title: p.label } : {}), ...(p.description ? { description: p.description } : {}), isMeta: false };
  }
  // Associations shown as properties, as BEdita's ObjectType::associationProperties (the terms
  // extension takes them out of a write before this schema checks it).
  for (const [association, name] of [['Tags', 'tags'], ['Categories', 'categories'], ['DateRanges', 'date_ranges']] as const) {
    if (hasAssociation(type, association)) properties[name] = { oneOf: [{ type: 'null' }, { type: 'array', uniqueItems: true, items: { type: 'object' } }], title: association, isMeta: false };
  }
  // Hidden core properties are left out too: not served, not accepted, not shown.
  for (const name of type.hidden) delete properties[name];
  Object.assign(properties, {
    locked: { type: 'boolean', default: false, isMeta: true },
    created: { type: 'string', format: 'date-time', isMeta: true },
    modified: { type: 'string', format: 'date-time', isMeta: true },
    published: { type: ['string', 'null'], format: 'date-time', isMeta: true },
    created_by: { type: ['integer', 'null'], isMeta: true },
    modified_by: { type: ['integer', 'null'], isMeta: true },
  });
  return {
    $schema: SCHEMA_DRAFT,
    type: 'object',
    properties: withIds(properties),
    required: visibleProperties(type).filter((p) => p.required).map((p) => p.name),
    additionalProperties: false,
  };
}

// ---- contributions of other families ----

/**
 * A server's schemas: what families contributed, and the validators compiled from served schemas
 * (AppContext.schemas; nothing is shared between servers of one process).
 */
export interface SchemaRegistry {
  contributions: Map<string, SchemaContribution>;
  ajv: Ajv;
  compiled: Map<string, { revision: string; text: string; validate: ValidateFunction }>;
  /** Schemas are never changed once made (a model change makes new ones): their text, once. */
  texts: WeakMap<ResourceSchema, string>;
  /** The schema of each loaded object type (a model reload makes new type objects). */
  typeSchemas: WeakMap<ObjectType, ResourceSchema>;
}

export function createSchemaRegistry(): SchemaRegistry {
  const ajv = new Ajv({ allErrors: true, allowUnionTypes: true, strict: false, useDefaults: false });
  addFormats(ajv);
  ajv.addMetaSchema(require('ajv/dist/refs/json-schema-draft-06.json'));
  return { contributions: new Map(), ajv, compiled: new Map(), texts: new WeakMap(), typeSchemas: new WeakMap() };
}

const contributions = (ctx: AppContext) => ctx.schemas.contributions;

/** Describe a resource type at /model/schema/{name}; a later registration replaces an earlier one. */
export function registerResourceSchema(ctx: AppContext, name: string, contribution: SchemaContribution): void {
  contributions(ctx).set(name, contribution);
}

export function resourceSchemaContribution(ctx: AppContext, name: string): SchemaContribution | undefined {
  return contributions(ctx).get(name);
}

/** Helper for contributions: properties with `$id` set from their names. */
export function resourceSchema(properties: Record<string, PropertySchema>, required: string[] = []): ResourceSchema {
  return { $schema: SCHEMA_DRAFT, type: 'object', properties: withIds(properties), required, additionalProperties: false };
}

// ---- validation ----


/** Compile a served schema for input: `$id`s, `isMeta` and meta properties removed; `required` only on create. */
function validatorFor(registry: SchemaRegistry, cacheKey: string, revisionKey: string, schema: ResourceSchema, partial: boolean): ValidateFunction {
  const { compiled, texts: schemaTexts, ajv } = registry;
  const key = `${cacheKey}:${partial ? 'patch' : 'create'}`;
  // The schema text is part of the check: servers in one process may share a name and revision.
  let text = schemaTexts.get(schema);
  if (text === undefined) schemaTexts.set(schema, (text = JSON.stringify(schema)));
  // (Compared apart: the text is the same string each time, so the check costs no copy of it.)
  const hit = compiled.get(key);
  if (hit && hit.revision === revisionKey && hit.text === text) return hit.validate;
  const properties: Record<string, unknown> = {};
  for (const [name, p] of Object.entries(schema.properties)) {
    if (p.isMeta) continue;
    const { $id: _id, isMeta: _m, ...rest } = p;
    properties[name] = rest;
  }
  const input = { type: 'object', properties, required: partial ? [] : schema.required, additionalProperties: schema.additionalProperties ?? false };
  const validate = ajv.compile(input);
  compiled.set(key, { revision: revisionKey, text, validate });
  return validate;
}

function describe(err: ErrorObject): { field: string; message: string } {
  if (err.keyword === 'additionalProperties') {
    const name = String((err.params as { additionalProperty: string }).additionalProperty);
    return { field: name, message: `unknown attribute "${name}"` };
  }
  if (err.keyword === 'required') {
    const name = String((err.params as { missingProperty: string }).missingProperty);
    return { field: name, message: `"${name}" is required` };
  }
  const field = err.instancePath.replace(/^\//, '').split('/')[0] || '(attributes)';
  let message = err.message ?? 'is invalid';
  if (err.keyword === 'enum') message += `: ${(err.params as { allowedValues: unknown[] }).allowedValues.filter((v) => v !== null).join(', ')}`;
  return { field, message: `"${field}" ${message}` };
}

/**
 * Check request attributes against a served schema; 400 naming the first bad field. Meta
 * properties sent as attributes are dropped (meta is not written through attributes).
 */
export function validateAgainstSchema(
  ctx: AppContext,
  cacheKey: string,
  revision: number | string,
  schema: ResourceSchema,
  attributes: Record<string, unknown>,
  partial: boolean,
): Record<string, unknown> {
  const clean: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(attributes)) {
    if (schema.properties[k]?.isMeta) continue;
    clean[k] = inputValue(schema.properties[k], v);
  }
  const validate = validatorFor(ctx.schemas, cacheKey, String(revision), schema, partial);
  if (!validate(clean)) {
    const errors = (validate.errors ?? []).map(describe);
    const unknown = errors.find((e) => e.message.startsWith('unknown attribute'));
    const first = unknown ?? errors[0];
    throw new ApiError(400, unknown ? 'unknown_attribute' : 'invalid_data', `Invalid data: ${first.message}`, undefined, {
      fields: errors.map((e) => e.field),
    });
  }
  return clean;
}

export function validateObjectAttributes(ctx: AppContext, type: ObjectType, attributes: Record<string, unknown>, partial: boolean): Record<string, unknown> {
  const { typeSchemas } = ctx.schemas;
  if (typeof attributes !== 'object' || attributes === null) throw badRequest('attributes must be an object', 'invalid_body');
  let schema = typeSchemas.get(type);
  if (!schema) typeSchemas.set(type, (schema = objectTypeSchema(type)));
  try {
    return validateAgainstSchema(ctx, `type:${type.name}`, `${type.id}:${type.revision}`, schema, attributes, partial);
  } catch (err) {
    if (err instanceof ApiError) throw err;
    // The schema does not compile: a property type's params stored before they were checked.
    const broken = visibleProperties(type).find((p) => fragmentProblem(ctx.schemas.ajv, p.params) !== null);
    if (!broken) throw err;
    throw new ApiError(
      409,
      'invalid_property_type',
      `Objects of ${type.name} cannot be written: the params of property type "${broken.type}" (property "${broken.name}") are not a valid JSON Schema fragment; an admin must correct them at /model/property_types`,
      undefined,
      { fields: [broken.name], property_type: broken.type },
    );
  }
}

// ---- what BEdita clients send ----

/** Attributes a write takes besides its schema's (users: the current password of a change). */
const WRITE_ONLY: Record<string, string[]> = { users: ['old_password'] };

/** The schema a write of `typeName` is checked against: a family's own (users), else the object type's. */
function writeSchema(ctx: AppContext, type: ObjectType): ResourceSchema {
  const contributed = resourceSchemaContribution(ctx, type.name);
  if (contributed) return contributed.schema(ctx);
  let schema = ctx.schemas.typeSchemas.get(type);
  if (!schema) ctx.schemas.typeSchemas.set(type, (schema = objectTypeSchema(type)));
  return schema;
}

const kinds = (p: PropertySchema | undefined): string[] => ([] as unknown[]).concat(p?.type ?? []).filter((t): t is string => typeof t === 'string');

/**
 * A value as a PHP form sends it, read as BEdita reads it against the property's schema: `"1"` /
 * `"0"` are booleans, a numeric string is a number, `""` is null where the property is no
 * plain string (a number, a boolean, a date), `[]` is an empty object where an object is expected.
 */
function formValue(p: PropertySchema | undefined, value: unknown): unknown {
  const allowed = kinds(p);
  if (!allowed.length) return value;
  if (Array.isArray(value) && value.length === 0 && allowed.includes('object') && !allowed.includes('array')) return {};
  if (typeof value !== 'string' && typeof value !== 'number') return value;
  const plainString = allowed.includes('string') && !p?.format;
  if (value === '' && !plainString && allowed.includes('null')) return null;
  if (allowed.includes('boolean') && !allowed.includes('string') && booleanInput(value) !== undefined) return booleanInput(value);
  if (typeof value === 'string' && !allowed.includes('string') && /^-?\d+(\.\d+)?$/.test(value)) {
    if (allowed.includes('integer') && /^-?\d{1,15}$/.test(value)) return Number(value);
    if (allowed.includes('number')) return Number(value);
  }
  return value;
}

/**
 * The attributes of a write to an object of `type` as BEdita reads them: PHP form values
 * (formValue) converted, and attributes the type's schema lacks ignored, as BEdita ignores them
 * (its forms send `confirm-password`, `MAX_FILE_SIZE`…). With `strict` (the request's `Prefer:
 * handling=strict`, the admin UI's) they stay, and the schema check refuses them with 400.
 */
export function attributesAsBEdita(ctx: AppContext, type: ObjectType, attributes: Record<string, unknown>, strict: boolean): Record<string, unknown> {
  const { properties } = writeSchema(ctx, type);
  const extra = new Set(WRITE_ONLY[type.name] ?? []);
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(attributes)) {
    const known = Object.hasOwn(properties, name);
    if (!known && !extra.has(name) && !strict) continue;
    out[name] = known ? formValue(properties[name], value) : value;
  }
  return out;
}

/** The request's resource for a write to an object of `type`, its attributes read as BEdita reads them. */
export function objectWriteInput(ctx: AppContext, req: Request, type: ObjectType, expectId?: string | number): ResourceInput {
  return asBEditaInput(ctx, req, type, resourceInput(req, type.name, expectId));
}

/** `input` (of `type`, from `req`) with its attributes read as BEdita reads them. */
export function asBEditaInput(ctx: AppContext, req: Pick<Request, 'headers'>, type: ObjectType, input: ResourceInput): ResourceInput {
  return { ...input, attributes: attributesAsBEdita(ctx, type, input.attributes, strictHandling(req)) };
}
