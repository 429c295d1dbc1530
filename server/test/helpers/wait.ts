// Waiting in tests: on observable state, never for a fixed time. A wait's time limit is a safety
// net against a hang (it fails the test with what was awaited), generous so that a loaded runner
// never trips it; how fast things happen is for `npm run bench`.
import type { FolioServer } from '../../src/app.js';

/** Longest wait for anything a test waits on, unless told (a hang fails, a slow machine passes). */
export const PATIENCE_MS = 120_000;

/** Resolves with the first value other than undefined that `probe` answers, looking every 20 ms. */
export async function waitUntil<T>(probe: () => T | undefined | Promise<T | undefined>, what = 'a condition', ms = PATIENCE_MS): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Resolves when the server's background queues are idle and empty: no job (but recurring sweeps)
 * and no webhook delivery pending, retries included. After it, whatever a write set off has
 * happened, so "nothing more arrived" is a fact, not the end of a sleep.
 */
export async function queuesIdle(server: FolioServer): Promise<void> {
  await server.ctx.jobs.idle();
  await server.ctx.webhooks?.idle();
  // A job may queue a delivery and a delivery nothing else: one more look at the jobs settles it.
  await server.ctx.jobs.idle();
}

/**
 * Let time pass on purpose, for a rule of the clock to see it pass (file times kept in whole
 * seconds, a timer that must not fire again): never to wait for something to happen.
 */
export const letTimePass = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Whether a process with this id is running (signal 0 tests without signalling). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
