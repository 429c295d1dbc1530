// Folder writes as the endpoints ask for them, each one unit of work of the write pipeline: the
// folders and objects named are looked up inside the transaction, then the tree service places,
// moves or removes them (guards and change records included, see service.ts).
import type { AppContext } from '../../context.js';
import { inTransaction, type Actor } from '../objects/pipeline.js';
import { requireObject } from '../objects/read.js';
import type { ObjectRow } from '../objects/rows.js';
import { createObject, type ObjectInput } from '../objects/write.js';
import { addChildren, detachFolder, FOLDERS, nodeOfFolder, removeChildren, writeParents, type ParentInput } from './service.js';
import type { Position } from './tree.js';

export interface Placement {
  position?: Position;
  menu?: boolean;
}

/** A new folder: a root, or under the folder `parentKey` (id or uname). */
export function createFolder(ctx: AppContext, input: ObjectInput, parentKey: string | null, actor: Actor): Promise<number> {
  return inTransaction(ctx, undefined, async (trx) => {
    const parent = parentKey === null ? null : await requireObject(ctx, parentKey, { typeName: FOLDERS, db: trx });
    return createObject(ctx, FOLDERS, { ...input, own: { parentId: parent?.id ?? null } }, actor, trx);
  });
}

/** Move a folder under `parentKey` (at a position), or make it a root (null). */
export function setFolderParent(ctx: AppContext, folder: ObjectRow, parentKey: string | null, placement: Placement, actor: Actor): Promise<void> {
  return inTransaction(ctx, undefined, async (trx) => {
    if (parentKey === null) return detachFolder(ctx, trx, folder, actor);
    const parent = await requireObject(ctx, parentKey, { typeName: FOLDERS, db: trx });
    await addChildren(ctx, trx, parent.id, [{ row: folder, ...placement }], actor);
  });
}

/** DELETE of a folder's parent: a root when `parentKey` is its parent now, else nothing. */
export function removeFolderParent(ctx: AppContext, folder: ObjectRow, parentKey: string, actor: Actor): Promise<void> {
  return inTransaction(ctx, undefined, async (trx) => {
    const node = await nodeOfFolder(trx, folder.id);
    if (node?.parent_id !== null && String(node?.parent_id) === parentKey) await detachFolder(ctx, trx, folder, actor);
  });
}

/** Add objects (by identifier) to a folder's children, each at its placement. */
export function addFolderChildren(ctx: AppContext, folder: ObjectRow, items: Array<{ id: string; type: string } & Placement>, actor: Actor): Promise<void> {
  return inTransaction(ctx, undefined, async (trx) => {
    const children = [];
    for (const { id, type, position, menu } of items) children.push({ row: await requireObject(ctx, id, { typeName: type, db: trx }), position, menu });
    await addChildren(ctx, trx, folder.id, children, actor);
  });
}

/** Take objects (by identifier, trashed ones too) out of a folder. */
export function removeFolderChildren(ctx: AppContext, folder: ObjectRow, items: Array<{ id: string; type: string }>, actor: Actor): Promise<void> {
  return inTransaction(ctx, undefined, async (trx) => {
    const rows: ObjectRow[] = [];
    for (const item of items) rows.push(await requireObject(ctx, item.id, { typeName: item.type, trashed: 'any', db: trx }));
    await removeChildren(ctx, trx, folder.id, rows, actor);
  });
}

/** The `parents` relationship of an object written from its side (add, replace or remove). */
export function writeObjectParents(
  ctx: AppContext,
  row: ObjectRow,
  parents: Array<{ id: string } & Placement>,
  mode: 'add' | 'replace' | 'remove',
  actor: Actor,
): Promise<void> {
  return inTransaction(ctx, undefined, async (trx) => {
    const inputs: ParentInput[] = [];
    for (const p of parents) inputs.push({ folderId: (await requireObject(ctx, p.id, { typeName: FOLDERS, db: trx })).id, position: p.position, menu: p.menu });
    await writeParents(ctx, trx, row, inputs, mode, actor);
  });
}
