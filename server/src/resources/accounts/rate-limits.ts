// Per-client rate limits of the account endpoints, counted in the database (every instance on
// one database shares them; they survive a restart): failed password logins (FOLIO_LOGIN_LIMIT,
// 15 minutes) and mail-sending requests (FOLIO_MAIL_LIMIT, one hour). Fixed windows; a count is
// one atomic upsert, so parallel requests each count.
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

/** Hits of `client` in the current window. */
async function hitsNow(ctx: AppContext, rl: RateLimit, client: string): Promise<number> {
  const row = await ctx.db
    .selectFrom('rate_hits')
    .select('hits')
    .where('bucket', '=', rl.bucket)
    .where('client', '=', client)
    .where('window_start', '=', windowOf(rl))
    .executeTakeFirst();
  return Number(row?.hits ?? 0);
}

/** Count one hit of `client` (atomically) and answer the window's count with it. */
export async function countHit(ctx: AppContext, rl: RateLimit, client: string): Promise<number> {
  const start = windowOf(rl);
  const row = await ctx.db
    .insertInto('rate_hits')
    .values({ bucket: rl.bucket, client, window_start: start, hits: 1 })
    .onConflict((oc) => oc.columns(['bucket', 'client', 'window_start']).doUpdateSet((eb) => ({ hits: eb('rate_hits.hits', '+', 1) })))
    .returning('hits')
    .executeTakeFirstOrThrow();
  // Windows that have ended are of no use any more.
  await ctx.db.deleteFrom('rate_hits').where('bucket', '=', rl.bucket).where('window_start', '<', start).execute();
  return Number(row.hits);
}

/** 429 when `client` has used up the limit in this window (nothing is counted here). */
export async function assertUnderLimit(ctx: AppContext, rl: RateLimit, client: string, detail: string): Promise<void> {
  if (rl.limit > 0 && (await hitsNow(ctx, rl, client)) >= rl.limit) throw tooMany(rl, detail);
}

/** Middleware: every request counts; past the limit 429 `too_many_requests` (mail-sending endpoints). */
export function limitRequests(ctx: AppContext, rl: RateLimit, detail: string): RequestHandler {
  return async (req, _res, next) => {
    if (rl.limit > 0 && (await countHit(ctx, rl, clientOf(req))) > rl.limit) return next(tooMany(rl, detail));
    next();
  };
}
