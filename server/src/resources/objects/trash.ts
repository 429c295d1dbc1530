// The write pipeline's trash, restore and permanent delete, for objects of every type. Type rules
// are extension hooks: users refuse to trash the last admin and lose their sessions, folders take
// their sub-folders along, media remove their files after a purge.
import type { Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Database } from '../../db/tables.js';
import { nowIso } from '../../db/time.js';
import { forbidden, notFound } from '../../http/errors.js';
import type { ObjectExtension } from './extensions.js';
import { typeById } from './model.js';
import { authorizeWrite, changeOf, inTransaction, recordChanges, toActor, type Actor, type ActorLike } from './pipeline.js';
import type { ObjectRow } from './rows.js';
import { extensionsOf } from './write.js';

type Db = Transaction<Database>;

async function rowsOfIds(db: Db, ids: number[], deleted: boolean): Promise<ObjectRow[]> {
  if (!ids.length) return [];
  return db.selectFrom('objects').selectAll().where('id', 'in', ids).where('deleted', '=', deleted).execute();
}

/** Each extension that covers some of `rows`, with the ids of those rows. */
function byExtension(ctx: AppContext, rows: ObjectRow[]): Array<[ObjectExtension, number[]]> {
  const out = new Map<ObjectExtension, number[]>();
  for (const row of rows) {
    for (const ext of extensionsOf(ctx, typeById(ctx, row.object_type_id)?.name ?? '')) {
      const ids = out.get(ext) ?? [];
      ids.push(row.id);
      out.set(ext, ids);
    }
  }
  return [...out];
}

async function guardEach(ctx: AppContext, db: Db, rows: ObjectRow[], action: 'delete' | 'restore' | 'purge', actor: Actor) {
  for (const row of rows) await authorizeWrite(ctx, { action, actor, type: typeById(ctx, row.object_type_id)!, row, trx: db });
}

const changesOf = (ctx: AppContext, action: 'trash' | 'restore' | 'remove', rows: ObjectRow[], actor: Actor, changed: Record<string, unknown>) =>
  rows.map((row) => changeOf(action, row, typeById(ctx, row.object_type_id)?.name ?? 'objects', actor, changed));

/** Move objects to the trash (404 for a missing one, 403 for a locked one or what a type refuses). */
export async function trashObjects(ctx: AppContext, ids: number[], actorLike: ActorLike, trx?: Transaction<Database>): Promise<void> {
  const actor = toActor(actorLike);
  await inTransaction(ctx, trx, async (db) => {
    const rows = await rowsOfIds(db, ids, false);
    if (rows.length !== new Set(ids).size) throw notFound('Object not found');
    if (rows.some((r) => Boolean(r.locked))) throw forbidden('The object is locked and cannot be deleted', 'object_locked');
    await guardEach(ctx, db, rows, 'delete', actor);
    const hooks = byExtension(ctx, rows);
    for (const [ext, mine] of hooks) if (ext.beforeTrash) await ext.beforeTrash(db, mine, ctx);
    await db.updateTable('objects').set({ deleted: true, modified: nowIso(), modified_by: actor.userId }).where('id', 'in', ids).execute();
    for (const [ext, mine] of hooks) if (ext.onTrash) await ext.onTrash(db, mine, ctx, actor);
    await recordChanges(ctx, db, changesOf(ctx, 'trash', rows, actor, { deleted: true }));
  });
}

/** Bring trashed objects back (404 when one is not in the trash). */
export async function restoreObjects(ctx: AppContext, ids: number[], actorLike: ActorLike, trx?: Transaction<Database>): Promise<void> {
  const actor = toActor(actorLike);
  await inTransaction(ctx, trx, async (db) => {
    const rows = await rowsOfIds(db, ids, true);
    if (rows.length !== new Set(ids).size) throw notFound('Object not found in the trash');
    await guardEach(ctx, db, rows, 'restore', actor);
    await db.updateTable('objects').set({ deleted: false }).where('id', 'in', ids).execute();
    for (const [ext, mine] of byExtension(ctx, rows)) if (ext.onRestore) await ext.onRestore(db, mine, ctx, actor);
    await recordChanges(ctx, db, changesOf(ctx, 'restore', rows, actor, { deleted: false }));
  });
}

/** Remove trashed objects for good, with their relations; afterPurge hooks run after the commit. */
export async function purgeObjects(ctx: AppContext, ids: number[], actorLike: ActorLike): Promise<void> {
  const actor = toActor(actorLike);
  const after: Array<() => Promise<void>> = [];
  await inTransaction(ctx, undefined, async (db) => {
    after.length = 0;
    const rows = await rowsOfIds(db, ids, true);
    if (rows.length !== new Set(ids).size) throw notFound('Object not found in the trash');
    await guardEach(ctx, db, rows, 'purge', actor);
    for (const [ext, mine] of byExtension(ctx, rows)) {
      if (ext.onPurge) await ext.onPurge(db, mine, ctx);
      if (ext.afterPurge) after.push(() => ext.afterPurge!(mine, ctx));
    }
    await db.deleteFrom('object_relations').where((e) => e.or([e('left_id', 'in', ids), e('right_id', 'in', ids)])).execute();
    await db.deleteFrom('objects').where('id', 'in', ids).execute();
    await recordChanges(ctx, db, changesOf(ctx, 'remove', rows, actor, {}));
  });
  for (const hook of after) {
    try {
      await hook();
    } catch (err) {
      ctx.log(`afterPurge failed: ${(err as Error)?.stack ?? err}`);
    }
  }
}
