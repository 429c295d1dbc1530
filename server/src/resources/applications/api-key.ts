// The X-Api-Key check, run on every request after authentication. A key that is sent must belong
// to an enabled application (else 403); with FOLIO_REQUIRE_API_KEY=1 a key (or an application
// token) is required of every client but the admin UI, recognised as a same-origin browser
// request. API keys identify clients; they are not secrets (see docs/decisions.md).
import type { Request } from 'express';
import type { AppContext } from '../../context.js';
import { ApiError, forbidden } from '../../http/errors.js';
import { baseUrl } from '../../http/links.js';
import { nowIso } from '../../db/time.js';
import { findEnabledByApiKey, isEnabledApplication, markApplicationUsed } from './service.js';

/**
 * The application of an API key (id or null), through the read cache: a site client sends its key
 * with every request; disabling or deleting the application is a write to `applications`, which drops the entry.
 */
const applicationOfKey = (ctx: AppContext, key: string): Promise<number> =>
  ctx.readCache.get(`api-key:${key}`, async () => {
    const app = await findEnabledByApiKey(ctx.db, key);
    // Unknown keys are not kept: a client trying keys must not push the known ones out.
    if (!app) throw forbidden('The API key is unknown or disabled', 'invalid_api_key');
    return app.id;
  }, 'settings');

const applicationEnabled = (ctx: AppContext, id: number): Promise<boolean> => ctx.readCache.get(`application-enabled:${id}`, () => isEnabledApplication(ctx.db, id), 'settings');

/** Requests of the admin UI: browser fetches from a page of this very server. */
export function isAdminUiRequest(req: Request): boolean {
  if (req.headers['sec-fetch-site'] === 'same-origin') return true;
  const origin = req.headers.origin;
  return typeof origin === 'string' && origin === baseUrl(req);
}

/** How often an application's `last_used` is written at most (per instance). */
const LAST_USED_EVERY_MS = 60_000;

export function apiKeyCheck(ctx: AppContext) {
  // This server's last write of each application's `last_used` (ms): a key sent with every
  // request costs one small write a minute, not one per request.
  const stamped = new Map<number, number>();
  const markUsed = async (id: number) => {
    const now = Date.now();
    if (now - (stamped.get(id) ?? 0) < LAST_USED_EVERY_MS) return;
    stamped.set(id, now);
    await markApplicationUsed(ctx.db, id, nowIso());
  };
  const check = async (req: Request): Promise<void> => {
    const header = req.headers['x-api-key'];
    if (header !== undefined) {
      const key = Array.isArray(header) ? header[0] : header;
      if (!key) throw forbidden('The API key is unknown or disabled', 'invalid_api_key');
      req.auth = { ...req.auth, applicationId: await applicationOfKey(ctx, key) };
      await markUsed(req.auth.applicationId!);
      return;
    }
    if (req.auth.applicationId !== null) {
      // An application token whose application was disabled or deleted since.
      if (!(await applicationEnabled(ctx, req.auth.applicationId))) {
        throw new ApiError(401, 'invalid_token', 'The application of this token is unknown or disabled');
      }
      await markUsed(req.auth.applicationId);
      return;
    }
    if (ctx.config.requireApiKey && req.method !== 'OPTIONS' && !isAdminUiRequest(req)) {
      throw forbidden('This server requires an X-Api-Key header', 'api_key_required');
    }
  };
  // No key, no application, none required (most requests): nothing to check, no promise.
  return (req: Request): Promise<void> | undefined =>
    req.headers['x-api-key'] === undefined && req.auth.applicationId === null && !ctx.config.requireApiKey ? undefined : check(req);
}
