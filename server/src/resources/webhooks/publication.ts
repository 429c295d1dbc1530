// Publication events (issue 31): `objects.publish` when an object becomes visible to anonymous
// clients, `objects.unpublish` when it stops being so — by a status change, a trash, a restore, or
// its publication window's bound passing. `publication_states` keeps, per object, what anonymous
// clients could see when it was last looked at; an event fires only where that changes, in the
// same transaction as the new state, so each change fires once whichever instance notices it.
// Writes are looked at as they are recorded (the webhook observer); bounds by a sweep, a job of
// the database queue run every `publicationSweepMs` (30 s) by whichever instance claims it (so
// within a minute of a bound, surviving restarts).
import type { Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Database } from '../../db/tables.js';
import { nowIso } from '../../db/time.js';
import type { ObjectChange, PublicationAction } from '../objects/changes.js';
import { inTransaction } from '../objects/pipeline.js';
import { inPublishWindow } from '../objects/read.js';
import { typeById } from '../objects/model.js';

export const PUBLICATION_SWEEP_JOB = 'publication-sweep';

export type PublicationEvent = Omit<ObjectChange, 'action'> & { action: PublicationAction };

/** Whether a change may alter what anonymous clients see of its object. */
const mayChangePublication = (c: ObjectChange) =>
  c.action === 'trash' ||
  c.action === 'restore' ||
  (c.action === 'create' && c.changed.status === 'on') ||
  (c.action === 'update' && ('status' in c.changed || 'publish_start' in c.changed || 'publish_end' in c.changed));

/**
 * The publication events of objects `ids` now, their states written: an object is public when
 * active, `on`, inside its window and not a user account (object permissions aside).
 */
async function transitions(ctx: AppContext, trx: Transaction<Database>, ids: number[] | 'windows', who: Pick<ObjectChange, 'userId' | 'applicationId' | 'base'>): Promise<PublicationEvent[]> {
  let q = trx
    .selectFrom('objects')
    .leftJoin('publication_states', 'publication_states.object_id', 'objects.id')
    .select(['objects.id', 'objects.object_type_id', 'objects.status', 'objects.deleted', 'objects.publish_start', 'objects.publish_end', 'publication_states.public']);
  q = ids === 'windows' ? q.where((eb) => eb.or([eb('objects.publish_start', 'is not', null), eb('objects.publish_end', 'is not', null)])) : q.where('objects.id', 'in', ids);
  const rows = await q.execute();
  const now = nowIso();
  const events: PublicationEvent[] = [];
  const states: Array<{ object_id: number; public: boolean; changed: string }> = [];
  for (const r of rows) {
    const typeName = typeById(ctx, r.object_type_id)?.name ?? 'objects';
    const isPublic = typeName !== 'users' && r.status === 'on' && !r.deleted && inPublishWindow(r, now);
    if (isPublic === Boolean(r.public)) continue;
    states.push({ object_id: r.id, public: isPublic, changed: now });
    events.push({ action: isPublic ? 'publish' : 'unpublish', id: r.id, typeName, changed: {}, ...who });
  }
  for (let i = 0; i < states.length; i += 500) {
    await trx
      .insertInto('publication_states')
      .values(states.slice(i, i + 500))
      .onConflict((oc) => oc.column('object_id').doUpdateSet((eb) => ({ public: eb.ref('excluded.public'), changed: eb.ref('excluded.changed') })))
      .execute();
  }
  return events;
}

/** The publication events of a unit of work's changes (inside its transaction). */
export async function publicationOfChanges(ctx: AppContext, trx: Transaction<Database>, changes: ObjectChange[]): Promise<PublicationEvent[]> {
  const concerned = changes.filter(mayChangePublication);
  if (!concerned.length) return [];
  const first = concerned[0];
  return transitions(ctx, trx, [...new Set(concerned.map((c) => c.id))], { userId: first.userId, applicationId: first.applicationId, base: first.base });
}

/** One sweep over every object with a window; `enqueue` records the events' deliveries. */
export async function sweepPublication(ctx: AppContext, enqueue: (trx: Transaction<Database>, events: PublicationEvent[]) => Promise<void>): Promise<number> {
  return inTransaction(ctx, undefined, async (trx) => {
    const events = await transitions(ctx, trx, 'windows', { userId: null, applicationId: null, base: ctx.config.baseUrl ?? ctx.ownUrl });
    if (events.length) await enqueue(trx, events);
    return events.length;
  });
}

/** The next sweep time after `now`: multiples of `every` (epoch-aligned, every instance names the same time). */
const nextSweepAt = (now: number, every: number) => (Math.floor(now / every) + 1) * every;

/** Define the sweep job and keep the next one queued (by every instance, one pending at a time). */
export function schedulePublicationSweep(ctx: AppContext, enqueue: (trx: Transaction<Database>, events: PublicationEvent[]) => Promise<void>, wake: () => void): void {
  const every = ctx.config.publicationSweepMs;
  const queueNext = () => ctx.jobs.enqueue(PUBLICATION_SWEEP_JOB, {}, { dedupeKey: PUBLICATION_SWEEP_JOB, runAt: nextSweepAt(Date.now(), every) });
  ctx.jobs.define<Record<string, never>>(PUBLICATION_SWEEP_JOB, {
    retryDelaysMs: [5_000, 15_000],
    recurring: true,
    describe: () => 'sweep of publication windows',
    run: async () => {
      if (await sweepPublication(ctx, enqueue)) wake();
      await queueNext();
    },
  });
  // Each instance makes sure a sweep is queued (a dead instance's one is taken over by the queue).
  const check = () => ctx.tasks.run('queue the publication sweep', queueNext);
  const first = setTimeout(check, 1_000);
  const timer = setInterval(check, every);
  first.unref();
  timer.unref();
  ctx.onClose.push(() => clearTimeout(first));
  ctx.onClose.push(() => clearInterval(timer));
}
