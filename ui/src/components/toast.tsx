// Toasts: a short confirmation after every create, save, move, trash and restore, and the API's
// title and detail after a failure. Successes leave after a few seconds, failures stay longer;
// each can be closed. The region is a live region, so screen readers hear them too.
import { createContext, useCallback, useContext, useMemo, useRef, useState, type ReactNode } from 'react';
import { errorMessage } from '../api/client';
import { CheckCircle2, CircleAlert, X } from './icons';

interface Toast {
  id: number;
  kind: 'success' | 'error';
  text: string;
  detail?: string;
}

interface Toaster {
  success(text: string): void;
  /** The error's title and detail (or `text` before them). */
  error(err: unknown, text?: string): void;
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
    (t: Omit<Toast, 'id'>) => {
      const id = next.current++;
      setToasts((all) => [...all.slice(-2), { ...t, id }]);
      // Failures stay longer (and can be closed); neither waits for ever.
      setTimeout(() => dismiss(id), t.kind === 'success' ? 6000 : 20000);
    },
    [dismiss],
  );
  const api = useMemo<Toaster>(
    () => ({
      success: (text) => push({ kind: 'success', text }),
      error: (err, text) => {
        const { title, detail } = errorMessage(err);
        push({ kind: 'error', text: text ? `${text}: ${title}` : title, detail });
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
            <button type="button" className="icon-button" aria-label="Dismiss notification" onClick={() => dismiss(t.id)}>
              <X aria-hidden size={16} />
            </button>
          </div>
        ))}
      </div>
    </Context.Provider>
  );
}
