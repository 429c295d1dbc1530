// BEdita 5's login providers on POST /auth (`auth_provider`): `otp` — `otp: request` with a
// username mails a one-time token and answers an `authorization_code`; `otp: access` with that
// code and the mailed token logs in (10 minutes, single use, counted by FOLIO_LOGIN_LIMIT and the
// user's lockout; an unknown user gets the same answer as a known one) — and `uuid`: a client's
// own uuid in `Authorization: UUID <uuid>` opens the account it made (created on first use, as
// BEdita's UuidIdentifier does; only while FOLIO_SIGNUP is on, since it makes accounts).
import crypto from 'node:crypto';
import type { Request } from 'express';
import type { AppContext } from '../../context.js';
import { nowIso } from '../../db/time.js';
import { badRequest } from '../../http/errors.js';
import { escapeHtml } from '../accounts/flat-body.js';
import { clientOf, mailLimit, reserveHit } from '../accounts/rate-limits.js';
import { apply } from '../objects/kernel.js';
import { SYSTEM, visibleObjectsTable } from '../objects/read.js';
import { inTransaction, toActor } from '../objects/pipeline.js';
import { accountKey } from '../users/account-key.js';
import { countLoginError, loginFailed, openSession, reserveLoginHit } from './login.js';
import { sha256, issueTokenPair } from './tokens.js';

export const OTP_TTL_MS = 10 * 60 * 1000;
const OTP_JOB = 'otp_mail';

interface OtpMailRequest {
  codeId: number;
  username: string;
}

const str = (v: unknown) => (typeof v === 'string' && v.length <= 255 ? v : undefined);
/** A token is bound to its authorization code: neither alone opens anything. */
const tokenHash = (code: string, token: string) => sha256(`${code}:${token}`);

/** Define the background half of `otp: request` (finding the account, its token and its mail). */
export function defineOtpMail(ctx: AppContext): void {
  ctx.mailer.compose<OtpMailRequest>(OTP_JOB, {
    describe: () => 'one-time login code mail',
    async run({ codeId, username }) {
      const user = await ctx.db
        .selectFrom('users')
        .innerJoin(visibleObjectsTable(ctx, SYSTEM, ctx.db, { trashed: 'any' }), 'objects.id', 'users.id')
        .select(['users.id', 'users.email', 'users.username', 'users.name', 'users.blocked', 'objects.status', 'objects.deleted'])
        .where('users.username_key', '=', accountKey(username))
        .executeTakeFirst();
      // Accounts that could not log in get nothing; the code stays unusable.
      if (!user || !user.email || Boolean(user.blocked) || Boolean(user.deleted) || user.status !== 'on') return;
      await inTransaction(ctx, undefined, async (trx) => {
        const row = await trx.selectFrom('otp_codes').select(['id', 'code_hash']).where('id', '=', codeId).where('user_id', 'is', null).executeTakeFirst();
        if (!row) return;
        const token = String(crypto.randomInt(0, 1_000_000)).padStart(6, '0');
        // The code's hash keys the token's: the job knows only the hash, so it stores hash(hash:token).
        await trx.updateTable('otp_codes').set({ user_id: user.id, token_hash: tokenHash(row.code_hash, token) }).where('id', '=', row.id).execute();
        const name = user.name ?? user.username;
        await ctx.mailer.send(
          {
            to: user.email!,
            subject: 'Your login code',
            text: `Hello ${name},\n\nYour one-time login code is:\n\n${token}\n\nIt works once, within 10 minutes. If you did not ask for it, ignore this message.\n`,
            html:
              `<!doctype html><html><body style="font-family: sans-serif"><p>Hello ${escapeHtml(name)},</p>` +
              `<p>Your one-time login code is:</p><p style="font-size: 1.5em"><strong>${token}</strong></p>` +
              `<p>It works once, within 10 minutes. If you did not ask for it, ignore this message.</p></body></html>`,
          },
          trx,
        );
      });
    },
  });
}

/** `otp: request`: the same answer, in the same time, whether the username exists or not. */
async function requestOtp(ctx: AppContext, req: Request, body: Record<string, unknown>) {
  const username = str(body.username);
  if (!username) throw badRequest('"username" is required to request a one-time code', 'missing_credentials');
  await reserveHit(ctx, mailLimit(ctx), clientOf(req), 'Too many one-time code requests from this address; try again later');
  const code = crypto.randomUUID();
  const now = Date.now();
  await inTransaction(ctx, undefined, async (trx) => {
    await trx.deleteFrom('otp_codes').where('expires', '<', nowIso(new Date(now))).execute();
    const row = await trx
      .insertInto('otp_codes')
      .values({ code_hash: sha256(code), username_key: accountKey(username), user_id: null, token_hash: null, expires: nowIso(new Date(now + OTP_TTL_MS)), used: null, created: nowIso(new Date(now)) })
      .returning('id')
      .executeTakeFirstOrThrow();
    await ctx.jobs.enqueue<OtpMailRequest>(OTP_JOB, { codeId: Number(row.id), username }, { trx });
  });
  return code;
}

/** `otp: access`: the code and its token, once, before they expire; then the login rules of a password. */
async function accessOtp(ctx: AppContext, req: Request, issuer: string, body: Record<string, unknown>) {
  const code = str(body.authorization_code);
  const token = str(body.token);
  if (!code || !token) throw badRequest('"authorization_code" and "token" are required', 'missing_credentials');
  const username = str(body.username);
  const refund = await reserveLoginHit(ctx, clientOf(req));
  const codeHash = sha256(code);
  let q = ctx.db
    .updateTable('otp_codes')
    .set({ used: nowIso() })
    .where('code_hash', '=', codeHash)
    .where('token_hash', '=', tokenHash(codeHash, token))
    .where('used', 'is', null)
    .where('expires', '>', nowIso());
  if (username !== undefined) q = q.where('username_key', '=', accountKey(username));
  const used = await q.returning('user_id').executeTakeFirst();
  if (!used?.user_id) {
    // A wrong token counts towards the lockout of the account the code was for.
    const pending = await ctx.db.selectFrom('otp_codes').select('user_id').where('code_hash', '=', codeHash).where('used', 'is', null).executeTakeFirst();
    if (pending?.user_id) await countLoginError(ctx, pending.user_id);
    throw loginFailed();
  }
  await refund();
  return logIn(ctx, issuer, used.user_id);
}

export async function otpLogin(ctx: AppContext, req: Request, issuer: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  if (body.otp === 'request') return { authorization_code: await requestOtp(ctx, req, body) };
  if (body.otp === 'access') return accessOtp(ctx, req, issuer, body);
  throw badRequest('"otp" must be "request" or "access"', 'invalid_data');
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const UUID_PROVIDER = 'uuid';

/** `auth_provider: uuid`: `Authorization: UUID <uuid>` logs into the account of that uuid, made on first use. */
export async function uuidLogin(ctx: AppContext, req: Request, issuer: string) {
  const m = /^UUID\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  if (!ctx.config.signup || !m || !UUID.test(m[1])) throw loginFailed();
  const providerUsername = m[1].toLowerCase();
  const known = () =>
    ctx.db.selectFrom('external_auth').select('user_id').where('auth_provider', '=', UUID_PROVIDER).where('provider_username', '=', providerUsername).executeTakeFirst();
  let userId = (await known())?.user_id;
  if (userId === undefined) {
    // Making an account counts toward FOLIO_MAIL_LIMIT for the client's address, as a signup does.
    const refund = await reserveHit(ctx, mailLimit(ctx), clientOf(req), 'Too many accounts made from this address; try again later');
    try {
      userId = await inTransaction(ctx, undefined, async (trx) => {
        // As BEdita names it: `<provider>-<uuid>`; no password opens it.
        const changes = { attributes: { username: `${UUID_PROVIDER}-${providerUsername}`, status: 'on' }, own: { passwordHash: 'none$' } };
        const { row } = await apply(ctx, { action: 'create', type: 'users', actor: toActor(null), changes }, trx);
        await trx.insertInto('external_auth').values({ user_id: row.id, auth_provider: UUID_PROVIDER, provider_username: providerUsername, created: nowIso() }).execute();
        return row.id;
      });
    } catch (err) {
      // Two first logins with one uuid at once: the other one made the account (and counted it).
      await refund();
      userId = (await known())?.user_id;
      if (userId === undefined) throw err;
    }
  }
  return logIn(ctx, issuer, userId);
}

/** Tokens for a user whose provider vouched for it, by the rules of a password login (blocked, inactive, locked out: 401). */
async function logIn(ctx: AppContext, issuer: string, userId: number) {
  const user = await ctx.db
    .selectFrom('users')
    .innerJoin(visibleObjectsTable(ctx, SYSTEM, ctx.db, { trashed: 'any' }), 'objects.id', 'users.id')
    .select(['users.blocked', 'objects.status', 'objects.deleted'])
    .where('users.id', '=', userId)
    .executeTakeFirst();
  if (!user || Boolean(user.blocked) || Boolean(user.deleted) || user.status !== 'on') throw loginFailed();
  await openSession(ctx, userId);
  return issueTokenPair(ctx, issuer, { userId });
}
