// An action the user's roles do not allow, shown where it would be: the button, disabled, and why
// beside it (and as its description, so a screen reader reading the button hears the reason) —
// rather than a button simply missing, which leaves people looking for it.
import { useId, type ReactNode } from 'react';

export function UnavailableAction({ label, icon, reason }: { label: string; icon?: ReactNode; reason: string }) {
  const id = useId();
  return (
    <span className="unavailable-action">
      <button type="button" disabled aria-describedby={id}>
        {icon} {label}
      </button>
      <span id={id} className="why-not">
        {reason}
      </span>
    </span>
  );
}
