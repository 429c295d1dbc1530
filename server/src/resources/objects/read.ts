// The one read path: who may see which object is decided here, for every reader — JSON API reads
// and lists, `included`, relations, folder children and parents, search, streams and thumbnails,
// and the legacy layout. A read takes a *viewer* (the request's `req.auth`: anonymous, a user
// with roles, an application); server code reading for itself names SYSTEM (defined here, the
// kernel re-exports it), which sees everything: there is no default, so grep finds every such read.
//
// Every query of `objects` outside the write kernel's own modules begins with visibleObjects()
// (or joins visibleObjectsTable()): server/test/structure-reads.test.ts fails on any other.
//
// Two rules decide (docs/decisions.md, Permissions):
//   role permissions   a user whose roles give `read` on a type sees its objects in every status
//                      (`read:own`: those it created); anyone else sees published (`on`) ones;
//                      user accounts: admins, and each user its own;
//   object permissions an object restricted to roles (itself or a folder above it) is seen only
//                      by users with one of them (and admins).
//
//   visibleObjects(ctx, viewer, db)   `objects` narrowed to what the viewer reads: where queries begin
//   visibleObjectsTable(…)            the same as a table to join from another one
//   readReach(ctx, viewer, type)      how much of a type a viewer reads
//   canSee(ctx, viewer, row)          one row, role permissions only (synchronous)
//   visibleWhere(ctx, viewer, eb)     both rules as SQL, for lists
//   visibleIds(ctx, viewer, ids)      object permissions for rows already read
//   everyStatusWhere(ctx, viewer, eb) the objects it reads in every status (their drafts too), as SQL
//   getObject / findObjectByIdOrUname / requireObject / getObjectsByIds   rows through both rules
import { expressionBuilder, sql, type AliasedSelectQueryBuilder, type Expression, type ExpressionBuilder, type Kysely, type Selectable, type SelectQueryBuilder, type SqlBool, type Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import { prepared, preparedList, type Prepared } from '../../db/prepared.js';
import { nowIso } from '../../db/time.js';
import { confirmAlong, confirmByRefresh, READ_ALONG_COLUMN, type ReadAlong } from '../../db/read-along.js';
import type { Database } from '../../db/tables.js';
import { forbidden, notFound, unauthorized } from '../../http/errors.js';
import type { AuthInfo } from '../../http/request.js';
import { blockedAmong, blockedIds, knownRestrictions, restrictionsExist } from '../permissions/object-perms.js';
import { rightsOn } from '../permissions/rules.js';
import { withListValues } from './extensions.js';
import type { Actor } from './pipeline.js';
import { model, typeById, type ObjectType } from './model.js';
import type { ObjectRow } from './rows.js';

type Db = Kysely<Database> | Transaction<Database>;

/** Who reads: `req.auth`. */
export type Viewer = Pick<AuthInfo, 'userId' | 'isAdmin'> &
  Partial<Pick<AuthInfo, 'roles' | 'applicationId' | 'roleIds' | 'permissions' | 'restrictions'>>;

/**
 * Acting or reading as the server itself, with every right: migrations' first admin, cascades the
 * kernel runs for a write it already checked, payloads shown to admins, and the server's own
 * reads (tree upkeep, uniqueness, sweeps, auth lookups). The only reader that sees everything;
 * greppable on purpose (the kernel re-exports it).
 */
export const SYSTEM: Actor & { readonly roles: string[]; readonly applicationId: null; readonly system: true } = Object.freeze({
  userId: null,
  isAdmin: true,
  roles: ['admin'],
  applicationId: null,
  restrictions: false,
  system: true as const,
});

const USERS = 'users';

/**
 * How much of a type `viewer` reads: every object (`all`), its own in every status and the
 * published rest (`own`), published ones (`on`), only its own account (`self`), nothing.
 */
export type ReadReach = 'all' | 'own' | 'on' | 'self' | 'none';

export function readReach(viewer: Viewer, type: ObjectType): ReadReach {
  if (viewer.isAdmin) return 'all';
  if (type.name === USERS) return viewer.userId !== null ? 'self' : 'none';
  if (viewer.userId === null) return 'on';
  return rightsOn(viewer.permissions, type).read ?? 'on';
}

/** Whether `viewer` may read objects of `type` at all (anonymous clients never read users). */
export function typeVisible(viewer: Viewer, typeName: string): boolean {
  return viewer.userId !== null || typeName !== USERS;
}

/** Whether `row` is inside its publication window at `now` (a null bound is open). */
export function inPublishWindow(row: Partial<Pick<ObjectRow, 'publish_start' | 'publish_end'>>, now = nowIso()): boolean {
  return (!row.publish_start || row.publish_start <= now) && (!row.publish_end || row.publish_end > now);
}

/** Published for readers without `read`: status `on` and inside the publication window at `now`. */
const published = (row: Pick<ObjectRow, 'status'> & Partial<Pick<ObjectRow, 'publish_start' | 'publish_end'>>, now: string) => row.status === 'on' && inPublishWindow(row, now);

/** The role-permission rule for one row (object permissions: visibleIds). */
export function canSee(
  ctx: AppContext,
  viewer: Viewer,
  row: Pick<ObjectRow, 'status' | 'object_type_id' | 'id' | 'created_by'> & Partial<Pick<ObjectRow, 'publish_start' | 'publish_end'>>,
  type?: ObjectType,
): boolean {
  const t = type ?? typeById(ctx, row.object_type_id);
  if (!t) return false;
  switch (readReach(viewer, t)) {
    case 'all':
      return true;
    case 'own':
      return published(row, ctx.dataVersion.visibleAt()) || (row.created_by !== null && row.created_by === viewer.userId);
    case 'on':
      return published(row, ctx.dataVersion.visibleAt());
    case 'self':
      return row.id === viewer.userId;
    default:
      return false;
  }
}

/**
 * Whether object permissions can hide anything from `viewer` (most sites have none). Inside a
 * unit of work (`db` a transaction) the question goes through it: on SQLite the one connection is
 * the transaction's, and a read beside it would wait for the transaction forever.
 */
function mayBeRestricted(ctx: AppContext, viewer: Viewer, db?: Db): boolean | Promise<boolean> {
  // Answered at once when known (every read asks): a promise only when the database must say.
  if (viewer.isAdmin) return false;
  if (viewer.restrictions !== undefined) return viewer.restrictions;
  if (db && db !== ctx.db) return restrictionsExist(ctx, db);
  return knownRestrictions(ctx) ?? restrictionsExist(ctx);
}

/**
 * Whether `viewer` sees every published object of the type `typeId` (status `on`, inside its
 * window) with nothing more to check: its roles read published objects of the type, and no object
 * permission can hide one from it (known without reading). False when unsure: the caller reads.
 */
export function seesPublishedUnrestricted(ctx: AppContext, viewer: Viewer, typeId: number): boolean {
  const type = typeById(ctx, typeId);
  if (!type) return false;
  const reach = readReach(viewer, type);
  if (reach !== 'all' && reach !== 'own' && reach !== 'on') return false;
  return mayBeRestricted(ctx, viewer) === false;
}

/** `objects` inside their publication window now, as SQL (UTC ISO text compares in order). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function publishWindowWhere(eb: ExpressionBuilder<any, any>, now = nowIso()): Expression<SqlBool>[] {
  return [
    eb.or([eb('objects.publish_start', 'is', null), eb('objects.publish_start', '<=', now)]),
    eb.or([eb('objects.publish_end', 'is', null), eb('objects.publish_end', '>', now)]),
  ];
}

/** How much of each concrete type `viewer` reads (visibleWhere's input, and visibilityKey's). */
function concreteReach(ctx: AppContext, viewer: Viewer): Array<{ type: ObjectType; reach: ReadReach }> {
  return [...model(ctx).types.values()].filter((t) => !t.isAbstract).map((type) => ({ type, reach: readReach(viewer, type) }));
}

/** Both rules as a condition on `objects` (null when the viewer sees everything). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function visibleWhere(ctx: AppContext, viewer: Viewer, eb: ExpressionBuilder<any, any>): Expression<SqlBool> | null {
  if (viewer.isAdmin) return null;
  const by: Record<ReadReach, number[]> = { all: [], own: [], on: [], self: [], none: [] };
  const types = concreteReach(ctx, viewer);
  for (const { type: t, reach } of types) by[reach].push(t.id);
  const type = 'objects.object_type_id';
  /** `objects` of one of `ids`: no condition when they are every type, else the shorter list. */
  const ofTypes = (ids: number[]) => {
    if (ids.length === types.length) return null;
    if (ids.length <= types.length / 2) return eb(type, 'in', ids);
    return eb(type, 'not in', types.filter(({ type: t }) => !ids.includes(t.id)).map(({ type: t }) => t.id));
  };
  const either: Expression<SqlBool>[] = [];
  const publishedTypes = [...by.on, ...by.own];
  if (publishedTypes.length) either.push(eb.and([eb('objects.status', '=', 'on'), ...publishWindowWhere(eb, ctx.dataVersion.visibleAt()), ofTypes(publishedTypes) ?? eb.lit(true)]));
  if (by.all.length) either.push(ofTypes(by.all) ?? eb.lit(true));
  if (by.own.length) either.push(eb.and([eb(type, 'in', by.own), eb('objects.created_by', '=', viewer.userId)]));
  // Every user reads its own account, whatever object permission an admin put on it.
  const self = by.self.length ? eb.and([eb(type, 'in', by.self), eb('objects.id', '=', viewer.userId)]) : null;
  const roleRule = either.length ? eb.or(either) : eb.lit(false);
  if (viewer.restrictions === false) return self ? eb.or([roleRule, self]) : roleRule;
  const open = eb.and([roleRule, eb('objects.id', 'not in', blockedIds(eb, viewer.roleIds ?? []))]);
  return self ? eb.or([open, self]) : open;
}

/** Which objects a query sees by their trash state: false (default) active ones, true trashed ones, 'any' both. */
export interface VisibleOptions {
  trashed?: boolean | 'any';
}

/** A query of `objects` (no selection yet). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export type ObjectsQuery = SelectQueryBuilder<Database, 'objects', {}>;

/**
 * Where every query of `objects` begins (outside the write kernel): the table narrowed to what
 * `viewer` reads — both rules, role permissions with the publication window and object
 * permissions — and to active objects unless `trashed` says otherwise. For SYSTEM (and admins)
 * the plain table; SYSTEM needs no context (`visibleObjects(null, SYSTEM, db)`: the tree's
 * prepared statements are built without one).
 */
export function visibleObjects(ctx: AppContext, viewer: Viewer, db?: Db, opts?: VisibleOptions): ObjectsQuery;
export function visibleObjects(ctx: AppContext | null, viewer: typeof SYSTEM, db: Db, opts?: VisibleOptions): ObjectsQuery;
export function visibleObjects(ctx: AppContext | null, viewer: Viewer, db?: Db, opts: VisibleOptions = {}): ObjectsQuery {
  let q = (db ?? ctx!.db).selectFrom('objects');
  const trashed = opts.trashed ?? false;
  if (trashed !== 'any') q = q.where('objects.deleted', '=', trashed);
  if (viewer === SYSTEM) return q;
  const visible = visibleWhere(ctx!, viewer, expressionBuilder<Database, 'objects'>());
  return visible ? q.where(visible) : q;
}

/**
 * visibleObjects as a table to join from another one (`innerJoin(visibleObjectsTable(…), 'objects.id',
 * 'trees.object_id')`), named `objects` or `as`: every column, the same rows.
 */
export function visibleObjectsTable<const A extends string = 'objects'>(ctx: AppContext, viewer: Viewer, db?: Db, opts?: VisibleOptions & { as?: A }): ObjectsTable<A>;
export function visibleObjectsTable<const A extends string = 'objects'>(ctx: AppContext | null, viewer: typeof SYSTEM, db: Db, opts?: VisibleOptions & { as?: A }): ObjectsTable<A>;
export function visibleObjectsTable<const A extends string = 'objects'>(ctx: AppContext | null, viewer: Viewer, db?: Db, opts: VisibleOptions & { as?: A } = {}): ObjectsTable<A> {
  return visibleObjects(ctx as AppContext, viewer, db, opts).selectAll('objects').as((opts.as ?? 'objects') as A);
}
export type ObjectsTable<A extends string> = AliasedSelectQueryBuilder<Selectable<Database['objects']>, A>;

/** Whether `viewer` reads `row` in every status (everyStatusWhere for one row). */
export function readsEveryStatus(viewer: Viewer, type: ObjectType, row: Pick<ObjectRow, 'created_by'>): boolean {
  const reach = readReach(viewer, type);
  return reach === 'all' || (reach === 'own' && row.created_by !== null && row.created_by === viewer.userId);
}

/**
 * The objects `viewer` reads in every status, as a condition on `objects`: those of types its
 * roles give `read` on (`read:own`: the ones it created). null: all of them (admins, the system).
 * What is not published of them (their draft translations) is for these readers only.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function everyStatusWhere(ctx: AppContext, viewer: Viewer, eb: ExpressionBuilder<any, any>): Expression<SqlBool> | null {
  if (viewer.isAdmin) return null;
  if (viewer.userId === null) return eb.lit(false);
  const all: number[] = [];
  const own: number[] = [];
  for (const { type, reach } of concreteReach(ctx, viewer)) (reach === 'all' ? all : reach === 'own' ? own : []).push(type.id);
  const either: Expression<SqlBool>[] = [];
  if (all.length) either.push(eb('objects.object_type_id', 'in', all));
  if (own.length) either.push(eb.and([eb('objects.object_type_id', 'in', own), eb('objects.created_by', '=', viewer.userId)]));
  return either.length ? eb.or(either) : eb.lit(false);
}

/**
 * What visibleWhere's condition for `viewer` depends on, as a string: viewers with the same key
 * get the same SQL and parameters (object lists keep their compiled statements by it). Kept beside
 * visibleWhere: whatever it reads must be here.
 */
export function visibilityKey(ctx: AppContext, viewer: Viewer): string {
  if (viewer.isAdmin) return 'all';
  const reach = concreteReach(ctx, viewer)
    .map(({ type, reach }) => `${type.id}:${reach}`)
    .join(',');
  return JSON.stringify([viewer.userId, reach, ctx.dataVersion.visibleAt(), viewer.restrictions === false ? false : (viewer.roleIds ?? [])]);
}

/** `ids` that object permissions let `viewer` see. */
export async function visibleIds(ctx: AppContext, viewer: Viewer, ids: number[], db: Db = ctx.db): Promise<Set<number>> {
  const may = mayBeRestricted(ctx, viewer, db);
  if (!(typeof may === 'boolean' ? may : await may)) return new Set(ids);
  const blocked = await blockedAmong(db, viewer.roleIds ?? [], ids);
  // A user's own account is never hidden from it (the object permissions of users are admins' business).
  return new Set(ids.filter((id) => !blocked.has(id) || id === viewer.userId));
}

/** What a restricted object answers: 401 to anonymous clients and applications, 403 to users. */
export function restrictedError(viewer: Viewer) {
  return viewer.userId === null ? unauthorized('This object is restricted: log in with an account allowed to read it', 'restricted') : forbidden('This object is restricted to other roles', 'restricted');
}

export interface ReadOptions extends VisibleOptions {
  /** Who reads: a request's `req.auth`, or SYSTEM for server code that sees everything. */
  viewer: Viewer;
  /** Only objects of this type (or its sub-types). */
  typeName?: string;
  db?: Db;
  /**
   * Also read what the extensions read per row of a list page (`listValues`: folders, the
   * parents) in the same statement, for a row that is answered and goes into no write: one round
   * trip less for an uncached GET of one object. Active objects by id, outside a transaction.
   */
  withListValues?: boolean;
  /**
   * The request goes ahead on the data version as last seen (db/read-along.ts): the read confirms
   * it, taking the version rows along with the row (or reading them when it cannot), and throws
   * VersionMoved when they moved.
   */
  along?: ReadAlong;
}

function visible(ctx: AppContext, row: ObjectRow | undefined, opts: ReadOptions): ObjectRow | undefined {
  if (!row) return undefined;
  const type = typeById(ctx, row.object_type_id);
  if (!type) return undefined;
  if (opts.typeName && !type.lineage.includes(opts.typeName)) return undefined;
  return canSee(ctx, opts.viewer, row, type) ? row : undefined;
}

/** Rows before the rules (applied to them after: canSee, visibleIds). */
function readQuery(ctx: AppContext, opts: ReadOptions) {
  return visibleObjects(ctx, SYSTEM, opts.db ?? ctx.db, { trashed: opts.trashed }).selectAll();
}

/** An object by id: active ones, trashed ones, or either (prepared: the hottest read). */
const byIdQuery = (trashed: boolean | 'any') =>
  prepared<ObjectRow, [number]>((db, p) => {
    const q = db.selectFrom('objects').selectAll().where('id', '=', p(0));
    return trashed === 'any' ? q : q.where('deleted', '=', trashed);
  });
const objectById = { active: byIdQuery(false), trashed: byIdQuery(true), any: byIdQuery('any') };

/** objectById.active with the extensions' list values, per context (its extensions). */
const withValuesById = new WeakMap<AppContext, Prepared<ObjectRow, [number]>>();
function activeWithListValues(ctx: AppContext): Prepared<ObjectRow, [number]> {
  let query = withValuesById.get(ctx);
  if (!query) {
    query = prepared<ObjectRow, [number]>((db, p) =>
      withListValues(ctx, db.selectFrom('objects').selectAll('objects').where('objects.id', '=', p(0)).where('objects.deleted', '=', false)),
    );
    withValuesById.set(ctx, query);
  }
  return query;
}

/** activeWithListValues with the data version rows along (DataVersion.along), per context. */
const alongById = new WeakMap<AppContext, Prepared<ObjectRow & { [READ_ALONG_COLUMN]?: unknown }, [number]>>();
function activeWithVersions(ctx: AppContext, column: string): Prepared<ObjectRow & { [READ_ALONG_COLUMN]?: unknown }, [number]> {
  let query = alongById.get(ctx);
  if (!query) {
    query = prepared((db, p) =>
      withListValues(ctx, db.selectFrom('objects').selectAll('objects').where('objects.id', '=', p(0)).where('objects.deleted', '=', false)).select(sql.raw<string>(column).as(READ_ALONG_COLUMN)),
    );
    alongById.set(ctx, query);
  }
  return query;
}

/** A row by id or uname through the role-permission rule only. */
async function findRow(ctx: AppContext, key: string | number, opts: ReadOptions): Promise<ObjectRow | undefined> {
  const text = String(key);
  if (/^\d{1,15}$/.test(text)) {
    const trashed = opts.trashed ?? false;
    const withValues = opts.withListValues && trashed === false && (!opts.db || opts.db === ctx.db);
    const along = opts.along && !opts.along.confirmed ? opts.along : null;
    const column = ctx.dataVersion.along?.column;
    if (along && withValues && column) {
      const [row] = await activeWithVersions(ctx, column)(ctx.db, Number(text));
      // No row, no versions: read them.
      if (!row) await confirmByRefresh(ctx.dataVersion, along);
      else {
        confirmAlong(ctx.dataVersion, along, row[READ_ALONG_COLUMN]);
        delete row[READ_ALONG_COLUMN];
      }
      return visible(ctx, row, opts);
    }
    if (along) await confirmByRefresh(ctx.dataVersion, along);
    const byId = withValues ? activeWithListValues(ctx) : trashed === 'any' ? objectById.any : trashed ? objectById.trashed : objectById.active;
    const [row] = await byId(opts.db ?? ctx.db, Number(text));
    return visible(ctx, row, opts);
  }
  if (opts.along) await confirmByRefresh(ctx.dataVersion, opts.along);
  if (!text || text.length > 255) return undefined;
  return visible(ctx, await readQuery(ctx, opts).where('uname', '=', text).executeTakeFirst(), opts);
}

/** The row if both rules let the viewer see it. */
async function seen(ctx: AppContext, row: ObjectRow | undefined, opts: ReadOptions): Promise<ObjectRow | undefined> {
  if (!row) return row;
  const may = mayBeRestricted(ctx, opts.viewer, opts.db);
  if (!(typeof may === 'boolean' ? may : await may)) return row;
  return (await visibleIds(ctx, opts.viewer, [row.id], opts.db)).has(row.id) ? row : undefined;
}

export async function getObject(ctx: AppContext, id: number, opts: ReadOptions): Promise<ObjectRow | undefined> {
  return seen(ctx, await findRow(ctx, id, opts), opts);
}

/** By numeric id or by uname. */
export async function findObjectByIdOrUname(ctx: AppContext, key: string | number, opts: ReadOptions): Promise<ObjectRow | undefined> {
  return seen(ctx, await findRow(ctx, key, opts), opts);
}

/** The row, or 404 (none, or hidden by role permissions), or 401/403 (restricted to roles). */
export async function requireObject(ctx: AppContext, key: string | number, opts: ReadOptions): Promise<ObjectRow> {
  const row = await findRow(ctx, key, opts);
  if (!row) throw notFound(`No ${opts.typeName ?? 'object'} "${key}"${opts.trashed === true ? ' in the trash' : ''}`);
  if (!(await seen(ctx, row, opts))) throw restrictedError(opts.viewer);
  return row;
}

/**
 * Objects by ids, active, trashed or either (prepared per count of ids: the folders an object is
 * in, the objects a page includes; building the query each time cost more than running it).
 */
const byIdsQuery = (trashed: boolean | 'any') =>
  preparedList<ObjectRow>((db, p, n) => {
    const q = db
      .selectFrom('objects')
      .selectAll()
      .where('id', 'in', Array.from({ length: n }, (_, i) => p(i)));
    return trashed === 'any' ? q : q.where('deleted', '=', trashed);
  });
const objectsByIds = { false: byIdsQuery(false), true: byIdsQuery(true), any: byIdsQuery('any') };

/** Ids per query: far below the database's variable limit, whatever else the query binds. */
const IDS_PER_QUERY = 5000;

/** The objects of `ids` the viewer may see (any order). */
export async function getObjectsByIds(ctx: AppContext, ids: number[], opts: ReadOptions): Promise<ObjectRow[]> {
  const unique = [...new Set(ids)];
  const rows: ObjectRow[] = [];
  const query = objectsByIds[String(opts.trashed ?? false) as keyof typeof objectsByIds];
  for (let i = 0; i < unique.length; i += IDS_PER_QUERY) {
    const chunk = await query(opts.db ?? ctx.db, unique.slice(i, i + IDS_PER_QUERY));
    const shown = chunk.filter((r) => visible(ctx, r, opts));
    const open = await visibleIds(ctx, opts.viewer, shown.map((r) => r.id), opts.db);
    rows.push(...shown.filter((r) => open.has(r.id)));
  }
  return rows;
}

export function objectPath(ctx: AppContext, row: Pick<ObjectRow, 'id' | 'object_type_id'>): string {
  return `/${typeById(ctx, row.object_type_id)?.name ?? 'objects'}/${row.id}`;
}
