// An object's publication window as lists show it: "scheduled" (on, its start still to come) or
// "expired" (on, its end passed), with the moment in the user's time zone; and that zone's name.
import { formatDate } from './format';

export type PublicationState = 'scheduled' | 'expired';

export function publicationState(attributes: Record<string, unknown>, now = Date.now()): PublicationState | null {
  if (attributes.status !== 'on') return null;
  const start = typeof attributes.publish_start === 'string' ? Date.parse(attributes.publish_start) : NaN;
  const end = typeof attributes.publish_end === 'string' ? Date.parse(attributes.publish_end) : NaN;
  if (start > now) return 'scheduled';
  if (end <= now) return 'expired';
  return null;
}

/** The user's time zone as people read it: "Europe/Rome (UTC+01:00)". */
export function timeZoneLabel(at = new Date()): string {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'local time';
  const minutes = -at.getTimezoneOffset();
  const sign = minutes < 0 ? '−' : '+';
  const abs = Math.abs(minutes);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${zone} (UTC${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)})`;
}

/** The chip beside a scheduled or expired object's status; nothing for any other object. */
export function PublicationChip({ attributes }: { attributes: Record<string, unknown> }) {
  const state = publicationState(attributes);
  if (!state) return null;
  const text = state === 'scheduled' ? `Goes live ${formatDate(attributes.publish_start)}` : `Ended ${formatDate(attributes.publish_end)}`;
  return (
    <span className={`badge word ${state}`} title={text}>
      {state}
      <span className="visually-hidden"> ({text})</span>
    </span>
  );
}
