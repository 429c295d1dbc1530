// Nested-set storage of the folder tree. Every root folder starts its own tree (root_id = its id,
// numbered from 1); a folder has exactly one node, a content object one leaf node per folder it
// sits in. Every function here runs inside the caller's transaction and leaves each touched tree
// valid (check.ts verifies that); positions count the children that are not in the trash.
import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { Database } from '../../db/tables.js';
import { badRequest } from '../../http/errors.js';
import type { TreesTable } from './tables.js';
import { SYSTEM, visibleObjectsTable } from '../objects/read.js';

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

/** The nodes placing any of `objectIds` directly in folder `parentId`, by object id. */
export async function nodesIn(db: Db, parentId: number, objectIds: number[]): Promise<Map<number, TreeNode>> {
  const out = new Map<number, TreeNode>();
  for (let start = 0; start < objectIds.length; start += ROWS_PER_STATEMENT) {
    const ids = objectIds.slice(start, start + ROWS_PER_STATEMENT);
    for (const node of await db.selectFrom('trees').selectAll().where('parent_id', '=', parentId).where('object_id', 'in', ids).execute()) out.set(node.object_id, node);
  }
  return out;
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
  // Last: right before the parent's end, whatever its children (no need to read them).
  if (position === LAST) return parent.tree_right;
  const children = await db
    .selectFrom('trees')
    .innerJoin(visibleObjectsTable(null, SYSTEM, db), 'objects.id', 'trees.object_id')
    .select('trees.tree_left')
    .where('trees.parent_node_id', '=', parent.id)
    .where('trees.tree_left', '>', 0)
    .orderBy('trees.tree_left')
    .execute();
  const index = Math.max(0, position > 0 ? position - 1 : children.length + 1 + position);
  return index >= children.length ? parent.tree_right : children[index].tree_left;
}

/** Make `folderId` a new root with no children. */
export async function insertRoot(db: Db, folderId: number): Promise<void> {
  await db
    .insertInto('trees')
    .values({ object_id: folderId, parent_id: null, root_id: folderId, parent_node_id: null, tree_left: 1, tree_right: 2, depth_level: 0, menu: true, canonical: true })
    .execute();
}

/** Place `objectId` (a new folder or a content object) as a leaf under the folder node `parent`. */
export async function insertLeaf(db: Db, parent: TreeNode, objectId: number, position: Position = LAST, menu = true): Promise<void> {
  await insertLeaves(db, parent, [{ objectId, menu }], position);
}

/** Rows of one multi-row insert: 9 values each, well under SQLite's and PostgreSQL's parameter limits. */
const ROWS_PER_STATEMENT = 500;

/**
 * Place objects (none of them in `parent` yet) as consecutive leaves under the folder node
 * `parent`, the first at `position`: one shift of the tree and one insert per 500 leaves,
 * whatever their number (placing them one by one shifted the whole tree once per leaf).
 */
export async function insertLeaves(db: Db, parent: TreeNode, leaves: Array<{ objectId: number; menu: boolean }>, position: Position = LAST): Promise<void> {
  if (!leaves.length) return;
  const at = await insertionPoint(db, parent, position);
  await shift(db, parent.root_id, at, 2 * leaves.length);
  for (let start = 0; start < leaves.length; start += ROWS_PER_STATEMENT) {
    const rows = leaves.slice(start, start + ROWS_PER_STATEMENT).map(({ objectId, menu }, i) => {
      const left = at + 2 * (start + i);
      return {
        object_id: objectId,
        parent_id: parent.object_id,
        root_id: parent.root_id,
        parent_node_id: parent.id,
        tree_left: left,
        tree_right: left + 1,
        depth_level: parent.depth_level + 1,
        menu,
      };
    });
    await db.insertInto('trees').values(rows).execute();
    await markFirstCanonical(db, rows.map((r) => r.object_id));
  }
}

/** Objects given their first placement: that one is their canonical one (until a client moves the flag). */
async function markFirstCanonical(db: Db, objectIds: number[]): Promise<void> {
  await db
    .updateTable('trees')
    .set({ canonical: true })
    .where('object_id', 'in', (eb) =>
      eb.selectFrom('trees as placed').select('placed.object_id').where('placed.object_id', 'in', objectIds).groupBy('placed.object_id').having((e) => e.fn.countAll(), '=', 1),
    )
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

/**
 * Remove leaf nodes (content placements) of one tree, closing their gaps: a number after the i-th
 * removed leaf moves down by 2i. One update per column for each stretch between two removed
 * leaves that holds anything, so taking a thousand neighbouring objects out of a folder is a few
 * statements (removing them one by one shifted the rest of the tree once per leaf).
 */
export async function removeLeaves(db: Db, leaves: TreeNode[]): Promise<void> {
  if (!leaves.length) return;
  const rootId = leaves[0].root_id;
  if (leaves.some((l) => l.root_id !== rootId || l.tree_right !== l.tree_left + 1)) throw new Error('removeLeaves takes leaves of one tree');
  const lefts = leaves.map((l) => l.tree_left).sort((a, b) => a - b);
  for (let start = 0; start < leaves.length; start += ROWS_PER_STATEMENT) {
    await db.deleteFrom('trees').where('id', 'in', leaves.slice(start, start + ROWS_PER_STATEMENT).map((l) => l.id)).execute();
  }
  for (let i = 1; i <= lefts.length; i++) {
    const after = lefts[i - 1];
    const before = i < lefts.length ? lefts[i] : null;
    if (before !== null && before === after + 2) continue;
    for (const column of ['tree_left', 'tree_right'] as const) {
      let update = db
        .updateTable('trees')
        .set((eb) => ({ [column]: eb(column, '-', 2 * i) }))
        .where('root_id', '=', rootId)
        .where(column, '>', after);
      if (before !== null) update = update.where(column, '<', before);
      await update.execute();
    }
  }
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
