// Per-client rate limits of the account endpoints, counted in the database (every instance on
// one database shares them; they survive a restart): failed password logins (FOLIO_LOGIN_LIMIT,
// 15 minutes) and mail-sending requests (FOLIO_MAIL_LIMIT, one hour). Sliding windows: the hits of
// the window that ended count in proportion to how much of it the last `windowMs` still covers, so
// no client gets twice its allowance across a window's edge; a hit is reserved by one atomic
// conditional upsert before the work, so the limit is exact under parallelism.
import type { Request, RequestHandler } from 'express';
import type { AppContext } from '../../context.js';
import { ApiError } from '../../http/errors.js';

export interface RateLimit {
  bucket: 'login' | 'mail';
  /** Hits allowed per window; 0: no limit. */
  limit: number;
  windowMs: number;
}

export const loginLimit = (ctx: AppContext): RateLimit => ({ bucket: 'login', limit: ctx.config.loginLimit, windowMs: 15 * 60 * 1000 });
export const mailLimit = (ctx: AppContext): RateLimit => ({ bucket: 'mail', limit: ctx.config.mailLimit, windowMs: 60 * 60 * 1000 });

/** The client a limit counts: express's req.ip (the socket's address, or the client a trusted proxy names: FOLIO_TRUST_PROXY). */
export const clientOf = (req: Request) => String(req.ip ?? 'unknown').slice(0, 64);

const windowOf = (rl: RateLimit, now: number) => now - (now % rl.windowMs);

/**
 * The hits of the window that ended that still count at `now`: its count times the share of it
 * the last `windowMs` covers, rounded up (a single hit counts until the window has fully passed).
 */
export const carriedHits = (rl: RateLimit, previous: number, now: number) =>
  previous <= 0 ? 0 : Math.ceil((previous * (rl.windowMs - (now - windowOf(rl, now)))) / rl.windowMs);

/** Seconds until one more hit would be allowed, given this window's and the last window's counts. */
export function retryAfterSeconds(rl: RateLimit, current: number, previous: number, now: number): number {
  const start = windowOf(rl, now);
  // Within this window, the last window's share only shrinks: the first moment it leaves room.
  let at = start + 2 * rl.windowMs;
  if (current < rl.limit && previous > 0) {
    // ceil(previous × (1 − f)) ≤ limit − current − 1  ⇔  f ≥ (previous − (limit − current − 1)) / previous
    at = start + Math.ceil((rl.windowMs * (previous - (rl.limit - current - 1))) / previous);
  } else if (current > 0) {
    // In the next window this window's hits are the ones carried.
    at = start + rl.windowMs + Math.ceil((rl.windowMs * Math.max(0, current - (rl.limit - 1))) / current);
  }
  return Math.max(1, Math.ceil((at - now) / 1000));
}

const tooMany = (rl: RateLimit, detail: string, current: number, previous: number, now: number) =>
  new ApiError(429, 'too_many_requests', detail, undefined, undefined, { 'Retry-After': String(retryAfterSeconds(rl, current, previous, now)) });

/**
 * Take one hit of `client`'s allowance, before the work it guards: one atomic upsert that counts
 * only while this window's hits plus the last window's carried share are under the limit, so of N
 * parallel requests exactly the allowance gets through whatever the interleaving, on every
 * instance (a refused one counts nothing; the last window no longer grows, so reading it first
 * races with nothing but refunds, which only lower it). Past the limit: 429 with `Retry-After`.
 * Answers the refund for work that turns out not to count (a login with the right password).
 */
export async function reserveHit(ctx: AppContext, rl: RateLimit, client: string, detail: string): Promise<() => Promise<void>> {
  if (rl.limit <= 0) return async () => {};
  const now = Date.now();
  const start = windowOf(rl, now);
  const last = await ctx.db
    .selectFrom('rate_hits')
    .select('hits')
    .where('bucket', '=', rl.bucket)
    .where('client', '=', client)
    .where('window_start', '=', start - rl.windowMs)
    .executeTakeFirst();
  const previous = Number(last?.hits ?? 0);
  const allowed = rl.limit - carriedHits(rl, previous, now);
  const refuse = async () => {
    const row = await ctx.db
      .selectFrom('rate_hits')
      .select('hits')
      .where('bucket', '=', rl.bucket)
      .where('client', '=', client)
      .where('window_start', '=', start)
      .executeTakeFirst();
    return tooMany(rl, detail, Number(row?.hits ?? 0), previous, now);
  };
  if (allowed <= 0) throw await refuse();
  const row = await ctx.db
    .insertInto('rate_hits')
    .values({ bucket: rl.bucket, client, window_start: start, hits: 1 })
    .onConflict((oc) =>
      oc
        .columns(['bucket', 'client', 'window_start'])
        .doUpdateSet((eb) => ({ hits: eb('rate_hits.hits', '+', 1) }))
        .where('rate_hits.hits', '<', allowed),
    )
    .returning('hits')
    .executeTakeFirst();
  if (!row) throw await refuse();
  // Windows before the last one are of no use any more.
  if (Number(row.hits) === 1) await ctx.db.deleteFrom('rate_hits').where('bucket', '=', rl.bucket).where('window_start', '<', start - rl.windowMs).execute();
  return async () => {
    await ctx.db
      .updateTable('rate_hits')
      .set((eb) => ({ hits: eb('hits', '-', 1) }))
      .where('bucket', '=', rl.bucket)
      .where('client', '=', client)
      .where('window_start', '=', start)
      .where('hits', '>', 0)
      .execute();
  };
}

/** Middleware: every request counts; past the limit 429 `too_many_requests` (mail-sending endpoints). */
export function limitRequests(ctx: AppContext, rl: RateLimit, detail: string): RequestHandler {
  return async (req, _res, next) => {
    await reserveHit(ctx, rl, clientOf(req), detail);
    next();
  };
}
