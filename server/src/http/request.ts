// What Folio's middleware attaches to express's Request.
import type { AuthInfo } from '../identity.js';

// Defined in the leaf module identity.ts; named here too, where most of the code finds them.
export { ANONYMOUS, type AuthInfo } from '../identity.js';

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
