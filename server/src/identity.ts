// Who is calling and what their roles allow, as types every layer may name: the HTTP layer
// attaches an AuthInfo to each request, the permission rules (resources/permissions/rules.ts)
// compile and read the PermissionSet. A leaf: imports nothing, so http/ need not know resources/.

export type Action = 'read' | 'create' | 'update' | 'delete' | 'publish';
/** How far an action reaches: every object, the user's own ones, or none. */
export type Reach = 'all' | 'own' | null;
export type Rights = Record<Action, Reach>;
/** A role's `permissions`: type names (or `*`) to actions, each but create optionally `:own`. */
export type RolePermissions = Record<string, string[]>;

/** A signed-in user's roles' rules, compiled once per request (kept with the user's auth info). */
export interface PermissionSet {
  rules: RolePermissions[];
  /** Rights per type id, worked out on first use (the set lives no longer than the model). */
  byType: Map<number, Rights>;
}

export interface AuthInfo {
  /** Id of the logged-in user, or null for anonymous / application tokens. */
  userId: number | null;
  /** Role names of the user. */
  roles: string[];
  isAdmin: boolean;
  /** Application (API key) the request came through, if any. */
  applicationId: number | null;
  /** Ids of the user's roles (object permissions name roles). */
  roleIds?: number[];
  /** The user's roles' permissions, compiled (resources/permissions/rules.ts); none: no rights. */
  permissions?: PermissionSet;
  /** Whether any object permission exists (read with the auth info); unknown: assume so. */
  restrictions?: boolean;
  /** The user's session version: access tokens issued under an older one are refused. */
  sessionVersion?: number;
}

export const ANONYMOUS: AuthInfo = Object.freeze({ userId: null, roles: [], isAdmin: false, applicationId: null }) as AuthInfo;

/** Anonymous callers once it is known whether any object permission exists (as a user's auth info knows it). */
const ANONYMOUS_OPEN: AuthInfo = Object.freeze({ ...ANONYMOUS, restrictions: false });
const ANONYMOUS_RESTRICTED: AuthInfo = Object.freeze({ ...ANONYMOUS, restrictions: true });

/**
 * `auth` knowing whether object permissions exist: without it, every list an anonymous caller or
 * an application asked for carried the object-permission condition (a subquery per row, three
 * times the cost of a deep page at 20,000 documents) even on sites that have none.
 */
export function withRestrictions(auth: AuthInfo, restrictions: boolean): AuthInfo {
  if (auth.restrictions === restrictions) return auth;
  if (auth === ANONYMOUS) return restrictions ? ANONYMOUS_RESTRICTED : ANONYMOUS_OPEN;
  return { ...auth, restrictions };
}

/** A caller without a user or an application (ANONYMOUS, whether or not it knows about object permissions). */
export const isAnonymous = (auth: AuthInfo) => auth.userId === null && auth.applicationId === null && !auth.isAdmin;
