// A modal dialog (focus moves in and stays in: Tab cycles inside; Escape closes; focus returns
// to where it was) and a confirmation built on it.
import { useCallback, useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { createPortal } from 'react-dom';
import { ErrorNote } from './feedback';
import { X } from './icons';

const FOCUSABLE = 'a[href], button:not(:disabled), input:not(:disabled), select:not(:disabled), textarea:not(:disabled), [tabindex]:not([tabindex="-1"]), [contenteditable="true"]';

/** Keep Tab and Shift+Tab inside `box`. */
function trapTab(e: KeyboardEvent, box: HTMLElement) {
  const items = [...box.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => el.offsetParent !== null || el === document.activeElement);
  if (!items.length) return;
  const first = items[0];
  const last = items[items.length - 1];
  const inside = box.contains(document.activeElement);
  if (e.shiftKey && (document.activeElement === first || !inside)) {
    e.preventDefault();
    last.focus();
  } else if (!e.shiftKey && (document.activeElement === last || !inside)) {
    e.preventDefault();
    first.focus();
  }
}
import { useToast } from './toast';
import { useAction } from './use-list';

export function Dialog({ title, onClose, children, wide }: { title: string; onClose: () => void; children: ReactNode; wide?: boolean }) {
  const ref = useRef<HTMLDivElement>(null);
  const id = useId();
  const closeRef = useRef(onClose);
  closeRef.current = onClose;
  useEffect(() => {
    const previous = document.activeElement as HTMLElement | null;
    // What the dialog marks with data-autofocus (a message to read before choosing), else the
    // first empty field (a prefilled username moves focus on to the password), else the first
    // field, else the message (a confirmation: read it, then Tab to the choices) — never Cancel.
    const box = ref.current;
    const inputs = [...(box?.querySelectorAll<HTMLInputElement>('input:not([type=checkbox]):not([type=radio]):not(:disabled), textarea:not(:disabled)') ?? [])];
    const message = box?.querySelector<HTMLElement>('.dialog-body');
    if (message && !message.hasAttribute('tabindex')) message.tabIndex = -1;
    const first =
      box?.querySelector<HTMLElement>('[data-autofocus]') ??
      inputs.find((i) => !i.value) ??
      box?.querySelector<HTMLElement>('input:not(:disabled), select:not(:disabled), textarea:not(:disabled), [contenteditable="true"]') ??
      message ??
      box;
    first?.focus();
    const onKey = (e: KeyboardEvent) => {
      // Only the topmost dialog answers (a picker may open over an editor's dialog).
      const dialogs = document.querySelectorAll('.dialog');
      if (dialogs[dialogs.length - 1] !== ref.current) return;
      if (e.key === 'Escape') {
        e.stopPropagation();
        closeRef.current();
      } else if (e.key === 'Tab' && ref.current) trapTab(e, ref.current);
    };
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
      // Back to the opener; when it is gone (its row was deleted), to the page rather than nowhere.
      if (previous?.isConnected && previous !== document.body) previous.focus();
      else document.getElementById('main')?.focus();
    };
  }, []);
  // In a portal: a dialog opened from inside a form (the editor's link dialog) has its own form.
  return createPortal(
    <div className="overlay">
      <div className={`dialog${wide ? ' wide' : ''}`} role="dialog" aria-modal="true" aria-labelledby={id} ref={ref} tabIndex={-1}>
        <header>
          <h2 id={id}>{title}</h2>
          <button type="button" className="dialog-close icon-button" aria-label="Close" onClick={onClose}>
            <X aria-hidden size={18} />
          </button>
        </header>
        {children}
      </div>
    </div>,
    document.body,
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
  icon,
}: {
  label: string;
  icon?: ReactNode;
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
  // A refusal can take the button away (the rights read again after a 403 no longer offer it):
  // its message then stays on the page as a toast instead of vanishing with the dialog.
  const toast = useToast();
  const shownError = useRef<unknown>(null);
  shownError.current = open ? error : null;
  useEffect(() => () => void (shownError.current && toast.error(shownError.current)), []); // eslint-disable-line react-hooks/exhaustive-deps
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
        {icon}
        {icon ? ' ' : null}
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

/** A row's Delete: a small danger button that asks first (what is deleted, in `message`). */
export function DeleteButton(props: Omit<Parameters<typeof ConfirmButton>[0], 'label' | 'className'> & { label?: string }) {
  return <ConfirmButton label="Delete" className="danger small" {...props} />;
}
