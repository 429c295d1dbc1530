// Timestamps are stored and sent as ISO 8601 with an explicit offset, second precision (UTC).
export function nowIso(date: Date = new Date()): string {
  return date.toISOString().replace(/\.\d{3}Z$/, '+00:00');
}

/** A stored instant as answered: rows written before instants had one form may hold `…T…:SS.sssZ`. */
export function answeredInstant(value: string | null): string | null {
  return value && /\.\d{3}Z$/.test(value) ? value.replace(/\.\d{3}Z$/, '+00:00') : value;
}

/** Normalise any parseable date input to Folio's timestamp form, or null when invalid. */
export function toIso(value: string): string | null {
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? null : nowIso(d);
}
