// Categories, tags, geo tags and date items of objects: read in batches (one query per kind for
// a whole page of objects) and replaced as a whole on a legacy write. Unknown category and tag
// names are created on first use.
import { sql, type Kysely, type Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import { prepared, preparedList } from '../../db/prepared.js';
import type { Database } from '../../db/tables.js';
import { nowIso, toIso } from '../../db/time.js';
import { badRequest } from '../../http/errors.js';
import { slugify } from '../objects/uname.js';
import type { PartHandler } from '../objects/kernel.js';

type Db = Kysely<Database> | Transaction<Database>;

export interface Term {
  id: number;
  name: string;
  label: string;
}

export interface GeoTag {
  id: number;
  object_id: number;
  title: string | null;
  latitude: number | null;
  longitude: number | null;
  address: string | null;
  gmaps_lookats: { zoom: number | null; mapType: string | null; latitude: number | null; longitude: number | null; range: number | null };
}

export interface DateItem {
  start_date: string | null;
  end_date: string | null;
  days: number[];
}

/** A date range of the BEdita layout: the same row as a legacy date item. */
export interface DateRange {
  start_date: string | null;
  end_date: string | null;
  params: unknown;
}

/** A category or tag on an object as BEdita reads it (`attributes.categories|tags`); tags have no params. */
export interface LabelledTerm {
  name: string;
  labels: Record<string, string>;
  /** BEdita's `object_categories.params` (JSON). */
  params?: unknown;
  label: string;
}

export interface ObjectTerms {
  categories: Array<Term & { area_id: number | null }>;
  tags: Array<{ label: string; name: string }>;
  geo_tags: GeoTag[];
  date_items: DateItem[];
  date_ranges: DateRange[];
  /** The same categories and tags in BEdita's layout. */
  labelled: { categories: LabelledTerm[]; tags: LabelledTerm[] };
}

export const emptyTerms = (): ObjectTerms => ({ categories: [], tags: [], geo_tags: [], date_items: [], date_ranges: [], labelled: { categories: [], tags: [] } });

/** `labels` as stored (JSON), else the plain label as the default one. */
const labelsOf = (labels: string | null, label: string): Record<string, string> => {
  const parsed = parseJson<unknown>(labels, null);
  return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, string>) : { default: label };
};

function group<T>(rows: T[], key: (r: T) => number): Map<number, T[]> {
  const out = new Map<number, T[]>();
  for (const r of rows) {
    const k = key(r);
    const list = out.get(k);
    if (list) list.push(r);
    else out.set(k, [r]);
  }
  return out;
}

const parseJson = <T>(text: string | null, fallback: T): T => {
  if (!text) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
};

/** Terms of every object in `ids`; `areaId` is the publication categories are shown under. */
/** Which of the four kinds of terms any of the objects has (prepared: every serialised object asks). */
const termsProbe = preparedList<{ cats: unknown; tags: unknown; geos: unknown; dates: unknown }>((db, p, n) => {
  const ids = Array.from({ length: n }, (_, i) => p(i));
  return db.selectNoFrom((eb) => [
    eb.exists(eb.selectFrom('object_categories').select('object_id').where('object_id', 'in', ids)).as('cats'),
    eb.exists(eb.selectFrom('object_tags').select('object_id').where('object_id', 'in', ids)).as('tags'),
    eb.exists(eb.selectFrom('geo_tags').select('object_id').where('object_id', 'in', ids)).as('geos'),
    eb.exists(eb.selectFrom('date_items').select('object_id').where('object_id', 'in', ids)).as('dates'),
  ]);
});

/** Whether any object has any term at all (a site that uses none skips every read of them). */
const anyTermsQuery = prepared<{ used: unknown }, []>((db) =>
  db.selectNoFrom((eb) =>
    eb
      .or([
        eb.exists(eb.selectFrom('object_categories').select('object_id')),
        eb.exists(eb.selectFrom('object_tags').select('object_id')),
        eb.exists(eb.selectFrom('geo_tags').select('object_id')),
        eb.exists(eb.selectFrom('date_items').select('object_id')),
      ])
      .as('used'),
  ),
);

/**
 * Whether terms are in use, read once per settings version (db/read-cache.ts: a write to a term table asks again):
 * most objects of most sites have none, and a read of one object then needs no query for them.
 */
export async function termsInUse(ctx: AppContext): Promise<boolean> {
  return ctx.readCache.get(TERMS_IN_USE, async () => Boolean((await anyTermsQuery(ctx.db))[0]?.used), 'settings');
}
const TERMS_IN_USE = 'terms:in-use';

/** termsInUse's answer when it is known without reading (every object read asks). */
export const knownTermsInUse = (ctx: AppContext): boolean | undefined => ctx.readCache.peek<boolean>(TERMS_IN_USE, 'settings');

export async function loadTerms(db: Db, ids: number[], areaId: number | null = null): Promise<Map<number, ObjectTerms>> {
  const out = new Map<number, ObjectTerms>(ids.map((id) => [id, emptyTerms()]));
  if (!ids.length) return out;
  // Most objects have none of these: one probe says which of the four reads are needed at all.
  const [has] = await termsProbe(db, ids);
  const none = Promise.resolve([]);
  const [cats, tags, geos, dates] = await Promise.all([
    has.cats
      ? db
          .selectFrom('object_categories')
          .innerJoin('categories', 'categories.id', 'object_categories.category_id')
          .select(['object_categories.object_id', 'object_categories.params', 'categories.id', 'categories.name', 'categories.label', 'categories.labels'])
          .where('object_categories.object_id', 'in', ids)
          .where('categories.enabled', '=', true)
          .orderBy('categories.name')
          .execute()
      : none,
    has.tags
      ? db
          .selectFrom('object_tags')
          .innerJoin('tags', 'tags.id', 'object_tags.tag_id')
          .select(['object_tags.object_id', 'tags.name', 'tags.label', 'tags.labels'])
          .where('object_tags.object_id', 'in', ids)
          .where('tags.enabled', '=', true)
          .orderBy('tags.name')
          .execute()
      : none,
    has.geos ? db.selectFrom('geo_tags').selectAll().where('object_id', 'in', ids).orderBy('id').execute() : none,
    has.dates ? db.selectFrom('date_items').selectAll().where('object_id', 'in', ids).orderBy('start_date').orderBy('id').execute() : none,
  ]);
  for (const [id, rows] of group(cats, (r) => r.object_id)) {
    out.get(id)!.categories = rows.map((r) => ({ id: r.id, area_id: areaId, label: r.label, name: r.name }));
    out.get(id)!.labelled.categories = rows.map((r) => ({ name: r.name, labels: labelsOf(r.labels, r.label), params: r.params === null || r.params === undefined ? null : parseJson<unknown>(r.params, r.params), label: r.label }));
  }
  for (const [id, rows] of group(tags, (r) => r.object_id)) {
    out.get(id)!.tags = rows.map((r) => ({ label: r.label, name: r.name }));
    out.get(id)!.labelled.tags = rows.map((r) => ({ name: r.name, labels: labelsOf(r.labels, r.label), label: r.label }));
  }
  for (const [id, rows] of group(geos, (r) => r.object_id)) {
    out.get(id)!.geo_tags = rows.map((r) => {
      const look = parseJson<Partial<GeoTag['gmaps_lookats']>>(r.gmaps_lookats, {});
      return {
        id: r.id,
        object_id: r.object_id,
        title: r.title,
        latitude: r.latitude,
        longitude: r.longitude,
        address: r.address,
        gmaps_lookats: { zoom: look.zoom ?? null, mapType: look.mapType ?? null, latitude: look.latitude ?? null, longitude: look.longitude ?? null, range: look.range ?? null },
      };
    });
  }
  for (const [id, rows] of group(dates, (r) => r.object_id)) {
    out.get(id)!.date_items = rows.map((r) => ({ start_date: r.start_date, end_date: r.end_date, days: parseJson<number[]>(r.days, []) }));
    out.get(id)!.date_ranges = rows.map((r) => ({ start_date: r.start_date, end_date: r.end_date, params: parseJson<unknown>(r.params, null) }));
  }
  return out;
}

/** What a write may say about terms; undefined = leave as is. */
export interface TermsInput {
  /** Legacy labels (a category or tag unknown by its slug is created). */
  categories?: string[];
  tags?: string[];
  geo_tags?: Array<{ title: string | null; address: string | null; latitude: number | null; longitude: number | null; gmaps_lookats: unknown }>;
  date_items?: DateItem[];
  /** The BEdita layout's attributes (JSON API): see attributes.ts. */
  bedita?: BeditaTerms;
}

export interface BeditaTerms {
  /** Names of existing, enabled categories of the object's type (or legacy ones); others give 400. */
  categories?: string[];
  /** Tags by name; an unknown one is created with its label (else its name humanised). */
  tags?: Array<{ name: string; label: string | null }>;
  date_ranges?: DateRange[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function names(value: unknown, field: string): string[] {
  if (!Array.isArray(value)) throw badRequest(`"${field}" must be an array of names`, 'invalid_body');
  return value.map((v, i) => {
    const label = typeof v === 'string' ? v.trim() : isObject(v) && typeof v.name === 'string' ? v.name.trim() : '';
    if (!label || label.length > 255) throw badRequest(`${field}[${i}] must be a non-empty name`, 'invalid_body');
    return label;
  });
}

function optNumber(value: unknown, field: string, limit: number): number | null {
  if (value === undefined || value === null || value === '') return null;
  const n = typeof value === 'string' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n) || Math.abs(n) > limit) throw badRequest(`${field} must be a number between -${limit} and ${limit}`, 'invalid_body');
  return n;
}

function optText(value: unknown, field: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw badRequest(`${field} must be a string`, 'invalid_body');
  return value === '' ? null : value;
}

function optDate(value: unknown, field: string): string | null {
  if (value === undefined || value === null || value === '') return null;
  const iso = typeof value === 'string' ? toIso(value) : null;
  if (!iso) throw badRequest(`${field} must be an ISO 8601 date`, 'invalid_body');
  return iso;
}

/** Check and normalise the term fields of a legacy body (400 naming the bad field). */
export function parseTermsInput(data: Record<string, unknown>): TermsInput {
  const out: TermsInput = {};
  if (data.categories !== undefined && data.categories !== null) out.categories = names(data.categories, 'categories');
  if (data.tags !== undefined && data.tags !== null) out.tags = names(data.tags, 'tags');
  if (data.geo_tags !== undefined && data.geo_tags !== null) {
    if (!Array.isArray(data.geo_tags)) throw badRequest('"geo_tags" must be an array', 'invalid_body');
    out.geo_tags = data.geo_tags.map((g, i) => {
      if (!isObject(g)) throw badRequest(`geo_tags[${i}] must be an object`, 'invalid_body');
      if (g.gmaps_lookats !== undefined && g.gmaps_lookats !== null && !isObject(g.gmaps_lookats)) {
        throw badRequest(`geo_tags[${i}].gmaps_lookats must be an object`, 'invalid_body');
      }
      return {
        title: optText(g.title, `geo_tags[${i}].title`),
        address: optText(g.address, `geo_tags[${i}].address`),
        latitude: optNumber(g.latitude, `geo_tags[${i}].latitude`, 90),
        longitude: optNumber(g.longitude, `geo_tags[${i}].longitude`, 180),
        gmaps_lookats: g.gmaps_lookats ?? null,
      };
    });
  }
  if (data.date_items !== undefined && data.date_items !== null) {
    if (!Array.isArray(data.date_items)) throw badRequest('"date_items" must be an array', 'invalid_body');
    out.date_items = data.date_items.map((d, i) => {
      if (!isObject(d)) throw badRequest(`date_items[${i}] must be an object`, 'invalid_body');
      const start = optDate(d.start_date, `date_items[${i}].start_date`);
      const end = optDate(d.end_date, `date_items[${i}].end_date`);
      if (start && end && end < start) throw badRequest(`date_items[${i}].end_date is before start_date`, 'invalid_body');
      let days: number[] = [];
      if (d.days !== undefined && d.days !== null) {
        if (!Array.isArray(d.days) || !d.days.every((n) => Number.isInteger(n) && n >= 0 && n <= 6)) {
          throw badRequest(`date_items[${i}].days must be an array of weekday numbers 0-6`, 'invalid_body');
        }
        days = [...new Set(d.days as number[])].sort();
      }
      return { start_date: start, end_date: end, days };
    });
  }
  return out;
}

/** Ids of legacy labels: a category of the object's type first, else a type-less one; unknown ones are created type-less. */
async function termIds(db: Db, table: 'categories' | 'tags', labels: string[], typeId: number): Promise<number[]> {
  const ids: number[] = [];
  const now = nowIso();
  for (const label of labels) {
    const name = slugify(label) || label.toLowerCase();
    let find = db.selectFrom(table).select('id').where('name', '=', name);
    if (table === 'categories') {
      find = db
        .selectFrom('categories')
        .select('id')
        .where('name', '=', name)
        .where((eb) => eb.or([eb('object_type_id', '=', typeId), eb('object_type_id', 'is', null)]))
        .orderBy(sql`case when object_type_id is null then 1 else 0 end`);
    }
    const found = await find.executeTakeFirst();
    if (found) {
      ids.push(Number(found.id));
      continue;
    }
    const row = await db.insertInto(table).values({ name, label, created: now, modified: now }).returning('id').executeTakeFirstOrThrow();
    ids.push(Number(row.id));
  }
  return [...new Set(ids)];
}

/** "my_tag" → "My Tag", as BEdita labels a tag created by name only (Inflector::humanize). */
const humanize = (name: string) => name.replace(/[_-]+/g, ' ').replace(/\b\w/g, (c) => c.toUpperCase());

/** BEdita's rule for category and tag names (Validation::CATEGORY_NAME_REGEX). */
export const TERM_NAME = /^[a-z0-9][a-z0-9_-]{1,50}$/;

/** Ids of the categories named, each an enabled category of type `typeId` (or a legacy one): 400 naming any other. */
async function categoryIds(db: Db, names: string[], typeId: number, typeName: string): Promise<number[]> {
  if (!names.length) return [];
  // A legacy write records labels: their slugs name the categories (a history restore sends them).
  const rows = await db.selectFrom('categories').select(['id', 'name', 'object_type_id', 'enabled']).where('name', 'in', [...names, ...names.map(slugify)]).execute();
  return [
    ...new Set(
      names.map((name) => {
        const named = (n: string) => rows.filter((r) => r.name === n && r.enabled && (r.object_type_id === null || Number(r.object_type_id) === typeId));
        const mine = named(name).length ? named(name) : named(slugify(name));
        const own = mine.find((r) => r.object_type_id !== null) ?? mine[0];
        if (!own) throw badRequest(`categories: "${name}" is not an enabled category of ${typeName}`, 'invalid_data');
        return Number(own.id);
      }),
    ),
  ];
}

/** Ids of the tags named; unknown ones are created, disabled ones left out (as BEdita's CategoriesBehavior). */
async function tagIds(db: Db, tags: Array<{ name: string; label: string | null }>): Promise<number[]> {
  const ids: number[] = [];
  const now = nowIso();
  for (const tag of tags) {
    const found =
      (await db.selectFrom('tags').select(['id', 'enabled']).where('name', '=', tag.name).executeTakeFirst()) ??
      // A legacy write records labels: their slugs name the tags (a history restore sends them).
      (await db.selectFrom('tags').select(['id', 'enabled']).where('name', '=', slugify(tag.name)).executeTakeFirst());
    if (found) {
      if (found.enabled) ids.push(Number(found.id));
      continue;
    }
    if (!TERM_NAME.test(tag.name)) throw badRequest(`tags: "${tag.name}" is not a valid name (lower case letters, digits, - and _, 2 to 51 characters)`, 'invalid_data');
    const label = tag.label ?? humanize(tag.name);
    const row = await db
      .insertInto('tags')
      .values({ name: tag.name, label, labels: JSON.stringify({ default: label }), created: now, modified: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    ids.push(Number(row.id));
  }
  return [...new Set(ids)];
}

/** The object's terms become `ids`: a category it keeps keeps its params (as BEdita keeps a link's join data). */
async function linkTerms(db: Db, table: 'object_categories' | 'object_tags', objectId: number, ids: number[]): Promise<void> {
  if (table === 'object_categories') {
    const kept = new Map((await db.selectFrom('object_categories').select(['category_id', 'params']).where('object_id', '=', objectId).execute()).map((r) => [Number(r.category_id), r.params]));
    await db.deleteFrom(table).where('object_id', '=', objectId).execute();
    if (ids.length) await db.insertInto(table).values(ids.map((category_id) => ({ object_id: objectId, category_id, params: kept.get(category_id) ?? null }))).execute();
    return;
  }
  await db.deleteFrom(table).where('object_id', '=', objectId).execute();
  if (ids.length) await db.insertInto(table).values(ids.map((tag_id) => ({ object_id: objectId, tag_id }))).execute();
}

/** Replace the kinds of terms named in `input` for one object (inside the caller's transaction). */
declare module '../objects/kernel.js' {
  interface ObjectParts {
    /** Categories, tags, geo tags, date items of the object (the terms extension's part). */
    terms?: TermsInput;
  }
}

/** Whether `input` names any term field (an empty one leaves the object's terms as they are). */
export const namesTerms = (input: TermsInput) => Object.values(input).some((v) => v !== undefined);

/** The terms part of a command: the fields named replace the object's (kernel has read and authorised it). */
export const termsPart: PartHandler<TermsInput> = async (w, input) => {
  const { bedita, ...legacy } = input;
  await saveTerms(w.trx, w.row.id, w.type.id, legacy);
  const changed: Record<string, unknown> = Object.fromEntries(Object.entries(legacy).filter(([, v]) => v !== undefined));
  if (bedita) {
    // Only what differs is a change (an editor sending back what it read records nothing).
    const before = (await loadTerms(w.trx, [w.row.id])).get(w.row.id)!;
    const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
    if (bedita.categories) {
      const ids = await categoryIds(w.trx, bedita.categories, w.type.id, w.type.name);
      if (!same([...ids].sort((a, b) => a - b), before.categories.map((c) => c.id).sort((a, b) => a - b))) {
        await linkTerms(w.trx, 'object_categories', w.row.id, ids);
        changed.categories = bedita.categories;
      }
    }
    if (bedita.tags) {
      const ids = await tagIds(w.trx, bedita.tags);
      const names = (await w.trx.selectFrom('tags').select('name').where('id', 'in', ids.length ? ids : [-1]).execute()).map((t) => t.name).sort();
      if (!same(names, before.tags.map((t) => t.name).sort())) {
        await linkTerms(w.trx, 'object_tags', w.row.id, ids);
        changed.tags = names;
      }
    }
    if (bedita.date_ranges && !same(bedita.date_ranges, before.date_ranges)) {
      await saveDateRows(w.trx, w.row.id, bedita.date_ranges.map((d) => ({ ...d, days: [] })));
      changed.date_ranges = bedita.date_ranges;
    }
  }
  return { changed };
};

/** Replace an object's date rows (legacy date items and BEdita date ranges are the same rows). */
async function saveDateRows(db: Db, objectId: number, rows: Array<{ start_date: string | null; end_date: string | null; days: number[]; params?: unknown }>): Promise<void> {
  await db.deleteFrom('date_items').where('object_id', '=', objectId).execute();
  for (const d of rows) {
    await db
      .insertInto('date_items')
      .values({ object_id: objectId, start_date: d.start_date, end_date: d.end_date, days: JSON.stringify(d.days), params: d.params === undefined || d.params === null ? null : JSON.stringify(d.params) })
      .execute();
  }
}

async function saveTerms(db: Db, objectId: number, typeId: number, input: Omit<TermsInput, 'bedita'>): Promise<void> {
  if (input.categories) await linkTerms(db, 'object_categories', objectId, await termIds(db, 'categories', input.categories, typeId));
  if (input.tags) await linkTerms(db, 'object_tags', objectId, await termIds(db, 'tags', input.tags, typeId));
  if (input.geo_tags) {
    await db.deleteFrom('geo_tags').where('object_id', '=', objectId).execute();
    for (const g of input.geo_tags) {
      await db
        .insertInto('geo_tags')
        .values({ object_id: objectId, title: g.title, address: g.address, latitude: g.latitude, longitude: g.longitude, gmaps_lookats: g.gmaps_lookats ? JSON.stringify(g.gmaps_lookats) : null })
        .execute();
    }
  }
  if (input.date_items) await saveDateRows(db, objectId, input.date_items);
}
