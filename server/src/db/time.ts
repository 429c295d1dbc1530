// Timestamps are stored and sent as ISO 8601 with an explicit offset, second precision (UTC).
export function nowIso(date: Date = new Date()): string {
  return date.toISOString().replace(/\.\d{3}Z$/, '+00:00');
}

/** Normalise any parseable date input to Folio's timestamp form, or null when invalid. */
export function toIso(value: string): string | null {
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? null : nowIso(d);
}
