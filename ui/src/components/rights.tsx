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

/** A read of the user unanswered this long is given up and asked again (ms). */
const READ_STUCK_MS = 15_000;
/** Waits before reading the user again after a failed read: doubling, at most the last (ms). */
const RETRY_MS = [1_000, 2_000, 4_000, 8_000, 15_000, 30_000];

/**
 * The signed-in user (null until read; not read while the session is expired), read again when
 * rights may have changed. Reads never overlap and an answer only replaces a different user, so
 * pages do not re-render for nothing. A read that fails (the server restarting, a dropped
 * connection) is tried again after a pause, and one left unanswered is given up and asked again:
 * the areas and buttons never stay hidden from a signed-in user for want of one answer.
 */
export function useSignedInUser(expired: boolean): { user: CurrentUser | null; error: unknown } {
  const [user, setUser] = useState<CurrentUser | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [asked, setAsked] = useState(0);
  const reading = useRef<{ busy: number; serial: number; again: boolean; failures: number; retry?: ReturnType<typeof setTimeout> }>({ busy: 0, serial: 0, again: false, failures: 0 });

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
      clearTimeout(reading.current.retry);
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
    clearTimeout(state.retry);
    const read = (state.busy = ++state.serial);
    const done = () => {
      if (state.busy !== read) return false;
      clearTimeout(stuck);
      state.busy = 0;
      if (state.again) {
        state.again = false;
        setAsked((n) => n + 1);
      }
      return true;
    };
    // Given up: its answer, if it ever comes, still counts, but the next read no longer waits.
    const stuck = setTimeout(() => {
      if (state.busy !== read) return;
      state.busy = 0;
      state.again = false;
      setAsked((n) => n + 1);
    }, READ_STUCK_MS);
    currentUser().then(
      (u) => {
        state.failures = 0;
        setUser((old) => (old && JSON.stringify(old) === JSON.stringify(u) ? old : u));
        setError(null);
        done();
      },
      (e) => {
        // A read given up fails for nothing: the read after it answers.
        if (!done()) return;
        setError(e);
        const wait = RETRY_MS[Math.min(state.failures++, RETRY_MS.length - 1)];
        state.retry = setTimeout(() => setAsked((n) => n + 1), wait);
      },
    );
  }, [expired, asked]);

  return { user, error };
}
