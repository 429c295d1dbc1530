// Content negotiation: what a route answers with (Accept, else 406) and which request bodies
// it takes (Content-Type, else 415). JSON API bodies may come as application/json too.
import type { Request } from 'express';
import { ApiError } from './errors.js';

export type Produces = 'jsonapi' | 'atomic' | 'schema' | 'legacy' | 'json' | 'any';
export type BodyKind = 'none' | 'json' | 'form' | 'raw';

const JSON_TYPES = ['application/vnd.api+json', 'application/json'];
const PRODUCES: Record<Exclude<Produces, 'any'>, string[]> = {
  jsonapi: JSON_TYPES,
  // JSON:API with the atomic operations extension (/operations); a plain JSON:API Accept gets it too.
  atomic: ['application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"', ...JSON_TYPES],
  schema: ['application/schema+json', 'application/json', 'application/vnd.api+json'],
  legacy: ['application/json', 'text/javascript'],
  // A plain JSON document (/model/project, as BEdita 5: a JSON API Accept alone gets 406).
  json: ['application/json'],
};

/**
 * What req.accepts() chose for an Accept header and a kind of answer (false: none). Clients send
 * the same few headers over and over, and parsing one cost about 5 µs of an uncached read of
 * 220 µs (issue 48). Bounded: short headers only, forgotten all at once when full.
 */
const chosenFor = new Map<string, string | false>();
const CHOSEN_MAX = 256;
const CHOSEN_HEADER_MAX = 200;

function accepted(req: Request, produces: Produces, accept: string, offered: string[]): string | false {
  if (accept.length > CHOSEN_HEADER_MAX) return req.accepts(offered);
  const key = `${produces}\u0000${accept}`;
  let chosen = chosenFor.get(key);
  if (chosen === undefined) {
    chosen = req.accepts(offered);
    if (chosenFor.size >= CHOSEN_MAX) chosenFor.clear();
    chosenFor.set(key, chosen);
  }
  return chosen;
}

/** The media type to answer with, or a 406. */
export function negotiate(req: Request, produces: Produces): string | null {
  if (produces === 'any') return null;
  const offered = PRODUCES[produces];
  const accept = req.headers.accept;
  if (!accept) return offered[0];
  const chosen = accepted(req, produces, accept, offered);
  if (!chosen) {
    throw new ApiError(406, 'not_acceptable', `This endpoint answers with ${offered.join(' or ')}; the Accept header allows none of them`);
  }
  // Legacy answers are always application/json (text/javascript is only how clients ask).
  return produces === 'legacy' ? 'application/json' : chosen;
}

/** The request asks for the legacy envelope layout (legacy clients send `text/javascript`). */
export function acceptsLegacy(req: Request): boolean {
  return /(^|[\s,])text\/javascript\b/i.test(req.headers.accept ?? '');
}

export function hasBody(req: Request): boolean {
  const len = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (len !== undefined && len !== '0');
}

export function isJsonType(req: Request): boolean {
  return Boolean(req.is(['application/json', 'application/vnd.api+json', '+json']));
}

/** Refuse a body whose Content-Type the route does not take (415). */
export function checkContentType(req: Request, body: BodyKind): void {
  if (body === 'raw' || !hasBody(req)) return;
  if (!req.headers['content-type']) return; // taken as JSON
  if (isJsonType(req)) return;
  if (body === 'form' && req.is('application/x-www-form-urlencoded')) return;
  const accepted = body === 'form' ? 'application/json or application/x-www-form-urlencoded' : 'application/vnd.api+json or application/json';
  throw new ApiError(415, 'unsupported_media_type', `Content-Type ${req.headers['content-type']} is not supported here; send ${accepted}`);
}

/**
 * Whether the request asks for strict handling (RFC 7240 `Prefer: handling=strict`): then an
 * attribute the resource does not have is refused (400) instead of ignored, as BEdita ignores it.
 */
export function strictHandling(req: Pick<Request, 'headers'>): boolean {
  const prefer = req.headers.prefer;
  const values = Array.isArray(prefer) ? prefer : prefer ? [prefer] : [];
  return values.some((v) => v.split(/[,;]/).some((part) => /^\s*handling\s*=\s*"?strict"?\s*$/i.test(part)));
}
