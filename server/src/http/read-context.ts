// What a read needs to know about its reader, without express's request: who reads (the viewer),
// the base URL links start with, the language asked for (`lang`), sparse fieldsets and includes.
// Serialisers and read services take one; a request makes it once (readContext), server code
// outside a request (webhook payloads, history, the CLI) builds one directly (outsideRequest).
import type { Request } from 'express';
import type { AuthInfo } from '../identity.js';
import { baseUrl } from './links.js';

export interface ReadContext {
  /** Who reads: the request's identity, or the server's own reader. */
  viewer: AuthInfo;
  /** Links start here (no trailing slash). */
  base: string;
  /** `lang=<tag>` of the request, if any. */
  lang: string | null;
  /** The parsed query string (list parameters: page, sort, filter, include, fields). */
  query: Record<string, unknown>;
}

const CONTEXT = Symbol('folio.readContext');
type WithContext = Request & { [CONTEXT]?: ReadContext };

/** The read context of a request (worked out once per request). */
export function readContext(req: Request): ReadContext {
  const r = req as WithContext;
  if (!r[CONTEXT]) {
    const lang = typeof req.query?.lang === 'string' && req.query.lang ? req.query.lang : null;
    r[CONTEXT] = { viewer: req.auth, base: baseUrl(req), lang, query: (req.query ?? {}) as Record<string, unknown> };
  }
  return r[CONTEXT];
}

/** A read context outside any request: `viewer` reads, links start at `base`. */
export function outsideRequest(viewer: AuthInfo, base: string, lang: string | null = null): ReadContext {
  return { viewer, base: base.replace(/\/$/, ''), lang, query: {} };
}
