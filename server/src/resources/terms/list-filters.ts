// Object list filters and sorts on terms, as BEdita 5 answers them:
//  - filter[categories]=a,b / filter[tags]=a,b: objects with any of the enabled terms named
//    (ObjectsTable::findCategories / findTags);
//  - filter[date_ranges][start_date|end_date][gt|gte|lt|lte|eq|ne]=date (also BEdita's ge, le,
//    neq), filter[date_ranges][from_date]=date, [to_date]=date: objects with one date range
//    meeting every condition (DateRangesTable::findDateRanges: from_date alone is
//    coalesce(end, start) ≥ from; to_date alone coalesce(end, start) ≤ to; both: start ≤ to and
//    coalesce(end, start) ≥ from);
//  - sort=date_ranges_{min,max}_{start,end}_date: by the earliest or latest date of the object's
//    ranges (those meeting the date_ranges filter, when given); objects without one are left out,
//    as BEdita's inner join leaves them (ObjectsTable::dateRangesSubQueryJoin);
//  - filter[geo][center]=lat,lng (or center[]=lat&center[]=lng) with an optional
//    filter[geo][radius]=metres: objects with a geo tag or a location's coords within the radius, nearest first
//    (GeometryBehavior::findGeo), by the haversine distance in portable SQL; each object's
//    `meta.extra.distance` says how far (metres).
// Dates compare as Folio stores them (UTC, one text form), so text order is time order.
import { expressionBuilder, sql, type Expression, type ExpressionBuilder, type RawBuilder, type SqlBool } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Database } from '../../db/tables.js';
import { toIso } from '../../db/time.js';
import { badRequest } from '../../http/errors.js';
import { flatValues } from '../../http/query.js';
import { ISO_DATE, isObject } from './attributes.js';

type Eb = ExpressionBuilder<Database, 'objects'>;

export function termFilter(table: 'categories' | 'tags', names: string[], eb: Eb): Expression<SqlBool> {
  const values = names.length ? names : [''];
  if (table === 'tags') {
    return eb('objects.id', 'in', eb.selectFrom('object_tags').innerJoin('tags', 'tags.id', 'object_tags.tag_id').select('object_tags.object_id').where('tags.name', 'in', values).where('tags.enabled', '=', true));
  }
  return eb(
    'objects.id',
    'in',
    eb.selectFrom('object_categories').innerJoin('categories', 'categories.id', 'object_categories.category_id').select('object_categories.object_id').where('categories.name', 'in', values).where('categories.enabled', '=', true),
  );
}

// ---- date ranges ----

const OPERATORS: Record<string, string> = { eq: '=', ne: '<>', neq: '<>', gt: '>', gte: '>=', ge: '>=', lt: '<', lte: '<=', le: '<=' };

function filterDate(value: unknown, name: string): string {
  // A `+` of an offset that the client did not encode arrives as a space.
  const text = typeof value === 'string' ? value.trim().replace(/(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?) (\d{2}:?\d{2})$/i, '$1+$4') : '';
  const iso = ISO_DATE.test(text) ? toIso(text) : null;
  if (!iso) throw badRequest(`${name} must be a date (YYYY-MM-DD, or with a time: YYYY-MM-DDThh:mm:ss±hh:mm)`, 'invalid_filter');
  return iso;
}

/** Conditions on one `date_items` row (alias `d`) of a date_ranges filter; 400 on anything BEdita would not take. */
function dateConditions(raw: unknown): Expression<SqlBool>[] {
  if (!isObject(raw)) throw badRequest('filter[date_ranges] takes start_date, end_date, from_date or to_date, e.g. filter[date_ranges][start_date][gt]=2024-01-01', 'invalid_filter');
  const out: Expression<SqlBool>[] = [];
  const coalesced = sql`coalesce(d.end_date, d.start_date)`;
  let from: string | null = null;
  let to: string | null = null;
  for (const [key, value] of Object.entries(raw)) {
    const name = `filter[date_ranges][${key}]`;
    if (key === 'from_date') from = filterDate(value, name);
    else if (key === 'to_date') to = filterDate(value, name);
    else if (key === 'start_date' || key === 'end_date') {
      const column = sql.ref(`d.${key}`);
      if (isObject(value)) {
        if (!Object.keys(value).length) throw badRequest(`${name} needs an operator`, 'invalid_filter');
        for (const [op, v] of Object.entries(value)) {
          if (!OPERATORS[op]) throw badRequest(`Unknown operator "${op}" in ${name}; use gt, gte, lt, lte, eq, ne`, 'invalid_filter');
          out.push(sql<SqlBool>`${column} ${sql.raw(OPERATORS[op])} ${filterDate(v, `${name}[${op}]`)}`);
        }
      } else {
        const dates = flatValues(value, name).map((v) => filterDate(v, name));
        if (!dates.length) throw badRequest(`${name} needs a value`, 'invalid_filter');
        out.push(sql<SqlBool>`${column} in (${sql.join(dates)})`);
      }
    } else throw badRequest(`Unknown filter ${name}; use start_date, end_date, from_date or to_date`, 'invalid_filter');
  }
  if (from && to) out.push(sql<SqlBool>`d.start_date <= ${to}`, sql<SqlBool>`${coalesced} >= ${from}`);
  else if (from) out.push(sql<SqlBool>`${coalesced} >= ${from}`);
  else if (to) out.push(sql<SqlBool>`${coalesced} <= ${to}`);
  if (!out.length) throw badRequest('filter[date_ranges] needs start_date, end_date, from_date or to_date', 'invalid_filter');
  return out;
}

/** The object's date rows meeting `conditions`, as a subquery selecting `column`. */
function dateRows(conditions: Expression<SqlBool>[], column: RawBuilder<unknown>) {
  const eb = expressionBuilder<Database, 'objects'>();
  let q = eb.selectFrom('date_items as d').select(column.as('v')).whereRef('d.object_id', '=', 'objects.id');
  for (const c of conditions) q = q.where(c);
  return q;
}

export function dateRangeFilter(raw: unknown): { where: Expression<SqlBool> } {
  const eb = expressionBuilder<Database, 'objects'>();
  return { where: eb.exists(dateRows(dateConditions(raw), sql`1`)) };
}

const dateSort = (fn: 'min' | 'max', column: 'start_date' | 'end_date') => (structured: Record<string, unknown>) => {
  const conditions = structured.date_ranges === undefined ? [] : dateConditions(structured.date_ranges);
  const eb = expressionBuilder<Database, 'objects'>();
  const value = sql`${sql.raw(fn)}(${sql.ref(`d.${column}`)})`;
  return {
    column: dateRows(conditions, value) as unknown as Expression<unknown>,
    where: eb.exists(dateRows([...conditions, sql<SqlBool>`${sql.ref(`d.${column}`)} is not null`], sql`1`)),
  };
};

export const dateRangeSorts = {
  date_ranges_min_start_date: dateSort('min', 'start_date'),
  date_ranges_max_start_date: dateSort('max', 'start_date'),
  date_ranges_min_end_date: dateSort('min', 'end_date'),
  date_ranges_max_end_date: dateSort('max', 'end_date'),
};

// ---- geo ----

/** Mean Earth radius in metres (IUGG). */
const EARTH_RADIUS = 6371008.8;

/** `lat,lng` (or a [lat, lng] pair) as numbers, checked as BEdita's LocationsValidator::checkCoordinates. */
function coordinates(raw: unknown): [number, number] {
  const parts = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.trim().split(/[\s,]+/) : null;
  const nums = parts?.length === 2 ? parts.map((p) => (typeof p === 'string' && /^-?(\d+(\.\d*)?|\.\d+)$/.test(p.trim()) ? Number(p) : NaN)) : [];
  if (nums.length !== 2 || nums.some((n) => !Number.isFinite(n))) throw badRequest('filter[geo][center] must be a pair of coordinates: latitude,longitude', 'invalid_filter');
  const [lat, lng] = nums;
  if (Math.abs(lat) > 90) throw badRequest('filter[geo][center]: invalid latitude', 'invalid_filter');
  if (lng > 180 || lng <= -180) throw badRequest('filter[geo][center]: invalid longitude', 'invalid_filter');
  return [lat, lng];
}

const num = (n: number) => sql`cast(${n} as double precision)`;

/** Metres between a geo tag (alias `g`) and the centre: haversine, with functions both engines have. */
function distance([lat, lng]: [number, number]) {
  const rad = Math.PI / 180;
  const half = (column: string, centre: number) => sql`power(sin((${sql.ref(column)} - ${num(centre)}) * ${num(rad / 2)}), 2)`;
  const h = sql`(${half('g.latitude', lat)} + ${num(Math.cos(lat * rad))} * cos(${sql.ref('g.latitude')} * ${num(rad)}) * ${half('g.longitude', lng)})`;
  return sql<number>`(${num(2 * EARTH_RADIUS)} * asin(sqrt(case when ${h} > 1 then 1 else ${h} end)))`;
}

/**
 * Every object's points: its legacy geo tags and a location's coords (terms/coords.ts), as one
 * derived table `g` (object_id, latitude, longitude).
 */
const points = sql<{ object_id: number; latitude: number; longitude: number }>`(select object_id, latitude, longitude from geo_tags where latitude is not null and longitude is not null union all select object_id, latitude, longitude from object_coords)`;

export function geoFilter(raw: unknown, ctx: AppContext) {
  if (!isObject(raw)) throw badRequest('filter[geo] takes center (latitude,longitude) and radius (metres)', 'invalid_filter');
  const unknown = Object.keys(raw).filter((k) => k !== 'center' && k !== 'radius');
  if (unknown.length) throw badRequest(`Unknown filter filter[geo][${unknown[0]}]; use center and radius`, 'invalid_filter');
  if (raw.center === undefined) throw badRequest('filter[geo] needs a center (latitude,longitude)', 'invalid_filter');
  const center = coordinates(Array.isArray(raw.center) || isObject(raw.center) ? Object.values(raw.center as object) : raw.center);
  let radius: number | null = null;
  if (raw.radius !== undefined) {
    const r = typeof raw.radius === 'string' && /^(\d+(\.\d*)?|\.\d+)$/.test(raw.radius.trim()) ? Number(raw.radius) : NaN;
    if (!Number.isFinite(r)) throw badRequest('filter[geo][radius] must be a distance in metres (a number ≥ 0)', 'invalid_filter');
    radius = r;
  }
  const eb = expressionBuilder<Database, 'objects'>();
  const d = distance(center);
  let tags = eb.selectFrom(points.as('g')).whereRef('g.object_id', '=', 'objects.id');
  if (radius !== null) tags = tags.where(sql<SqlBool>`${d} <= ${num(radius)}`);
  return {
    where: eb.exists(tags.select(sql`1`.as('one'))),
    order: tags.select(sql`min(${d})`.as('distance')) as unknown as Expression<unknown>,
    /** `meta.extra.distance` (metres, to the nearest geo tag in range), as BEdita's GeometryBehavior selects it. */
    async extra(ids: number[]) {
      if (!ids.length) return new Map<number, Record<string, unknown>>();
      let q = ctx.db.selectFrom(points.as('g')).select(['g.object_id', sql<number>`min(${d})`.as('distance')]).where('g.object_id', 'in', ids);
      if (radius !== null) q = q.where(sql<SqlBool>`${d} <= ${num(radius)}`);
      const rows = await q.groupBy('g.object_id').execute();
      return new Map(rows.map((r) => [Number(r.object_id), { distance: Math.round(Number(r.distance) * 1000) / 1000 }]));
    },
  };
}
