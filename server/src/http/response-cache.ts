// Anonymous answers of read routes kept until the next write. Public reads (a site's pages, a
// LAN client browsing published content) ask for the same objects over and over; between two
// writes their answers cannot change. A route opts in with `cache: true` in its RouteDef.
//
// Hits are answered before the routes are walked (app.ts); misses are stored by the route. When
// nothing in front of the routes depends on the request (no CORS, no API-key requirement), hits of requests that carry no credentials are answered before express itself
// (serveRaw): with the headers the middlewares set on the stored answer, 304 for a matching
// If-None-Match, no body for HEAD.
// What makes two requests the same answer is declared by the route (RouteDef.vary, a Vary):
// by default the URL with its query; or the path and the query parameters it names (`lang`
// always); the Accept header (negotiation picks the layout) and the headers it names. Always
// too: the method (GET and HEAD share the body), the base URL that links are built on (the
// configured one, or the Host the client used) and the API key's application.
// Each entry is stored under its route's declaration (a Shape); a lookup, which may come before
// any route is matched, tries the key of every shape that holds entries (usually one).
// And who asks: anonymous answers are shared by every anonymous caller of the same application;
// a signed-in user's answers are kept for that user alone (what a user may see depends on roles,
// object permissions and `:own` rules; keyed by the user, no answer is ever served to someone
// who may see less). A change of roles, rights or object permissions is a write: it drops
// everything. A token that no longer passes (blocked, re-passworded) is refused before the cache.
// Only 200 answers with a string or Buffer body are stored; any write of this process and any commit of
// another (the data version, see db/dialect/sqlite.ts) drops every entry. Bounded in bytes.
// An answer is stored from the second time it is asked for since the last write (as nginx's
// proxy_cache_min_uses 2): a scan of answers asked for once (a crawler, an importer checking
// what it wrote, the first visit of each page) stores nothing and evicts nothing. Storing every
// answer cost an uncached read about a quarter of its CPU (the stored copies' headers and bodies
// outlive the young generation: 544 against 416 µs per request at 20,000 documents).

import type { Request, Response } from 'express';
import type { DataVersion } from '../db/data-version.js';
import fresh from 'fresh';
import type http from 'node:http';
import { baseUrl } from './links.js';

/** What a route's answer depends on besides its path, Accept, the base URL, the caller and the data. */
export interface Vary {
  /**
   * The query parameters the answer reads: 'all' (the default) keys on the whole query string;
   * a list keys on those alone, and on `lang`, always: no answer in one language is served for another.
   */
  query?: 'all' | readonly string[];
  /** Request headers the answer reads besides Accept (always keyed), e.g. `accept-language`. */
  headers?: readonly string[];
}

/** A declaration as the cache keys it (from declare()); counts its entries so empty ones cost no lookup. */
export interface Shape {
  readonly id: number;
  /** Query parameters keyed, sorted; null: the whole URL. */
  readonly query: readonly string[] | null;
  readonly headers: readonly string[];
  entries: number;
}

interface Entry {
  shape: Shape;
  /** Encoded once: a hit sends the bytes as they are. */
  body: Buffer;
  /** Headers the route set (with Content-Type and ETag). */
  headers: Record<string, string>;
  /** Headers the middlewares had set before the route (helmet's): sent by serveRaw only. */
  prelude: Record<string, string>;
}

export interface ResponseCache {
  /** The shape of a route's `vary`, made once when the route is mounted. */
  declare(vary?: Vary): Shape;
  /** Answers `req` from the cache when it can; true when it did. */
  serve(req: Request, res: Response): boolean;
  /**
   * The same before express: only for GET/HEAD without credentials (no Authorization, no
   * X-Api-Key, no access_token) and without a body; the caller decides whether the app's
   * middlewares allow it at all. True when it answered.
   */
  serveRaw(req: http.IncomingMessage, res: http.ServerResponse): boolean;
  /**
   * Whether serve() / serveRaw() would answer `req` (a request that has not read the data version
   * yet reads it before a held answer is sent: db/read-along.ts).
   */
  holds(req: Request): boolean;
  holdsRaw(req: http.IncomingMessage): boolean;
  /** Arranges for the answer `res` is about to send to be stored (if it may be), keyed by `shape`. */
  capture(req: Request, res: Response, shape: Shape): void;
  readonly size: number;
  readonly bytes: number;
}

/** Entries larger than this are not kept: big pages of lists are rare and would evict many. */
const MAX_ENTRY_BYTES = 512 * 1024;

/**
 * Keys asked for once since the last write, remembered in two generations of at most this many
 * (about 150 bytes each): a key asked for again within the last 4096 to 8192 first sightings
 * is stored.
 */
export const SEEN_ONCE_GENERATION = 4096;

/** Roughly what an entry holds in memory. */
const sizeOf = (e: Entry) => e.body.length + 256;

export function createResponseCache(dataVersion: DataVersion, maxBytes = 16 * 1024 * 1024): ResponseCache {
  const entries = new Map<string, Entry>();
  /**
   * Keys of answers asked for once (not stored yet): this generation and the one before. Dropping
   * a whole generation rather than the oldest key: a Set's first key, after many deletes, is
   * found by walking past every deleted slot (3.6 µs per uncached read, measured).
   */
  let seenOnce = new Set<string>();
  let seenBefore = new Set<string>();
  /** Whether `key` was asked for once already (it is forgotten then); remembered if not. */
  const secondSighting = (key: string) => {
    if (seenOnce.delete(key) || seenBefore.delete(key)) return true;
    if (seenOnce.size >= SEEN_ONCE_GENERATION) {
      seenBefore = seenOnce;
      seenOnce = new Set();
    }
    seenOnce.add(key);
    return false;
  };
  let version = NaN;
  let bytes = 0;

  /** A GET or HEAD without a body (a GET with a body is not what was stored: the routes judge it). */
  const plainRead = (method: string | undefined, h: http.IncomingHttpHeaders) =>
    (method === 'GET' || method === 'HEAD') && !h['transfer-encoding'] && (h['content-length'] === undefined || h['content-length'] === '0');
  const cacheable = (req: Request) => !req.authError && plainRead(req.method, req.headers);
  /** Declarations by their content: routes that declare the same share a shape. */
  const shapes = new Map<string, Shape>();
  const keyedShapes: Shape[] = [];
  /**
   * The key of a request under `shape`. `url` is the request's URL; `query` its parsed query
   * (read only when the shape names parameters).
   */
  const key = (shape: Shape, url: string, query: () => Record<string, unknown>, h: http.IncomingHttpHeaders, base: string, applicationId: number | null, userId: number | null) => {
    let k = `${shape.id}\u0000`;
    if (shape.query) {
      const at = url.indexOf('?');
      k += at < 0 ? url : url.slice(0, at);
      const q = query();
      for (const name of shape.query) k += `\u0000${JSON.stringify(q[name]) ?? ''}`;
    } else {
      k += url;
    }
    k += `\u0000${h.accept ?? ''}`;
    for (const name of shape.headers) k += `\u0000${h[name] ?? ''}`;
    return `${k}\u0000${base}\u0000${applicationId ?? ''}\u0000${userId ?? ''}`;
  };
  const keyOf = (shape: Shape, req: Request) => key(shape, req.originalUrl, () => req.query, req.headers, baseUrl(req), req.auth.applicationId, req.auth.userId);
  const current = () => {
    const v = dataVersion.current();
    if (v !== version) {
      entries.clear();
      if (seenOnce.size) seenOnce = new Set();
      if (seenBefore.size) seenBefore = new Set();
      for (const shape of keyedShapes) shape.entries = 0;
      bytes = 0;
      version = v;
    }
    return v;
  };
  /** The entry stored under `k`, now the most recently used. */
  const take = (k: string) => {
    const hit = entries.get(k);
    if (hit) {
      entries.delete(k);
      entries.set(k, hit);
    }
    return hit;
  };
  /** A request's entry, stored under any shape, if the data has not changed since. */
  const lookup = (keyIn: (shape: Shape) => string) => {
    current();
    for (const shape of keyedShapes) {
      if (!shape.entries) continue;
      const hit = take(keyIn(shape));
      if (hit) return hit;
    }
    return undefined;
  };

  /** The entry serveRaw() answers `req` with, if any. */
  const rawHit = (req: http.IncomingMessage) => {
    const h = req.headers;
    if (!entries.size || !plainRead(req.method, h) || h.authorization !== undefined || h['x-api-key'] !== undefined) return undefined;
    const url = req.url ?? '';
    // The query as the routes will read it (parsed once, app.ts): a token may hide in any encoding.
    if (url.includes('?') && (req as Request).query.access_token !== undefined) return undefined;
    // The request has express's prototype already (app.ts): baseUrl reads the Host as routes do.
    const base = baseUrl(req as Request);
    return lookup((shape) => key(shape, url, () => (req as Request).query, h, base, null, null));
  };

  const headerValues = (res: Response, names: Iterable<string>) => {
    const out: Record<string, string> = {};
    for (const name of names) {
      const value = res.getHeader(name);
      if (typeof value === 'string' || typeof value === 'number') out[name] = String(value);
    }
    return out;
  };

  return {
    declare(vary = {}) {
      const query = vary.query === undefined || vary.query === 'all' ? null : [...new Set([...vary.query, 'lang'])].sort();
      const headers = [...new Set((vary.headers ?? []).map((name) => name.toLowerCase()))].filter((name) => name !== 'accept').sort();
      const id = JSON.stringify([query, headers]);
      let shape = shapes.get(id);
      if (!shape) {
        shape = { id: shapes.size, query, headers, entries: 0 };
        shapes.set(id, shape);
        keyedShapes.push(shape);
      }
      return shape;
    },
    serveRaw(req, res) {
      const h = req.headers;
      const hit = rawHit(req);
      if (!hit) return false;
      for (const name in hit.prelude) res.setHeader(name, hit.prelude[name]);
      for (const name in hit.headers) res.setHeader(name, hit.headers[name]);
      if (fresh(h, { etag: res.getHeader('etag') as string | undefined })) {
        res.removeHeader('content-type');
        res.statusCode = 304;
        res.end();
        return true;
      }
      res.statusCode = 200;
      res.setHeader('Content-Length', hit.body.length);
      res.end(req.method === 'HEAD' ? undefined : hit.body);
      return true;
    },
    holds: (req) => cacheable(req) && lookup((shape) => keyOf(shape, req)) !== undefined,
    holdsRaw: (req) => rawHit(req) !== undefined,
    serve(req, res) {
      if (!cacheable(req)) return false;
      const hit = lookup((shape) => keyOf(shape, req));
      if (!hit) return false;
      for (const name in hit.headers) res.setHeader(name, hit.headers[name]);
      res.status(200).send(hit.body);
      return true;
    },
    capture(req, res, shape) {
      if (!cacheable(req)) return;
      const readFrom = current();
      const key = keyOf(shape, req);
      if (!entries.has(key) && !secondSighting(key)) return;
      const before = new Set(res.getHeaderNames());
      const send = res.send;
      res.send = function (this: Response, body?: unknown) {
        const out = send.call(this, body);
        // Not stored when a write landed while the answer was built: it may predate it.
        // JSON API answers arrive as Buffers (no charset parameter), legacy ones as strings.
        const bytesOf = typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.isBuffer(body) ? body : null;
        if (res.statusCode === 200 && bytesOf && bytesOf.length <= MAX_ENTRY_BYTES && current() === readFrom) {
          // Names as they were set (helmet's `X-Frame-Options`…): a hit looks like the miss.
          const names = (res as unknown as { getRawHeaderNames(): string[] }).getRawHeaderNames().filter((name) => !/^(content-length|date)$/i.test(name));
          const mine = (name: string) => /^(content-type|etag)$/i.test(name) || !before.has(name.toLowerCase());
          const old = entries.get(key);
          if (old) {
            bytes -= sizeOf(old);
            old.shape.entries--;
          }
          const entry = {
            shape,
            body: bytesOf,
            headers: headerValues(res, names.filter(mine)),
            prelude: headerValues(res, names.filter((name) => !mine(name))),
          };
          entries.set(key, entry);
          shape.entries++;
          bytes += sizeOf(entry);
          while (bytes > maxBytes && entries.size) {
            const [oldest, entry] = entries.entries().next().value!;
            entries.delete(oldest);
            entry.shape.entries--;
            bytes -= sizeOf(entry);
          }
        }
        return out;
      } as Response['send'];
    },
    get size() {
      return entries.size;
    },
    get bytes() {
      return bytes;
    },
  };
}
