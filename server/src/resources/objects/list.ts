// Object lists: every list of objects (a type, /objects, a relation, a folder's children or
// parents, the trash) is built here, with the list parameters of the contract (page, sort,
// filters, search, include), visibility through the read path, and costly reads cached until the
// next write.
import { expressionBuilder, sql, type CompiledQuery, type Expression, type SqlBool } from 'kysely';
import type { AppContext } from '../../context.js';
import { LIST_COLUMNS } from '../../db/data-version.js';
import { LruMap } from '../../db/lru.js';
import { longRead, nameStatement, preparedList } from '../../db/prepared.js';
import { cachedRead } from '../../db/read-cache.js';
import { confirmAlong, READ_ALONG_COLUMN, VersionMoved, type ReadAlong } from '../../db/read-along.js';
import type { Database } from '../../db/tables.js';
import type { DraftTranslations } from '../../db/dialect/dialect.js';
import { badRequest } from '../../http/errors.js';
import type { PageInfo, Resource } from '../../http/jsonapi.js';
import { applyFilters, applySort, parseListQuery, type ColumnRef, type FieldKind, type ListQuery } from '../../http/query.js';
import { extensionIncludeNames, withListValues, type ObjectExtension } from './extensions.js';
import { concreteTypeNames, isSubtypeOf, relationNamesOf, typeByName, visibleProperties, type ObjectType, type PropertyDef, type RelationDef } from './model.js';
import { everyStatusWhere, SYSTEM, typeVisible, visibilityKey, visibleObjects } from './read.js';
import type { ObjectRow } from './rows.js';
import { schemaMeta, serializeObjects } from './serialize.js';
import type { ReadContext } from '../../http/read-context.js';

const CORE_FILTERS: Record<string, FieldKind> = {
  id: 'integer',
  uname: 'string',
  title: 'string',
  description: 'string',
  body: 'string',
  lang: 'string',
  status: 'string',
  locked: 'boolean',
  created: 'date',
  modified: 'date',
  published: 'date',
  publish_start: 'date',
  publish_end: 'date',
  created_by: 'integer',
  modified_by: 'integer',
};

/** How a custom property filters and sorts, from its property type's fragment (none: json, arrays…). */
export function propertyKind(p: PropertyDef): FieldKind | undefined {
  const type = ([] as unknown[]).concat(p.params.type ?? []).find((t) => t !== 'null');
  if (type === 'string') return p.params.format === 'date' ? 'day' : p.params.format === 'date-time' ? 'date' : 'string';
  return type === 'integer' || type === 'number' || type === 'boolean' ? type : undefined;
}

export interface ListOptions {
  /** Types listed (default: every enabled concrete type). */
  types?: string[];
  /** A further condition on `objects` (e.g. a folder's children). */
  extraWhere?: (eb: ReturnType<typeof expressionBuilder<Database, 'objects'>>) => Expression<SqlBool>;
  /** List the trash instead of active objects. */
  trashed?: boolean;
  /** Further sortable names and their SQL (e.g. a folder child's `position`). */
  sorts?: Record<string, ColumnRef>;
  /** Sort when the request names none (default `id`). */
  defaultSort?: string;
  /**
   * The request goes ahead on the data version as last seen (db/read-along.ts): the statement
   * that reads the page's rows takes the version rows along and confirms it (VersionMoved when
   * they moved). The caller confirms by reading the version when no such statement ran (the page
   * came from the cache, or had no rows).
   */
  along?: ReadAlong;
}

export interface ObjectList {
  data: Resource[];
  included: Resource[];
  page: PageInfo;
  meta: Record<string, unknown>;
}

/**
 * Filters that every list on `types` answers, and their columns: a field one of the types hides
 * is none of them (naming it gives 400), so its values never select or order what is listed.
 */
function listColumns(ctx: AppContext, types: ObjectType[]) {
  const hidden = new Set(types.flatMap((t) => t.hidden));
  const core = Object.keys(CORE_FILTERS).filter((f) => !hidden.has(f));
  const fields: Record<string, FieldKind> = Object.fromEntries(core.map((f) => [f, CORE_FILTERS[f]]));
  const columns: Record<string, ColumnRef> = Object.fromEntries(core.map((f) => [f, `objects.${f}`]));
  const [first, ...rest] = types;
  for (const p of first ? visibleProperties(first) : []) {
    const kind = propertyKind(p);
    if (!kind || hidden.has(p.name) || !rest.every((t) => t.properties.some((q) => q.name === p.name && q.type === p.type))) continue;
    fields[p.name] = kind;
    columns[p.name] = ctx.dialect.json.property('objects.properties', p.name, kind);
  }
  return { fields, columns };
}

function expandTypeFilter(ctx: AppContext, names: string[], allowed: Set<string>): string[] {
  const out = new Set<string>();
  for (const name of names) {
    const t = typeByName(ctx, name);
    if (!t) throw badRequest(`filter[type]: unknown object type "${name}"`, 'invalid_filter');
    for (const n of allowed) if (isSubtypeOf(ctx, n, name)) out.add(n);
  }
  return [...out];
}

/** A yes/no filter value: `filter[mine]`, `filter[mine]=1|true` are yes, `0|false` no. */
export function yesNo(values: string[], name: string): boolean {
  const v = values.length ? values[0].toLowerCase() : 'true';
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw badRequest(`filter[${name}] must be true or false`, 'invalid_filter');
}

/**
 * The reader's own filters, as BEdita names them: `filter[mine]` (objects the reader created)
 * and `filter[history_editor]` (objects a user — by default the reader — created or changed,
 * by their history).
 */
function readerFilters(userId: number | null, special: Record<string, string[]>, eb: ReturnType<typeof expressionBuilder<Database, 'objects'>>): Expression<SqlBool> | null {
  const out: Expression<SqlBool>[] = [];
  if (special.mine && yesNo(special.mine, 'mine')) out.push(userId === null ? sql<SqlBool>`1 = 0` : eb('objects.created_by', '=', userId));
  if (special.history_editor) {
    const given = special.history_editor[0];
    if (given !== undefined && !/^\d{1,15}$/.test(given)) throw badRequest('filter[history_editor] must be a user id', 'invalid_filter');
    const editor = given !== undefined ? Number(given) : userId;
    const edited = eb.selectFrom('history').select('history.resource_id').where('history.resource_type', '=', 'objects').where('history.user_id', '=', editor ?? -1);
    out.push(eb('objects.id', 'in', edited));
  }
  return out.length ? eb.and(out) : null;
}

/**
 * `filter[<relation name>]=<id>,…`: objects related by that relation (from their side) to one of
 * the objects named; only objects the reader may see count (a hidden one relates to nothing).
 */
function relatedToWhere(
  ctx: AppContext,
  viewer: ReadContext['viewer'],
  eb: ReturnType<typeof expressionBuilder<Database, 'objects'>>,
  name: string,
  sides: Array<{ relation: RelationDef; inverse: boolean }>,
  values: string[],
): Expression<SqlBool> {
  if (!values.length || values.some((v) => !/^\d{1,15}$/.test(v))) throw badRequest(`filter[${name}] must be object ids`, 'invalid_filter');
  const ids = values.map(Number);
  const seen = visibleObjects(ctx, viewer, ctx.db).select('objects.id').where('objects.id', 'in', ids);
  return eb.or(
    sides.map(({ relation, inverse }) => {
      const [mine, other] = inverse ? (['right_id', 'left_id'] as const) : (['left_id', 'right_id'] as const);
      return eb(
        'objects.id',
        'in',
        eb.selectFrom('object_relations').select(`object_relations.${mine}`).where('object_relations.relation_id', '=', relation.id).where(`object_relations.${other}`, 'in', seen),
      );
    }),
  );
}

/**
 * The statements of a list, compiled: its count, its page's ids and (where the sort reads only
 * the row) its page's rows, the page's offset left as OFFSET among their parameters.
 */
interface ListPlan {
  count: CompiledQuery<{ n: number | string }>;
  ids: CompiledQuery<{ id: number }>;
  rows?: CompiledQuery<ObjectRow>;
  /** The first page's statements: no OFFSET, the page size written in (see Anchors, on plans). */
  first: { ids: CompiledQuery<{ id: number }>; rows?: CompiledQuery<ObjectRow> };
  /** What structured filters compute per listed object (geo: the distance). */
  extras: Array<(ids: number[]) => Promise<Map<number, Record<string, unknown>>>>;
  /** Deep pages found from an anchor instead of skipping every row before them (see Anchors). */
  anchors?: Anchors;
  /**
   * A search ranked by relevance: its count and a page in one statement (`n` on every row; one row
   * with a null id when the page is empty), run when the count is not held yet (see Searched once).
   */
  counted?: { first: CompiledQuery<CountedRow>; at: CompiledQuery<CountedRow> };
  /** A search ranked by relevance: its count is of its window, SEARCH_WINDOW + 1 at most (see The search window). */
  windowed: boolean;
}

type CountedRow = { n: number | string; id: number | null };

/*
 * The search window. A search ranked by relevance (no `sort`) ranks the newest SEARCH_WINDOW of
 * its visible matches (the highest ids), not all of them: its pages are those matches in order of
 * relevance, and its count is theirs (`meta.search` says whether older matches were left out).
 * Ranking every match made a word found in most documents cost work in proportion to them (bm25
 * reads each match's positions, the count visits each match): 15-29 ms at 20,000 documents, a
 * second at a million, and ten such searches at once kept every other reader waiting. The window
 * is read newest first straight from the index (FTS5 consumes `order by rowid desc`; on PostgreSQL
 * the id order), and the reading stops at the window's end. A search with a `sort` still lists and
 * counts every match: what a client asks for when it wants them all. Elasticsearch's
 * `max_result_window` and Algolia's `paginationLimitedTo` (1,000 by default) bound their result sets
 * the same way. Decisions: "A ranked search ranks its newest 1,000 matches (issue 48, twentieth round)".
 */
export const SEARCH_WINDOW = 1000;

/*
 * Searched once. A ranked search used to run its full-text match twice, once to count the matches
 * and once to rank them for the page; each run reads the words' lists in the index again (a short
 * last word, a prefix, merges the lists of every word it starts). Where the count is not held yet,
 * one statement finds the matches once (a materialized CTE of ids and ranks) and answers both.
 * Measured on the bench's 20,000 documents, its 159 words each counted and ranked: 2.6 s with two
 * statements, 2.0 s with one.
 */

/**
 * Deep pages. An OFFSET makes the database walk every row before the page (measured at 20,000
 * documents: 6-17 ms for the last page; at a million, every page past the middle took longer than
 * a reader waits). A list sorted on columns that are never null keeps, per shape and until the next
 * write, the sort values of the last row of every page (an anchor: every `spacing` rows, the page
 * size or, below MIN_ANCHOR_SPACING, a multiple of it); a page after the first starts after the
 * anchor before it (`(sort values) after (anchor)`, the order's own comparison, the page size
 * written in as a literal), and skips no row at all (or fewer than `spacing` below it). Anchors are
 * found as pages need them, by a walk that reads ANCHOR_STEP rows' sort values per statement and
 * keeps every `spacing`-th (the first deep page of a shape walks as far as an OFFSET would, once).
 *
 * On plans (PostgreSQL): a statement with an OFFSET or LIMIT parameter is planned as if it read a
 * tenth of its rows, so its generic plan looks dearer than any page's own and PostgreSQL planned
 * every execution again (0.4-0.9 ms of the database's CPU per page, more than running it). Page
 * statements without an OFFSET and with the page size written in are costed as the page they read,
 * so PostgreSQL may keep a generic plan for them (it still chooses by cost: decisions.md, "An anchor
 * at every page").
 */
interface Anchors {
  /** The anchors among the next `batch` rows from the start (first) or from an anchor (next), in order, with `anchor_rows` (how many rows were read). */
  first: CompiledQuery<Record<string, unknown>>;
  next: CompiledQuery<Record<string, unknown>>;
  /** Rows between two anchors: the page size, or a multiple of it (MIN_ANCHOR_SPACING). */
  spacing: number;
  /** Rows a walk statement reads: a multiple of `spacing`, about ANCHOR_STEP. */
  batch: number;
  /** The page's ids and rows right after an anchor. */
  ids: CompiledQuery<{ id: number }>;
  rows?: CompiledQuery<ObjectRow>;
  /** The same, OFFSET rows on (pages that do not start at an anchor: page sizes under MIN_ANCHOR_SPACING). */
  idsAt?: CompiledQuery<{ id: number }>;
  rowsAt?: CompiledQuery<ObjectRow>;
  /** How many sort values an anchor holds (the sort's columns and the id). */
  width: number;
}

/** Rows a walk statement reads (the sort values only) to find the anchors among them. */
export const ANCHOR_STEP = 1000;

/**
 * The fewest rows between two anchors: a list paged by fewer keeps an anchor every so many pages
 * (at most one anchor per MIN_ANCHOR_SPACING rows of a list, whatever the page size).
 */
export const MIN_ANCHOR_SPACING = 20;

/** Rows between two anchors of a list paged by `pageSize`. */
export function anchorSpacing(pageSize: number): number {
  return pageSize * Math.ceil(MIN_ANCHOR_SPACING / pageSize);
}

/** Sort fields an anchor may hold: columns that are never null (a null compares with nothing). */
const ANCHORED_FIELDS = new Set(['id', 'created', 'modified']);

/** Stand for an anchor's values in a plan's parameters, as OFFSET stands for the offset. */
const ANCHOR_VALUES = Array.from({ length: 4 }, (_, i) => Object.freeze({ anchor: i }) as unknown as number);

/** Stands for the page's offset in a plan's parameters (compiled as a parameter like any value). */
const OFFSET = Object.freeze({ offset: 'of the page' }) as unknown as number;

/** `query` with `offset` where OFFSET stands (and an anchor's values where ANCHOR_VALUES stand). */
function atOffset<Row>(query: CompiledQuery<Row>, offset: number, anchor: readonly unknown[] = []): CompiledQuery<Row> {
  return {
    ...query,
    parameters: query.parameters.map((p) => {
      if (p === OFFSET) return offset;
      const at = ANCHOR_VALUES.indexOf(p as number);
      return at < 0 ? p : anchor[at];
    }),
  };
}

/**
 * Stands for a search's expression in a plan's parameters: one plan serves every search of a
 * shape, whatever its words (withSearch puts them in).
 */
const SEARCH_TEXT = Object.freeze({ search: 'of the request' }) as unknown as string;

/** `query` with `text` where SEARCH_TEXT stands. */
function searchFor<Q extends CompiledQuery<any> | undefined>(query: Q, text: string): Q {
  return query && ({ ...query, parameters: query.parameters.map((p) => (p === SEARCH_TEXT ? text : p)) } as Q);
}

/** The plan of a search with its expression put in every statement. */
function withSearch(plan: ListPlan, text: string): ListPlan {
  const a = plan.anchors;
  return {
    ...plan,
    count: searchFor(plan.count, text),
    ids: searchFor(plan.ids, text),
    rows: searchFor(plan.rows, text),
    first: { ids: searchFor(plan.first.ids, text), rows: searchFor(plan.first.rows, text) },
    anchors: a && { ...a, first: searchFor(a.first, text), next: searchFor(a.next, text), ids: searchFor(a.ids, text), rows: searchFor(a.rows, text), idsAt: searchFor(a.idsAt, text), rowsAt: searchFor(a.rowsAt, text) },
    counted: plan.counted && { first: searchFor(plan.counted.first, text), at: searchFor(plan.counted.at, text) },
  };
}

/**
 * The `index`-th (0-based) anchor of a list: the sort values of its row number
 * (index + 1) × spacing, found from the nearest anchor already known; null when the list has no
 * such row (it changed meanwhile: the caller pages with an OFFSET instead).
 */
async function anchorAt(ctx: AppContext, key: string, anchors: Anchors, index: number, scope: 'data' | 'lists'): Promise<unknown[] | null> {
  // One list of anchors per shape, kept in the read cache: dropped at the next write (`lists`: the
  // next write that may move a member, see movesOnlyWithLists). One walk at a time extends it, as
  // far as the deepest request waiting asks (concurrent requests for deep pages each walked the
  // same steps); each request goes on as soon as its own anchor is found, not when the walk ends
  // (the first pages asked after a write all waited for the deepest one).
  const cacheKey = `anchors\u0000${scope}\u0000${key}`;
  const known = await ctx.readCache.get(cacheKey, async () => newAnchorWalk(), scope);
  while (known.values.length <= index * anchors.width) {
    if (known.ended) return null;
    known.target = Math.max(known.target, index);
    if (!known.walk) known.walk = walkAnchors(ctx, anchors, known, () => ctx.readCache.reweigh(cacheKey, scope)).finally(() => (known.walk = null));
    // The next anchors found, the walk's end, or its failure (a failed step fails its waiters).
    await Promise.race([known.stepped, known.walk]);
  }
  return known.values.slice(index * anchors.width, (index + 1) * anchors.width);
}

/** The anchors of one list shape found so far, and the walk extending them, if any. */
interface AnchorWalk {
  /** The anchors' sort values, one after the other (`width` per anchor). */
  values: unknown[];
  /** Walk statements run for them: the read cache's weight (each read ANCHOR_STEP rows). */
  weight: number;
  walk: Promise<void> | null;
  /** The deepest anchor a request waits for: the walk under way goes on until it is found. */
  target: number;
  /** Settles when the walk finds its next anchors or ends (made anew each time: `found`). */
  stepped: Promise<void>;
  found: () => void;
  /** The list ended before the last anchor asked for. */
  ended: boolean;
}

function newAnchorWalk(): AnchorWalk {
  const known = { values: [], weight: 0, walk: null, target: -1, ended: false } as unknown as AnchorWalk;
  armAnchorWalk(known);
  return known;
}

function armAnchorWalk(known: AnchorWalk): void {
  known.stepped = new Promise((resolve) => {
    known.found = () => {
      armAnchorWalk(known);
      resolve();
    };
  });
}

/** Anchor steps run by this process (each reads up to ANCHOR_STEP rows of a list): for tests and the benchmark. */
export const anchorStatistics = { steps: 0 };

/** Steps from the last known anchor until the target is known (or the list ends). */
async function walkAnchors(ctx: AppContext, anchors: Anchors, known: AnchorWalk, grew: () => void): Promise<void> {
  const { width, spacing, batch } = anchors;
  while (known.values.length <= known.target * width) {
    const step = known.values.length === 0 ? anchors.first : atOffset(anchors.next, 0, known.values.slice(-width));
    anchorStatistics.steps++;
    // Every `spacing`-th row of the next `batch`, and how many rows there were. The batch is a
    // whole number of spacings: its last row, when it has them all, is an anchor (where the next
    // step starts).
    const rows = await longRead(ctx.db, step);
    for (const row of rows) {
      for (let k = 0; k < width; k++) known.values.push(row[`anchor_${k}`]);
    }
    known.weight++;
    grew();
    if (rows.length === 0 || Number(rows[0].anchor_rows) < batch) {
      known.ended = true;
      known.found();
      return;
    }
    known.found();
  }
}

/** Sorts whose anchors stay where they are while DataVersion.lists() does (LIST_COLUMNS): not `modified`. */
const LIST_ORDERS = new Set(['id', 'created']);

/**
 * Whether what a kept list holds (its count, and which row is where when sorted by LIST_ORDERS)
 * depends only on what DataVersion.lists() follows: the reader's visibility (in the plan's key; its
 * object permissions move the settings version), the types (the model version) and, of each row,
 * LIST_COLUMNS. So: no filter but the type and filters on those columns, no search, no
 * extension's filter (planKey already refuses a caller's own condition and sorts).
 */
function movesOnlyWithLists(q: ListQuery, columns: Record<string, ColumnRef>): boolean {
  if (Object.keys(q.special).some((name) => name !== 'type') || Object.keys(q.structured).length) return false;
  return q.filters.every((f) => LIST_COLUMNS.includes(f.field) && columns[f.field] === `objects.${f.field}`);
}

/** Plans kept per shape; bounded by count, the least recently used dropped first. */
const MAX_PLANS = 256;
const MAX_PLAN_KEY = 2048;
const plansByContext = new WeakMap<AppContext, LruMap<string, ListPlan>>();

function listPlans(ctx: AppContext): LruMap<string, ListPlan> {
  let plans = plansByContext.get(ctx);
  if (!plans) plansByContext.set(ctx, (plans = new LruMap(MAX_PLANS)));
  return plans;
}

/**
 * What a list's statements are made of, as a key: two requests with the same key get the same
 * SQL and parameters (but the offset). The model's version, the user, who reads as visibleWhere
 * sees it (read.ts visibilityKey: reach per type, roles, the publication epoch), the language, the
 * types and the parsed query but its page. null where a part of the list is not a function of
 * these: a caller's own condition or sorts (a folder's children, a relation), an extension's
 * filters and sorts (they may read the database: a category's name).
 */
function planKey(
  ctx: AppContext,
  rc: ReadContext,
  q: ListQuery,
  opts: ListOptions,
  typeNames: string[],
  extFilters: Map<string, unknown>,
  extSorts: Record<string, unknown>,
): string | null {
  if (opts.extraWhere || opts.sorts || Object.keys(q.structured).length) return null;
  if (Object.keys(q.special).some((name) => extFilters.has(name)) || q.sort.some((s) => Object.hasOwn(extSorts, s.field))) return null;
  const key = JSON.stringify([
    ctx.dataVersion.model(),
    // The reader's own filters (mine, history_editor) and the search's published-only
    // translations read the user, admins included.
    rc.viewer.userId,
    visibilityKey(ctx, rc.viewer),
    rc.lang ?? null,
    typeNames,
    opts.trashed ?? false,
    q.pageSize,
    q.sort,
    q.defaultSorted,
    q.filters,
    q.special,
    q.excluded,
  ]);
  // A query with long values (a search of a whole paragraph) is rarely asked twice: not kept, so
  // that the plans stay small (at most MAX_PLANS × MAX_PLAN_KEY of keys).
  return key.length <= MAX_PLAN_KEY ? key : null;
}

/**
 * A page's rows with the data version rows along (PostgreSQL: DataVersion.along.column, one
 * uncorrelated subquery the database runs once per statement), so that a list read along
 * (ListOptions.along) needs no round trip of its own for the version.
 */
function withVersions<Q extends { select: (s: never) => unknown }>(ctx: AppContext, query: Q): Q {
  const column = ctx.dataVersion.along?.column;
  return column ? (query.select(sql.raw<string>(column).as(READ_ALONG_COLUMN) as never) as Q) : query;
}

/**
 * Takes the version rows off a page's rows (withVersions) and, for a request read along, confirms
 * its version with them. Answers whether it moved: the caller throws VersionMoved, once the read
 * cache has handed the page to whoever shared the read (their requests are not this one's).
 */
function takeVersions(ctx: AppContext, rows: ObjectRow[], along: ReadAlong | undefined): boolean {
  if (!ctx.dataVersion.along) return false;
  const versions = (rows[0] as (ObjectRow & { [READ_ALONG_COLUMN]?: unknown }) | undefined)?.[READ_ALONG_COLUMN];
  for (const row of rows) delete (row as ObjectRow & { [READ_ALONG_COLUMN]?: unknown })[READ_ALONG_COLUMN];
  if (!along || along.confirmed || versions === undefined) return false;
  try {
    // Seen before the read cache keeps the page: a page read after another's commit is then not
    // kept under the version this request started from.
    confirmAlong(ctx.dataVersion, along, versions);
    return false;
  } catch (err) {
    if (err instanceof VersionMoved) return true;
    throw err;
  }
}

/**
 * The rows of a page, by id, with what the extensions read per row (folders: the parents) in the
 * same statement, as a page read whole has them (prepared: a named statement on PostgreSQL, one
 * shape per page size; per context, whose extensions it names). A ranked search's page reads its
 * rows here: its parents then need no statement of their own, nor the parent folders one when
 * they are plainly published.
 */
const rowsByIdsOf = new WeakMap<AppContext, ReturnType<typeof preparedList<ObjectRow>>>();
function rowsByIds(ctx: AppContext): ReturnType<typeof preparedList<ObjectRow>> {
  let query = rowsByIdsOf.get(ctx);
  if (!query) {
    query = preparedList<ObjectRow>((db, p, n) =>
      // The page's ids were found by the list's query, through the viewer's visibility.
      withListValues(
        ctx,
        visibleObjects(null, SYSTEM, db, { trashed: 'any' })
          .selectAll('objects')
          .where('objects.id', 'in', Array.from({ length: n }, (_, i) => p(i))),
      ),
    );
    rowsByIdsOf.set(ctx, query);
  }
  return query;
}

export async function listObjects(rc: ReadContext, ctx: AppContext, opts: ListOptions = {}): Promise<ObjectList> {
  const viewer = rc.viewer;
  const typeNames = (opts.types ?? concreteTypeNames(ctx)).filter((n) => typeVisible(viewer, n));
  const types = typeNames.map((n) => typeByName(ctx, n)).filter((t): t is ObjectType => !!t);
  const { fields, columns } = listColumns(ctx, types);
  Object.assign(columns, opts.sorts);
  const extFilters = new Map<string, NonNullable<ObjectExtension['filters']>[string]>();
  for (const ext of ctx.objects.extensions) for (const [name, f] of Object.entries(ext.filters ?? {})) extFilters.set(name, f);
  const filterOrders = new Map<string, NonNullable<ObjectExtension['filterOrders']>[string]>();
  for (const ext of ctx.objects.extensions) for (const [name, f] of Object.entries(ext.filterOrders ?? {})) filterOrders.set(name, f);
  const structuredFilters = Object.assign({}, ...ctx.objects.extensions.map((ext) => ext.structuredFilters ?? {})) as NonNullable<ObjectExtension['structuredFilters']>;
  const extSorts = Object.assign({}, ...ctx.objects.extensions.map((ext) => ext.sorts ?? {})) as NonNullable<ObjectExtension['sorts']>;
  const includes = new Set([...types.flatMap((t) => relationNamesOf(ctx, t.name).map((r) => r.name)), ...extensionIncludeNames(ctx)]);
  // filter[<relation name>]=<id>: objects related to that object by that relation (BEdita).
  const ownFilters = ['type', 'query', 'search_translations', 'mine', 'history_editor'];
  const relationFilters = new Map<string, Array<{ relation: RelationDef; inverse: boolean }>>();
  for (const t of types) {
    for (const r of relationNamesOf(ctx, t.name)) {
      if (Object.hasOwn(fields, r.name) || extFilters.has(r.name) || ownFilters.includes(r.name)) continue;
      const sides = relationFilters.get(r.name) ?? [];
      if (!sides.some((x) => x.relation.id === r.relation.id && x.inverse === r.inverse)) sides.push(r);
      relationFilters.set(r.name, sides);
    }
  }
  const q: ListQuery = parseListQuery(rc, {
    fields,
    special: [...ownFilters, ...extFilters.keys(), ...relationFilters.keys()],
    negatable: ['type'],
    structured: Object.keys(structuredFilters),
    includes: [...includes],
    sortable: [...Object.keys(fields), ...Object.keys(opts.sorts ?? {}), ...Object.keys(extSorts)],
    defaultSort: opts.defaultSort ?? 'id',
  });

  // The statements of this list (count, page ids, page rows), built and compiled once per shape:
  // kysely builds and compiles them on every call, a good part of an uncached list page's CPU.
  // A search's words are not part of its shape: its plan has SEARCH_TEXT where they go, and every
  // search of the shape shares it (each word asked once built and compiled a plan of its own).
  const search = ctx.dialect.search;
  const searchText = q.special.query ? search.expression(q.special.query[0]) : undefined;
  const shape = searchText ? { ...q, special: { ...q.special, query: [] } } : q;
  const key = planKey(ctx, rc, shape, opts, typeNames, extFilters, extSorts);
  let plan = key === null ? undefined : listPlans(ctx).get(key);
  if (!plan) {
    plan = await buildPlan();
    if (key !== null) {
      listPlans(ctx).set(key, plan);
      // A kept plan's page statements and its anchor step go named on PostgreSQL: parsed and
      // planned once per connection (the count and the first anchor run once per write).
      for (const query of [plan.rows, plan.first.rows, plan.anchors?.rows, plan.anchors?.rowsAt, plan.anchors?.next]) if (query) nameStatement(query.sql);
    }
  }
  if (searchText) plan = withSearch(plan, searchText);
  // The anchors of a sorted search are its words' own.
  const anchorsKey = key !== null && searchText ? `${key}\u0000${searchText}` : key;
  // A search's statements hold SEARCH_TEXT where its words go (withSearch puts them in).
  async function buildPlan(): Promise<ListPlan> {
    let listed = typeNames;
    if (q.special.type) listed = expandTypeFilter(ctx, q.special.type, new Set(typeNames));
    if (q.excluded.type) {
      const left = new Set(expandTypeFilter(ctx, q.excluded.type, new Set(typeNames)));
      listed = listed.filter((n) => !left.has(n));
    }
    const typeIds = listed.map((n) => typeByName(ctx, n)!.id);

    const eb = expressionBuilder<Database, 'objects'>();
    const conditions: Expression<SqlBool>[] = [];
    for (const [name, values] of Object.entries(q.special)) {
      const f = extFilters.get(name);
      if (f) conditions.push(await f(values, eb, ctx, viewer));
      const sides = relationFilters.get(name);
      if (sides) conditions.push(relatedToWhere(ctx, viewer, eb, name, sides, values));
    }
    const mine = readerFilters(viewer.userId, q.special, eb);
    if (mine) conditions.push(mine);
    if (opts.extraWhere) conditions.push(opts.extraWhere(eb));
    let sort = q.sort;
    for (const [name, values] of Object.entries(q.special)) {
      const order = filterOrders.get(name);
      if (!order || !q.defaultSorted || sort !== q.sort) continue;
      columns[`filter:${name}`] = await order(values, eb, ctx);
      sort = [{ field: `filter:${name}`, desc: false }];
    }
    const extras: NonNullable<ReturnType<NonNullable<ObjectExtension['structuredFilters']>[string]>['extra']>[] = [];
    for (const [name, raw] of Object.entries(q.structured)) {
      const { where, order, extra } = structuredFilters[name](raw, ctx);
      conditions.push(where);
      if (extra) extras.push(extra);
      if (order && q.defaultSorted) {
        columns[`filter:${name}`] = order;
        sort = [{ field: `filter:${name}`, desc: false }];
      }
    }
    for (const s of q.sort) {
      if (!extSorts[s.field] || columns[s.field]) continue;
      const { column, where } = extSorts[s.field](q.structured, ctx);
      columns[s.field] = column;
      if (where) conditions.push(where);
    }

    let base = visibleObjects(ctx, viewer, ctx.db, { trashed: opts.trashed ?? false });
    // A search names the type column as its engine plans a search best (the dialect's typeColumn).
    const typeColumn = searchText ? search.typeColumn('objects.object_type_id') : sql.ref<number>('objects.object_type_id');
    base = typeIds.length ? base.where(typeColumn, 'in', typeIds) : base.where(sql<boolean>`0 = 1`);
    for (const c of conditions) base = base.where(c);
    base = applyFilters(base, q.filters, columns);
    if (searchText === null) base = base.where(sql<boolean>`0 = 1`);
    // Counting needs no rank: the matches filter the rows (bm25 costs about 1 µs per match).
    // Ranking joins the matches with their rank instead (never both: SQLite then runs the search
    // twice and, for a signed-in reader, took seconds).
    const ranked = !!searchText && q.defaultSorted;
    // With `lang`, a search also matches that language's translations (the reader's readable ones);
    // with `filter[search_translations]`, those of every language.
    const everyLanguage = q.special.search_translations ? yesNo(q.special.search_translations, 'search_translations') : false;
    if (everyLanguage && !q.special.query) throw badRequest('filter[search_translations] goes with a search (q or filter[query])', 'invalid_filter');
    const lang = everyLanguage ? null : rc.lang;
    const inTranslations = everyLanguage || !!lang;
    // Translations not `on` count only for readers of their object in every status.
    const everyStatus = inTranslations && searchText ? everyStatusWhere(ctx, viewer, eb) : null;
    const drafts: DraftTranslations = everyStatus === null ? 'all' : viewer.userId === null ? 'none' : visibleObjects(ctx, SYSTEM, ctx.db, { trashed: 'any' }).select('objects.id').where(everyStatus);
    const matchIds = (expr: string) =>
      inTranslations ? sql<number>`(select * from ${search.ids(expr)} as o union select search_id from ${search.translationRanks(expr, lang, drafts)} as t)` : search.ids(expr);
    const matching = searchText ? base.where('objects.id', 'in', matchIds(SEARCH_TEXT)) : base;

    // Sort and page on ids only, then read the page's rows: the sorter and the skipped rows never
    // carry bodies (often several kB each), and indexes can answer the first query alone.
    // A ranked search's visible matches with their rank: its pages, and its count with a page (counted).
    const rankedBy = (ranks: ReturnType<typeof search.ranks>) => base.innerJoin(ranks.as('search'), (join) => join.onRef(sql.ref('search.search_id') as never, '=', 'objects.id' as never));
    // The newest `size` visible matches of one index, newest first (read in the index's order, so
    // the reading stops at its end).
    const newestOf = (ranks: ReturnType<typeof search.ranks>, size: number) =>
      rankedBy(ranks)
        .select(['objects.id as id', sql.ref<number>('search.search_rank').as('search_rank')])
        .orderBy(sql.ref('search.search_id'), 'desc')
        .limit(sql.lit(size));
    // The window's matches. With translations, the newest `size` of each index's visible matches
    // (an object's best rank of the two), then the newest `size` of those: the same as the newest
    // `size` of all, each side read no further than its own window.
    const windowOf = (size: number) =>
      inTranslations
        ? ctx.db
            .selectFrom(
              sql<{ id: number; search_rank: number }>`(select * from ${newestOf(search.ranks(SEARCH_TEXT, true), size)} as o union all select * from ${newestOf(search.translationRanks(SEARCH_TEXT, lang, drafts), size)} as t)`.as('both'),
            )
            .select([sql.ref<number>('both.id').as('id'), sql<number>`min(${sql.ref('both.search_rank')})`.as('search_rank')])
            .groupBy(sql.ref('both.id'))
            .orderBy(sql.ref('both.id'), 'desc')
            .limit(sql.lit(size))
        : newestOf(search.ranks(SEARCH_TEXT), size);
    let idsQuery = (ranked ? base : matching).select('objects.id as id');
    if (ranked) {
      const inWindow = ctx.db.selectFrom(windowOf(SEARCH_WINDOW).as('search_window')).select('search_window.id as id').orderBy('search_window.search_rank', 'asc').orderBy('search_window.id', 'asc');
      idsQuery = inWindow as unknown as typeof idsQuery;
    } else idsQuery = applySort(idsQuery, sort, columns, 'objects.id');
    // A ranked search counts its window and one match more (there are older matches when it finds SEARCH_WINDOW + 1).
    const count = (
      ranked ? ctx.db.selectFrom(windowOf(SEARCH_WINDOW + 1).as('search_window')).select((e) => e.fn.countAll<number>().as('n')) : matching.select((e) => e.fn.countAll<number>().as('n'))
    ).compile() as CompiledQuery<{ n: number | string }>;
    const paged = idsQuery.limit(q.pageSize).offset(OFFSET);
    // A page not read before is read whole in one statement: its rows, found by the ids query and
    // put in the same order again (the sort ends with the id, so the order is the same). Only where
    // the sort reads nothing but the row itself (not a search's rank or an extension's join).
    const sortedByRow = !ranked && sort.every((s) => Object.hasOwn(fields, s.field) || Object.hasOwn(opts.sorts ?? {}, s.field));
    // With what the extensions read per row (folders: the parents), in the same statement.
    const rowsOf = (ids: typeof paged) =>
      applySort(withVersions(ctx, withListValues(ctx, visibleObjects(ctx, SYSTEM, ctx.db, { trashed: 'any' }).selectAll('objects').where('objects.id', 'in', ids))), sort, columns, 'objects.id').compile() as CompiledQuery<ObjectRow>;
    const rows = sortedByRow ? rowsOf(paged) : undefined;
    let anchors: Anchors | undefined;
    if (key !== null && sortedByRow && sort.every((s) => ANCHORED_FIELDS.has(s.field) && columns[s.field] === `objects.${s.field}`)) {
      // The order's columns, the id last unless sorted on already (applySort's tie-breaker, ascending).
      const order = sort.map((s) => ({ column: `objects.${s.field}`, desc: s.desc }));
      if (!sort.some((s) => s.field === 'id')) order.push({ column: 'objects.id', desc: false });
      if (order.length <= ANCHOR_VALUES.length) {
        // Rows after the anchor in this order: (a > x) or (a = x and b > y) …, `<` where descending.
        // With more than one column, `a >= x` too: an OR alone bounds no index range, and both
        // engines then read the list from its start at every page and every walk step (at a
        // million objects, a walk by creation date took 73-136 s instead of about one).
        const after = (e: typeof eb) => {
          const strictly = e.or(order.map((o, k) => e.and([...order.slice(0, k).map((p, i) => e(sql.ref(p.column), '=', ANCHOR_VALUES[i])), e(sql.ref(o.column), o.desc ? '<' : '>', ANCHOR_VALUES[k])])));
          return order.length === 1 ? strictly : e.and([e(sql.ref(order[0].column), order[0].desc ? '<=' : '>=', ANCHOR_VALUES[0]), strictly]);
        };
        const spacing = anchorSpacing(q.pageSize);
        const batch = spacing * Math.max(1, Math.floor(ANCHOR_STEP / spacing));
        const values = matching.select(order.map((o, i) => sql.ref(o.column).as(`anchor_${i}`)));
        // A walk statement reads `batch` rows in the list's order and answers every `spacing`-th of
        // them (numbered in the same order), with how many it read: 50 rows, not 1,000, for the
        // server to take in (at a million objects, a whole walk was 2 s of Folio's CPU more).
        const anchorNames = order.map((_, i) => `anchor_${i}`);
        const walk = (w: typeof values) => {
          const read = applySort(w, sort, columns, 'objects.id').limit(sql.lit(batch)).as('walk');
          const inOrder = sql.join(order.map((o, i) => sql`${sql.ref(`walk.${anchorNames[i]}`)} ${sql.raw(o.desc ? 'desc' : 'asc')}`));
          const numbered = ctx.db
            .selectFrom(read as never)
            .select([...anchorNames.map((n) => sql.ref(`walk.${n}`).as(n)), sql<number>`row_number() over (order by ${inOrder})`.as('anchor_n'), sql<number>`count(*) over ()`.as('anchor_rows')] as never)
            .as('numbered');
          return ctx.db
            .selectFrom(numbered as never)
            .select([...anchorNames, 'anchor_rows'].map((n) => sql.ref(`numbered.${n}`).as(n)) as never)
            .where(sql`${sql.ref('numbered.anchor_n')} % ${sql.lit(spacing)}`, '=', sql.lit(0))
            .orderBy(sql.ref('numbered.anchor_n'))
            .compile() as CompiledQuery<Record<string, unknown>>;
        };
        const pagedAfter = idsQuery.where(after).limit(sql.lit(q.pageSize));
        const pagedAfterAt = spacing > q.pageSize ? pagedAfter.offset(OFFSET) : undefined;
        anchors = {
          first: walk(values),
          next: walk(values.where(after)),
          spacing,
          batch,
          ids: pagedAfter.compile() as CompiledQuery<{ id: number }>,
          rows: rows && rowsOf(pagedAfter),
          idsAt: pagedAfterAt?.compile() as CompiledQuery<{ id: number }> | undefined,
          rowsAt: rows && pagedAfterAt && rowsOf(pagedAfterAt),
          width: order.length,
        };
      }
    }
    const pagedFirst = idsQuery.limit(sql.lit(q.pageSize));
    const first = { ids: pagedFirst.compile() as CompiledQuery<{ id: number }>, rows: rows && rowsOf(pagedFirst) };
    let counted: ListPlan['counted'];
    if (ranked) {
      // The window and one match more, counted; the page from the window alone (its newest SEARCH_WINDOW).
      const countedAt = (offset: boolean) =>
        sql<CountedRow>`with matches as materialized ${windowOf(SEARCH_WINDOW + 1)}
          select total.n as n, page.id as id from (select count(*) as n from matches) as total
          left join (select id, search_rank from (select id, search_rank from matches order by id desc limit ${sql.lit(SEARCH_WINDOW)}) as search_window
            order by search_rank, id limit ${sql.lit(q.pageSize)}${offset ? sql` offset ${OFFSET}` : sql``}) as page on 1 = 1
          order by page.search_rank, page.id`.compile(ctx.db);
      counted = { first: countedAt(false), at: countedAt(true) };
    }
    return { count, ids: paged.compile() as CompiledQuery<{ id: number }>, rows, first, extras, anchors, counted, windowed: ranked };
  }

  const countQuery = plan.count;
  // A list whose members depend on nothing a content edit writes keeps its count (and its anchors)
  // across such edits: under DataVersion.lists(), not the data version.
  const scope = key !== null && movesOnlyWithLists(q, columns) ? 'lists' : 'data';
  // A ranked search not counted yet counts and reads its page in one statement (see Searched once).
  let countedIds: number[] | undefined;
  const n = await cachedRead(
    ctx,
    countQuery,
    async () => {
      if (!plan.counted) return Number((await longRead(ctx.db, countQuery))[0]?.n ?? 0);
      const both = q.offset === 0 ? plan.counted.first : atOffset(plan.counted.at, q.offset);
      const found = await longRead(ctx.db, both);
      countedIds = found.filter((r) => r.id !== null).map((r) => Number(r.id));
      return Number(found[0]?.n ?? 0);
    },
    scope,
  );
  // A ranked search lists its window (n counts one match past it when there are older ones).
  const count = plan.windowed ? Math.min(n, SEARCH_WINDOW) : n;
  let pageQuery = q.offset === 0 ? plan.first.ids : atOffset(plan.ids, q.offset);
  let rowsQuery = q.offset === 0 ? plan.first.rows : plan.rows && atOffset(plan.rows, q.offset);
  // A page past the first anchor starts after the nearest anchor before it.
  const anchored = plan.anchors;
  const index = anchored ? Math.floor(q.offset / anchored.spacing) - 1 : -1;
  if (anchored && key !== null && index >= 0 && q.offset < count) {
    const anchor = await anchorAt(ctx, anchorsKey!, anchored, index, scope === 'lists' && q.sort.every((f) => LIST_ORDERS.has(f.field)) ? 'lists' : 'data');
    if (anchor) {
      const rest = q.offset - (index + 1) * anchored.spacing;
      if (rest === 0) {
        pageQuery = atOffset(anchored.ids, 0, anchor);
        rowsQuery = anchored.rows && atOffset(anchored.rows, 0, anchor);
      } else if (anchored.idsAt) {
        pageQuery = atOffset(anchored.idsAt, rest, anchor);
        rowsQuery = anchored.rowsAt && atOffset(anchored.rowsAt, rest, anchor);
      }
    }
  }
  let read: ObjectRow[] | undefined;
  let moved = false;
  const pageIds =
    count === 0
      ? []
      : countedIds ??
        (await cachedRead(ctx, pageQuery, async () => {
          if (!rowsQuery) return (await longRead(ctx.db, pageQuery)).map((r) => Number(r.id));
          read = (await ctx.db.executeQuery(rowsQuery)).rows;
          moved = takeVersions(ctx, read, opts.along);
          return read.map((r) => r.id);
        }));
  // Only now: other requests that shared this read (the read cache's loads under way) took its rows.
  if (moved) throw new VersionMoved();
  let rows = read;
  if (!rows) {
    const byId = new Map((pageIds.length ? await rowsByIds(ctx)(ctx.db, pageIds) : []).map((r) => [r.id, r]));
    rows = pageIds.map((id) => byId.get(id)).filter((r): r is ObjectRow => r !== undefined);
  }

  const { data, included } = await serializeObjects(rc, ctx, rows, { include: q.include });
  for (const extra of plan.extras) {
    const values = await extra(pageIds);
    for (const d of data) {
      const v = values.get(Number(d.id));
      if (v) d.meta = { ...d.meta, extra: { ...((d.meta?.extra as object | undefined) ?? {}), ...v } };
    }
  }
  const shown = opts.types && opts.types.length === 1 ? opts.types : [...new Set(data.map((d) => d.type))];
  return {
    data,
    included,
    page: { count, page: q.page, pageSize: q.pageSize },
    meta: { schema: schemaMeta(rc.base, ctx, shown), ...(plan.windowed ? { search: { ranked: count, complete: n <= SEARCH_WINDOW } } : {}) },
  };
}

