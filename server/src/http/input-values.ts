// Values in request bodies as BEdita 5 reads them, before they are checked against a schema:
// dates and date-times in every form BEdita accepts (ISO 8601, `YYYY-MM-DD HH:MM:SS`, a Unix
// timestamp, `""` for none) become Folio's one form, and `0`/`1` are booleans where a boolean is
// expected. What is not one of these forms is left as sent, so the schema refuses it naming the field.
import { nowIso } from '../db/time.js';

interface FieldSchema {
  type?: unknown;
  format?: unknown;
  anyOf?: unknown;
  oneOf?: unknown;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;
const TIMESTAMP = /^-?\d{1,12}$/;

/** The instant a date or date-time input stands for, or null when it is none of BEdita's forms. */
function instantOf(value: unknown): Date | null {
  if (typeof value === 'number') return Number.isFinite(value) ? new Date(value * 1000) : null;
  if (typeof value !== 'string') return null;
  const text = value.trim();
  if (TIMESTAMP.test(text)) return new Date(Number(text) * 1000);
  let m = DATE.exec(text);
  if (m) return validDay(m) ? new Date(`${m[1]}-${m[2]}-${m[3]}T00:00:00Z`) : null;
  m = DATE_TIME.exec(text);
  if (!m || !validDay(m) || Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6] ?? 0) > 59) return null;
  let zone = (m[8] ?? 'Z').toUpperCase();
  if (zone !== 'Z') zone = zone.length === 3 ? `${zone}:00` : zone.includes(':') ? zone : `${zone.slice(0, 3)}:${zone.slice(3)}`;
  const d = new Date(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6] ?? '00'}${m[7] ?? ''}${zone}`);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** Whether the year, month and day of a match name a real day (no 2018-02-30). */
function validDay(m: RegExpExecArray): boolean {
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
}

/** A date-time input as Folio stores and answers it (`YYYY-MM-DDTHH:MM:SS+00:00`), or the input unchanged. */
export function normalDateTime(value: unknown): unknown {
  if (value === '') return null;
  const d = instantOf(value);
  return d && !Number.isNaN(d.getTime()) ? nowIso(d) : value;
}

/** A date input as `YYYY-MM-DD` (a date-time's own day, as written), or the input unchanged. */
export function normalDate(value: unknown): unknown {
  if (value === '') return null;
  if (typeof value === 'string') {
    const day = /^(\d{4}-\d{2}-\d{2})(?:[T ]|$)/.exec(value.trim());
    if (day && instantOf(value) !== null) return day[1];
  }
  const d = instantOf(value);
  return d && !Number.isNaN(d.getTime()) ? d.toISOString().slice(0, 10) : value;
}

const typesOf = (s: FieldSchema): unknown[] => [
  ...([] as unknown[]).concat(s.type ?? []),
  ...[s.anyOf, s.oneOf].flatMap((list) => (Array.isArray(list) ? list.flatMap((x) => ([] as unknown[]).concat((x as FieldSchema)?.type ?? [])) : [])),
];

const formatOf = (s: FieldSchema): unknown =>
  s.format ?? [s.anyOf, s.oneOf].flatMap((list) => (Array.isArray(list) ? list.map((x) => (x as FieldSchema)?.format) : [])).find((f) => f !== undefined);

/**
 * A boolean as BEdita reads one: `true`/`false`, `1`/`0`, and as a PHP form posts them `"1"`/`"0"`,
 * `"true"`/`"false"`; undefined for anything else.
 */
export function booleanInput(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (value === 1 || value === '1' || value === 'true') return true;
  if (value === 0 || value === '0' || value === 'false') return false;
  return undefined;
}

/** `value` read as the field's schema expects it, as BEdita reads it (see the module comment). */
export function inputValue(schema: FieldSchema | undefined, value: unknown): unknown {
  if (!schema || value === null || value === undefined) return value;
  const format = formatOf(schema);
  if (format === 'date-time') return normalDateTime(value);
  if (format === 'date') return normalDate(value);
  const types = typesOf(schema);
  if (types.includes('boolean') && !types.includes('integer') && !types.includes('number')) return booleanInput(value) ?? value;
  return value;
}
