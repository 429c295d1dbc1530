// What the signed-in user may do, from GET /auth/user (meta.admin, meta.rights per type), shared
// with every page: areas, buttons and status choices the server would refuse are not shown. The
// user is read again whenever rights may have changed — a role saved here, the window coming back
// into focus (an admin may have changed them elsewhere), a 403 from the server — so buttons follow
// without a reload.
import { createContext, useContext, useEffect, useRef, useState } from 'react';
import { currentUser, onForbidden, type CurrentUser } from '../api/client';

export interface Rights {
  /** The user's data has arrived (until then nothing admin-only is shown). */
  loaded: boolean;
  admin: boolean;
  userId: string | null;
  /** Per object type: actions, `update:own` style for the user's own objects only. */
  byType: Record<string, string[]>;
}

export const NO_RIGHTS: Rights = { loaded: false, admin: false, userId: null, byType: {} };

const RightsContext = createContext<Rights>(NO_RIGHTS);

export const RightsProvider = RightsContext.Provider;

export function useRights(): Rights {
  return useContext(RightsContext);
}

export type ObjectAction = 'read' | 'create' | 'update' | 'delete' | 'publish';

/** Whether the user may `action` objects of `type` (`object`: checked against its creator for `:own`). */
export function may(rights: Rights, action: ObjectAction, type: string, object?: { meta?: Record<string, unknown> } | null): boolean {
  if (rights.admin) return true;
  const list = rights.byType[type] ?? [];
  if (list.includes(action)) return true;
  if (!list.includes(`${action}:own`)) return false;
  return !object || String(object.meta?.created_by ?? '') === rights.userId;
}

const changeListeners = new Set<() => void>();

/** Something this page did may have changed the user's rights (a role saved): read them again. */
export function rightsMayHaveChanged(): void {
  for (const l of changeListeners) l();
}

/**
 * The signed-in user (null until read; not read while the session is expired), read again when
 * rights may have changed. Reads never overlap and an answer only replaces a different user, so
 * pages do not re-render for nothing.
 */
export function useSignedInUser(expired: boolean): { user: CurrentUser | null; error: unknown } {
  const [user, setUser] = useState<CurrentUser | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [asked, setAsked] = useState(0);
  const reading = useRef<{ busy: boolean; again: boolean }>({ busy: false, again: false });

  useEffect(() => {
    const ask = () => setAsked((n) => n + 1);
    const onVisible = () => document.visibilityState === 'visible' && ask();
    changeListeners.add(ask);
    const stopForbidden = onForbidden(ask);
    window.addEventListener('focus', ask);
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      changeListeners.delete(ask);
      stopForbidden();
      window.removeEventListener('focus', ask);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, []);

  useEffect(() => {
    if (expired) return;
    const state = reading.current;
    // One read at a time; a request while one runs is answered by one more read after it.
    if (state.busy) {
      state.again = true;
      return;
    }
    state.busy = true;
    currentUser()
      .then((u) => {
        setUser((old) => (old && JSON.stringify(old) === JSON.stringify(u) ? old : u));
        setError(null);
      }, setError)
      .finally(() => {
        state.busy = false;
        if (state.again) {
          state.again = false;
          setAsked((n) => n + 1);
        }
      });
  }, [expired, asked]);

  return { user, error };
}
