// Nested-set storage of the folder tree. Every root folder starts its own tree (root_id = its id,
// numbered from 1); a folder has exactly one node, a content object one leaf node per folder it
// sits in. Every function here runs inside the caller's transaction and leaves each touched tree
// valid (check.ts verifies that); positions count the children that are not in the trash.
import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { Database } from '../../db/tables.js';
import { badRequest } from '../../http/errors.js';
import type { TreesTable } from './tables.js';

export type Db = Kysely<Database> | Transaction<Database>;
export type TreeNode = Selectable<TreesTable>;

/**
 * A place among a folder's children: 1-based from the start, negative from the end (-1 = last).
 * 0 is not a position.
 */
export type Position = number;

export const LAST: Position = -1;

export async function nodeById(db: Db, id: number): Promise<TreeNode | undefined> {
  return db.selectFrom('trees').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The one node of a folder (content objects may have several; use nodeIn for those). */
export async function folderNode(db: Db, folderId: number): Promise<TreeNode | undefined> {
  return db.selectFrom('trees').selectAll().where('object_id', '=', folderId).orderBy('id').executeTakeFirst();
}

/** The node placing `objectId` directly in folder `parentId`. */
export async function nodeIn(db: Db, parentId: number, objectId: number): Promise<TreeNode | undefined> {
  return db.selectFrom('trees').selectAll().where('parent_id', '=', parentId).where('object_id', '=', objectId).executeTakeFirst();
}

/** Open (delta > 0) or close (delta < 0) room in one tree at and after `from`; detached (negative) nodes are never touched. */
async function shift(db: Db, rootId: number, from: number, delta: number): Promise<void> {
  await db
    .updateTable('trees')
    .set((eb) => ({ tree_left: eb('tree_left', '+', delta) }))
    .where('root_id', '=', rootId)
    .where('tree_left', '>=', from)
    .execute();
  await db
    .updateTable('trees')
    .set((eb) => ({ tree_right: eb('tree_right', '+', delta) }))
    .where('root_id', '=', rootId)
    .where('tree_right', '>=', from)
    .execute();
}

/** The tree_left a new child of `parent` gets to land at `position` among the visible children. */
async function insertionPoint(db: Db, parent: TreeNode, position: Position): Promise<number> {
  const children = await db
    .selectFrom('trees')
    .innerJoin('objects', 'objects.id', 'trees.object_id')
    .select('trees.tree_left')
    .where('trees.parent_node_id', '=', parent.id)
    .where('trees.tree_left', '>', 0)
    .where('objects.deleted', '=', false)
    .orderBy('trees.tree_left')
    .execute();
  const index = Math.max(0, position > 0 ? position - 1 : children.length + 1 + position);
  return index >= children.length ? parent.tree_right : children[index].tree_left;
}

/** Make `folderId` a new root with no children. */
export async function insertRoot(db: Db, folderId: number): Promise<void> {
  await db
    .insertInto('trees')
    .values({ object_id: folderId, parent_id: null, root_id: folderId, parent_node_id: null, tree_left: 1, tree_right: 2, depth_level: 0, menu: true })
    .execute();
}

/** Place `objectId` (a new folder or a content object) as a leaf under the folder node `parent`. */
export async function insertLeaf(db: Db, parent: TreeNode, objectId: number, position: Position = LAST, menu = true): Promise<void> {
  const at = await insertionPoint(db, parent, position);
  await shift(db, parent.root_id, at, 2);
  await db
    .insertInto('trees')
    .values({
      object_id: objectId,
      parent_id: parent.object_id,
      root_id: parent.root_id,
      parent_node_id: parent.id,
      tree_left: at,
      tree_right: at + 1,
      depth_level: parent.depth_level + 1,
      menu,
    })
    .execute();
}

/** Whether `node` lies inside the subtree of `ancestor` (itself included). */
export function isWithin(node: TreeNode, ancestor: TreeNode): boolean {
  return node.root_id === ancestor.root_id && node.tree_left >= ancestor.tree_left && node.tree_right <= ancestor.tree_right;
}

/**
 * Move the subtree of `node` under the folder node `parentId` at `position`, or make it a tree
 * of its own when `parentId` is null (only folders may become roots). The subtree is detached
 * (its numbers negated), the gap it leaves closed, room opened at the destination and the
 * subtree renumbered into it — all within the caller's transaction.
 */
export async function moveSubtree(db: Db, node: TreeNode, parentNodeId: number | null, position: Position = LAST): Promise<void> {
  if (parentNodeId === null && node.parent_id === null) return;
  if (parentNodeId !== null) {
    const target = await nodeById(db, parentNodeId);
    if (!target) throw new Error(`tree node ${parentNodeId} is missing`);
    if (isWithin(target, node)) throw badRequest('A folder cannot be moved under itself or one of its descendants', 'tree_cycle');
  }
  const width = node.tree_right - node.tree_left + 1;
  const oldRoot = node.root_id;
  await db
    .updateTable('trees')
    .set({ tree_left: sql`-tree_left`, tree_right: sql`-tree_right` })
    .where('root_id', '=', oldRoot)
    .where('tree_left', '>=', node.tree_left)
    .where('tree_left', '<=', node.tree_right)
    .execute();
  await shift(db, oldRoot, node.tree_right + 1, -width);

  let newRoot: number;
  let at: number;
  let depth: number;
  let parentId: number | null = null;
  if (parentNodeId === null) {
    newRoot = node.object_id;
    at = 1;
    depth = 0;
  } else {
    const parent = (await nodeById(db, parentNodeId))!;
    newRoot = parent.root_id;
    at = await insertionPoint(db, parent, position);
    depth = parent.depth_level + 1;
    parentId = parent.object_id;
    await shift(db, newRoot, at, width);
  }
  // A detached node has tree_left = -(original); original l maps to at + (l - node.tree_left).
  const offset = at - node.tree_left;
  await db
    .updateTable('trees')
    .set({
      root_id: newRoot,
      tree_left: sql`${offset} - tree_left`,
      tree_right: sql`${offset} - tree_right`,
      depth_level: sql`depth_level + ${depth - node.depth_level}`,
    })
    .where('root_id', '=', oldRoot)
    .where('tree_left', '<', 0)
    .execute();
  await db.updateTable('trees').set({ parent_id: parentId, parent_node_id: parentNodeId }).where('id', '=', node.id).execute();
}

/** Remove a node and the leaves directly under it (sub-folders must have been moved out), closing the gap. */
export async function removeNodeAndLeaves(db: Db, node: TreeNode): Promise<void> {
  const nested = await descendantsQuery(db, node).select('trees.id').where('trees.parent_node_id', '!=', node.id).executeTakeFirst();
  if (nested) throw new Error(`tree node ${node.id} still has sub-folders`);
  await db.deleteFrom('trees').where('parent_node_id', '=', node.id).execute();
  await db.deleteFrom('trees').where('id', '=', node.id).execute();
  await shift(db, node.root_id, node.tree_right + 1, -(node.tree_right - node.tree_left + 1));
}

/** Child nodes of a folder node, in position order (trashed objects included). */
export async function childNodes(db: Db, parentNodeId: number): Promise<TreeNode[]> {
  return db.selectFrom('trees').selectAll().where('parent_node_id', '=', parentNodeId).orderBy('tree_left').execute();
}

/** Every node strictly inside the subtree of `node`. */
export function descendantsQuery(db: Db, node: TreeNode) {
  return db
    .selectFrom('trees')
    .where('trees.root_id', '=', node.root_id)
    .where('trees.tree_left', '>', node.tree_left)
    .where('trees.tree_right', '<', node.tree_right);
}
