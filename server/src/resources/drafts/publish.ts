// Publishing a draft: one write of its object through the write kernel (an update command with
// the draft's attributes, relations, place in folders and translations: history, webhooks, the version move and
// every right of a PATCH come from the kernel), with the draft removed in the same unit of work.
// It needs `publish` on the object. Scheduled, it is a job of the database job queue that runs
// at `publish_at` on whichever instance is free and applies the draft once: the job removes the
// draft only if it is still the one scheduled for that instant, in the write's unit of work.
import type { Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Database } from '../../db/tables.js';
import { nowIso } from '../../db/time.js';
import { ApiError, badRequest } from '../../http/errors.js';
import type { ExpectedVersion } from '../../http/if-match.js';
import type { AuthInfo } from '../../identity.js';
import { loadAuthInfo } from '../accounts/auth-info.js';
import { apply } from '../objects/kernel.js';
import { authorizeWrite, inTransaction } from '../objects/pipeline.js';
import type { ObjectRow } from '../objects/rows.js';
import { checkDraftIfMatch, draftChanges, requireDraft, type Drafted } from './service.js';

export const DRAFT_PUBLISH_JOB = 'drafts.publish';

interface PublishJob {
  objectId: number;
  publishAt: string;
}

/** 403 `publish_required` unless the actor may publish the object (the write guards decide). */
function mayPublish(ctx: AppContext, actor: AuthInfo, found: Drafted, trx: Transaction<Database>): Promise<void> {
  return authorizeWrite(ctx, { action: 'publish', actor, type: found.type, row: found.row, trx });
}

/**
 * Apply the draft of `key` to its object now, in one unit of work. `scheduled`: only the draft
 * scheduled for that instant (the job's run); null when it is gone or rescheduled meanwhile.
 * `draftIfMatch`: an If-Match naming the draft's ETag (412 unless the draft is as it names).
 */
export async function publishDraft(ctx: AppContext, actor: AuthInfo, key: string | number, expectedVersion?: ExpectedVersion, scheduled?: string, draftIfMatch?: string): Promise<ObjectRow | null> {
  return inTransaction(ctx, undefined, async (trx) => {
    const found = await requireDraft(ctx, actor, key, trx);
    // The draft's own ETag: the draft too must be as the publisher read it.
    if (draftIfMatch !== undefined) checkDraftIfMatch(draftIfMatch, found.draft);
    await mayPublish(ctx, actor, found, trx);
    let removal = trx.deleteFrom('drafts').where('object_id', '=', found.row.id);
    if (scheduled !== undefined) removal = removal.where('publish_at', '=', scheduled);
    // Another run (an instance that took the job over) or a discard got there first.
    if (Number((await removal.executeTakeFirst()).numDeletedRows) !== 1) return null;
    const { row } = await apply(ctx, { action: 'update', target: { key: found.row.id, type: found.type.name }, actor, changes: await draftChanges(found, trx), expectedVersion }, trx);
    return row;
  });
}

/** An ISO 8601 datetime in the future, as a UTC instant; 400 otherwise. */
export function publishInstant(value: unknown): string {
  const iso = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?$/;
  const ms = typeof value === 'string' && iso.test(value) && isCalendarDay(value.slice(0, 10)) ? Date.parse(value) : NaN;
  if (Number.isNaN(ms)) throw badRequest('"publish_at" must be an ISO 8601 datetime', 'invalid_data');
  if (ms <= Date.now()) throw badRequest('"publish_at" must be in the future', 'invalid_data');
  return new Date(ms).toISOString();
}

/** Schedule the draft of `key` to go live at `publishAt` (replacing an earlier schedule). */
export async function scheduleDraft(ctx: AppContext, actor: AuthInfo, key: string | number, publishAt: string): Promise<void> {
  await inTransaction(ctx, undefined, async (trx) => {
    const found = await requireDraft(ctx, actor, key, trx);
    await mayPublish(ctx, actor, found, trx);
    await trx.updateTable('drafts').set({ publish_at: publishAt, publish_by: actor.userId, modified: nowIso(), modified_by: actor.userId }).where('object_id', '=', found.row.id).execute();
    await queuePublication(ctx, { objectId: found.row.id, publishAt }, trx);
  });
}

function queuePublication(ctx: AppContext, job: PublishJob, trx?: Transaction<Database>): Promise<void> {
  return ctx.jobs.enqueue(DRAFT_PUBLISH_JOB, job, { trx, dedupeKey: `${DRAFT_PUBLISH_JOB}:${job.objectId}:${job.publishAt}`, runAt: Date.parse(job.publishAt) });
}

/**
 * Define the job, and queue the scheduled drafts that have none (the queue is not part of a
 * backup: a restored database gets its scheduled publications back at the next start).
 */
export function scheduleDraftPublications(ctx: AppContext): void {
  ctx.jobs.define<PublishJob>(DRAFT_PUBLISH_JOB, {
    retryDelaysMs: [5_000, 60_000],
    // A refusal (rights gone, object trashed, If-Match-free checks of the write) will not pass later.
    isPermanent: (err) => err instanceof ApiError,
    describe: (p) => `scheduled publication of the draft of object ${p.objectId}`,
    run: async ({ objectId, publishAt }) => {
      const draft = await ctx.db.selectFrom('drafts').select(['publish_by']).where('object_id', '=', objectId).where('publish_at', '=', publishAt).executeTakeFirst();
      if (!draft) return; // published, rescheduled or discarded meanwhile
      const actor = draft.publish_by === null ? null : await loadAuthInfo(ctx, draft.publish_by);
      try {
        if (!actor) throw new ApiError(403, 'publish_required', `The user who scheduled it (${draft.publish_by}) can no longer publish`);
        await publishDraft(ctx, { ...actor, base: ctx.config.baseUrl ?? ctx.ownUrl } as AuthInfo, objectId, undefined, publishAt);
      } catch (err) {
        // The draft stays, unscheduled, for an editor to see and publish by hand.
        if (err instanceof ApiError) await ctx.db.updateTable('drafts').set({ publish_at: null, publish_by: null }).where('object_id', '=', objectId).where('publish_at', '=', publishAt).execute();
        throw err;
      }
    },
  });
  ctx.tasks.run('queue scheduled draft publications', async () => {
    const due = await ctx.db.selectFrom('drafts').select(['object_id', 'publish_at']).where('publish_at', 'is not', null).execute();
    for (const d of due) await queuePublication(ctx, { objectId: d.object_id, publishAt: d.publish_at! });
  });
}

/** Whether `ymd` (YYYY-MM-DD) names a day of the calendar (Date.parse takes 2031-02-30 as 2 March). */
function isCalendarDay(ymd: string): boolean {
  const [y, m, d] = ymd.split('-').map(Number);
  return m >= 1 && m <= 12 && d >= 1 && d <= new Date(Date.UTC(y, m, 0)).getUTCDate();
}
