// Credential change by mail: POST /auth/change sends `{change_url}?uuid=…` to the user whose email
// is `contact` (202 whether or not it exists, in the same time: the lookup is queued, so accounts
// cannot be discovered); PATCH /auth/change sets the new password with that single-use uuid,
// revokes the refresh tokens and may log in.
import type { AppContext } from '../../context.js';
import { nowIso } from '../../db/time.js';
import { ApiError } from '../../http/errors.js';
import { sendResource } from '../../http/jsonapi.js';
import { baseUrl } from '../../http/links.js';
import type { RouteDef } from '../../http/router.js';
import { linkMail } from '../../mail/link-mail.js';
import type { Mailer } from '../../mail/mailer.js';
import { flatBody, linkWithParams, requiredString, urlField } from '../accounts/flat-body.js';
import { limitRequests, mailLimit } from '../accounts/rate-limits.js';
import { validateAttributes } from '../accounts/schemas.js';
import { consumeAccountToken, invalidUuid, issueAccountToken } from '../accounts/tokens.js';
import { apply, SYSTEM } from '../objects/kernel.js';
import { inTransaction, toActor } from '../objects/pipeline.js';
import { findUserByEmail, getUser, serializeUser } from '../users/service.js';
import { hashPassword } from './passwords.js';
import { issueTokenPair } from './tokens.js';

/** The background half of POST /auth/change: finding the account, its token and its mail. */
const CHANGE_JOB = 'credential_change';

interface ChangeRequest {
  contact: string;
  changeUrl: string;
}

export function credentialChangeRoutes(ctx: AppContext, mailer: Mailer): RouteDef[] {
  // The request only queues this job, the same for any contact, so its answer takes the same
  // time whether the account exists or not; the lookup, the token and the mail happen here.
  mailer.compose<ChangeRequest>(CHANGE_JOB, {
    describe: () => 'credential change mail',
    async run({ contact, changeUrl }) {
      const user = await findUserByEmail(ctx, ctx.db, contact);
      // Blocked or trashed accounts get nothing: a new password would not let them in.
      if (!user || user.blocked || !user.email) return;
      // The token and its mail commit together (a mail is never sent for a token that is not there).
      await inTransaction(ctx, undefined, async (trx) => {
        const uuid = await issueAccountToken(trx, user.id, 'change');
        await mailer.send(
          linkMail({
            to: user.email!,
            subject: 'Change your password',
            name: user.name ?? user.username,
            intro: 'Someone asked to change the password of your account. To choose a new one, open this link within 24 hours:',
            link: linkWithParams(changeUrl, { uuid }),
            outro: 'If you did not ask for this, ignore this message: your password stays as it is.',
          }),
          trx,
        );
      });
    },
  });
  return [
    {
      method: 'post',
      path: '/auth/change',
      writes: ['account_tokens', 'rate_hits', 'jobs'],
      guard: 'anonymous',
      before: [limitRequests(ctx, mailLimit(ctx), 'Too many password change requests from this address; try again later')],
      handler: async (req, res) => {
        const body = flatBody(req, ['contact', 'change_url']);
        const contact = requiredString(body, 'contact');
        const changeUrl = urlField(body, 'change_url', true)!;
        await ctx.jobs.enqueue<ChangeRequest>(CHANGE_JOB, { contact, changeUrl });
        res.status(202).end();
      },
    },
    {
      method: 'patch',
      path: '/auth/change',
      writes: ['users', 'account_tokens', 'refresh_tokens', 'rate_hits'],
      guard: 'anonymous',
      handler: async (req, res) => {
        const body = flatBody(req, ['uuid', 'password', 'login']);
        if (body.uuid === undefined) throw invalidUuid();
        if (body.login !== undefined && typeof body.login !== 'boolean') throw new ApiError(400, 'invalid_data', '"login" must be true or false');
        const { password } = validateAttributes(ctx, 'users', { password: requiredString(body, 'password') }, false);
        const passwordHash = await hashPassword(password as string);
        const userId = await inTransaction(ctx, undefined, async (trx) => {
          const id = await consumeAccountToken(trx, body.uuid, 'change');
          const user = await getUser(ctx, SYSTEM, trx, id).catch(() => {
            throw invalidUuid();
          });
          if (body.login === true && (Boolean(user.blocked) || user.status !== 'on')) {
            throw new ApiError(401, 'login_failed', 'This account cannot log in (blocked or not activated)');
          }
          await apply(ctx, { action: 'update', target: { key: id, type: 'users' }, actor: toActor(id), changes: { own: { passwordHash } } }, trx);
          if (body.login === true) await trx.updateTable('users').set({ last_login: nowIso() }).where('id', '=', id).execute();
          return id;
        });
        const meta = body.login === true ? await issueTokenPair(ctx, baseUrl(req), { userId }) : undefined;
        sendResource(req, res, serializeUser(ctx, req, await getUser(ctx, SYSTEM, ctx.db, userId)), { meta: meta && { jwt: meta.jwt, renew: meta.renew } });
      },
    },
  ];
}
