// Login, renewal and lockout rules of POST /auth (kept apart from the HTTP layer so the
// credential-change and application flows can reuse them).
import type { AppContext } from '../../context.js';
import { nowIso } from '../../db/time.js';
import { ApiError } from '../../http/errors.js';
import { loadAuthInfo } from '../accounts/auth-info.js';
import type { ExpressionBuilder } from 'kysely';
import type { Database } from '../../db/tables.js';
import { loginLimit, reserveHit } from '../accounts/rate-limits.js';
import { accountKey } from '../users/account-key.js';
import { SYSTEM, visibleObjectsTable } from '../objects/read.js';
import { verifyPassword } from './passwords.js';
import { consumeRefreshToken, issueTokenPair } from './tokens.js';

export const MAX_LOGIN_ERRORS = 5;
export const LOCKOUT_MS = 15 * 60 * 1000;

/** Failures since then lock an account out. */
const lockoutStart = () => nowIso(new Date(Date.now() - LOCKOUT_MS));

/** Every failed login answers exactly this, whatever the reason (unknown, locked, blocked, inactive, wrong). */
export const loginFailed = () => new ApiError(401, 'login_failed', 'Wrong username or password');

/**
 * A login with username and password from `client` (its IP). The username is compared as an
 * account key (NFKC, case folded). Each wrong password counts, exactly, under concurrency too:
 * towards the user's lockout (one atomic update) and towards the client's FOLIO_LOGIN_LIMIT,
 * whose hit is reserved before the password is checked and refunded when it was the right one.
 */
export async function loginWithPassword(ctx: AppContext, issuer: string, username: string, password: string, client: string) {
  return issueTokenPair(ctx, issuer, { userId: await authenticatePassword(ctx, username, password, client) });
}

/**
 * The id of the user these credentials open (the rules of loginWithPassword: login limit,
 * lockout, blocked or inactive accounts), recorded as a login; 401 `login_failed` otherwise.
 * POST /auth and POST /auth/optout ask it.
 */
export async function authenticatePassword(ctx: AppContext, username: string, password: string, client: string): Promise<number> {
  const refund = await reserveLoginHit(ctx, client);
  const user = await checkPassword(ctx, username, password).catch(async (err) => {
    await refund();
    throw err;
  });
  // A wrong password or an unknown user: the reserved hit stays counted.
  if (!user) throw loginFailed();
  await refund();
  // The right password: still refused, with the same answer, while locked out, blocked or inactive.
  if (Boolean(user.blocked) || user.status !== 'on') throw loginFailed();
  await openSession(ctx, user.id);
  return user.id;
}

/** One hit of the client's FOLIO_LOGIN_LIMIT, taken before credentials are checked; answers its refund. */
export const reserveLoginHit = (ctx: AppContext, client: string) => reserveHit(ctx, loginLimit(ctx), client, 'Too many failed logins from this address; try again later');

/** A login that passed its check: refused (401) while the user is locked out, else the counters reset. */
export async function openSession(ctx: AppContext, userId: number): Promise<void> {
  const lockedSince = lockoutStart();
  const locked = (eb: ExpressionBuilder<Database, 'users'>) =>
    eb.and([eb('num_login_err', '>=', MAX_LOGIN_ERRORS), eb('last_login_err', '>', lockedSince)]);
  const opened = await ctx.db
    .updateTable('users')
    .set({ num_login_err: 0, last_login: nowIso() })
    .where('id', '=', userId)
    .where((eb) => eb.not(locked(eb)))
    .executeTakeFirst();
  if (Number(opened.numUpdatedRows) === 0) throw loginFailed();
}

/** The user whose password this is, or null (unknown, trashed, wrong password: counted towards the lockout). */
async function checkPassword(ctx: AppContext, username: string, password: string) {
  // By account key; an exact username first (accounts that differed only in case before keys
  // existed keep logging in by their own name: see migration 0080).
  const candidates = await ctx.db
    .selectFrom('users')
    .innerJoin(visibleObjectsTable(ctx, SYSTEM, ctx.db, { trashed: 'any' }), 'objects.id', 'users.id')
    .select(['users.id', 'users.username', 'users.password_hash', 'users.blocked', 'objects.status', 'objects.deleted'])
    .where((eb) => eb.or([eb('users.username_key', '=', accountKey(username)), eb('users.username', '=', username)]))
    .execute();
  const user = candidates.find((c) => c.username === username) ?? candidates[0];
  if (!user || Boolean(user.deleted)) {
    await verifyPassword(password, null);
    return null;
  }
  if (await verifyPassword(password, user.password_hash)) return user;
  await countLoginError(ctx, user.id);
  return null;
}

/** A failed login of this user, towards its lockout (one atomic update, exact under concurrency). */
export async function countLoginError(ctx: AppContext, userId: number): Promise<void> {
  const lockedSince = lockoutStart();
  // A streak that ended in a lockout which is over starts again at 1.
  await ctx.db
    .updateTable('users')
    .set((eb) => ({
      num_login_err: eb
        .case()
        .when(eb.and([eb('num_login_err', '>=', MAX_LOGIN_ERRORS), eb('last_login_err', '<=', lockedSince)]))
        .then(1)
        .else(eb('num_login_err', '+', 1))
        .end(),
      last_login_err: nowIso(),
    }))
    .where('id', '=', userId)
    .execute();
}

export async function renewTokens(ctx: AppContext, issuer: string, refreshToken: string) {
  const owner = await consumeRefreshToken(ctx, refreshToken);
  if (!owner) throw new ApiError(401, 'invalid_token', 'The refresh token is not valid or was revoked');
  if (owner.user_id !== null) {
    const info = await loadAuthInfo(ctx, owner.user_id);
    if (!info) throw new ApiError(401, 'invalid_token', 'The user of this token no longer exists or is blocked');
    return issueTokenPair(ctx, issuer, { userId: owner.user_id });
  }
  if (owner.application_id !== null) return issueTokenPair(ctx, issuer, { applicationId: owner.application_id });
  throw new ApiError(401, 'invalid_token', 'The refresh token is not valid');
}
