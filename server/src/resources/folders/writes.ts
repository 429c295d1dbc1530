// Folder writes as the endpoints ask for them, each one command of the write kernel: a new
// folder (its place in the tree is the folders extension's afterWrite), its parent, a folder's
// children, an object's parents. The kernel reads every object named as the actor reads it.
import type { AppContext } from '../../context.js';
import type { ExpectedVersion } from '../../http/if-match.js';
import { apply } from '../objects/kernel.js';
import type { Actor } from '../objects/pipeline.js';
import type { ObjectInput } from '../objects/write.js';
import { FOLDERS, type FolderPlacement as Placement } from './service.js';

export type { Placement };

/** A new folder: a root, or under the folder `parentKey` (id or uname), which the actor must read and update. */
export async function createFolder(ctx: AppContext, input: ObjectInput, parentKey: string | null, actor: Actor): Promise<number> {
  const parts = parentKey === null ? undefined : { folderParent: { parent: parentKey } };
  return (await apply(ctx, { action: 'create', type: FOLDERS, actor, changes: { ...input, parts } })).row.id;
}

/** Move a folder under `parentKey` (at a position), or make it a root (null). */
export async function setFolderParent(ctx: AppContext, folderKey: string | number, parentKey: string | null, placement: Placement, actor: Actor, expected?: ExpectedVersion) {
  await apply(ctx, { action: 'update', target: { key: folderKey, type: FOLDERS }, actor, changes: { parts: { folderParent: { parent: parentKey, ...placement } } }, expectedVersion: expected });
}

/** DELETE of a folder's parent: a root when `parentKey` is its parent now, else nothing. */
export async function removeFolderParent(ctx: AppContext, folderKey: string | number, parentKey: string, actor: Actor) {
  await apply(ctx, { action: 'update', target: { key: folderKey, type: FOLDERS }, actor, changes: { parts: { folderParent: { parent: null, onlyIf: parentKey } } } });
}

/**
 * Add objects (by identifier) to a folder's children, each at its placement, or (`replace`) make
 * them its children, taking out those the actor reads and did not name: an update of the folder.
 */
export async function addFolderChildren(ctx: AppContext, folderKey: string | number, items: Array<{ id: string; type: string } & Placement>, actor: Actor, mode: 'add' | 'replace' = 'add') {
  await apply(ctx, { action: 'update', target: { key: folderKey, type: FOLDERS }, actor, changes: { parts: { children: { mode, items } } } });
}

/** Take objects (by identifier, trashed ones too) out of a folder. */
export async function removeFolderChildren(ctx: AppContext, folderKey: string | number, items: Array<{ id: string; type: string }>, actor: Actor) {
  await apply(ctx, { action: 'update', target: { key: folderKey, type: FOLDERS }, actor, changes: { parts: { children: { mode: 'remove', items } } } });
}

/** The `parents` relationship of an object written from its side (add, replace or remove). */
export async function writeObjectParents(ctx: AppContext, key: string | number, typeName: string, parents: Array<{ id: string } & Placement>, mode: 'add' | 'replace' | 'remove', actor: Actor) {
  await apply(ctx, { action: 'update', target: { key, type: typeName }, actor, changes: { parts: { parents: { mode, items: parents } } } });
}
