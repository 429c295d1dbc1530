// The orphan sweep: stored stream files and thumbnail folders whose uuid no `streams` row names
// are removed once older than a day, from the local folder and a bucket alike. They are left by a
// process killed between putting an upload into the storage and committing its row, by a
// thumbnail rendered while its stream was being deleted, or by a removal after a commit that the
// storage refused. Young ones are kept: an upload's file is put before its row commits. The sweep
// is a job of the database queue (`storage-sweep`), queued by every instance for the next
// SWEEP_INTERVAL_MS boundary under one dedupe key: one pending sweep per boundary, claimed and run
// by one instance at a time, taken over by another if it dies.
import type { AppContext } from '../../context.js';
import { streamFile } from '../../storage/storage.js';

export const STORAGE_SWEEP_JOB = 'storage-sweep';
/** Files without a row younger than this are kept (an upload between its put and its commit). */
export const ORPHAN_AGE_MS = 24 * 3600_000;
/** Sweeps run at multiples of this (epoch-aligned, so every instance names the same time). */
const SWEEP_INTERVAL_MS = 6 * 3600_000;
/** How often each instance makes sure the next sweep is queued (and once this long after start). */
const QUEUE_CHECK_MS = 60 * 60_000;
const FIRST_CHECK_MS = 60_000;

export interface SweepResult {
  /** Stream files removed. */
  streams: number;
  /** Thumbnail folders removed. */
  thumbs: number;
}

/** Remove stored files and thumbnail folders older than ORPHAN_AGE_MS (before `now`) that no stream row names. */
export async function sweepOrphanedFiles(ctx: AppContext, now = Date.now(), signal?: AbortSignal): Promise<SweepResult> {
  const cutoff = now - ORPHAN_AGE_MS;
  const removed: SweepResult = { streams: 0, thumbs: 0 };
  for (const family of ['streams', 'thumbs'] as const) {
    const old = (await ctx.storage.listModified(family)).filter((e) => e.modified.getTime() < cutoff).map((e) => e.uuid);
    for (const uuid of await ctx.streams.unnamedUuids(old)) {
      if (signal?.aborted) return removed;
      if (family === 'streams') await ctx.storage.remove(streamFile(uuid));
      else await ctx.storage.removeThumbs(uuid);
      removed[family]++;
    }
  }
  return removed;
}

/** The next sweep time after `now`. */
const nextSweepAt = (now: number) => (Math.floor(now / SWEEP_INTERVAL_MS) + 1) * SWEEP_INTERVAL_MS;

/** Queue the next sweep unless one is pending (any instance's). */
export function queueOrphanSweep(ctx: AppContext, now = Date.now()): Promise<void> {
  return ctx.jobs.enqueue(STORAGE_SWEEP_JOB, {}, { dedupeKey: STORAGE_SWEEP_JOB, runAt: nextSweepAt(now) });
}

/** Define the sweep job and keep the next one queued; the timers stop when the server closes. */
export function scheduleOrphanSweep(ctx: AppContext): void {
  ctx.jobs.define<Record<string, never>>(STORAGE_SWEEP_JOB, {
    // A storage that cannot be reached: tried again later, then at the next boundary anyway.
    retryDelaysMs: [60_000, 600_000],
    recurring: true,
    describe: () => `sweep of orphaned files in ${ctx.storage.description}`,
    run: async (_payload, signal) => {
      const { streams, thumbs } = await sweepOrphanedFiles(ctx, Date.now(), signal);
      if (streams || thumbs) ctx.log(`storage sweep: removed ${streams} orphaned stream file(s) and ${thumbs} thumbnail folder(s) from ${ctx.storage.description}`);
    },
  });
  if (!ctx.config.maintenanceTimers) return;
  const check = () => ctx.tasks.run('queue the storage sweep', () => queueOrphanSweep(ctx));
  const first = setTimeout(check, FIRST_CHECK_MS);
  const timer = setInterval(check, QUEUE_CHECK_MS);
  first.unref();
  timer.unref();
  ctx.onClose.push(() => clearTimeout(first));
  ctx.onClose.push(() => clearInterval(timer));
}
