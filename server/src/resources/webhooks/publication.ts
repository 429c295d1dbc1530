// Publication events: `objects.publish` when an object becomes visible to anonymous
// clients, `objects.unpublish` when it stops being so — by a status change, a trash, a restore, or
// its publication window's bound passing. `publication_states` keeps, per object, what anonymous
// clients could see when it was last looked at; an event fires only where that changes, in the
// same transaction as the new state, so each change fires once whichever instance notices it.
// Writes are looked at as they are recorded (the webhook observer); bounds by a sweep every
// `publicationSweepMs` (30 s) on every instance, which writes only when a bound has passed.
import { sql, type ExpressionBuilder, type Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Database } from '../../db/tables.js';
import { nowIso } from '../../db/time.js';
import type { ObjectChange, PublicationAction } from '../objects/changes.js';
import { inTransaction } from '../objects/pipeline.js';
import { inPublishWindow, publishWindowWhere, SYSTEM, visibleObjects } from '../objects/read.js';
import { typeById, typeByName } from '../objects/model.js';


export type PublicationEvent = Omit<ObjectChange, 'action'> & { action: PublicationAction };

/** Whether a change may alter what anonymous clients see of its object. */
const mayChangePublication = (c: ObjectChange) =>
  c.action === 'trash' ||
  c.action === 'restore' ||
  (c.action === 'create' && c.changed.status === 'on') ||
  (c.action === 'update' && ('status' in c.changed || 'publish_start' in c.changed || 'publish_end' in c.changed));

/**
 * The publication events of objects `ids` now, their states written: an object is public when
 * active, `on`, inside its window and not a user account (object permissions aside). One
 * statement: the states that differ from what the objects say now are written, and returned.
 * `typeNames`: the type of each id when the caller knows it (else read for the rows that changed).
 */
async function transitions(
  ctx: AppContext,
  trx: Transaction<Database>,
  ids: number[] | 'windows',
  who: Pick<ObjectChange, 'userId' | 'applicationId' | 'base'>,
  typeNames: Map<number, string> = new Map(),
): Promise<PublicationEvent[]> {
  const now = nowIso();
  const users = typeByName(ctx, 'users')?.id;
  const changed = await trx
    .insertInto('publication_states')
    .columns(['object_id', 'public', 'changed'])
    .expression(() => {
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      const isPublic = (e: ExpressionBuilder<any, any>) =>
        e.and([
          e('objects.status', '=', 'on'),
          e('objects.deleted', '=', false),
          ...publishWindowWhere(e, now),
          ...(users === undefined ? [] : [e('objects.object_type_id', '!=', users)]),
        ]);
      const q = visibleObjects(ctx, SYSTEM, trx, { trashed: 'any' })
        .leftJoin('publication_states as state', 'state.object_id', 'objects.id')
        .select((e) => [e.ref('objects.id').as('object_id'), isPublic(e).as('public'), sql.lit(now).as('changed')])
        // A state not written yet counts as not public (no event for an object nobody could see).
        .where((e) => e(isPublic(e), '!=', sql<boolean>`coalesce(${e.ref('state.public')}, ${e.lit(false)})`));
      return ids === 'windows' ? q.where((w) => w.or([w('objects.publish_start', 'is not', null), w('objects.publish_end', 'is not', null)])) : q.where('objects.id', 'in', ids);
    })
    .onConflict((oc) => oc.column('object_id').doUpdateSet((eb) => ({ public: eb.ref('excluded.public'), changed: eb.ref('excluded.changed') })))
    .returning(['object_id', 'public'])
    .execute();
  const unknown = changed.map((r) => Number(r.object_id)).filter((id) => !typeNames.has(id));
  if (unknown.length) {
    for (const r of await visibleObjects(ctx, SYSTEM, trx, { trashed: 'any' }).select(['id', 'object_type_id']).where('id', 'in', unknown).execute()) {
      typeNames.set(Number(r.id), typeById(ctx, r.object_type_id)?.name ?? 'objects');
    }
  }
  return changed.map((r) => ({ action: r.public ? 'publish' : 'unpublish', id: Number(r.object_id), typeName: typeNames.get(Number(r.object_id)) ?? 'objects', changed: {}, ...who }));
}

/** The publication events of a unit of work's changes (inside its transaction). */
export async function publicationOfChanges(ctx: AppContext, trx: Transaction<Database>, changes: ObjectChange[]): Promise<PublicationEvent[]> {
  const concerned = changes.filter(mayChangePublication);
  if (!concerned.length) return [];
  const first = concerned[0];
  const typeNames = new Map(concerned.map((c) => [c.id, c.typeName]));
  return transitions(ctx, trx, [...typeNames.keys()], { userId: first.userId, applicationId: first.applicationId, base: first.base }, typeNames);
}

/** Objects with a window whose state differs from what anonymous clients see now (a read, no lock). */
async function windowsToAnnounce(ctx: AppContext): Promise<boolean> {
  const now = nowIso();
  const rows = await visibleObjects(ctx, SYSTEM, ctx.db, { trashed: 'any' })
    .leftJoin('publication_states', 'publication_states.object_id', 'objects.id')
    .select(['objects.id', 'objects.object_type_id', 'objects.status', 'objects.deleted', 'objects.publish_start', 'objects.publish_end', 'publication_states.public'])
    .where((eb) => eb.or([eb('objects.publish_start', 'is not', null), eb('objects.publish_end', 'is not', null)]))
    .execute();
  return rows.some((r) => (r.status === 'on' && !r.deleted && inPublishWindow(r, now) && typeById(ctx, r.object_type_id)?.name !== 'users') !== Boolean(r.public));
}

/**
 * One sweep over every object with a window; `enqueue` records the events' deliveries. Nothing is
 * written unless a bound has passed: a read first, then the states compared and written again in
 * one unit of work (two instances sweeping at once wait on the write lock; the second finds the
 * states written and fires nothing).
 */
export async function sweepPublication(ctx: AppContext, enqueue: (trx: Transaction<Database>, events: PublicationEvent[]) => Promise<unknown>): Promise<number> {
  if (!(await windowsToAnnounce(ctx))) return 0;
  return inTransaction(ctx, undefined, async (trx) => {
    const events = await transitions(ctx, trx, 'windows', { userId: null, applicationId: null, base: ctx.config.baseUrl ?? ctx.ownUrl });
    if (events.length) await enqueue(trx, events);
    return events.length;
  });
}

/**
 * Sweep every `publicationSweepMs` (30 s) on every instance, so that a bound is announced within a
 * minute whichever instances are up; the states in the database make a restart catch up on what
 * passed while nothing ran, and make each change fire once.
 */
export function schedulePublicationSweep(ctx: AppContext, enqueue: (trx: Transaction<Database>, events: PublicationEvent[]) => Promise<unknown>, wake: () => void): void {
  let running = false;
  const sweep = () => {
    if (running) return;
    running = true;
    ctx.tasks.run('sweep of publication windows', async () => {
      try {
        if (await sweepPublication(ctx, enqueue)) wake();
      } finally {
        running = false;
      }
    });
  };
  if (!ctx.config.maintenanceTimers) return;
  const first = setTimeout(sweep, 1_000);
  const timer = setInterval(sweep, ctx.config.publicationSweepMs);
  first.unref();
  timer.unref();
  ctx.onClose.push(() => clearTimeout(first));
  ctx.onClose.push(() => clearInterval(timer));
}
