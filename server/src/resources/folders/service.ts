// The folder tree as editors use it: placing new folders, moving them, adding and removing
// children with a position, reading parents, children positions and paths, and what trash,
// restore and permanent delete do to the tree. Every write runs in the caller's transaction.
import { sql, type ExpressionBuilder, type Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import { preparedList, type Executor, type Param } from '../../db/prepared.js';
import type { Database } from '../../db/tables.js';
import { ApiError, badRequest, forbidden, notFound } from '../../http/errors.js';
import { typeById } from '../objects/model.js';
import { type ObjectRow } from '../objects/rows.js';
import { authorizeWrite, type Actor } from '../objects/pipeline.js';
import { getObjectsByIds, SYSTEM, visibleObjects, visibleObjectsTable } from '../objects/read.js';
import { cascade } from '../objects/kernel.js';
import {
  descendantsQuery,
  folderNode,
  insertLeaves,
  insertRoot,
  LAST,
  moveSubtree,
  nodeById,
  nodeIn,
  nodesIn,
  removeLeaves,
  removeNodeAndLeaves,
  type Db,
  type Position,
  type TreeNode,
} from './tree.js';

type Trx = Transaction<Database>;

export const FOLDERS = 'folders';

export const isFolder = (ctx: AppContext, row: Pick<ObjectRow, 'object_type_id'>) => typeById(ctx, row.object_type_id)?.name === FOLDERS;

/** `meta.relation.position` of a request: 'first', 'last', or a non-zero integer (negative counts from the end). */
export function parsePosition(raw: unknown, where: string): Position | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (raw === 'first') return 1;
  if (raw === 'last') return LAST;
  const n = typeof raw === 'string' && /^-?\d{1,9}$/.test(raw) ? Number(raw) : raw;
  if (typeof n !== 'number' || !Number.isInteger(n) || n === 0 || Math.abs(n) > 1e9) {
    throw badRequest(`${where} must be "first", "last" or a non-zero integer`, 'invalid_position');
  }
  return n;
}

async function requireNode(db: Db, folderId: number): Promise<TreeNode> {
  const node = await folderNode(db, folderId);
  if (!node) throw new Error(`folder ${folderId} has no tree node`);
  return node;
}

/** The node of a folder that is not in the trash, read inside the writing transaction (404 otherwise). */
export async function activeNode(db: Db, folderId: number): Promise<TreeNode> {
  const node = await db
    .selectFrom('trees')
    .innerJoin(visibleObjectsTable(null, SYSTEM, db), 'objects.id', 'trees.object_id')
    .selectAll('trees')
    .where('trees.object_id', '=', folderId)
    .executeTakeFirst();
  if (!node) throw notFound(`No folder ${folderId}`);
  return node;
}

/** Put a just-created folder in the tree, as a root (a parent it is given moves it there after). */
export async function placeNewFolder(trx: Trx, folderId: number): Promise<void> {
  await insertRoot(trx, folderId);
}

/** Move a folder (with its subtree) under another folder, or make it a root when `parentId` is null. */
export async function moveFolder(trx: Trx, folderId: number, parentId: number | null, position: Position = LAST): Promise<void> {
  const node = await activeNode(trx, folderId);
  if (parentId === folderId) throw badRequest('A folder cannot be its own parent', 'tree_cycle');
  await moveSubtree(trx, node, parentId === null ? null : (await activeNode(trx, parentId)).id, position);
}

/** A place in a folder asked for by a write. */
export interface FolderPlacement {
  position?: Position;
  menu?: boolean;
  /** BEdita's params of the placement (an object; null clears them). */
  params?: Record<string, unknown> | null;
  /** The object's canonical placement: true moves the flag here from its other placements. */
  canonical?: boolean;
}

// ---- reading ----

/** Condition on `objects`: the folders `objectId` is placed in. */
export const parentsCondition = (eb: ExpressionBuilder<Database, 'objects'>, objectId: number) =>
  eb('objects.id', 'in', eb.selectFrom('trees').select('trees.parent_id').where('trees.object_id', '=', objectId) as never);

/** Condition on `objects`: the children of the tree node `nodeId`. */
export const childrenCondition = (eb: ExpressionBuilder<Database, 'objects'>, nodeId: number) =>
  eb('objects.id', 'in', eb.selectFrom('trees').select('trees.object_id').where('trees.parent_node_id', '=', nodeId));

/** A child's position under the tree node `nodeId`, as a sortable expression. */
export const childPositionSql = (nodeId: number) => sql`(select t.tree_left from trees t where t.parent_node_id = ${nodeId} and t.object_id = objects.id)`;

/** The node of a folder (with its parent folder id), or undefined for an object that is no folder. */
export const nodeOfFolder = (db: Db, folderId: number) => folderNode(db, folderId);

/**
 * Parent folders (active ones; `onlyPublished`: with status `on`) of objects, by their ids, in
 * tree order (prepared: every serialised object asks). `parentsValue` below reads the same
 * placements for a list page's rows: a change to which parents count goes into both.
 * A cross join: the placements of the ids asked drive, each parent read by its key. SQLite keeps
 * a cross join's order (PostgreSQL plans it as the inner join it is); as an inner join, SQLite's
 * bounded statistics (`objects.deleted = 0` estimated at a few hundred rows: ANALYSIS_LIMIT in
 * dialect/sqlite.ts) made it walk every live object and look each up among the placements once
 * the ids asked outnumbered that estimate: 2 s for the 1,000 children of one request at 30,000
 * objects, growing with the table.
 */
export const parentsStatement = (db: Executor, p: Param, n: number, onlyPublished: boolean) => {
  let query = db
    .selectFrom('trees')
    .crossJoin(visibleObjectsTable(null, SYSTEM, db, { as: 'parent' }))
    .whereRef('parent.id', '=', 'trees.parent_id')
    .select(['trees.object_id', 'trees.parent_id'])
    .where('trees.object_id', 'in', Array.from({ length: n }, (_, i) => p(i)))
    .orderBy('trees.root_id')
    .orderBy('trees.tree_left');
  if (onlyPublished) query = query.where('parent.status', '=', 'on');
  return query;
};
const parentsQuery = (onlyPublished: boolean) =>
  preparedList<{ object_id: number; parent_id: number | null }>((db, p, n) => parentsStatement(db, p, n, onlyPublished));
const parentsOfAny = parentsQuery(false);
const parentsOfPublished = parentsQuery(true);

/**
 * The parents `parentsOf` finds, as a value of a list page's rows (a subquery on the row's id):
 * their ids as text in tree order, null for none; a parent plainly published (status `on`, no
 * publication window) carries its type id too, `1:7,5,9:7`: whoever reads published objects of
 * that type sees it, with no read of the parent (parentsFromValue).
 */
export const PARENTS_VALUE = 'folio_parents';
export const parentsValue = (eb: ExpressionBuilder<Database, 'objects'>, ctx: AppContext) => {
  const id = sql`cast(${sql.ref('trees.parent_id')} as text)`;
  const plainlyPublished = sql`${sql.ref('parent.status')} = ${sql.lit('on')} and ${sql.ref('parent.publish_start')} is null and ${sql.ref('parent.publish_end')} is null`;
  const value = sql`case when ${plainlyPublished} then ${id} || ${sql.lit(':')} || cast(${sql.ref('parent.object_type_id')} as text) else ${id} end`;
  return eb
    .selectFrom('trees')
    .innerJoin(visibleObjectsTable(ctx, SYSTEM, ctx.db, { as: 'parent' }), 'parent.id', 'trees.parent_id')
    .select(ctx.dialect.aggregates.joinedIds(value, sql`${sql.ref('trees.root_id')}, ${sql.ref('trees.tree_left')}`).as('ids'))
    .whereRef('trees.object_id', '=', 'objects.id');
};

/** A parent in `PARENTS_VALUE`: its id, and its type's id when it is plainly published. */
export interface ParentOfValue {
  id: number;
  publishedType: number | null;
}

/** `PARENTS_VALUE` of a row, parent by parent. */
export function parentsFromValue(value: unknown): ParentOfValue[] {
  if (!value) return [];
  return String(value)
    .split(',')
    .map((token) => {
      const at = token.indexOf(':');
      return at < 0 ? { id: Number(token), publishedType: null } : { id: Number(token.slice(0, at)), publishedType: Number(token.slice(at + 1)) };
    });
}

export async function parentsOf(db: Db, ids: number[], onlyPublished = false): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>();
  if (!ids.length) return out;
  const rows = await (onlyPublished ? parentsOfPublished : parentsOfAny)(db, ids);
  for (const r of rows) out.set(r.object_id, [...(out.get(r.object_id) ?? []), r.parent_id!]);
  return out;
}

/** Subquery of the ids of every object placed anywhere below the folders `folderIds` selects (nested set). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function objectsBelow(eb: ExpressionBuilder<any, any>, folderIds: unknown) {
  return eb
    .selectFrom('trees as below_top')
    .innerJoin('trees as below_node', (join: any) =>
      join
        .onRef('below_node.root_id', '=', 'below_top.root_id')
        .onRef('below_node.tree_left', '>', 'below_top.tree_left')
        .onRef('below_node.tree_right', '<', 'below_top.tree_right'),
    )
    .select('below_node.object_id')
    .where('below_top.object_id', 'in', folderIds as never);
}

/**
 * `meta.path` of folders: '/' and the ids from the root down to the folder. Walked up the
 * parent nodes (a folder has one place, and a tree is a few levels deep: a step per level, by
 * key), not found in the nested set, where the ancestors of a node are every node of its root
 * that starts before it and ends after it: that read every node before it in its root, a cost
 * that grew with the tree (ten folders of the bench's tree: 720 against 170 µs).
 */
export async function pathsOf(db: Db, folderIds: number[]): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  if (!folderIds.length) return out;
  const rows = await db
    .withRecursive('up(id, node_id, depth, ancestor)', (w) =>
      w
        .selectFrom('trees')
        .select(['trees.object_id as id', 'trees.parent_node_id as node_id', 'trees.depth_level as depth', 'trees.object_id as ancestor'])
        .where('trees.object_id', 'in', folderIds)
        .unionAll((u) =>
          u
            .selectFrom('up')
            .innerJoin('trees', 'trees.id', 'up.node_id')
            .select(['up.id as id', 'trees.parent_node_id as node_id', 'trees.depth_level as depth', 'trees.object_id as ancestor']),
        ),
    )
    .selectFrom('up')
    .select(['up.id as id', 'up.ancestor as ancestor'])
    .orderBy('up.id')
    .orderBy('up.depth')
    .execute();
  for (const r of rows) out.set(r.id, `${out.get(r.id) ?? ''}/${r.ancestor}`);
  return out;
}

export interface Placement {
  node: TreeNode;
  /** 1-based among the folder's children that are not in the trash. */
  position: number;
}

/** A placement as BEdita's `meta.relation`: position, menu, canonical, depth and params. */
export function placementMeta(p: Placement) {
  const { node } = p;
  return { position: p.position, menu: Boolean(node.menu), canonical: Boolean(node.canonical), depth_level: node.depth_level, params: node.params ? (JSON.parse(node.params) as unknown) : null };
}

/** Where each child of `folderId` sits: node and position among the visible children. */
export async function placementsIn(db: Db, folderId: number): Promise<Map<number, Placement>> {
  const node = await folderNode(db, folderId);
  const out = new Map<number, Placement>();
  if (!node) return out;
  const rows = await db
    .selectFrom('trees')
    .innerJoin(visibleObjectsTable(null, SYSTEM, db), 'objects.id', 'trees.object_id')
    .selectAll('trees')
    .where('trees.parent_node_id', '=', node.id)
    .orderBy('trees.tree_left')
    .execute();
  rows.forEach((r, i) => out.set(r.object_id, { node: r, position: i + 1 }));
  return out;
}

// ---- trash, restore, permanent delete ----

/** The folders among `ids`. */
async function foldersAmong(ctx: AppContext, db: Db, ids: number[]): Promise<ObjectRow[]> {
  if (!ids.length) return [];
  const rows = await visibleObjects(ctx, SYSTEM, db, { trashed: 'any' }).selectAll().where('id', 'in', ids).execute();
  return rows.filter((r) => isFolder(ctx, r));
}

/**
 * A folder goes to the trash with everything below it out of sight (its sub-folders go with it,
 * its contents lose their place there): the actor must read, and may delete, every active object
 * below it. A refusal says so, never which objects nor how many.
 */
async function mayTrashBelow(ctx: AppContext, trx: Trx, folderId: number, actor: Actor): Promise<void> {
  if (actor.isAdmin) return;
  const below = await visibleObjects(ctx, SYSTEM, trx)
    .selectAll()
    .where('id', 'in', (eb) => objectsBelow(eb, [folderId]))
    .execute();
  if (!below.length) return;
  const refuse = () => forbidden('The folder holds objects you may not delete', 'forbidden');
  if ((await getObjectsByIds(ctx, below.map((r) => r.id), { viewer: actor, db: trx })).length !== below.length) throw refuse();
  for (const row of below) {
    try {
      await authorizeWrite(ctx, { action: 'delete', actor, type: typeById(ctx, row.object_type_id)!, row, trx });
    } catch (err) {
      if (err instanceof ApiError && err.status === 403) throw refuse();
      throw err;
    }
  }
}

/**
 * A folder going to the trash takes its active sub-folders with it (recorded, so restoring the
 * folder brings back exactly those); contents stay where they are, hidden with the folder.
 */
export async function trashSubfolders(ctx: AppContext, trx: Trx, ids: number[], actor: Actor): Promise<void> {
  const taken = new Set(ids);
  for (const folder of await foldersAmong(ctx, trx, ids)) {
    await mayTrashBelow(ctx, trx, folder.id, actor);
    const subfolders = await descendantsQuery(trx, await requireNode(trx, folder.id))
      .innerJoin(visibleObjectsTable(ctx, SYSTEM, trx), 'objects.id', 'trees.object_id')
      .select('objects.id')
      .where('objects.object_type_id', '=', folder.object_type_id)
      .execute();
    const more = subfolders.map((s) => s.id).filter((s) => !taken.has(s));
    if (!more.length) continue;
    for (const s of more) taken.add(s);
    await trx.insertInto('tree_trash').values(more.map((s) => ({ object_id: s, trashed_with: folder.id }))).execute();
    await cascade(ctx, trx, 'trash', more, actor);
  }
}

/**
 * Restoring a folder needs its parent folder out of the trash (409 otherwise) and brings back
 * the sub-folders its trashing took.
 */
export async function restoreSubfolders(ctx: AppContext, trx: Trx, ids: number[], actor: Actor): Promise<void> {
  const folders = await foldersAmong(ctx, trx, ids);
  if (!folders.length) return;
  const folderIds = folders.map((f) => f.id);
  for (const id of folderIds) {
    const node = await requireNode(trx, id);
    if (node.parent_id === null) continue;
    const parent = await visibleObjects(ctx, SYSTEM, trx, { trashed: 'any' }).select('deleted').where('id', '=', node.parent_id).executeTakeFirstOrThrow();
    if (Boolean(parent.deleted)) {
      throw new ApiError(400, 'parent_in_trash', `Folder ${id} sits in a folder that is in the trash: restore that one first`);
    }
  }
  await trx.deleteFrom('tree_trash').where('object_id', 'in', folderIds).execute();
  const taken = await trx.selectFrom('tree_trash').select('object_id').where('trashed_with', 'in', folderIds).execute();
  if (!taken.length) return;
  await trx.deleteFrom('tree_trash').where('trashed_with', 'in', folderIds).execute();
  await cascade(ctx, trx, 'restore', taken.map((t) => t.object_id), actor);
}

/**
 * Before objects are deleted for good: their placements go; a purged folder's sub-folders
 * (all in the trash) become roots of their own, each restorable or purgeable on its own.
 */
export async function removeFromTree(ctx: AppContext, trx: Trx, ids: number[]): Promise<void> {
  if (!ids.length) return;
  await trx.deleteFrom('tree_trash').where((eb) => eb.or([eb('object_id', 'in', ids), eb('trashed_with', 'in', ids)])).execute();
  const nodes = await trx.selectFrom('trees').select('id').where('object_id', 'in', ids).execute();
  for (const { id } of nodes) {
    const subfolders = await trx
      .selectFrom('trees')
      .innerJoin(visibleObjectsTable(ctx, SYSTEM, trx, { trashed: 'any' }), 'objects.id', 'trees.object_id')
      .select(['trees.id', 'objects.object_type_id'])
      .where('trees.parent_node_id', '=', id)
      .execute();
    for (const sub of subfolders) if (isFolder(ctx, sub)) await moveSubtree(trx, (await nodeById(trx, sub.id))!, null);
    await removeNodeAndLeaves(trx, (await nodeById(trx, id))!);
  }
}
