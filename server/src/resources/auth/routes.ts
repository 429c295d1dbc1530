// /auth: login (flat JSON or form), renewal with the refresh token, whoami, revocation.
import type { Request } from 'express';
import type { AppContext } from '../../context.js';
import { ApiError, badRequest, notFound, unauthorized } from '../../http/errors.js';
import { sendMeta, sendNoContent, sendResource } from '../../http/jsonapi.js';
import { baseUrl } from '../../http/links.js';
import { parseListQuery } from '../../http/query.js';
import type { RouteDef } from '../../http/router.js';
import { findUserById, serializeUser } from '../users/service.js';
import { rolesOfUser, serializeRole } from '../roles/service.js';
import { verifyClient } from '../applications/service.js';
import { clientOf } from '../accounts/rate-limits.js';
import { rightsByType } from '../permissions/rules.js';
import { loginWithPassword, renewTokens } from './login.js';
import { issueTokenPair, revokeRefreshToken } from './tokens.js';
import { profileRoutes } from './profile.js';
import { defineOtpMail, otpLogin, uuidLogin } from './providers.js';

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

function refreshFromHeader(req: Request): string | null {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  return m ? m[1] : null;
}

async function postAuth(req: Request, ctx: AppContext): Promise<Record<string, unknown>> {
  const body = (req.body ?? {}) as Record<string, unknown>;
  if (typeof body !== 'object' || Array.isArray(body)) throw badRequest('The body must be an object');
  const issuer = baseUrl(req);
  const grant = str(body.grant_type);
  const username = str(body.username);
  const password = str(body.password);
  if (grant && !['password', 'refresh_token', 'client_credentials'].includes(grant)) {
    throw badRequest(`Unsupported grant_type "${grant}"`, 'unsupported_grant_type');
  }
  // BEdita 5: without a grant type, `auth_provider` names the login provider.
  const provider = grant ? undefined : body.auth_provider;
  if (provider === 'otp') return otpLogin(ctx, req, issuer, body);
  if (provider === 'uuid') return uuidLogin(ctx, req, issuer);
  if (provider !== undefined) throw new ApiError(401, 'login_failed', `Unknown auth_provider "${String(provider)}"`);
  if (username !== undefined || password !== undefined) {
    if (!username || !password) throw badRequest('Both username and password are required', 'missing_credentials');
    return loginWithPassword(ctx, issuer, username, password, clientOf(req));
  }
  if (grant === 'client_credentials') {
    const clientId = str(body.client_id);
    // null or absent (as BEdita's clients send it): a public application's login (one made
    // without a secret); an application with a secret still needs it.
    const secret = body.client_secret === null || body.client_secret === undefined ? null : str(body.client_secret);
    if (!clientId || secret === undefined || secret === '') throw badRequest('client_id is required, with client_secret for an application that has one', 'missing_credentials');
    const appId = await verifyClient(ctx.db, clientId, secret);
    if (appId === null) throw new ApiError(401, 'login_failed', 'Unknown client or wrong secret');
    return issueTokenPair(ctx, issuer, { applicationId: appId });
  }
  const refresh = refreshFromHeader(req) ?? str(body.refresh_token) ?? null;
  if (!refresh) throw badRequest('Send username and password to log in, or a refresh token as Bearer to renew', 'missing_credentials');
  return renewTokens(ctx, issuer, refresh);
}

async function whoami(req: Request, res: import('express').Response, ctx: AppContext) {
  const user = req.auth.userId !== null ? await findUserById(ctx, req.auth, ctx.db, req.auth.userId) : undefined;
  if (!user) throw unauthorized();
  // The roles are always in `included`, as BEdita answers (its Manager reads the user's rights
  // from them); `include=roles` is accepted and changes nothing.
  parseListQuery(req, { fields: {}, includes: ['roles'] });
  const resource = serializeUser(ctx, req, user);
  // What the caller may do with objects, per type (the admin UI hides what would be refused).
  const meta = { admin: req.auth.isAdmin, rights: rightsByType(ctx, req.auth) };
  const roles = (await rolesOfUser(ctx.db, user.id)).map((r) => serializeRole(req, r));
  resource.relationships!.roles.data = roles.map((r) => ({ id: r.id, type: r.type }));
  sendResource(req, res, resource, { included: roles, meta });
}

export function authRoutes(ctx: AppContext): RouteDef[] {
  defineOtpMail(ctx);
  return [
    {
      method: 'post',
      path: '/auth',
      writes: ['objects', 'users', 'refresh_tokens', 'rate_hits', 'otp_codes', 'external_auth', 'jobs'],
      guard: 'anonymous',
      body: 'form',
      handler: async (req, res) => {
        sendMeta(req, res, await postAuth(req, ctx));
      },
    },
    { method: 'get', path: '/auth', guard: 'user', handler: (req, res) => whoami(req, res, ctx) },
    { method: 'get', path: '/auth/user', guard: 'user', handler: (req, res) => whoami(req, res, ctx) },
    ...profileRoutes(ctx, (req, res) => whoami(req, res, ctx)),
    {
      method: 'delete',
      path: '/auth/:token',
      writes: ['refresh_tokens'],
      guard: 'anonymous',
      handler: async (req, res) => {
        const token = String(req.params.token);
        if (!(await revokeRefreshToken(ctx, token))) throw notFound('No such refresh token');
        sendNoContent(res);
      },
    },
  ];
}
