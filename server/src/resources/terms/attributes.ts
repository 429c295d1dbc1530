// The BEdita layout of terms in JSON API writes: `attributes.categories` ([{name}]),
// `attributes.tags` ([{name, label?}]) and `attributes.date_ranges` ([{start_date, end_date,
// params}]) of a type associated with Categories, Tags or DateRanges leave the attributes before
// the type's schema checks them and become the command's `terms` part (so rights, history,
// webhooks and the version follow). On a type without the association they stay attributes, and
// the schema refuses them (400 naming the attribute).
import type { AppContext } from '../../context.js';
import { badRequest } from '../../http/errors.js';
import type { ObjectParts } from '../objects/kernel.js';
import type { ObjectType } from '../objects/model.js';
import { normalDateTime } from '../../http/input-values.js';
import { typeHasAssociation, type TermsAssociation } from './associations.js';
import type { BeditaTerms, DateRange } from './service.js';

const FIELDS: Array<[keyof BeditaTerms, TermsAssociation]> = [
  ['categories', 'Categories'],
  ['tags', 'Tags'],
  ['date_ranges', 'DateRanges'],
];

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A date as ISO 8601 (a day, or a time with an optional offset); anything else 400. */
export const ISO_DATE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/** A date range's bound in any form BEdita accepts (http/input-values.ts), as an instant; else 400. */
function isoDate(value: unknown, field: string): string {
  const iso = normalDateTime(value);
  if (typeof iso !== 'string' || !ISO_DATE.test(iso)) throw badRequest(`${field} must be an ISO 8601 date`, 'invalid_data');
  return iso;
}

/** `[{name}]` (or names) as names; null is an empty list. */
function termNames(value: unknown, field: string): Array<{ name: string; label: string | null }> {
  if (value === null) return [];
  if (!Array.isArray(value)) throw badRequest(`${field} must be an array of {name, label}`, 'invalid_data');
  return value.map((v, i) => {
    const item = typeof v === 'string' ? { name: v } : v;
    if (!isObject(item) || typeof item.name !== 'string' || !item.name.trim() || item.name.length > 255) {
      throw badRequest(`${field}[${i}] must be {name, label} with a non-empty name`, 'invalid_data');
    }
    if (item.label !== undefined && item.label !== null && typeof item.label !== 'string') throw badRequest(`${field}[${i}].label must be a string`, 'invalid_data');
    return { name: item.name.trim(), label: typeof item.label === 'string' && item.label.trim() ? item.label.trim() : null };
  });
}

function dateRanges(value: unknown): DateRange[] {
  if (value === null) return [];
  if (!Array.isArray(value)) throw badRequest('date_ranges must be an array of {start_date, end_date, params}', 'invalid_data');
  return value.map((d, i) => {
    const field = `date_ranges[${i}]`;
    if (!isObject(d)) throw badRequest(`${field} must be an object`, 'invalid_data');
    const unknown = Object.keys(d).filter((k) => !['start_date', 'end_date', 'params'].includes(k));
    if (unknown.length) throw badRequest(`${field} has an unknown member "${unknown[0]}"`, 'invalid_data');
    const start = isoDate(d.start_date, `${field}.start_date`);
    const end = d.end_date === undefined || d.end_date === null || d.end_date === '' ? null : isoDate(d.end_date, `${field}.end_date`);
    if (end !== null && Date.parse(end) < Date.parse(start)) throw badRequest(`${field}.end_date is before its start_date`, 'invalid_data');
    if (d.params !== undefined && d.params !== null && typeof d.params !== 'object') throw badRequest(`${field}.params must be an object`, 'invalid_data');
    return { start_date: start, end_date: end, params: d.params ?? null };
  });
}

/** Take the term attributes of an associated type out of `attributes` as the `terms` part (400 on a bad value). */
export function claimTermAttributes(ctx: AppContext, type: ObjectType, attributes: Record<string, unknown>): { attributes: Record<string, unknown>; parts: ObjectParts } | undefined {
  const bedita: BeditaTerms = {};
  const rest = { ...attributes };
  for (const [field, association] of FIELDS) {
    if (!(field in attributes) || !typeHasAssociation(ctx, type, association)) continue;
    const value = attributes[field];
    delete rest[field];
    if (field === 'date_ranges') bedita.date_ranges = dateRanges(value);
    else if (field === 'tags') bedita.tags = termNames(value, 'tags');
    else bedita.categories = [...new Set(termNames(value, 'categories').map((c) => c.name))];
  }
  if (!Object.keys(bedita).length) return undefined;
  return { attributes: rest, parts: { terms: { bedita } } };
}
