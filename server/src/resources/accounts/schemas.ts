// The JSON Schemas of users, roles and applications: served by /model/schema/{type} and used to
// check request attributes (unknown attribute, wrong type, too long → 400 naming the property).
import { createRequire } from 'node:module';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { badRequest } from '../../http/errors.js';

type Property = Record<string, unknown> & { isMeta: boolean; readOnly?: boolean };

interface SchemaDef {
  type: string;
  description: string;
  properties: Record<string, Property>;
  /** Required on create. */
  required: string[];
  revision: number;
}

const str = (maxLength: number | null, extra: Record<string, unknown> = {}): Property => ({
  type: 'string',
  ...(maxLength ? { maxLength } : {}),
  isMeta: false,
  ...extra,
});
const nullableStr = (maxLength: number | null, extra: Record<string, unknown> = {}): Property => ({
  oneOf: [{ type: 'null' }, { type: 'string', ...(maxLength ? { maxLength } : {}), ...extra }],
  isMeta: false,
});
const stamp = (isMeta = true): Property => ({ oneOf: [{ type: 'null' }, { type: 'string', format: 'date-time' }], isMeta, readOnly: true });
const metaBool = (): Property => ({ type: 'boolean', isMeta: true, readOnly: true });
const metaInt = (): Property => ({ oneOf: [{ type: 'null' }, { type: 'integer' }], isMeta: true, readOnly: true });

export const USERNAME_PATTERN = '^[^\\s]{1,100}$';

const DEFS: Record<string, SchemaDef> = {
  users: {
    type: 'users',
    description: 'User accounts',
    revision: 1,
    required: ['username', 'password'],
    properties: {
      username: str(100, { pattern: USERNAME_PATTERN }),
      password: { type: 'string', minLength: 8, maxLength: 1024, isMeta: false, writeOnly: true },
      uname: str(255),
      email: nullableStr(255, { format: 'email' }),
      name: nullableStr(255),
      surname: nullableStr(255),
      title: nullableStr(null),
      description: nullableStr(null),
      lang: nullableStr(32),
      status: { type: 'string', enum: ['on', 'draft', 'off'], default: 'on', isMeta: false },
      blocked: { type: 'boolean', default: false, isMeta: false },
      last_login: stamp(false),
      last_login_err: stamp(false),
      num_login_err: { type: 'integer', isMeta: false, readOnly: true },
      verified: stamp(),
      locked: metaBool(),
      created: stamp(),
      modified: stamp(),
      published: stamp(),
      created_by: metaInt(),
      modified_by: metaInt(),
    },
  },
  roles: {
    type: 'roles',
    description: 'Roles of users',
    revision: 1,
    required: ['name'],
    properties: {
      name: str(32, { minLength: 1 }),
      description: nullableStr(null),
      unchangeable: { type: 'boolean', default: false, isMeta: true, readOnly: true },
      created: stamp(),
      modified: stamp(),
    },
  },
  applications: {
    type: 'applications',
    description: 'Applications: API keys of clients',
    revision: 1,
    required: ['name'],
    properties: {
      name: str(255, { minLength: 1 }),
      description: nullableStr(null),
      enabled: { type: 'boolean', default: true, isMeta: false },
      api_key: { type: 'string', isMeta: true, readOnly: true },
      client_secret: { type: 'string', isMeta: true, readOnly: true, description: 'shown once, when the application is created' },
      created: stamp(),
      modified: stamp(),
    },
  },
};

export type AccountSchemaType = keyof typeof DEFS & string;

/** The JSON Schema (draft 06) document of users, roles or applications, as /model/schema serves it. */
export function accountSchema(type: AccountSchemaType, base: string): Record<string, unknown> {
  const def = DEFS[type];
  const properties: Record<string, unknown> = {};
  for (const [name, prop] of Object.entries(def.properties)) {
    properties[name] = { $id: `/properties/${name}`, title: name, ...prop };
  }
  return {
    $id: `${base}/model/schema/${type}`,
    $schema: 'http://json-schema.org/draft-06/schema#',
    type: 'object',
    description: def.description,
    properties,
    required: def.required,
    revision: def.revision,
  };
}

export function schemaMeta(type: AccountSchemaType, base: string) {
  return { [type]: { $id: `${base}/model/schema/${type}`, revision: DEFS[type].revision } };
}

const require = createRequire(import.meta.url);
const ajv = new Ajv({ allErrors: false, strict: false });
ajv.addMetaSchema(require('ajv/dist/refs/json-schema-draft-06.json'));
ajv.addKeyword('isMeta');
(addFormats as unknown as (a: Ajv) => void)(ajv);

const validators = new Map<string, ValidateFunction>();

function writableValidator(type: AccountSchemaType, create: boolean): ValidateFunction {
  const key = `${type}:${create}`;
  let v = validators.get(key);
  if (!v) {
    const def = DEFS[type];
    const properties = Object.fromEntries(Object.entries(def.properties).filter(([, p]) => !p.isMeta && !p.readOnly));
    v = ajv.compile({ type: 'object', properties, required: create ? def.required : [], additionalProperties: false });
    validators.set(key, v);
  }
  return v;
}

function describe(err: ErrorObject): string {
  const prop = err.instancePath.split('/')[1];
  if (err.keyword === 'additionalProperties') return `Unknown attribute "${(err.params as { additionalProperty: string }).additionalProperty}"`;
  if (err.keyword === 'required') return `The attribute "${(err.params as { missingProperty: string }).missingProperty}" is required`;
  return `Attribute "${prop}" ${err.message ?? 'is not valid'}`;
}

/**
 * Check request attributes against the schema: read-only attributes (login counters, timestamps)
 * are dropped so that a client may send back what it read; anything else must be valid.
 */
export function validateAttributes(type: AccountSchemaType, attributes: Record<string, unknown>, create: boolean): Record<string, unknown> {
  const props = DEFS[type].properties;
  const writable = Object.fromEntries(Object.entries(attributes).filter(([k]) => !(props[k] && (props[k].readOnly || props[k].isMeta))));
  const validate = writableValidator(type, create);
  if (!validate(writable)) throw badRequest(describe(validate.errors![0]), 'invalid_data');
  return writable;
}
