// The folder tree seen from one root, the way the legacy layout reads it (its "publication"):
// which objects are reachable from it, and its children, descendants and siblings in tree order.
// Tree SQL belongs to the folders family; visibility comes from the read path (objects/read.ts).
import { sql, type ExpressionBuilder, type Kysely, type SelectQueryBuilder, type Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Database } from '../../db/tables.js';
import { notFound } from '../../http/errors.js';
import { typeByName } from '../objects/model.js';
import { getObjectsByIds, SYSTEM, visibleObjects, visibleObjectsTable, type Viewer } from '../objects/read.js';
import { relatedIdsEitherSide } from '../objects/relations.js';
import type { ObjectRow } from '../objects/rows.js';
import { FOLDERS } from './service.js';

type Db = Kysely<Database> | Transaction<Database>;

export interface TreePage {
  page: number;
  pageSize: number;
  offset: number;
}

export interface TreeList {
  rows: ObjectRow[];
  total: number;
}

/** The root folder with `uname`, else the first root folder by id (any status: the caller checks). */
export async function findRootFolder(ctx: AppContext, db: Db, uname: string | null): Promise<ObjectRow | undefined> {
  const folders = typeByName(ctx, FOLDERS);
  if (!folders) return undefined;
  let q = visibleObjects(ctx, SYSTEM, db)
    .selectAll()
    .where('objects.object_type_id', '=', folders.id)
    .where((eb) => eb.exists(eb.selectFrom('trees').select('trees.id').whereRef('trees.object_id', '=', 'objects.id').where('trees.parent_id', 'is', null)));
  q = uname ? q.where('objects.uname', '=', uname) : q.orderBy('objects.id').limit(1);
  return q.executeTakeFirst();
}

/**
 * A tree node none of whose folders above is in the trash (trashing a folder trashes its
 * sub-folders but leaves their contents placed there, out of reach).
 */
const underLiveFolders = (db: Db) => (eb: ExpressionBuilder<Database, 'trees'>) =>
  eb.not(
    eb.exists(
      db
        .selectFrom('trees as a')
        .innerJoin(visibleObjectsTable(null, SYSTEM, db, { trashed: true, as: 'ao' }), 'ao.id', 'a.object_id')
        .select(sql.lit(1).as('one'))
        .where(sql.ref('a.root_id'), '=', sql.ref('trees.root_id'))
        .where(sql.ref('a.tree_left'), '<', sql.ref('trees.tree_left'))
        .where(sql.ref('a.tree_right'), '>', sql.ref('trees.tree_right')),
    ),
  );

/** Live tree nodes of the tree under `rootId`. */
const onTree = (db: Db, rootId: number) => db.selectFrom('trees').select('trees.object_id').where('trees.root_id', '=', rootId).where(underLiveFolders(db));

/** On the tree of `rootId`, or related (either side) to an object on it that `viewer` sees. */
export async function isReachableFrom(ctx: AppContext, db: Db, rootId: number, id: number, viewer: Viewer): Promise<boolean> {
  if (id === rootId) return true;
  if (await onTree(db, rootId).where('trees.object_id', '=', id).executeTakeFirst()) return true;
  const ids = await relatedIdsEitherSide(db, id);
  if (!ids.length) return false;
  const hit = await onTree(db, rootId)
    .innerJoin(visibleObjectsTable(ctx, viewer, db), 'objects.id', 'trees.object_id')
    .where('trees.object_id', 'in', ids)
    .executeTakeFirst();
  return Boolean(hit);
}

type IdQuery = SelectQueryBuilder<Database, 'trees', { object_id: number; pos: number }>;

/** Page through the objects of an (object_id, pos) query, those `viewer` sees, ordered by pos. */
async function pageObjects(ctx: AppContext, db: Db, ids: IdQuery, page: TreePage, types: string[] | null, viewer: Viewer): Promise<TreeList> {
  const typeIds = types?.map((t) => typeByName(ctx, t)?.id ?? -1) ?? null;
  const grouped = db
    .selectFrom(ids.as('n'))
    .innerJoin(visibleObjectsTable(ctx, viewer, db), 'objects.id', 'n.object_id')
    .$if(typeIds !== null, (q) => q.where('objects.object_type_id', 'in', typeIds!.length ? typeIds! : [-1]))
    .groupBy('n.object_id')
    .select(['n.object_id', sql<number>`min(n.pos)`.as('pos')]);
  const totalRow = await db.selectFrom(grouped.as('g')).select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow();
  const pageIds = (await grouped.orderBy('pos').orderBy('n.object_id').limit(page.pageSize).offset(page.offset).execute()).map((p) => p.object_id);
  const byId = new Map((await getObjectsByIds(ctx, pageIds, { db, viewer })).map((r) => [r.id, r]));
  return { rows: pageIds.map((id) => byId.get(id)).filter((r): r is ObjectRow => !!r), total: Number(totalRow.n) };
}

/** The node of a folder on the tree of `rootId` (its sub-folders' ancestors all live); 404 otherwise. */
async function nodeOnTree(db: Db, rootId: number, folderId: number) {
  const node = await db.selectFrom('trees').selectAll().where('object_id', '=', folderId).where('root_id', '=', rootId).where(underLiveFolders(db)).executeTakeFirst();
  if (!node) throw notFound(`Object ${folderId} not found`);
  return node;
}

/** Children of a folder on the tree of `rootId`, in their position order. */
export async function childrenOnTree(ctx: AppContext, db: Db, rootId: number, folderId: number, page: TreePage, types: string[] | null, viewer: Viewer): Promise<TreeList> {
  await nodeOnTree(db, rootId, folderId);
  const ids = db.selectFrom('trees').select(['trees.object_id', 'trees.tree_left as pos']).where('trees.parent_id', '=', folderId) as IdQuery;
  return pageObjects(ctx, db, ids, page, types, viewer);
}

/** Every object below a folder of the tree of `rootId`, in tree order (an object placed twice counts once). */
export async function descendantsOnTree(ctx: AppContext, db: Db, rootId: number, folderId: number, page: TreePage, types: string[] | null, viewer: Viewer): Promise<TreeList> {
  const node = await nodeOnTree(db, rootId, folderId);
  const ids = db
    .selectFrom('trees')
    .select(['trees.object_id', 'trees.tree_left as pos'])
    .where('trees.root_id', '=', node.root_id)
    .where('trees.tree_left', '>', node.tree_left)
    .where('trees.tree_right', '<', node.tree_right)
    .where(underLiveFolders(db)) as IdQuery;
  return pageObjects(ctx, db, ids, page, types, viewer);
}

/** The other children of the object's parent on the tree of `rootId` (its first placement there). */
export async function siblingsOnTree(ctx: AppContext, db: Db, rootId: number, objectId: number, page: TreePage, types: string[] | null, viewer: Viewer): Promise<TreeList> {
  const node = await db
    .selectFrom('trees')
    .select(['parent_id'])
    .where('object_id', '=', objectId)
    .where('root_id', '=', rootId)
    .where('parent_id', 'is not', null)
    .where(underLiveFolders(db))
    .orderBy('tree_left')
    .executeTakeFirst();
  if (!node) return { rows: [], total: 0 };
  const ids = db
    .selectFrom('trees')
    .select(['trees.object_id', 'trees.tree_left as pos'])
    .where('trees.parent_id', '=', node.parent_id)
    .where('trees.object_id', '!=', objectId) as IdQuery;
  return pageObjects(ctx, db, ids, page, types, viewer);
}

/** Position (1-based, in tree order, trashed children not counted) of `childId` in a folder of the tree; 404 when not a child. */
export async function positionOnTree(db: Db, rootId: number, folderId: number, childId: number): Promise<number> {
  await nodeOnTree(db, rootId, folderId);
  const child = await db.selectFrom('trees').select('tree_left').where('parent_id', '=', folderId).where('object_id', '=', childId).executeTakeFirst();
  if (!child) throw notFound(`Object ${childId} is not a child of ${folderId}`);
  const before = await db
    .selectFrom('trees')
    .innerJoin(visibleObjectsTable(null, SYSTEM, db), 'objects.id', 'trees.object_id')
    .select(sql<number>`count(*)`.as('n'))
    .where('trees.parent_id', '=', folderId)
    .where('trees.tree_left', '<', child.tree_left)
    .executeTakeFirstOrThrow();
  return Number(before.n) + 1;
}

/** Counts of visible children of folders: sub-folders and the rest. */
export async function childCounts(ctx: AppContext, db: Db, folderIds: number[], viewer: Viewer): Promise<Map<number, { sections: number; contents: number }>> {
  const out = new Map<number, { sections: number; contents: number }>(folderIds.map((id) => [id, { sections: 0, contents: 0 }]));
  const folders = typeByName(ctx, FOLDERS);
  if (!folderIds.length || !folders) return out;
  const rows = await db
    .selectFrom('trees')
    .innerJoin(visibleObjectsTable(ctx, viewer, db), 'objects.id', 'trees.object_id')
    .select(['trees.parent_id', sql<number>`sum(case when objects.object_type_id = ${folders.id} then 1 else 0 end)`.as('sections'), sql<number>`count(*)`.as('n')])
    .where('trees.parent_id', 'in', folderIds)
    .groupBy('trees.parent_id')
    .execute();
  for (const row of rows) out.set(Number(row.parent_id), { sections: Number(row.sections), contents: Number(row.n) - Number(row.sections) });
  return out;
}

/** The folders an object is placed in on the tree of `rootId`. */
export async function parentsOnTree(db: Db, rootId: number, objectId: number): Promise<number[]> {
  const rows = await db.selectFrom('trees').select('parent_id').where('object_id', '=', objectId).where('root_id', '=', rootId).execute();
  return rows.map((r) => Number(r.parent_id));
}
