// Who is calling: verifies the access token (HS256 only, from `Authorization: Bearer` or the
// `access_token` query parameter) and loads the user's identity with the function createServer
// passes in; guards are declared per route.
import type { Request, RequestHandler } from 'express';
import crypto from 'node:crypto';
import jwt from 'jsonwebtoken';
import { ApiError, forbidden, unauthorized } from './errors.js';
import { ANONYMOUS, type AuthInfo } from '../identity.js';

export type Guard = 'anonymous' | 'user' | 'admin';

export interface AccessClaims {
  id?: number;
  app?: number;
  /** The user's session version when the token was issued. */
  sv?: number;
  iss?: string;
  iat?: number;
  exp?: number;
}

export function bearerToken(req: Request): string | null {
  const header = req.headers.authorization;
  if (header) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    return m ? m[1] : null;
  }
  const q = req.query.access_token;
  return typeof q === 'string' && q ? q : null;
}

/**
 * A server's cache of verified access tokens (AppContext.tokens). A client sends the same token
 * with every request, and checking its signature and parsing it again cost about 6% of a
 * signed-in request: verified tokens are kept by their full text and the secret they were
 * verified with; expiry is checked on every use. The secret is kept as a KeyObject, made once:
 * given a string, jsonwebtoken first tries (and fails) to read it as a public key on every
 * verification, which costs about a millisecond per request.
 */
export interface TokenCache {
  keys: Map<string, crypto.KeyObject>;
  verified: Map<string, { secret: string; claims: AccessClaims }>;
}

export function createTokenCache(): TokenCache {
  return { keys: new Map(), verified: new Map() };
}

function secretKey(cache: TokenCache, secret: string): crypto.KeyObject {
  let key = cache.keys.get(secret);
  if (!key) {
    key = crypto.createSecretKey(Buffer.from(secret, 'utf8'));
    cache.keys.set(secret, key);
  }
  return key;
}

const VERIFIED_MAX = 1000;

/** The 401 of an expired access token; `code` is FOLIO_EXPIRED_TOKEN_CODE (BEdita's clients renew on `be_token_expired`). */
const expired = (code: string) => new ApiError(401, code, 'The access token has expired');

export function verifyAccessToken(cache: TokenCache, token: string, secret: string, expiredCode = 'expired_token'): AccessClaims {
  const { verified } = cache;
  const hit = verified.get(token);
  if (hit && hit.secret === secret) {
    if (hit.claims.exp !== undefined && Math.floor(Date.now() / 1000) >= hit.claims.exp) {
      verified.delete(token);
      throw expired(expiredCode);
    }
    return hit.claims;
  }
  let claims: AccessClaims;
  try {
    const decoded = jwt.verify(token, secretKey(cache, secret), { algorithms: ['HS256'] });
    if (typeof decoded !== 'object' || decoded === null) throw new Error('bad claims');
    claims = Object.freeze(decoded) as AccessClaims;
  } catch (err) {
    if ((err as Error).name === 'TokenExpiredError') throw expired(expiredCode);
    throw new ApiError(401, 'invalid_token', 'The access token is not valid');
  }
  verified.set(token, { secret, claims });
  if (verified.size > VERIFIED_MAX) verified.delete(verified.keys().next().value!);
  return claims;
}

/** What authenticate() is given at wiring time (createServer): no family is looked up from here. */
export interface AuthenticateDeps {
  tokens: TokenCache;
  /** HS256 secret of access tokens. */
  secret: string;
  /**
   * FOLIO_PUBLIC_URL (without a trailing slash): tokens must name it as their `iss`. Null: tokens
   * carry the Host each was asked under (127.0.0.1, localhost, a LAN address), and any is accepted.
   */
  issuer: string | null;
  /**
   * A user's identity (roles, compiled permissions, session version), or null when the user may
   * no longer use tokens (missing, trashed, blocked, off): the accounts family's loadAuthInfo.
   */
  loadIdentity(userId: number): AuthInfo | null | Promise<AuthInfo | null>;
  /** The error code of an expired token's 401 (FOLIO_EXPIRED_TOKEN_CODE). */
  expiredTokenCode: string;
}

/** Requests that authenticate by their body, whatever token comes with them. */
const LOGIN_PATHS = new Set(['/auth', '/auth/optout']);

export function authenticate({ tokens, secret, issuer, loadIdentity, expiredTokenCode }: AuthenticateDeps): RequestHandler {
  const ended = () => new ApiError(401, 'invalid_token', 'The session of this token has ended; log in again');
  /** A user's identity as the token may use it (a token from before the user's sessions were ended: a new password, a block, off, trash). */
  const signedIn = (claims: AccessClaims, info: AuthInfo | null): AuthInfo => {
    if (!info || (claims.sv ?? 0) !== info.sessionVersion) throw ended();
    return info;
  };
  /** The identity still to be read: the request waits for it (a failure is the request's authError, as any other). */
  const later = async (req: Request, claims: AccessClaims, loading: Promise<AuthInfo | null>, next: (err?: unknown) => void) => {
    try {
      req.auth = signedIn(claims, await loading);
    } catch (err) {
      req.authError = err as Error;
    }
    next();
  };
  // Synchronous unless a user's identity has to be read (anonymous callers, applications and a
  // user whose identity is held: no promise).
  return (req, _res, next) => {
    req.auth = ANONYMOUS;
    // POST /auth (and /auth/optout) reads its own Authorization header: it may carry a refresh
    // token, a provider's credential, or an old expired access token next to a username and password.
    if (req.method === 'POST' && LOGIN_PATHS.has(req.path.replace(/\/+$/, ''))) return next();
    const token = bearerToken(req);
    if (!token) return next();
    try {
      const claims = verifyAccessToken(tokens, token, secret, expiredTokenCode);
      if (issuer !== null && claims.iss !== issuer) throw new ApiError(401, 'invalid_token', `The access token was issued by another server (${String(claims.iss)}), not ${issuer}`);
      // Whole ids only: PostgreSQL refuses to compare 1.5 with an integer column (SQLite finds nothing).
      if (Number.isSafeInteger(claims.id)) {
        const info = loadIdentity(claims.id!);
        if (info instanceof Promise) return later(req, claims, info, next);
        req.auth = signedIn(claims, info);
      } else if (Number.isSafeInteger(claims.app)) {
        req.auth = { ...ANONYMOUS, applicationId: claims.app! };
      } else {
        throw new ApiError(401, 'invalid_token', 'The access token is not valid');
      }
    } catch (err) {
      req.authError = err as Error;
    }
    next();
  };
}

export function enforceGuard(req: Request, guard: Guard): void {
  if (req.authError) throw req.authError;
  if (guard === 'anonymous') return;
  if (req.auth.userId === null) throw unauthorized();
  if (guard === 'admin' && !req.auth.isAdmin) throw forbidden('Only administrators may do this');
}
