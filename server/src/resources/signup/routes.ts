// /signup and /signup/activation (anonymous): a new user starts as `draft`, unverified and
// without a role; the activation link in its mail turns it `on` and verified.
import type { Request } from 'express';
import type { AppContext } from '../../context.js';
import { nowIso } from '../../db/time.js';
import { badRequest } from '../../http/errors.js';
import { resourceUrl, sendResource } from '../../http/jsonapi.js';
import type { RouteDef } from '../../http/router.js';
import { linkMail } from '../../mail/link-mail.js';
import type { Mailer } from '../../mail/mailer.js';
import { flatBody, linkWithParams, requiredString, urlField } from '../accounts/flat-body.js';
import { validateAttributes } from '../accounts/schemas.js';
import { consumeAccountToken, issueAccountToken } from '../accounts/tokens.js';
import { hashPassword } from '../auth/passwords.js';
import { applyUserChanges, assertUniqueAccount, getUser, insertUser, serializeUser } from '../users/service.js';

const SIGNUP_FIELDS = ['username', 'password', 'email', 'activation_url', 'redirect_url', 'name', 'surname', 'title', 'description', 'lang'];

/** The spec shows the login counters of a signup answer under meta. */
function signupResource(req: Request, user: Awaited<ReturnType<typeof getUser>>) {
  const resource = serializeUser(req, user);
  for (const key of ['blocked', 'last_login', 'last_login_err', 'num_login_err']) {
    resource.meta![key] = resource.attributes![key];
    delete resource.attributes![key];
  }
  return resource;
}

export function signupRoutes(ctx: AppContext, mailer: Mailer): RouteDef[] {
  return [
    {
      method: 'post',
      path: '/signup',
      guard: 'anonymous',
      handler: async (req, res) => {
        const body = flatBody(req, SIGNUP_FIELDS);
        const email = requiredString(body, 'email');
        const activationUrl = urlField(body, 'activation_url', true)!;
        const redirectUrl = urlField(body, 'redirect_url', false);
        const { activation_url: _a, redirect_url: _r, ...attributes } = body;
        const a = validateAttributes('users', { ...attributes, email }, true);
        const passwordHash = await hashPassword(a.password as string);
        const { id, uuid } = await ctx.db.transaction().execute(async (trx) => {
          await assertUniqueAccount(trx, { username: a.username as string, email });
          const userId = await insertUser(
            trx,
            {
              username: a.username as string,
              passwordHash,
              email,
              name: a.name as string | undefined,
              surname: a.surname as string | undefined,
              title: a.title as string | undefined,
              description: a.description as string | undefined,
              lang: a.lang as string | undefined,
              status: 'draft',
              verified: null,
            },
            null,
          );
          return { id: userId, uuid: await issueAccountToken(trx, userId, 'activation') };
        });
        const user = await getUser(ctx.db, id);
        mailer.send(
          linkMail({
            to: email,
            subject: 'Activate your account',
            name: user.name ?? user.username,
            intro: 'Thank you for signing up. To activate your account, open this link within 24 hours:',
            link: linkWithParams(activationUrl, { uuid, redirect_url: redirectUrl }),
            outro: 'If you did not sign up, ignore this message: the account stays inactive.',
          }),
        );
        sendResource(req, res, signupResource(req, user), { status: 202, headers: { Location: resourceUrl(req, `/users/${id}`) } });
      },
    },
    {
      method: 'post',
      path: '/signup/activation',
      guard: 'anonymous',
      handler: async (req, res) => {
        const body = flatBody(req, ['uuid']);
        if (body.uuid === undefined) throw badRequest('"uuid" is required', 'invalid_uuid');
        await ctx.db.transaction().execute(async (trx) => {
          const userId = await consumeAccountToken(trx, body.uuid, 'activation');
          await applyUserChanges(trx, userId, { status: 'on', verified: nowIso() }, userId);
        });
        res.status(202).end();
      },
    },
  ];
}
