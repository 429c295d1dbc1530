// The legacy envelope: every answer is {api, data, method, params, url} (plus `paging` on lists),
// served as application/json. legacyRoute() makes a RouteDef answer only legacy requests and
// marks them (req.legacy) so that errors render in the envelope too.
import type { Request, Response } from 'express';
import { legacyParams } from '../../http/errors.js';
import { selfUrl } from '../../http/links.js';
import { acceptsLegacy } from '../../http/negotiate.js';
import type { RouteDef } from '../../http/router.js';

export interface LegacyPaging {
  page: number;
  page_size: number;
  page_count: number;
  total: number;
  total_pages: number;
}

export function legacyPaging(page: number, pageSize: number, total: number, items: number): LegacyPaging {
  return { page, page_size: pageSize, page_count: items, total, total_pages: Math.max(1, Math.ceil(total / pageSize)) };
}

export function sendLegacy(
  req: Request,
  res: Response,
  data: unknown,
  opts: { status?: number; paging?: LegacyPaging; headers?: Record<string, string> } = {},
): void {
  const body: Record<string, unknown> = {
    api: req.legacy?.api ?? 'objects',
    data,
    method: req.method.toLowerCase(),
    params: legacyParams(req),
    url: selfUrl(req),
  };
  if (opts.paging) body.paging = opts.paging;
  for (const [k, v] of Object.entries(opts.headers ?? {})) res.setHeader(k, v);
  res.status(opts.status ?? 200).type('application/json').send(JSON.stringify(body));
}

/**
 * A legacy endpoint: produces the legacy layout and answers the requests `applies` accepts —
 * by default those whose Accept names text/javascript (the /objects… routes).
 */
export function legacyRoute(api: string, def: Omit<RouteDef, 'produces' | 'when'>, applies: (req: Request) => boolean = acceptsLegacy): RouteDef {
  return {
    ...def,
    produces: 'legacy',
    when: (req) => {
      if (!applies(req)) return false;
      req.legacy = { api };
      return true;
    },
  };
}
