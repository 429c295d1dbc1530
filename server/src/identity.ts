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
