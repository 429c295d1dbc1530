// URLs for `links`: the base URL comes from the configuration when set, else from the request.
import type { Request } from 'express';
import type { AuthInfo } from './request.js';

/** Where a request keeps its base URL once worked out (on the request itself: no shared state). */
const BASE = Symbol('folio.baseUrl');
type WithBase = Request & { [BASE]?: string };

/**
 * Worked out once per request: every link of every serialised object starts with it. Without
 * FOLIO_PUBLIC_URL: the request's scheme and Host, or X-Forwarded-Proto / X-Forwarded-Host when
 * the request came through a proxy FOLIO_TRUST_PROXY trusts (express's req.protocol, req.host).
 */
export function baseUrl(req: Request): string {
  const r = req as WithBase;
  if (r[BASE] === undefined) {
    const configured = req.app.locals.ctx?.config?.baseUrl as string | null | undefined;
    r[BASE] = configured ? configured.replace(/\/$/, '') : `${req.protocol}://${req.host ?? 'localhost'}`;
  }
  return r[BASE];
}

export const selfUrl = (req: Request) => baseUrl(req) + req.originalUrl;
export const homeUrl = (req: Request) => baseUrl(req) + '/home';

/**
 * The request URL with `page` replaced (every other query parameter repeated as sent), for any
 * page: the URL is parsed once for a list's four links.
 */
export function pageUrls(req: Request): (page: number) => string {
  const url = new URL(req.originalUrl, 'http://x');
  const start = baseUrl(req) + url.pathname;
  return (page) => {
    url.searchParams.set('page', String(page));
    return start + url.search;
  };
}
