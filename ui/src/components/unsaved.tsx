// The guard on unsaved changes: a form says whether it is dirty (and how to save); leaving the
// page in the app asks "Save / Discard / Stay", closing or reloading the tab asks the browser's
// own question (beforeunload).
import { useEffect, useRef, useState } from 'react';
import { Dialog } from './dialog';
import { errorMessage } from '../api/client';

interface Guard {
  dirty(): boolean;
  /** Save the form; true when it saved. */
  save?(): Promise<boolean>;
}

const guards = new Set<Guard>();
let onRequest: ((proceed: () => void) => void) | null = null;

export function hasUnsavedChanges(): boolean {
  for (const g of guards) if (g.dirty()) return true;
  return false;
}

/** Ask the user whether to leave; `proceed` runs when they do (after saving or discarding). */
export function requestLeave(proceed: () => void): void {
  if (onRequest) onRequest(proceed);
  else if (window.confirm('You have unsaved changes. Leave without saving?')) proceed();
}

/** Register a form's dirty state (and its save) for as long as the component is mounted. */
export function useUnsavedChanges(dirty: boolean, save?: () => Promise<boolean>): void {
  const state = useRef({ dirty, save });
  state.current = { dirty, save };
  useEffect(() => {
    const guard: Guard = {
      dirty: () => state.current.dirty,
      save: async () => (state.current.save ? state.current.save() : false),
    };
    guards.add(guard);
    return () => void guards.delete(guard);
  }, []);
  useEffect(() => {
    if (!dirty) return;
    const onUnload = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      e.returnValue = '';
    };
    window.addEventListener('beforeunload', onUnload);
    return () => window.removeEventListener('beforeunload', onUnload);
  }, [dirty]);
}

/** The "unsaved changes" dialog; mounted once by the shell. */
export function LeavePrompt() {
  const [proceed, setProceed] = useState<(() => void) | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    onRequest = (p) => {
      setError(null);
      setProceed(() => p);
    };
    return () => {
      onRequest = null;
    };
  }, []);
  if (!proceed) return null;
  const close = () => setProceed(null);
  const canSave = [...guards].some((g) => g.dirty() && g.save);
  const leave = () => {
    close();
    proceed();
  };
  const saveAndLeave = async () => {
    setBusy(true);
    try {
      for (const g of [...guards]) if (g.dirty() && !(await g.save!())) throw new Error('The changes could not be saved; see the form.');
      close();
      proceed();
    } catch (e) {
      setError(errorMessage(e).detail);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog title="Unsaved changes" onClose={close}>
      <p>You have changes that are not saved yet. What should happen to them?</p>
      {error ? (
        <p className="error" role="alert">
          {error}
        </p>
      ) : null}
      <div className="actions">
        <button type="button" onClick={close}>
          Stay on this page
        </button>
        <button type="button" className="danger" onClick={leave}>
          Discard changes
        </button>
        {canSave ? (
          <button type="button" className="primary" onClick={() => void saveAndLeave()} disabled={busy}>
            Save and leave
          </button>
        ) : null}
      </div>
    </Dialog>
  );
}

/** Ctrl+S / Cmd+S submits the form (the browser's "save page" is never what an editor wants). */
export function useSaveShortcut(form: React.RefObject<HTMLFormElement | null>): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === 's') {
        e.preventDefault();
        form.current?.requestSubmit();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [form]);
}
