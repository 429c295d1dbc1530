// One's own account as BEdita 5 clients manage it: PATCH /auth/user (the profile as flat JSON;
// email and password need `old_password`) and POST /auth/optout (username and password: the
// account is anonymised and moved to the trash, its sessions end; never the last admin).
import type { AppContext } from '../../context.js';
import { nowIso } from '../../db/time.js';
import { badRequest } from '../../http/errors.js';
import { isPlainObject, sendLinks } from '../../http/jsonapi.js';
import type { RouteDef } from '../../http/router.js';
import { flatBody, requiredString } from '../accounts/flat-body.js';
import { clientOf } from '../accounts/rate-limits.js';
import { apply, SYSTEM } from '../objects/kernel.js';
import { inTransaction } from '../objects/pipeline.js';
import { loadAuthInfo } from '../accounts/auth-info.js';
import { accountChanges } from '../users/routes.js';
import { authenticatePassword, loginFailed } from './login.js';
import { parseListQuery } from '../../http/query.js';

/** What an opted-out account keeps of its name (BEdita's UsersTable::DELETED_USER_PREFIX). */
const DELETED_USER_PREFIX = '__deleted-';

/** The profile sent flat (`{name, …}`), or as a JSON API document (`{data: {attributes}}`). */
function profileAttributes(body: unknown): Record<string, unknown> {
  if (!isPlainObject(body)) throw badRequest('The body must be a JSON object', 'invalid_body');
  if (!('data' in body)) return body;
  const data = body.data;
  if (!isPlainObject(data) || (data.attributes !== undefined && !isPlainObject(data.attributes))) throw badRequest('"data.attributes" must be an object', 'invalid_body');
  return (data.attributes as Record<string, unknown> | undefined) ?? {};
}

/** Anonymise and trash the account in one unit of work; 403 `last_admin` leaves it as it was. */
async function optOut(ctx: AppContext, userId: number): Promise<void> {
  const gone = `${DELETED_USER_PREFIX}${userId}`;
  // The user as its requests act (roles, rights), read before the unit of work holds the database.
  const actor = await loadAuthInfo(ctx, userId);
  if (!actor) throw loginFailed();
  await inTransaction(ctx, undefined, async (trx) => {
    const attributes = { username: gone, uname: gone, email: null, name: null, surname: null, title: null, description: null, lang: null };
    // No password opens it any more (not an scrypt hash); the new hash ends its sessions.
    await apply(ctx, { action: 'update', target: { key: userId, type: 'users' }, actor, changes: { attributes, own: { passwordHash: `optout$${nowIso()}` } } }, trx);
    await trx.deleteFrom('external_auth').where('user_id', '=', userId).execute();
    await trx.deleteFrom('otp_codes').where('user_id', '=', userId).execute();
    // Users may not trash accounts, their own included: the server does, having checked the password.
    await apply(ctx, { action: 'trash', target: { key: userId, type: 'users' }, actor: SYSTEM }, trx);
  });
}

export function profileRoutes(ctx: AppContext, sendUser: (req: import('express').Request, res: import('express').Response) => Promise<void>): RouteDef[] {
  return [
    {
      method: 'patch',
      path: '/auth/user',
      writes: ['objects', 'users', 'refresh_tokens'],
      guard: 'user',
      handler: async (req, res) => {
        const id = req.auth.userId!;
        // The answer's parameters are checked before the write: a refused request changes nothing.
        parseListQuery(req, { fields: {}, includes: ['roles'] });
        const changes = await accountChanges(ctx, { auth: req.auth, id, attributes: profileAttributes(req.body), meta: {}, profileOnly: true });
        await apply(ctx, { action: 'update', target: { key: id, type: 'users' }, actor: req.auth, changes });
        await sendUser(req, res);
      },
    },
    {
      method: 'post',
      path: '/auth/optout',
      writes: ['objects', 'users', 'refresh_tokens', 'roles_users'],
      guard: 'anonymous',
      body: 'form',
      handler: async (req, res) => {
        const body = flatBody(req, ['username', 'password', 'grant_type']);
        const userId = await authenticatePassword(ctx, requiredString(body, 'username'), requiredString(body, 'password'), clientOf(req));
        await optOut(ctx, userId);
        sendLinks(req, res);
      },
    },
  ];
}
