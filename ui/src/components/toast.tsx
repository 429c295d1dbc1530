// Toasts: a short confirmation after every create, save, move, trash and restore, and the API's
// title and detail after a failure. Successes leave after a few seconds, failures stay longer;
// each can be closed. A toast belongs to the page it was raised on and goes when the user leaves
// it (`next`: raised just before going to another page, it belongs to that one); a new failure
// replaces the previous one rather than piling up. They sit at the foot of the sidebar, wide enough
// to read in a line or two; one may offer a button (Undo).
// The region is a live region, so screen readers hear them too.
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { errorMessage } from '../api/client';
import { CheckCircle2, CircleAlert, X } from './icons';
import { currentPath, useRoute } from './route';

interface Toast {
  id: number;
  kind: 'success' | 'error';
  text: string;
  detail?: string;
  /** The route path it belongs to; null: the next page shown. */
  page: string | null;
  /** A button beside the text (Undo), which closes the toast when pressed. */
  action?: ToastAction;
  /** A failure's own title and detail, without the context before them: the same failure told twice is told once. */
  core?: string;
}

export interface ToastAction {
  label: string;
  run: () => void;
}

export interface ToastOptions {
  /** Raised before navigating away: shown on the page that comes next. */
  next?: boolean;
  /** A button in the toast (Undo); the toast then stays longer, to leave time to press it. */
  action?: ToastAction;
}

export interface Toaster {
  success(text: string, opts?: ToastOptions): void;
  /** The error's title and detail (or `text` before them). */
  error(err: unknown, text?: string, opts?: ToastOptions): void;
}

const Context = createContext<Toaster>({ success: () => {}, error: () => {} });

export function useToast(): Toaster {
  return useContext(Context);
}

export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const next = useRef(1);
  const dismiss = useCallback((id: number) => setToasts((all) => all.filter((t) => t.id !== id)), []);
  const push = useCallback(
    (t: Omit<Toast, 'id' | 'page' | 'action'>, opts: ToastOptions = {}) => {
      const id = next.current++;
      const page = opts.next ? null : currentPath().join('/');
      // One failure at a time, and one of each text: the newest replaces the others. The same
      // failure raised again (a dialog that closes after its action already told it, with more
      // context) leaves the first telling in place.
      setToasts((all) => {
        if (t.core && all.some((o) => o.kind === 'error' && o.core === t.core)) return all;
        return [...all.filter((o) => (t.kind !== 'error' || o.kind !== 'error') && o.text !== t.text).slice(-2), { ...t, id, page, action: opts.action }];
      });
      // Failures and offers to undo stay longer (and can be closed); none waits for ever.
      setTimeout(() => dismiss(id), t.kind === 'success' && !opts.action ? 6000 : opts.action ? 12000 : 20000);
    },
    [dismiss],
  );
  const path = useRoute().join('/');
  useEffect(() => {
    setToasts((all) => {
      const kept = all.filter((t) => t.page === null || t.page === path).map((t) => (t.page === null ? { ...t, page: path } : t));
      return kept.length === all.length && kept.every((t, i) => t === all[i]) ? all : kept;
    });
  }, [path]);
  const api = useMemo<Toaster>(
    () => ({
      success: (text, opts) => push({ kind: 'success', text }, opts),
      error: (err, text, opts) => {
        const { title, detail } = errorMessage(err);
        push({ kind: 'error', text: text ? `${text}: ${title}` : title, detail, core: `${title}\n${detail ?? ''}` }, opts);
      },
    }),
    [push],
  );
  return (
    <Context.Provider value={api}>
      {children}
      <div className="toasts" role="region" aria-label="Notifications">
        {toasts.map((t) => (
          <div key={t.id} className={`toast ${t.kind}`} role={t.kind === 'error' ? 'alert' : 'status'}>
            {t.kind === 'error' ? <CircleAlert aria-hidden size={18} /> : <CheckCircle2 aria-hidden size={18} />}
            <span className="toast-text">
              {t.text}
              {t.detail ? <span className="toast-detail"> — {t.detail}</span> : null}
            </span>
            {t.action ? (
              <button
                type="button"
                className="small toast-action"
                onClick={() => {
                  dismiss(t.id);
                  t.action?.run();
                }}
              >
                {t.action.label}
              </button>
            ) : null}
            <button type="button" className="icon-button" aria-label="Dismiss notification" onClick={() => dismiss(t.id)}>
              <X aria-hidden size={16} />
            </button>
          </div>
        ))}
      </div>
    </Context.Provider>
  );
}
