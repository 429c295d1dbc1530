// ApiError and the one middleware that renders every failure as the spec's JSON API error body.
// Only this module writes error bodies; everything else throws.
import type { DriverErrors } from '../db/dialect/dialect.js';
import type { ErrorRequestHandler, Request, RequestHandler } from 'express';
import { homeUrl, selfUrl } from './links.js';

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  409: 'Conflict',
  413: 'Payload Too Large',
  408: 'Request Timeout',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export class ApiError extends Error {
  constructor(
    public status: number,
    public code: string,
    public detail: string,
    public title: string = TITLES[status] ?? 'Error',
    public extraMeta?: Record<string, unknown>,
    public headers?: Record<string, string>,
    /** Where in the request body the problem is (JSON:API `source.pointer`). */
    public source?: { pointer: string },
  ) {
    super(detail);
  }
}

export const badRequest = (detail: string, code = 'bad_request') => new ApiError(400, code, detail);
export const unauthorized = (detail = 'Authentication required', code = 'unauthorized') => new ApiError(401, code, detail);
export const forbidden = (detail = 'You are not allowed to do this', code = 'forbidden') => new ApiError(403, code, detail);
export const notFound = (detail = 'Not found', code = 'not_found') => new ApiError(404, code, detail);
export const conflict = (detail: string, code = 'conflict') => new ApiError(409, code, detail);
/** Most identifiers one request may name (relationship writes, /operations, filters). */
export const MAX_IDENTIFIERS = 10_000;
export const tooManyIdentifiers = () => badRequest(`A request may name at most ${MAX_IDENTIFIERS.toLocaleString('en')} identifiers`, 'too_many_identifiers');
export const methodNotAllowed = (allow: string[]) =>
  new ApiError(405, 'method_not_allowed', `Allowed methods: ${allow.join(', ')}`, undefined, undefined, { Allow: allow.join(', ') });

/** Express 5 errors from body parsers and friends carry `status`/`type`; map them to ApiError. */
function toApiError(err: unknown, driver: DriverErrors): ApiError {
  if (err instanceof ApiError) return err;
  const e = err as { status?: number; statusCode?: number; type?: string; message?: string; code?: string };
  const status = e?.status ?? e?.statusCode;
  if (e?.type === 'entity.parse.failed') return new ApiError(400, 'malformed_json', 'The request body is not valid JSON');
  if (e?.type === 'entity.too.large') return new ApiError(413, 'payload_too_large', 'The request body is too large');
  if (e?.type === 'encoding.unsupported' || e?.type === 'charset.unsupported') {
    return new ApiError(415, 'unsupported_media_type', e.message ?? 'Unsupported encoding');
  }
  if (e?.type === 'request.aborted') return new ApiError(400, 'request_aborted', 'The request was aborted');
  // The database engine's "busy" (see db/dialect: SQLITE_BUSY…, PostgreSQL's lock and connection errors).
  if (driver.isUnstorableText(err)) return new ApiError(400, 'invalid_text', 'Text values may not contain NUL characters');
  if (driver.isBusy(err)) return new ApiError(503, 'busy', 'The database is busy, retry', undefined, undefined, { 'Retry-After': '1' });
  // A last line of defence: requests are capped well below the database's variable limit
  // (tooManyIdentifiers), but no list of ids a client sent may ever end in a 500.
  if (typeof e?.message === 'string' && /too many SQL variables|too many terms in compound SELECT|number of parameters must be between|bind message has \d+ parameter/i.test(e.message)) return tooManyIdentifiers();
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new ApiError(status, 'bad_request', e.message ?? TITLES[status] ?? 'Bad request');
  }
  return new ApiError(500, 'internal_error', 'An internal error occurred');
}

export interface ErrorBody {
  error: { status: string; title: string; code: string; detail: string; source?: { pointer: string }; meta?: Record<string, unknown> };
  links: { self: string; home: string };
}

export function errorBody(req: Request, err: ApiError, debug: boolean, original?: unknown): ErrorBody {
  const meta: Record<string, unknown> = { ...(err.extraMeta ?? {}) };
  if (debug) {
    const stack = (original instanceof Error ? original.stack : err.stack) ?? '';
    meta.trace = stack.split('\n').map((l) => l.trim());
  }
  const body: ErrorBody = {
    error: { status: String(err.status), title: err.title, code: err.code, detail: err.detail },
    links: { self: selfUrl(req), home: homeUrl(req) },
  };
  if (err.source) body.error.source = err.source;
  if (Object.keys(meta).length) body.error.meta = meta;
  return body;
}

export function errorHandler(debug: boolean, log: (line: string) => void, driver: DriverErrors): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const apiErr = toApiError(err, driver);
    if (apiErr.status >= 500) log(`error ${req.method} ${req.originalUrl}: ${(err as Error)?.stack ?? String(err)}`);
    if (res.headersSent) {
      res.destroy();
      return;
    }
    for (const [k, v] of Object.entries(apiErr.headers ?? {})) res.setHeader(k, v);
    res.status(apiErr.status);
    res.type(req.legacy ? 'application/json' : 'application/vnd.api+json');
    const body = JSON.stringify(req.legacy ? legacyErrorBody(req, apiErr) : errorBody(req, apiErr, debug, err));
    // JSON API answers carry no media type parameter (no charset): a Buffer body keeps it so.
    res.send(req.legacy ? body : Buffer.from(body));
  };
}

/** The query parameters as sent, for the legacy envelope: an object, or [] when there are none. */
export function legacyParams(req: Request): Record<string, unknown> | unknown[] {
  const q = req.query as Record<string, unknown>;
  return Object.keys(q).length ? q : [];
}

/** Legacy envelope errors keep the same `error` object inside the envelope keys. */
function legacyErrorBody(req: Request, err: ApiError) {
  return {
    error: { status: err.status, code: err.code, message: err.detail, title: err.title, detail: err.detail },
    api: req.legacy?.api ?? 'objects',
    method: req.method.toLowerCase(),
    params: legacyParams(req),
    url: selfUrl(req),
    links: { self: selfUrl(req), home: homeUrl(req) },
  };
}

/**
 * What Node's HTTP parser refuses before express sees a request (headers too large, a request
 * that took too long, a malformed request line) still gets the spec's error body: the raw
 * HTTP/1.1 response to write on the socket. `base` is the server's own URL.
 */
export function rawErrorResponse(status: number, code: string, detail: string, base: string): string {
  const title = TITLES[status] ?? 'Error';
  const body = JSON.stringify({
    error: { status: String(status), title, code, detail },
    links: { self: `${base}/`, home: `${base}/home` },
  });
  return (
    `HTTP/1.1 ${status} ${title}\r\nContent-Type: application/vnd.api+json\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}

export const notFoundRoute: RequestHandler = (req) => {
  throw notFound(`No route for ${req.method} ${req.path}`, 'route_not_found');
};
