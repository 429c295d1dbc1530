// Role permissions: what the users of a role may do with objects. A role's `permissions` maps
// object type names (abstract ones included) or `*` to actions — read, create, update, delete,
// publish — each but create optionally `:own` (only objects the user created). For a type, a
// role's rule is its key for the type, else for the nearest ancestor that has one, else `*`;
// a user may do what any of their roles' rules allows; admins may do everything.
import type { AppContext } from '../../context.js';
import { badRequest } from '../../http/errors.js';
import { model, type ObjectType } from '../objects/model.js';
import type { Action, PermissionSet, Reach, Rights, RolePermissions } from '../../identity.js';

export const ACTIONS: readonly Action[] = ['read', 'create', 'update', 'delete', 'publish'];
export type { Action, PermissionSet, Reach, Rights, RolePermissions } from '../../identity.js';

export const FULL_RIGHTS: RolePermissions = { '*': [...ACTIONS] };

export function permissionSet(rules: RolePermissions[]): PermissionSet {
  return { rules, byType: new Map() };
}

const NONE: Rights = Object.freeze({ read: null, create: null, update: null, delete: null, publish: null });

const wider = (a: Reach, b: Reach): Reach => (a === 'all' || b === 'all' ? 'all' : a ?? b);

/** The rights a permission set gives on objects of `type` (none without a set). */
export function rightsOn(set: PermissionSet | undefined | null, type: ObjectType): Rights {
  if (!set) return NONE;
  const known = set.byType.get(type.id);
  if (known) return known;
  const rights: Rights = { ...NONE };
  for (const rule of set.rules) {
    const key = type.lineage.find((name) => Object.hasOwn(rule, name)) ?? (Object.hasOwn(rule, '*') ? '*' : undefined);
    if (key === undefined) continue;
    for (const entry of rule[key]) {
      const [action, own] = entry.split(':') as [Action, string | undefined];
      if ((ACTIONS as readonly string[]).includes(action)) rights[action] = wider(rights[action], own ? 'own' : 'all');
    }
  }
  set.byType.set(type.id, rights);
  return rights;
}

/** Whether `reach` covers an object created by `createdBy` for `userId`. */
export const reaches = (reach: Reach, userId: number | null, createdBy: number | null | undefined) =>
  reach === 'all' || (reach === 'own' && userId !== null && createdBy === userId);

/** Parse stored permissions (a role row's JSON); anything unreadable grants nothing. */
export function parsePermissions(text: string | null | undefined): RolePermissions {
  if (!text) return {};
  try {
    const value = JSON.parse(text) as unknown;
    if (!value || typeof value !== 'object' || Array.isArray(value)) return {};
    const out: RolePermissions = {};
    for (const [k, v] of Object.entries(value)) if (Array.isArray(v)) out[k] = v.filter((a): a is string => typeof a === 'string');
    return out;
  } catch {
    return {};
  }
}

/**
 * A `permissions` attribute sent by a client, checked: an object of known type names (abstract
 * ones included) or `*`, each with a list of actions; `:own` on any action but create. 400
 * `invalid_permissions` naming what is wrong. Duplicates are dropped; order is kept.
 */
export function validatePermissions(ctx: AppContext, value: unknown): RolePermissions {
  const fail = (detail: string) => badRequest(`Invalid permissions: ${detail}`, 'invalid_permissions');
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw fail('an object of type names and lists of actions is expected');
  const types = model(ctx).types;
  const out: RolePermissions = {};
  for (const [key, actions] of Object.entries(value)) {
    if (key !== '*' && !types.has(key)) throw fail(`unknown object type "${key}"`);
    if (!Array.isArray(actions)) throw fail(`"${key}" must be a list of actions`);
    const list: string[] = [];
    for (const action of actions) {
      if (typeof action !== 'string') throw fail(`"${key}" must be a list of action names`);
      const [name, own, ...rest] = action.split(':');
      const known = (ACTIONS as readonly string[]).includes(name) && rest.length === 0 && (own === undefined || own === 'own');
      if (!known) throw fail(`unknown action "${action}" for "${key}"; actions: ${ACTIONS.join(', ')}, each but create with ":own"`);
      if (name === 'create' && own !== undefined) throw fail('"create:own" means nothing: a new object is always the creator\'s own');
      if (!list.includes(action)) list.push(action);
    }
    out[key] = list;
  }
  return out;
}

/**
 * What a user may do, per enabled concrete type, as action lists (`update:own`…): `meta.rights`
 * of GET /auth/user, so that clients (the admin UI) show only what will work.
 */
export function rightsByType(ctx: AppContext, auth: { isAdmin: boolean; permissions?: PermissionSet }): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const type of model(ctx).types.values()) {
    if (type.isAbstract || !type.enabled || type.name === 'users') continue;
    if (auth.isAdmin) {
      out[type.name] = [...ACTIONS];
      continue;
    }
    const rights = rightsOn(auth.permissions, type);
    out[type.name] = ACTIONS.filter((a) => rights[a] !== null).map((a) => (rights[a] === 'own' ? `${a}:own` : a));
  }
  return out;
}

/** What anonymous clients may see of an object or of a translation: its status (`on` is shown). */
export interface Shown {
  status: string | null | undefined;
}

/**
 * Whether a write changes what anonymous clients see, and so needs `publish`: its subject (an
 * object, or one of its translations) is `on` before it or after it. An `on` object counts
 * whatever its publication window says now: editing, relating, filing, linking a stream to,
 * moving the window of or trashing it changes what they see, or will see once the window opens.
 * `before` null: a create; `after` null: a removal.
 */
export const needsPublish = (before: Shown | null | undefined, after: Shown | null | undefined): boolean => before?.status === 'on' || after?.status === 'on';
