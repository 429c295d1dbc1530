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
import { inTransaction } from '../objects/pipeline.js';
import { createObject, updateObject } from '../objects/write.js';
import { getUser, serializeUser } from '../users/service.js';

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
        const a = validateAttributes(ctx, 'users', { ...attributes, email }, true);
        const passwordHash = await hashPassword(a.password as string);
        const { password: _p, ...profile } = a;
        const { id, uuid } = await inTransaction(ctx, undefined, async (trx) => {
          const input = { attributes: { ...profile, email, status: 'draft' }, own: { passwordHash, verified: null } };
          const userId = await createObject(ctx, 'users', input, null, trx);
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
        await inTransaction(ctx, undefined, async (trx) => {
          const userId = await consumeAccountToken(trx, body.uuid, 'activation');
          await updateObject(ctx, userId, { attributes: { status: 'on' }, own: { verified: nowIso() } }, userId, { typeName: 'users' }, trx);
        });
        res.status(202).end();
      },
    },
  ];
}
