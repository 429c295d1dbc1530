// The write kernel's trash, restore and permanent delete steps (kernel.ts runs them, after it has
// read each row as its actor sees it): type rules are extension hooks — users refuse to trash the
// last admin and lose their sessions, folders take their sub-folders along, media remove their
// files after a purge.
import type { Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Database } from '../../db/tables.js';
import { nowIso } from '../../db/time.js';
import { forbidden, notFound } from '../../http/errors.js';
import type { ObjectExtension } from './extensions.js';
import { typeById } from './model.js';
import { authorizeWrite, changeOf, inTransaction, recordChanges, type Actor } from './pipeline.js';
import type { ObjectRow } from './rows.js';
import { extensionsOf } from './write.js';

type Db = Transaction<Database>;

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

/** Move active rows to the trash (403 for a locked one or what a type refuses). */
export async function trashRows(ctx: AppContext, db: Db, rows: ObjectRow[], actor: Actor): Promise<void> {
  if (rows.some((r) => Boolean(r.locked))) throw forbidden('The object is locked and cannot be deleted', 'object_locked');
  await guardEach(ctx, db, rows, 'delete', actor);
  const ids = rows.map((r) => r.id);
  const hooks = byExtension(ctx, rows);
  for (const [ext, mine] of hooks) if (ext.beforeTrash) await ext.beforeTrash(db, mine, ctx);
  await db.updateTable('objects').set({ deleted: true, modified: nowIso(), modified_by: actor.userId }).where('id', 'in', ids).execute();
  for (const [ext, mine] of hooks) if (ext.onTrash) await ext.onTrash(db, mine, ctx, actor);
  await recordChanges(ctx, db, changesOf(ctx, 'trash', rows, actor, { deleted: true }));
}

/** Bring trashed rows back. */
export async function restoreRows(ctx: AppContext, db: Db, rows: ObjectRow[], actor: Actor): Promise<void> {
  await guardEach(ctx, db, rows, 'restore', actor);
  await db.updateTable('objects').set({ deleted: false }).where('id', 'in', rows.map((r) => r.id)).execute();
  for (const [ext, mine] of byExtension(ctx, rows)) if (ext.onRestore) await ext.onRestore(db, mine, ctx, actor);
  await recordChanges(ctx, db, changesOf(ctx, 'restore', rows, actor, { deleted: false }));
}

/** Remove trashed rows for good, with their relations, in a unit of work of their own; afterPurge hooks run after the commit. */
export async function purgeRows(ctx: AppContext, found: ObjectRow[], actor: Actor): Promise<void> {
  const ids = found.map((r) => r.id);
  const after: Array<() => Promise<void>> = [];
  await inTransaction(ctx, undefined, async (db) => {
    after.length = 0;
    const rows = await db.selectFrom('objects').selectAll().where('id', 'in', ids).where('deleted', '=', true).execute();
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
