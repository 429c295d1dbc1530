// A modal dialog (focus moves in, Escape closes) and a confirmation built on it.
import { useCallback, useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { ErrorNote } from './feedback';
import { useAction } from './use-list';

export function Dialog({ title, onClose, children }: { title: string; onClose: () => void; children: ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  const id = useId();
  const closeRef = useRef(onClose);
  closeRef.current = onClose;
  useEffect(() => {
    const previous = document.activeElement as HTMLElement | null;
    // The first empty field (a prefilled username moves focus on to the password), else the first control.
    const inputs = [...(ref.current?.querySelectorAll<HTMLInputElement>('input:not([type=checkbox]), textarea') ?? [])];
    const first = inputs.find((i) => !i.value) ?? ref.current?.querySelector<HTMLElement>('input, select, textarea, button:not(.dialog-close)');
    first?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') closeRef.current();
    };
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
      previous?.focus?.();
    };
  }, []);
  return (
    <div className="overlay">
      <div className="dialog" role="dialog" aria-modal="true" aria-labelledby={id} ref={ref}>
        <header>
          <h2 id={id}>{title}</h2>
          <button type="button" className="dialog-close link" aria-label="Close" onClick={onClose}>
            ✕
          </button>
        </header>
        {children}
      </div>
    </div>
  );
}

/** A button that asks for confirmation, runs the action and shows its error in the dialog. */
export function ConfirmButton({
  label,
  title,
  message,
  confirmLabel,
  action,
  onDone,
  className = 'danger',
  disabled,
  buttonTitle,
}: {
  label: string;
  title: string;
  message: ReactNode;
  confirmLabel?: string;
  action: () => Promise<unknown>;
  onDone?: () => void;
  className?: string;
  disabled?: boolean;
  buttonTitle?: string;
}) {
  const [open, setOpen] = useState(false);
  const { busy, error, setError, run } = useAction();
  const close = useCallback(() => {
    setOpen(false);
    setError(null);
  }, [setError]);
  const confirm = async () => {
    let ok = false;
    await run(async () => {
      await action();
      ok = true;
    });
    if (ok) {
      setOpen(false);
      onDone?.();
    }
  };
  return (
    <>
      <button type="button" className={className} onClick={() => setOpen(true)} disabled={disabled} title={buttonTitle}>
        {label}
      </button>
      {open ? (
        <Dialog title={title} onClose={close}>
          <div className="dialog-body">{message}</div>
          <ErrorNote error={error} />
          <div className="actions">
            <button type="button" onClick={close}>
              Cancel
            </button>
            <button type="button" className="danger" onClick={() => void confirm()} disabled={busy}>
              {confirmLabel ?? label}
            </button>
          </div>
        </Dialog>
      ) : null}
    </>
  );
}
