// /signup and /signup/activation (anonymous, when FOLIO_SIGNUP=on): a new user starts as `draft`,
// unverified and without a role; the activation link in its mail turns it `on` and verified and
// gives it the roles of FOLIO_SIGNUP_ROLES. Both count towards FOLIO_MAIL_LIMIT.
import type { Request, RequestHandler } from 'express';
import type { Transaction } from 'kysely';
import type { Database } from '../../db/tables.js';
import type { AppContext } from '../../context.js';
import { nowIso } from '../../db/time.js';
import { badRequest, forbidden } from '../../http/errors.js';
import { resourceUrl, sendResource } from '../../http/jsonapi.js';
import type { RouteDef } from '../../http/router.js';
import { linkMail } from '../../mail/link-mail.js';
import type { Mailer } from '../../mail/mailer.js';
import { flatBody, linkWithParams, requiredString, urlField } from '../accounts/flat-body.js';
import { limitRequests, mailLimit } from '../accounts/rate-limits.js';
import { validateAttributes } from '../accounts/schemas.js';
import { consumeAccountToken, issueAccountToken } from '../accounts/tokens.js';
import { hashPassword } from '../auth/passwords.js';
import { inTransaction, toActor } from '../objects/pipeline.js';
import { apply, SYSTEM } from '../objects/kernel.js';
import { changeUserRoles } from '../accounts/memberships.js';
import { getUser, serializeUser } from '../users/service.js';

const SIGNUP_FIELDS = ['username', 'password', 'email', 'activation_url', 'redirect_url', 'name', 'surname', 'title', 'description', 'lang'];

/** The spec shows the login counters of a signup answer under meta. */
function signupResource(ctx: AppContext, req: Request, user: Awaited<ReturnType<typeof getUser>>) {
  const resource = serializeUser(ctx, req, user);
  for (const key of ['blocked', 'last_login', 'last_login_err', 'num_login_err']) {
    resource.meta![key] = resource.attributes![key];
    delete resource.attributes![key];
  }
  return resource;
}

/** FOLIO_SIGNUP=off (the default): 403 `signup_disabled`, before anything else is looked at. */
function signupOpen(ctx: AppContext): RequestHandler {
  return (_req, _res, next) => next(ctx.config.signup ? undefined : forbidden('Signing up is disabled on this server', 'signup_disabled'));
}

/**
 * The roles FOLIO_SIGNUP_ROLES names (those that exist), given to a user on activation: an update
 * of the user by the server itself (recorded, versioned, like any change of its roles).
 */
async function giveSignupRoles(ctx: AppContext, trx: Transaction<Database>, userId: number): Promise<void> {
  if (!ctx.config.signupRoles.length) return;
  const roles = await trx.selectFrom('roles').select('id').where('name', 'in', ctx.config.signupRoles).execute();
  if (!roles.length) return;
  await changeUserRoles(ctx, userId, { mode: 'add', ids: roles.map((r) => Number(r.id)) }, SYSTEM, { trx });
}

export function signupRoutes(ctx: AppContext, mailer: Mailer): RouteDef[] {
  const before = [signupOpen(ctx), limitRequests(ctx, mailLimit(ctx), 'Too many signup requests from this address; try again later')];
  return [
    {
      method: 'post',
      path: '/signup',
      writes: ['objects', 'users', 'account_tokens', 'rate_hits', 'jobs'],
      guard: 'anonymous',
      before,
      handler: async (req, res) => {
        const body = flatBody(req, SIGNUP_FIELDS);
        const email = requiredString(body, 'email');
        const activationUrl = urlField(body, 'activation_url', true)!;
        const redirectUrl = urlField(body, 'redirect_url', false);
        const { activation_url: _a, redirect_url: _r, ...attributes } = body;
        const a = validateAttributes(ctx, 'users', { ...attributes, email }, true);
        const passwordHash = await hashPassword(a.password as string);
        const { password: _p, ...profile } = a;
        // The activation mail is queued in the signup's transaction: no account, no mail.
        const id = await inTransaction(ctx, undefined, async (trx) => {
          const input = { attributes: { ...profile, email, status: 'draft' }, own: { passwordHash, verified: null } };
          const { row: { id: userId } } = await apply(ctx, { action: 'create', type: 'users', actor: toActor(null), changes: input }, trx);
          const uuid = await issueAccountToken(trx, userId, 'activation');
          const created = await getUser(ctx, SYSTEM, trx, userId);
          await mailer.send(
            linkMail({
              to: email,
              subject: 'Activate your account',
              name: created.name ?? created.username,
              intro: 'Thank you for signing up. To activate your account, open this link within 24 hours:',
              link: linkWithParams(activationUrl, { uuid, redirect_url: redirectUrl }),
              outro: 'If you did not sign up, ignore this message: the account stays inactive.',
            }),
            trx,
          );
          return userId;
        });
        const user = await getUser(ctx, SYSTEM, ctx.db, id);
        sendResource(req, res, signupResource(ctx, req, user), { status: 202, headers: { Location: resourceUrl(req, `/users/${id}`) } });
      },
    },
    {
      method: 'post',
      path: '/signup/activation',
      writes: ['objects', 'users', 'roles_users', 'account_tokens', 'rate_hits'],
      guard: 'anonymous',
      before,
      handler: async (req, res) => {
        const body = flatBody(req, ['uuid']);
        if (body.uuid === undefined) throw badRequest('"uuid" is required', 'invalid_uuid');
        await inTransaction(ctx, undefined, async (trx) => {
          const userId = await consumeAccountToken(trx, body.uuid, 'activation');
          await apply(ctx, { action: 'update', target: { key: userId, type: 'users' }, actor: toActor(userId), changes: { attributes: { status: 'on' }, own: { verified: nowIso() } } }, trx);
          await giveSignupRoles(ctx, trx, userId);
        });
        res.status(202).end();
      },
    },
  ];
}
