// Per-client rate limits of the account endpoints, counted in the database (every instance on
// one database shares them; they survive a restart): failed password logins (FOLIO_LOGIN_LIMIT,
// 15 minutes) and mail-sending requests (FOLIO_MAIL_LIMIT, one hour). Fixed windows; a hit is
// reserved by one atomic conditional upsert before the work, so the limit is exact under parallelism.
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

const windowOf = (rl: RateLimit, now = Date.now()) => now - (now % rl.windowMs);

const tooMany = (rl: RateLimit, detail: string) => {
  const retry = Math.max(1, Math.ceil((windowOf(rl) + rl.windowMs - Date.now()) / 1000));
  return new ApiError(429, 'too_many_requests', detail, undefined, undefined, { 'Retry-After': String(retry) });
};

/**
 * Take one hit of `client`'s allowance, before the work it guards: one atomic upsert that counts
 * only while the window is under the limit, so of N parallel requests exactly `limit` get through
 * whatever the interleaving, on every instance (a refused one counts nothing). Past the limit:
 * 429. Answers the refund for work that turns out not to count (a login with the right password).
 */
export async function reserveHit(ctx: AppContext, rl: RateLimit, client: string, detail: string): Promise<() => Promise<void>> {
  if (rl.limit <= 0) return async () => {};
  const start = windowOf(rl);
  const row = await ctx.db
    .insertInto('rate_hits')
    .values({ bucket: rl.bucket, client, window_start: start, hits: 1 })
    .onConflict((oc) =>
      oc
        .columns(['bucket', 'client', 'window_start'])
        .doUpdateSet((eb) => ({ hits: eb('rate_hits.hits', '+', 1) }))
        .where('rate_hits.hits', '<', rl.limit),
    )
    .returning('hits')
    .executeTakeFirst();
  if (!row) throw tooMany(rl, detail);
  // Windows that have ended are of no use any more.
  if (Number(row.hits) === 1) await ctx.db.deleteFrom('rate_hits').where('bucket', '=', rl.bucket).where('window_start', '<', start).execute();
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
