// URLs for `links`: the base URL comes from the configuration when set, else from the request.
import type { Request } from 'express';

export function baseUrl(req: Request): string {
  const configured = req.app.locals.ctx?.config?.baseUrl as string | null | undefined;
  if (configured) return configured.replace(/\/$/, '');
  return `${req.protocol}://${req.get('host') ?? 'localhost'}`;
}

export const selfUrl = (req: Request) => baseUrl(req) + req.originalUrl;
export const homeUrl = (req: Request) => baseUrl(req) + '/home';

/** The request URL with `page` replaced (every other query parameter repeated as sent). */
export function pageUrl(req: Request, page: number): string {
  const url = new URL(req.originalUrl, 'http://x');
  url.searchParams.set('page', String(page));
  return baseUrl(req) + url.pathname + url.search;
}
