// The JSON Schemas of users, roles and applications, contributed to /model/schema/{type} through
// the objects family's registry, and the check of request attributes against them (unknown
// attribute, wrong type, too long → 400 naming the property).
import type { AppContext } from '../../context.js';
import { typeByName } from '../objects/model.js';
import { objectTypeSchema, registerResourceSchema, resourceSchema, validateAgainstSchema, type PropertySchema } from '../objects/schema.js';

type Property = PropertySchema & { readOnly?: boolean };

interface SchemaDef {
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
  type: ['string', 'null'],
  ...(maxLength ? { maxLength } : {}),
  isMeta: false,
  ...extra,
});
const stamp = (isMeta = true): Property => ({ type: ['string', 'null'], format: 'date-time', isMeta, readOnly: true });
const metaBool = (): Property => ({ type: 'boolean', isMeta: true, readOnly: true });
const metaInt = (): Property => ({ type: ['integer', 'null'], isMeta: true, readOnly: true });

export const USERNAME_PATTERN = '^[^\\s]{1,100}$';

const DEFS = {
  users: {
    description: 'User accounts',
    revision: 2,
    required: ['username', 'password'],
    properties: {
      username: str(100, { pattern: USERNAME_PATTERN }),
      password: { type: 'string', minLength: 8, maxLength: 1024, isMeta: false, writeOnly: true },
      uname: str(255, { pattern: '^$|\\D' }),
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
    description: 'Roles of users',
    revision: 3,
    required: ['name'],
    properties: {
      // As BEdita's resource names (Validation::RESOURCE_NAME_REGEX), within Folio's 32 characters.
      name: str(32, { pattern: '^[a-z][a-z0-9_]{1,200}$' }),
      description: nullableStr(null),
      permissions: {
        type: 'object',
        description:
          'What users with this role may do with objects: {type name, abstract type name or "*": [actions]}; actions read, create, update, delete, publish, each but create optionally ":own" (objects the user created). A type takes its own key, else its nearest ancestor\'s, else "*".',
        additionalProperties: { type: 'array', items: { type: 'string', pattern: '^(read|create|update|delete|publish)(:own)?$' }, uniqueItems: true },
        default: {},
        isMeta: false,
      },
      unchangeable: { type: 'boolean', default: false, isMeta: true, readOnly: true },
      created: stamp(),
      modified: stamp(),
    },
  },
  applications: {
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
      last_used: { ...stamp(), description: 'when its key or token last made a request (at most a minute late); null: never' },
    },
  },
} satisfies Record<string, SchemaDef>;

export type AccountSchemaType = keyof typeof DEFS;

/** The served schema; a user's password is at least FOLIO_PASSWORD_MIN_LENGTH characters long. */
const served = (ctx: AppContext, type: AccountSchemaType) => {
  const def: SchemaDef = DEFS[type];
  const properties: Record<string, Property> =
    type === 'users' ? { ...userObjectProperties(ctx), ...def.properties, password: { ...def.properties.password, minLength: ctx.config.passwordMinLength } } : def.properties;
  for (const name of type === 'users' ? (typeByName(ctx, 'users')?.hidden ?? []) : []) if (!def.required.includes(name)) delete properties[name];
  return { ...resourceSchema(properties, def.required), description: def.description };
};

/**
 * A user is an object too: what objects of the `users` type have beside the account (body, the
 * publication window, the type's own fields, custom properties, associations), from its object schema.
 */
function userObjectProperties(ctx: AppContext): Record<string, Property> {
  const type = typeByName(ctx, 'users');
  if (!type) return {};
  const out: Record<string, Property> = {};
  for (const [name, { $id: _id, ...p }] of Object.entries(objectTypeSchema(type).properties)) if (!p.isMeta) out[name] = p;
  return out;
}

/** A schema's revision: the users' moves with their type's (custom properties). */
const revisionOf = (ctx: AppContext, type: AccountSchemaType) => DEFS[type].revision + (type === 'users' ? (typeByName(ctx, 'users')?.revision ?? 0) : 0);

/** Contribute the three schemas to /model/schema/{type}. */
export function registerAccountSchemas(ctx: AppContext): void {
  for (const type of Object.keys(DEFS) as AccountSchemaType[]) {
    registerResourceSchema(ctx, type, { schema: () => served(ctx, type), revision: () => revisionOf(ctx, type) });
  }
}

/** `meta.schema` of responses. */
export function schemaMeta(ctx: AppContext, type: AccountSchemaType, base: string) {
  return { [type]: { $id: `${base}/model/schema/${type}`, revision: revisionOf(ctx, type) } };
}

/**
 * Check request attributes against the schema: read-only attributes (login counters, timestamps)
 * are dropped so that a client may send back what it read; anything else must be valid.
 */
export function validateAttributes<T = Record<string, unknown>>(ctx: AppContext, type: AccountSchemaType, attributes: Record<string, unknown>, create: boolean): T {
  const props: Record<string, Property> = DEFS[type].properties;
  const writable = Object.fromEntries(Object.entries(attributes).filter(([k]) => !props[k]?.readOnly));
  // The schema has just checked the shape that T describes.
  return validateAgainstSchema(ctx, `accounts:${type}`, revisionOf(ctx, type), served(ctx, type), writable, !create) as T;
}
