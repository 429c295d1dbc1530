// List query parsing against allow-lists: page, page_size, sort, filter[...] (with operators,
// comma lists, `[]` and indexed arrays), q, include. Anything not allowed gives 400, never a
// silent ignore. Also applies field filters and sort to a kysely query through a column map.
import type { Request } from 'express';
import { sql, type Expression, type SelectQueryBuilder } from 'kysely';

/** A filter or sort column: a column reference like 'objects.title', or an SQL expression. */
export type ColumnRef = string | Expression<unknown>;
const columnExpr = (c: ColumnRef) => (typeof c === 'string' ? sql.ref(c) : c);
import { badRequest, MAX_IDENTIFIERS, tooManyIdentifiers } from './errors.js';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/** `date`: an instant (compared as UTC timestamps); `day`: a calendar date (YYYY-MM-DD). */
export type FieldKind = 'string' | 'integer' | 'number' | 'boolean' | 'date' | 'day';
export type FilterOp = 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte' | 'null' | 'notnull';

export interface FieldFilter {
  field: string;
  op: FilterOp;
  values: Array<string | number>;
}

export interface ListSpec {
  /** Filterable fields and their kinds (used to coerce and check values). */
  fields: Record<string, FieldKind>;
  /** Sortable fields (default: every filterable field). */
  sortable?: string[];
  /** Filters with their own meaning (query, type, parent, roots…), handed over raw. */
  special?: string[];
  /** Filters with nested values (filter[geo][center]=…), handed over as the query parser left them. */
  structured?: string[];
  /** Special filters that also take `[ne]` (filter[type][ne]=folders): their values go to `excluded`. */
  negatable?: string[];
  /** Default sort, e.g. 'id' or '-created'. */
  defaultSort?: string;
  /** Names accepted by include=. */
  includes?: string[];
}

export interface ListQuery {
  page: number;
  pageSize: number;
  offset: number;
  sort: Array<{ field: string; desc: boolean }>;
  /** True when the client sent no sort (search may then rank by relevance). */
  defaultSorted: boolean;
  filters: FieldFilter[];
  special: Record<string, string[]>;
  /** Values of the `negatable` special filters given with `[ne]`: what is left out. */
  excluded: Record<string, string[]>;
  /** Values of the `structured` filters, as parsed from the query string. */
  structured: Record<string, unknown>;
  include: string[];
}

const OPS = new Set(['gt', 'gte', 'lt', 'lte', 'ne', 'eq']);
/** BEdita's other spellings of the operators (`le`, `ge`: its Manager's date filters send them). */
const OP_ALIASES: Record<string, FilterOp> = { le: 'lte', ge: 'gte' };

function positiveInt(value: unknown, name: string): number | null {
  if (value === undefined) return null;
  if (typeof value !== 'string' || !/^\d{1,9}$/.test(value) || Number(value) < 1) {
    throw badRequest(`${name} must be a positive integer`, 'invalid_pagination');
  }
  return Number(value);
}

/**
 * page and page_size (shared by every list, JSON API and legacy). A page_size over the maximum is
 * answered as the maximum, as BEdita 5 does; the legacy layout (`overMax: 'refuse'`) keeps its 400.
 */
export function parsePaging(query: Record<string, unknown>, opts: { overMax?: 'clamp' | 'refuse' } = {}): { page: number; pageSize: number; offset: number } {
  const page = positiveInt(query.page, 'page') ?? 1;
  let pageSize = positiveInt(query.page_size, 'page_size') ?? DEFAULT_PAGE_SIZE;
  if (pageSize > MAX_PAGE_SIZE) {
    if (opts.overMax === 'refuse') throw badRequest(`page_size must be at most ${MAX_PAGE_SIZE}`, 'invalid_pagination');
    pageSize = MAX_PAGE_SIZE;
  }
  return { page, pageSize, offset: (page - 1) * pageSize };
}

/** A value given as `v`, `a,b`, `[a,b]` (from `[]` or indexed `[0]`) as a flat list of strings. */
export function flatValues(raw: unknown, name: string): string[] {
  const list = Array.isArray(raw) ? raw : [raw];
  const out: string[] = [];
  for (const item of list) {
    if (typeof item !== 'string') throw badRequest(`${name} has a malformed value`, 'invalid_filter');
    for (const part of item.split(',')) {
      const value = part.trim();
      if (value === '') continue;
      if (out.length === MAX_IDENTIFIERS) throw tooManyIdentifiers();
      out.push(value);
    }
  }
  return out;
}

/** An object whose keys are all digits is an indexed array that qs left as an object. */
function indexedToArray(raw: unknown): unknown {
  if (raw && typeof raw === 'object' && !Array.isArray(raw)) {
    const keys = Object.keys(raw);
    if (keys.length && keys.every((k) => /^\d+$/.test(k))) return keys.sort((a, b) => +a - +b).map((k) => (raw as Record<string, unknown>)[k]);
  }
  return raw;
}

/** A decimal number as clients write it (no hex, no blanks, no Infinity). */
const NUMBER = /^-?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
/** A date, optionally with a time and an offset (ISO 8601 / RFC 3339). */
const DATE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

function coerce(value: string, kind: FieldKind, name: string): string | number {
  switch (kind) {
    case 'integer':
      if (!/^-?\d{1,15}$/.test(value)) throw badRequest(`filter[${name}] must be an integer`, 'invalid_filter');
      return Number(value);
    case 'number':
      if (!NUMBER.test(value) || !Number.isFinite(Number(value))) throw badRequest(`filter[${name}] must be a number`, 'invalid_filter');
      return Number(value);
    case 'boolean':
      if (['true', '1'].includes(value)) return 1;
      if (['false', '0'].includes(value)) return 0;
      throw badRequest(`filter[${name}] must be true or false`, 'invalid_filter');
    case 'date':
    case 'day': {
      // A `+` of an offset that the client did not encode arrives as a space.
      const text = value.replace(/(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?) (\d{2}:?\d{2})$/i, '$1+$4');
      const d = DATE.test(text) ? new Date(text) : null;
      if (!d || Number.isNaN(d.getTime())) throw badRequest(`filter[${name}] must be a date (YYYY-MM-DD, or with a time: YYYY-MM-DDThh:mm:ss±hh:mm)`, 'invalid_filter');
      return kind === 'day' ? d.toISOString().slice(0, 10) : d.toISOString().replace(/\.\d{3}Z$/, '+00:00');
    }
    default:
      if (value.length > 1000) throw badRequest(`filter[${name}] is too long`, 'invalid_filter');
      return value;
  }
}

function parseFieldFilter(field: string, raw: unknown, kind: FieldKind): FieldFilter[] {
  raw = indexedToArray(raw);
  if (typeof raw === 'string' && raw === 'null') return [{ field, op: 'null', values: [] }];
  if (typeof raw === 'string' || Array.isArray(raw)) {
    const values = flatValues(raw, `filter[${field}]`);
    if (!values.length) throw badRequest(`filter[${field}] needs a value`, 'invalid_filter');
    return [{ field, op: 'eq', values: values.map((v) => coerce(v, kind, field)) }];
  }
  if (raw && typeof raw === 'object') {
    const out: FieldFilter[] = [];
    for (const [given, v] of Object.entries(raw)) {
      const op = OP_ALIASES[given] ?? given;
      if (op === 'null') {
        // BEdita's `null` operator: filter[f][null]=1 (or true) is "f is null", =0 (or false) "f is not null".
        const yes = v === '1' || v === 'true' ? true : v === '0' || v === 'false' ? false : undefined;
        if (yes === undefined) throw badRequest(`filter[${field}][null] must be 1 (is null) or 0 (is not null)`, 'invalid_filter');
        out.push({ field, op: yes ? 'null' : 'notnull', values: [] });
        continue;
      }
      if (!OPS.has(op)) throw badRequest(`Unknown filter operator "${given}" on ${field}; use gt, gte (ge), lt, lte (le), ne, null`, 'invalid_filter');
      if (typeof v !== 'string') throw badRequest(`filter[${field}][${op}] must be a single value`, 'invalid_filter');
      if (v === 'null') {
        if (op !== 'ne' && op !== 'eq') throw badRequest(`filter[${field}][${op}] cannot compare with null`, 'invalid_filter');
        out.push({ field, op: op === 'ne' ? 'notnull' : 'null', values: [] });
      } else {
        const values = flatValues(v, `filter[${field}][${op}]`).map((x) => coerce(x, kind, field));
        if (!values.length) throw badRequest(`filter[${field}][${op}] needs a value`, 'invalid_filter');
        if (values.length > 1 && op !== 'ne' && op !== 'eq') throw badRequest(`filter[${field}][${op}] takes one value`, 'invalid_filter');
        out.push({ field, op: op as FilterOp, values });
      }
    }
    return out;
  }
  throw badRequest(`filter[${field}] is malformed`, 'invalid_filter');
}

/** The list parameters of a request, or of a read context (`{query}`), checked against `spec`. */
export function parseListQuery(req: Request | { query: Record<string, unknown> }, spec: ListSpec): ListQuery {
  const query = req.query as Record<string, unknown>;
  const { page, pageSize, offset } = parsePaging(query);

  const sortable = new Set(spec.sortable ?? Object.keys(spec.fields));
  const sortRaw = query.sort;
  let defaultSorted = sortRaw === undefined || sortRaw === '';
  const sortText = defaultSorted ? (spec.defaultSort ?? 'id') : sortRaw;
  if (typeof sortText !== 'string') throw badRequest('sort must be a comma-separated list of fields', 'invalid_sort');
  const sort = sortText.split(',').map((s) => s.trim()).filter(Boolean).map((s) => {
    const desc = s.startsWith('-');
    const field = desc ? s.slice(1) : s;
    if (!defaultSorted && !sortable.has(field)) throw badRequest(`Cannot sort by "${field}"; sortable fields: ${[...sortable].join(', ')}`, 'invalid_sort');
    return { field, desc };
  });
  if (!sort.length) defaultSorted = true;

  const filters: FieldFilter[] = [];
  const special: Record<string, string[]> = {};
  const specials = new Set(spec.special ?? []);
  const structuredNames = new Set(spec.structured ?? []);
  const structured: Record<string, unknown> = {};
  const excluded: Record<string, string[]> = {};
  const negatable = new Set(spec.negatable ?? []);
  const filterRaw = query.filter;
  if (filterRaw !== undefined) {
    if (typeof filterRaw !== 'object' || filterRaw === null || Array.isArray(filterRaw)) {
      throw badRequest('filter must be given as filter[<field>]=<value>', 'invalid_filter');
    }
    for (const [field, raw] of Object.entries(filterRaw as Record<string, unknown>)) {
      if (structuredNames.has(field)) {
        structured[field] = raw;
        continue;
      }
      if (specials.has(field)) {
        let v = indexedToArray(raw);
        if (negatable.has(field) && v && typeof v === 'object' && !Array.isArray(v)) {
          const { ne, eq, ...rest } = v as Record<string, unknown>;
          const other = Object.keys(rest)[0];
          if (other !== undefined) throw badRequest(`Unknown filter operator "${other}" on ${field}; use ne`, 'invalid_filter');
          if (ne !== undefined) {
            excluded[field] = flatValues(indexedToArray(ne), `filter[${field}][ne]`);
            if (!excluded[field].length) throw badRequest(`filter[${field}][ne] needs a value`, 'invalid_filter');
          }
          if (eq === undefined) continue;
          v = indexedToArray(eq);
        }
        special[field] = v === '' ? [] : flatValues(v, `filter[${field}]`);
        if (field === 'query') special[field] = [([] as unknown[]).concat(v).join(' ')];
        continue;
      }
      const kind = spec.fields[field];
      if (!kind) {
        const known = [...Object.keys(spec.fields), ...specials, ...structuredNames].join(', ');
        throw badRequest(`Unknown filter "${field}"; filterable: ${known}`, 'invalid_filter');
      }
      filters.push(...parseFieldFilter(field, raw, kind));
    }
  }
  if (query.q !== undefined) {
    if (!specials.has('query')) throw badRequest('This list has no search', 'invalid_filter');
    if (typeof query.q !== 'string') throw badRequest('q must be a string', 'invalid_filter');
    special.query = [query.q];
  }
  if (special.query && !special.query[0]?.trim()) throw badRequest('The search query is empty', 'invalid_filter');

  let include: string[] = [];
  if (query.include !== undefined) {
    include = flatValues(query.include, 'include');
    const allowed = new Set(spec.includes ?? []);
    for (const name of include) if (!allowed.has(name)) throw badRequest(`Cannot include "${name}"`, 'invalid_include');
  }
  return { page, pageSize, offset, sort, defaultSorted, filters, special, excluded, structured, include };
}

/**
 * Apply field filters and sort through `columns` (filter field -> SQL column reference).
 * Column names only ever come from this map, never from the request.
 */
export function applyFilters<DB, TB extends keyof DB, O>(
  qb: SelectQueryBuilder<DB, TB, O>,
  filters: FieldFilter[],
  columns: Record<string, ColumnRef>,
): SelectQueryBuilder<DB, TB, O> {
  for (const f of filters) {
    if (!columns[f.field]) throw new Error(`no column for filter ${f.field}`);
    const col = columnExpr(columns[f.field]);
    switch (f.op) {
      case 'null':
        qb = qb.where(sql<boolean>`${col} is null`);
        break;
      case 'notnull':
        qb = qb.where(sql<boolean>`${col} is not null`);
        break;
      case 'eq':
        qb = f.values.length === 1 ? qb.where(sql<boolean>`${col} = ${f.values[0]}`) : qb.where(sql<boolean>`${col} in (${sql.join(f.values)})`);
        break;
      case 'ne':
        qb = qb.where(sql<boolean>`(${col} is null or ${col} not in (${sql.join(f.values)}))`);
        break;
      default: {
        const op = { gt: '>', gte: '>=', lt: '<', lte: '<=' }[f.op];
        qb = qb.where(sql<boolean>`${col} ${sql.raw(op)} ${f.values[0]}`);
      }
    }
  }
  return qb;
}

export function applySort<DB, TB extends keyof DB, O>(
  qb: SelectQueryBuilder<DB, TB, O>,
  sort: ListQuery['sort'],
  columns: Record<string, ColumnRef>,
  tieBreaker?: string,
): SelectQueryBuilder<DB, TB, O> {
  for (const s of sort) {
    const col = columns[s.field];
    if (!col) throw new Error(`no column for sort ${s.field}`);
    // Nulls sort first, as SQLite sorts them (PostgreSQL's default puts them last). Ids are never
    // null: their plain order lets PostgreSQL walk the primary key.
    if (s.field === 'id') qb = qb.orderBy(columnExpr(col), s.desc ? 'desc' : 'asc');
    else qb = qb.orderBy(columnExpr(col), (ob) => (s.desc ? ob.desc().nullsLast() : ob.asc().nullsFirst()));
  }
  if (tieBreaker && !sort.some((s) => columns[s.field] === tieBreaker)) qb = qb.orderBy(sql.ref(tieBreaker), 'asc');
  return qb;
}

/**
 * The one way a list other than an object list (objects/list.ts) is read: the request's filters
 * applied to `base`, its count, and the requested page in the requested order (`tiebreak` last,
 * so pages never overlap).
 */
export async function listPage<DB, TB extends keyof DB, O>(
  base: SelectQueryBuilder<DB, TB, O>,
  q: ListQuery,
  columns: Record<string, ColumnRef>,
  tiebreak: string,
): Promise<{ rows: O[]; count: number }> {
  const filtered = applyFilters(base, q.filters, columns);
  const counted = (await filtered
    .clearSelect()
    .select((eb) => eb.fn.countAll<number>().as('list_count'))
    .executeTakeFirst()) as { list_count?: number } | undefined;
  const rows = await applySort(filtered, q.sort, columns, tiebreak).limit(q.pageSize).offset(q.offset).execute();
  return { rows, count: Number(counted?.list_count ?? 0) };
}
