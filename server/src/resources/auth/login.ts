// Login, renewal and lockout rules of POST /auth (kept apart from the HTTP layer so the
// credential-change and application flows can reuse them).
import type { AppContext } from '../../context.js';
import { nowIso } from '../../db/time.js';
import { ApiError } from '../../http/errors.js';
import { loadAuthInfo } from '../../http/auth.js';
import { verifyPassword } from './passwords.js';
import { consumeRefreshToken, issueTokenPair } from './tokens.js';

export const MAX_LOGIN_ERRORS = 5;
export const LOCKOUT_MS = 15 * 60 * 1000;

const loginFailed = (detail = 'Wrong username or password') => new ApiError(401, 'login_failed', detail);

export async function loginWithPassword(ctx: AppContext, issuer: string, username: string, password: string) {
  const user = await ctx.db
    .selectFrom('users')
    .innerJoin('objects', 'objects.id', 'users.id')
    .select(['users.id', 'users.password_hash', 'users.blocked', 'users.num_login_err', 'users.last_login_err', 'objects.status', 'objects.deleted'])
    .where('users.username', '=', username)
    .executeTakeFirst();
  if (!user || Boolean(user.deleted)) {
    await verifyPassword(password, null);
    throw loginFailed();
  }
  const lastErr = user.last_login_err ? Date.parse(user.last_login_err) : 0;
  const lockActive = user.num_login_err >= MAX_LOGIN_ERRORS && Date.now() - lastErr < LOCKOUT_MS;
  const ok = await verifyPassword(password, user.password_hash);
  if (lockActive) throw loginFailed('Too many failed logins: the account is locked for 15 minutes');
  if (!ok) {
    const streak = user.num_login_err >= MAX_LOGIN_ERRORS ? 1 : user.num_login_err + 1;
    await ctx.db.updateTable('users').set({ num_login_err: streak, last_login_err: nowIso() }).where('id', '=', user.id).execute();
    throw loginFailed();
  }
  if (Boolean(user.blocked)) throw loginFailed('This account is blocked');
  if (user.status !== 'on') throw loginFailed('This account is not active (activate it from the signup email)');
  await ctx.db.updateTable('users').set({ num_login_err: 0, last_login: nowIso() }).where('id', '=', user.id).execute();
  return issueTokenPair(ctx, issuer, { userId: user.id });
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
