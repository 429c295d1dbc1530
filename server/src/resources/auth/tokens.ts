// Access tokens (HS256 JWT: iss, iat, exp, id) and refresh tokens (random 256-bit, stored as
// SHA-256 hashes, rotated on every renewal, revoked by deleting the row).
import crypto from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { AppContext } from '../../context.js';
import { nowIso } from '../../db/time.js';

export const sha256 = (value: string) => crypto.createHash('sha256').update(value).digest('hex');

export function signAccessToken(ctx: AppContext, issuer: string, claims: { id?: number; app?: number; sv?: number }): string {
  return jwt.sign(claims, ctx.jwtSecret, { algorithm: 'HS256', expiresIn: ctx.config.accessTokenTtl, issuer });
}

export async function issueRefreshToken(ctx: AppContext, owner: { userId?: number; applicationId?: number }): Promise<string> {
  const token = crypto.randomBytes(32).toString('base64url');
  await ctx.db
    .insertInto('refresh_tokens')
    .values({ token_hash: sha256(token), user_id: owner.userId ?? null, application_id: owner.applicationId ?? null, created: nowIso() })
    .execute();
  return token;
}

/** Consume a refresh token: deletes it and says whose it was; null when unknown or revoked. */
export async function consumeRefreshToken(ctx: AppContext, token: string) {
  const hash = sha256(token);
  // Deleting first makes concurrent renewals with one token yield exactly one success.
  const row = await ctx.db.deleteFrom('refresh_tokens').where('token_hash', '=', hash).returning(['user_id', 'application_id']).executeTakeFirst();
  return row ?? null;
}

export async function revokeRefreshToken(ctx: AppContext, token: string): Promise<boolean> {
  const res = await ctx.db.deleteFrom('refresh_tokens').where('token_hash', '=', sha256(token)).executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}

export async function revokeUserTokens(ctx: AppContext, userId: number): Promise<void> {
  await ctx.db.deleteFrom('refresh_tokens').where('user_id', '=', userId).execute();
}

export async function issueTokenPair(ctx: AppContext, issuer: string, owner: { userId?: number; applicationId?: number }) {
  let claims: { id?: number; app?: number; sv?: number } = { app: owner.applicationId };
  if (owner.userId !== undefined) {
    // The token lives as long as the user's current session version (see http/auth.ts).
    const user = await ctx.db.selectFrom('users').select('session_version').where('id', '=', owner.userId).executeTakeFirst();
    claims = { id: owner.userId, sv: Number(user?.session_version ?? 0) };
  }
  const jwtToken = signAccessToken(ctx, issuer, claims);
  const renew = await issueRefreshToken(ctx, owner);
  return { jwt: jwtToken, renew };
}
