// What Folio's middleware attaches to express's Request.
export interface AuthInfo {
  /** Id of the logged-in user, or null for anonymous / application tokens. */
  userId: number | null;
  /** Role names of the user. */
  roles: string[];
  isAdmin: boolean;
  /** Application (API key) the request came through, if any. */
  applicationId: number | null;
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
