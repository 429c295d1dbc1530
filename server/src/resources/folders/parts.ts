// The folder parts of a write (the folders extension owns them; the kernel runs them): an object's
// parents, a folder's children, a folder's parent. Placing an object in a folder or taking it out
// changes both, so both must be updatable by the actor: the kernel has checked the object named
// by the command, and each part asks the same write guards (KernelWrite.mayUpdate) for every
// other object whose placement it changes — the folder filed into or left, the child filed or
// taken out, the parent folder a moved folder leaves. Every object named is read as the actor
// reads it (hidden: 404 as missing); a parent folder the actor may not read, left by a moved
// folder, refuses the move without naming it.
import type { Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Database } from '../../db/tables.js';
import { badRequest, forbidden } from '../../http/errors.js';
import type { KernelWrite, PartHandlers } from '../objects/kernel.js';
import { getObjectsByIds } from '../objects/read.js';
import type { ObjectRow } from '../objects/rows.js';
import { activeNode, FOLDERS, isFolder, moveFolder, parentsOf, placementsIn, type FolderPlacement } from './service.js';
import { folderNode, insertLeaf, insertLeaves, LAST, moveSubtree, nodeIn, nodesIn, removeLeaves, type TreeNode } from './tree.js';

type Trx = Transaction<Database>;

interface ChildInput extends FolderPlacement {
  row: ObjectRow;
}

/**
 * The folder parts of a command, each run by the kernel after it has read and authorised the
 * object named:
 *   parents      the object's folders, written from its side (add, replace, remove);
 *   children     a folder's children (add, replace, remove): an update of the folder; each child's change
 *                is recorded (and versioned) as an update of its `parents`;
 *   folderParent a folder's parent: another folder, or none (a root); `onlyIf` leaves it as it is
 *                unless its parent is that one (DELETE of the parent relationship).
 */
export interface FolderParts {
  parents?: { mode: 'add' | 'replace' | 'remove'; items: Array<{ id: string | number } & FolderPlacement> };
  children?: { mode: 'add' | 'replace' | 'remove'; items: Array<{ id: string; type?: string } & FolderPlacement> };
  folderParent?: { parent: string | number | null; onlyIf?: string } & FolderPlacement;
}

declare module '../objects/kernel.js' {
  interface ObjectParts extends FolderParts {}
}

/** The object's folders as they are now, for its change record. */
async function placementsOf(trx: Trx, id: number): Promise<{ parents: string[] }> {
  return { parents: ((await parentsOf(trx, [id])).get(id) ?? []).map(String) };
}

/**
 * A folder about to move under `toId` (null: to be a root) leaves its parent folder, whose
 * children change: the actor must update that one too. One the actor may not read refuses the
 * move without naming it.
 */
async function mayLeaveParent(w: KernelWrite, folder: ObjectRow, toId: number | null): Promise<void> {
  const from = (await folderNode(w.trx, folder.id))?.parent_id ?? null;
  if (from === null || from === toId) return;
  const [parent] = await getObjectsByIds(w.ctx, [from], { viewer: w.actor, db: w.trx });
  if (!parent) throw forbidden('You may not move this folder out of its parent folder', 'forbidden');
  await w.need('former parent', parent);
}

/**
 * Declare (see above) what placing `children` in `folder` changes. A child's placement changes
 * when it is new there, moves (a position), changes its menu flag, or is a folder coming from
 * another parent; the command's own object is checked already.
 */
async function checkPlace(w: KernelWrite, folder: ObjectRow, children: ChildInput[]): Promise<void> {
  const { ctx, trx } = w;
  const placed = await nodesIn(trx, folder.id, children.filter((c) => !isFolder(ctx, c.row)).map((c) => c.row.id));
  for (const c of children) {
    const isSub = isFolder(ctx, c.row);
    const changes = c.position !== undefined || c.menu !== undefined || c.params !== undefined || c.canonical !== undefined || (isSub ? (await folderNode(trx, c.row.id))?.parent_id !== folder.id : !placed.has(c.row.id));
    if (!changes) continue;
    await w.need('folder', folder);
    await w.need('child', c.row);
    if (isSub && c.row.id !== folder.id) await mayLeaveParent(w, c.row, folder.id);
  }
}

/** Declare (see above) what taking `rows` out of `folder` changes: those placed there, both sides. */
async function checkUnplace(w: KernelWrite, folder: ObjectRow, rows: ObjectRow[]): Promise<void> {
  const nodes = await nodesIn(w.trx, folder.id, rows.map((r) => r.id));
  for (const row of rows.filter((r) => nodes.has(r.id))) {
    await w.need('folder', folder);
    await w.need('child', row);
  }
}

export const folderParts: PartHandlers = {
  parents: {
    async plan(w, part) {
      const { ctx, trx, row } = w;
      if (isFolder(ctx, row) && part.mode !== 'remove' && part.items.length > 1) throw badRequest('A folder has at most one parent', 'invalid_parents');
      const inputs: Array<{ folder: ObjectRow } & FolderPlacement> = [];
      for (const p of part.items) inputs.push({ folder: await w.resolve(p.id, { type: FOLDERS }), position: p.position, menu: p.menu, params: p.params, canonical: p.canonical });
      // "All that I can see": on a replace, the folders the actor may not read keep the object.
      const current = part.mode === 'replace' ? ((await parentsOf(trx, [row.id])).get(row.id) ?? []) : [];
      const leaving = await getObjectsByIds(ctx, current.filter((id) => !inputs.some((p) => p.folder.id === id)), { viewer: w.actor, db: trx });
      for (const folder of leaving) await checkUnplace(w, folder, [row]);
      for (const p of inputs) {
        if (part.mode === 'remove') await checkUnplace(w, p.folder, [row]);
        else await checkPlace(w, p.folder, [{ row, position: p.position, menu: p.menu, params: p.params, canonical: p.canonical }]);
      }
      return {
        async apply() {
          for (const folder of leaving) await unplaceChildren(ctx, trx, folder.id, [w.row]);
          for (const p of inputs) {
            if (part.mode === 'remove') await unplaceChildren(ctx, trx, p.folder.id, [w.row]);
            else await placeChildren(ctx, trx, p.folder.id, [{ row: w.row, position: p.position, menu: p.menu, params: p.params, canonical: p.canonical }]);
          }
          return { changed: await placementsOf(trx, w.row.id) };
        },
      };
    },
  },
  children: {
    async plan(w, part) {
      const { ctx, trx, row: folder } = w;
      if (!isFolder(ctx, folder)) throw badRequest(`Object ${folder.id} is not a folder`, 'not_a_folder');
      const children: ChildInput[] = [];
      for (const item of part.items) {
        const child = await w.resolve(item.id, { type: item.type, trashed: part.mode === 'remove' ? 'any' : false });
        children.push({ row: child, position: item.position, menu: item.menu, params: item.params, canonical: item.canonical });
      }
      // A replace takes out the children the actor reads and did not name ("all that I can see").
      const named = new Set(children.map((c) => c.row.id));
      const leaving =
        part.mode === 'replace'
          ? await getObjectsByIds(ctx, [...(await placementsIn(trx, folder.id)).keys()].filter((id) => !named.has(id)), { viewer: w.actor, db: trx })
          : [];
      if (part.mode === 'remove') await checkUnplace(w, folder, children.map((c) => c.row));
      else {
        await checkUnplace(w, folder, leaving);
        await checkPlace(w, folder, children);
      }
      return {
        async apply() {
          if (part.mode === 'remove') await unplaceChildren(ctx, trx, folder.id, children.map((c) => c.row));
          else {
            await unplaceChildren(ctx, trx, folder.id, leaving);
            await placeChildren(ctx, trx, folder.id, children);
          }
          const moved = [...children.map((c) => c.row), ...leaving];
          const parents = await parentsOf(trx, moved.map((r) => r.id));
          for (const r of moved) w.recordOther(r, { parents: (parents.get(r.id) ?? []).map(String) });
          return {};
        },
      };
    },
  },
  folderParent: {
    async plan(w, part) {
      const { ctx, trx, row: folder } = w;
      if (!isFolder(ctx, folder)) throw badRequest(`Object ${folder.id} is not a folder`, 'not_a_folder');
      if (part.onlyIf !== undefined) {
        const node = await folderNode(trx, folder.id);
        if (node?.parent_id === null || String(node?.parent_id) !== part.onlyIf) return { apply: async () => ({}) };
      }
      const parent = part.parent === null ? null : await w.resolve(part.parent, { type: FOLDERS });
      if (parent === null) await mayLeaveParent(w, folder, null);
      else await checkPlace(w, parent, [{ row: folder, position: part.position, menu: part.menu, params: part.params, canonical: part.canonical }]);
      return {
        async apply() {
          if (parent === null) await moveFolder(trx, folder.id, null);
          else await placeChildren(ctx, trx, parent.id, [{ row: w.row, position: part.position, menu: part.menu, params: part.params, canonical: part.canonical }]);
          return { changed: await placementsOf(trx, folder.id) };
        },
      };
    },
  },
};

/**
 * Place children in a folder, in the order given. Content objects not yet in the folder and given
 * no position are appended together (one tree shift for a run of them: a folder filled with a
 * thousand objects at once is one update of its tree, not a thousand); folders, explicit
 * positions and objects already placed are handled one by one, in their turn.
 */
async function placeChildren(ctx: AppContext, trx: Trx, folderId: number, children: ChildInput[]): Promise<void> {
  const contents = children.filter((c) => !isFolder(ctx, c.row)).map((c) => c.row.id);
  const placed = new Set((await nodesIn(trx, folderId, contents)).keys());
  let appended: Array<{ objectId: number; menu: boolean }> = [];
  const append = async () => {
    if (appended.length) await insertLeaves(trx, await activeNode(trx, folderId), appended);
    appended = [];
  };
  for (const child of children) {
    const folder = isFolder(ctx, child.row);
    if (!folder && child.position === undefined && child.params === undefined && child.canonical === undefined && !placed.has(child.row.id)) {
      appended.push({ objectId: child.row.id, menu: child.menu ?? true });
      placed.add(child.row.id);
      continue;
    }
    await append();
    const parent = await activeNode(trx, folderId);
    let node: TreeNode | undefined;
    if (folder) {
      if (child.row.id === folderId) throw badRequest('A folder cannot be its own child', 'tree_cycle');
      node = await activeNode(trx, child.row.id);
      if (node.parent_id !== folderId || child.position !== undefined) await moveSubtree(trx, node, parent.id, child.position ?? LAST);
    } else {
      node = await nodeIn(trx, folderId, child.row.id);
      if (!node) {
        await insertLeaf(trx, parent, child.row.id, child.position ?? LAST, child.menu ?? true);
        if (child.params !== undefined || child.canonical !== undefined) node = await nodeIn(trx, folderId, child.row.id);
      } else if (child.position !== undefined) await moveSubtree(trx, node, parent.id, child.position);
    }
    const set = { ...(child.menu !== undefined ? { menu: child.menu } : {}), ...(child.params !== undefined ? { params: child.params === null ? null : JSON.stringify(child.params) } : {}) };
    if (node && child.canonical !== undefined) {
      // One canonical placement per object: set here, it leaves the others.
      if (child.canonical) await trx.updateTable('trees').set({ canonical: false }).where('object_id', '=', child.row.id).where('id', '!=', node.id).execute();
      await trx.updateTable('trees').set({ canonical: child.canonical }).where('id', '=', node.id).execute();
    }
    if (node && Object.keys(set).length) await trx.updateTable('trees').set(set).where('id', '=', node.id).execute();
  }
  await append();
}

/** Take objects out of a folder: content objects' leaves all at once, then folders become roots one by one. */
async function unplaceChildren(ctx: AppContext, trx: Trx, folderId: number, rows: ObjectRow[]): Promise<void> {
  const nodes = await nodesIn(trx, folderId, rows.map((r) => r.id));
  const leaves = new Set(rows.filter((r) => !isFolder(ctx, r) && nodes.has(r.id)).map((r) => nodes.get(r.id)!));
  await removeLeaves(trx, [...leaves]);
  for (const row of rows) {
    if (!isFolder(ctx, row)) continue;
    const node = await nodeIn(trx, folderId, row.id);
    if (node) await moveSubtree(trx, node, null);
  }
}

