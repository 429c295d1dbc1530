// What Folio's middleware attaches to express's Request.
import type { PermissionSet } from '../resources/permissions/rules.js';

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

export interface LegacyInfo {
  api: string;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      auth: AuthInfo;
      /** Set on requests answered in the legacy envelope layout. */
      legacy?: LegacyInfo;
      /** A token was sent but could not be verified: thrown by guards. */
      authError?: Error;
      startedAt?: number;
    }
  }
}

export const ANONYMOUS: AuthInfo = Object.freeze({ userId: null, roles: [], isAdmin: false, applicationId: null }) as AuthInfo;
