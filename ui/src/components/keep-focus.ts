// Focus after an action: a submit button is disabled while its request runs, and the browser then
// drops focus to the top of the page. When the button comes back, focus returns to the form — to
// its first field when the form emptied itself (an "add" form, ready for the next item), else to
// the button — unless the user or the page has put it somewhere else meanwhile.
const FIELD = 'input:not([type=hidden]):not([type=checkbox]):not([type=radio]):not(:disabled), textarea:not(:disabled), select:not(:disabled)';

function lost(): boolean {
  return !document.activeElement || document.activeElement === document.body;
}

function restore(form: HTMLFormElement, submitter: HTMLElement): void {
  if (!lost()) return;
  if (form.isConnected) {
    const fields = [...form.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>('input[type=text], input:not([type]), input[type=email], input[type=url], input[type=search], textarea')].filter((f) => !f.disabled);
    const emptied = fields.length > 0 && fields.every((f) => !f.value);
    const target = emptied ? form.querySelector<HTMLElement>(FIELD) : submitter.isConnected && !(submitter as HTMLButtonElement).disabled ? submitter : form.querySelector<HTMLElement>(FIELD);
    if (target) return target.focus();
  }
  document.getElementById('main')?.focus();
}

/** Installed once by the shell; returns its uninstaller. */
export function keepFocusAfterSubmit(): () => void {
  const onSubmit = (e: SubmitEvent) => {
    const form = e.target as HTMLFormElement;
    const submitter = (e.submitter as HTMLElement | null) ?? form.querySelector<HTMLElement>('[type=submit]');
    if (!submitter || document.activeElement !== submitter) return;
    // Wait for the button to be enabled again (or for it to leave the page), then look once.
    const observer = new MutationObserver(() => {
      if ((submitter as HTMLButtonElement).disabled && submitter.isConnected) return;
      observer.disconnect();
      queueMicrotask(() => restore(form, submitter));
    });
    observer.observe(document.getElementById('main') ?? document.body, { attributes: true, attributeFilter: ['disabled'], subtree: true, childList: true });
  };
  document.addEventListener('submit', onSubmit, true);
  return () => document.removeEventListener('submit', onSubmit, true);
}
