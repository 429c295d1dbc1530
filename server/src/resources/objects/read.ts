// The one read path: who may see which object is decided here, for every reader — JSON API reads
// and lists, `included`, relations, folder children and parents, search, streams and thumbnails,
// and the legacy layout. A read takes a *viewer* (the request's `req.auth`: anonymous, a user
// with roles, an application); server code reading for itself passes none and sees everything.
//
//   canSee(ctx, viewer, row)          one row
//   visibleStatuses(viewer)           the statuses a viewer may read (null: all)
//   visibleWhere(viewer, eb)          the same rule as SQL, for lists
//   getObject / findObjectByIdOrUname / requireObject / getObjectsByIds   rows through canSee
import type { Expression, ExpressionBuilder, Kysely, SqlBool, Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import { prepared } from '../../db/prepared.js';
import type { Database } from '../../db/tables.js';
import { notFound } from '../../http/errors.js';
import type { AuthInfo } from '../../http/request.js';
import { typeById, type ObjectType } from './model.js';
import type { ObjectRow } from './rows.js';

type Db = Kysely<Database> | Transaction<Database>;

/** Who reads: `req.auth`. */
export type Viewer = Pick<AuthInfo, 'userId' | 'isAdmin'> & Partial<Pick<AuthInfo, 'roles' | 'applicationId'>>;

/** Signed-in users read every status; anonymous clients and application tokens only `on`. */
const signedIn = (viewer: Viewer) => viewer.userId !== null;

/** Statuses `viewer` may read; null: every status. */
export function visibleStatuses(viewer: Viewer | undefined): string[] | null {
  return !viewer || signedIn(viewer) ? null : ['on'];
}

/** Whether `viewer` may read objects of `type` at all (anonymous clients never read users). */
export function typeVisible(viewer: Viewer | undefined, typeName: string): boolean {
  return !viewer || signedIn(viewer) || typeName !== 'users';
}

/** The rule for one row (of a known type). */
export function canSee(ctx: AppContext, viewer: Viewer | undefined, row: Pick<ObjectRow, 'status' | 'object_type_id'>, type?: ObjectType): boolean {
  const t = type ?? typeById(ctx, row.object_type_id);
  if (!t || !typeVisible(viewer, t.name)) return false;
  const statuses = visibleStatuses(viewer);
  return !statuses || statuses.includes(row.status);
}

/** The rule as a condition on `objects` (true when the viewer sees everything). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function visibleWhere(viewer: Viewer | undefined, eb: ExpressionBuilder<any, any>, column = 'objects.status'): Expression<SqlBool> | null {
  const statuses = visibleStatuses(viewer);
  return statuses ? eb(column, 'in', statuses) : null;
}

export interface ReadOptions {
  /** false (default): active objects only; true: trashed only; 'any': both. */
  trashed?: boolean | 'any';
  /** Who reads (default: server code, which sees everything). */
  viewer?: Viewer;
  /** Only objects of this type (or its sub-types). */
  typeName?: string;
  db?: Db;
}

function visible(ctx: AppContext, row: ObjectRow | undefined, opts: ReadOptions): ObjectRow | undefined {
  if (!row) return undefined;
  const type = typeById(ctx, row.object_type_id);
  if (!type) return undefined;
  if (opts.typeName && !type.lineage.includes(opts.typeName)) return undefined;
  return canSee(ctx, opts.viewer, row, type) ? row : undefined;
}

function readQuery(ctx: AppContext, opts: ReadOptions) {
  let q = (opts.db ?? ctx.db).selectFrom('objects').selectAll();
  const trashed = opts.trashed ?? false;
  if (trashed !== 'any') q = q.where('deleted', '=', trashed);
  return q;
}

/** An object by id: active ones, trashed ones, or either (prepared: the hottest read). */
const byIdQuery = (trashed: boolean | 'any') =>
  prepared<ObjectRow, [number]>((db, p) => {
    const q = db.selectFrom('objects').selectAll().where('id', '=', p(0));
    return trashed === 'any' ? q : q.where('deleted', '=', trashed);
  });
const objectById = { active: byIdQuery(false), trashed: byIdQuery(true), any: byIdQuery('any') };

export async function getObject(ctx: AppContext, id: number, opts: ReadOptions = {}): Promise<ObjectRow | undefined> {
  const trashed = opts.trashed ?? false;
  const byId = trashed === 'any' ? objectById.any : trashed ? objectById.trashed : objectById.active;
  const [row] = await byId(opts.db ?? ctx.db, id);
  return visible(ctx, row, opts);
}

/** By numeric id or by uname. */
export async function findObjectByIdOrUname(ctx: AppContext, key: string | number, opts: ReadOptions = {}): Promise<ObjectRow | undefined> {
  const text = String(key);
  if (/^\d{1,15}$/.test(text)) return getObject(ctx, Number(text), opts);
  if (!text || text.length > 255) return undefined;
  return visible(ctx, await readQuery(ctx, opts).where('uname', '=', text).executeTakeFirst(), opts);
}

export async function requireObject(ctx: AppContext, key: string | number, opts: ReadOptions = {}): Promise<ObjectRow> {
  const row = await findObjectByIdOrUname(ctx, key, opts);
  if (!row) throw notFound(`No ${opts.typeName ?? 'object'} "${key}"${opts.trashed === true ? ' in the trash' : ''}`);
  return row;
}

/** The objects of `ids` the viewer may see (any order). */
export async function getObjectsByIds(ctx: AppContext, ids: number[], opts: ReadOptions = {}): Promise<ObjectRow[]> {
  if (!ids.length) return [];
  const rows = await readQuery(ctx, opts).where('id', 'in', [...new Set(ids)]).execute();
  return rows.filter((r) => visible(ctx, r, opts));
}

export function objectPath(ctx: AppContext, row: Pick<ObjectRow, 'id' | 'object_type_id'>): string {
  return `/${typeById(ctx, row.object_type_id)?.name ?? 'objects'}/${row.id}`;
}
