// Verifies the whole folder tree: every tree is a proper nested set (numbers 1..2n used once,
// intervals nested, parent pointers and depths agreeing with the numbers), folders have exactly
// one node, contents are leaves inside folders, and no active folder sits below a trashed one.
// Used by the tests after every operation and by `npm run check-tree`.
import { SYSTEM, visibleObjects, visibleObjectsTable } from '../objects/read.js';
import type { Db, TreeNode } from './tree.js';

interface CheckedNode extends TreeNode {
  type: string;
  deleted: boolean;
}

/** Every problem found, as one sentence each; an empty list means the tree is valid. */
export async function checkTree(db: Db): Promise<string[]> {
  const problems: string[] = [];
  const rows = await db
    .selectFrom('trees')
    .innerJoin(visibleObjectsTable(null, SYSTEM, db, { trashed: 'any' }), 'objects.id', 'trees.object_id')
    .innerJoin('object_types', 'object_types.id', 'objects.object_type_id')
    .selectAll('trees')
    .select(['object_types.name as type', 'objects.deleted'])
    .orderBy('trees.root_id')
    .orderBy('trees.tree_left')
    .execute();
  const nodes: CheckedNode[] = rows.map((r) => ({ ...r, deleted: Boolean(r.deleted) }));
  const total = await db.selectFrom('trees').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  if (Number(total.n) !== nodes.length) problems.push(`${Number(total.n) - nodes.length} tree nodes point to missing objects`);

  const byId = new Map(nodes.map((n) => [n.id, n]));
  const roots = new Map<number, CheckedNode[]>();
  for (const n of nodes) {
    const list = roots.get(n.root_id) ?? [];
    list.push(n);
    roots.set(n.root_id, list);
  }

  for (const [rootId, list] of roots) {
    const where = `tree ${rootId}`;
    const numbers = list.flatMap((n) => [n.tree_left, n.tree_right]).sort((a, b) => a - b);
    if (numbers.some((v, i) => v !== i + 1)) problems.push(`${where}: left/right numbers are not exactly 1..${numbers.length}`);
    const stack: CheckedNode[] = [];
    for (const n of list) {
      const at = `${where}, node ${n.id} (object ${n.object_id})`;
      if (n.tree_left >= n.tree_right) problems.push(`${at}: tree_left ${n.tree_left} is not below tree_right ${n.tree_right}`);
      while (stack.length && stack[stack.length - 1].tree_right < n.tree_left) stack.pop();
      const parent = stack[stack.length - 1];
      if (!parent) {
        if (n.parent_id !== null || n.parent_node_id !== null) problems.push(`${at}: outside every folder but has a parent`);
        if (n.object_id !== rootId || n.tree_left !== 1 || n.depth_level !== 0) problems.push(`${at}: a second top node in the tree, or a root not numbered 1 at depth 0`);
        if (n.type !== 'folders') problems.push(`${at}: a root that is not a folder`);
      } else {
        if (n.parent_node_id !== parent.id || n.parent_id !== parent.object_id) {
          problems.push(`${at}: lies inside node ${parent.id} but names node ${n.parent_node_id} (object ${n.parent_id}) as its parent`);
        }
        if (n.tree_right > parent.tree_right) problems.push(`${at}: overlaps the end of its parent node ${parent.id}`);
        if (n.depth_level !== parent.depth_level + 1) problems.push(`${at}: depth ${n.depth_level}, expected ${parent.depth_level + 1}`);
        if (parent.type !== 'folders') problems.push(`${at}: sits inside a ${parent.type} object`);
        if (parent.deleted && !n.deleted && n.type === 'folders') problems.push(`${at}: an active folder inside the trashed folder ${parent.object_id}`);
      }
      if (n.type !== 'folders' && n.tree_right !== n.tree_left + 1) problems.push(`${at}: a content object with children`);
      stack.push(n);
    }
  }
  for (const n of nodes) {
    if (n.parent_node_id !== null && !byId.has(n.parent_node_id)) problems.push(`node ${n.id}: its parent node ${n.parent_node_id} is missing`);
  }

  const folderNodes = new Map<number, number>();
  for (const n of nodes) if (n.type === 'folders') folderNodes.set(n.object_id, (folderNodes.get(n.object_id) ?? 0) + 1);
  for (const [id, count] of folderNodes) if (count > 1) problems.push(`folder ${id} has ${count} nodes`);
  const folders = await visibleObjects(null, SYSTEM, db, { trashed: 'any' })
    .innerJoin('object_types', 'object_types.id', 'objects.object_type_id')
    .select('objects.id')
    .where('object_types.name', '=', 'folders')
    .execute();
  for (const f of folders) if (!folderNodes.has(f.id)) problems.push(`folder ${f.id} is not in the tree`);

  const trashRecords = await db
    .selectFrom('tree_trash')
    .leftJoin(visibleObjectsTable(null, SYSTEM, db, { trashed: 'any' }), 'objects.id', 'tree_trash.object_id')
    .select(['tree_trash.object_id', 'objects.deleted'])
    .execute();
  for (const t of trashRecords) if (!t.deleted) problems.push(`folder ${t.object_id} is recorded as trashed with an ancestor but is not in the trash`);
  return problems;
}
