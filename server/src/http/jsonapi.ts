// JSON API documents: single resources, lists with pagination and page links, `links`-only
// answers, `included`, and sparse fieldsets (`fields[type]=a,b`) applied to whatever is sent.
// One-shot hashing (no Hash object per answer).
import { hash } from 'node:crypto';
import type { Request, Response } from 'express';
import fresh from 'fresh';
import { ApiError, badRequest, MAX_IDENTIFIERS, tooManyIdentifiers } from './errors.js';
import { baseUrl, homeUrl, pageUrls, selfUrl } from './links.js';

export interface RelationshipLinks {
  links: { related: string; self: string };
  data?: ResourceIdentifier[] | ResourceIdentifier | null;
  meta?: Record<string, unknown>;
}

export interface ResourceIdentifier {
  id: string;
  type: string;
  meta?: Record<string, unknown>;
}

export interface Resource {
  id: string;
  type: string;
  attributes?: Record<string, unknown>;
  meta?: Record<string, unknown>;
  links?: Record<string, string | null>;
  relationships?: Record<string, RelationshipLinks>;
}

export interface PageInfo {
  count: number;
  page: number;
  pageSize: number;
}

export interface DocumentOptions {
  status?: number;
  meta?: Record<string, unknown>;
  included?: Resource[];
  links?: Record<string, string | null>;
  headers?: Record<string, string>;
  /**
   * The version of the one object the answer holds: a strong ETag `"v<version>-<digest>"` of it
   * and of the representation this reader gets (If-Match compares the version, If-None-Match all).
   */
  version?: number;
}

/** `relationships.<name>` with links for a resource at `{base}{resourcePath}`. */
export function relationshipLinks(req: Request, resourcePath: string, name: string): RelationshipLinks {
  return relationshipLinksAt(baseUrl(req), resourcePath, name);
}

/** The same with the base URL given (serialisers work from a ReadContext, not a request). */
export function relationshipLinksAt(baseUrlText: string, resourcePath: string, name: string): RelationshipLinks {
  const base = baseUrlText + resourcePath;
  return { links: { related: `${base}/${name}`, self: `${base}/relationships/${name}` } };
}

export const resourceUrl = (req: Request, path: string) => baseUrl(req) + path;

/**
 * The sparse fieldsets of the query: `fields[type]=a,b` per type, and BEdita's `fields=a,b` for
 * the primary data (`common`). What each names is kept of `attributes` and of `meta` (BEdita
 * selects both), with `meta.relation` of a related object always kept.
 */
export interface Fieldsets {
  byType: Record<string, Set<string>>;
  common: Set<string> | null;
}

const fieldList = (values: string[]) => new Set(values.flatMap((v) => v.split(',')).map((s) => s.trim()).filter(Boolean));

export function parseFieldsets(req: Pick<Request, 'query'>): Fieldsets | null {
  const fields = req.query.fields;
  if (fields === undefined) return null;
  const malformed = () => badRequest('fields must be a comma-separated list (fields=a,b) or given per type (fields[<type>]=a,b)', 'invalid_fields');
  if (typeof fields === 'string') return { byType: {}, common: fieldList([fields]) };
  // Both forms at once arrive as a list of the plain values and the per-type object.
  const parts = Array.isArray(fields) ? fields : [fields];
  const common = parts.filter((v): v is string => typeof v === 'string');
  const perType = parts.filter((v) => typeof v !== 'string');
  if (perType.length > 1 || perType.some((v) => typeof v !== 'object' || v === null || Array.isArray(v))) throw malformed();
  const byType: Record<string, Set<string>> = {};
  for (const [type, list] of Object.entries((perType[0] ?? {}) as Record<string, unknown>)) {
    const values = Array.isArray(list) ? list : [list];
    if (!values.every((v) => typeof v === 'string')) throw badRequest(`fields[${type}] must be a comma-separated list`, 'invalid_fields');
    if (/^\d+$/.test(type)) common.push(...(values as string[]));
    else byType[type] = fieldList(values as string[]);
  }
  return { byType, common: common.length ? fieldList(common) : null };
}

/**
 * Meta a sparse fieldset never takes away, as BEdita keeps it: a related object's place in its
 * relation, a user's external logins.
 */
const KEPT_META = new Set(['relation', 'external_auth']);

function applyFieldsets(req: Request, data: Resource[], included: Resource[]): void {
  const sets = parseFieldsets(req);
  if (!sets) return;
  const trim = (r: Resource, keep: Set<string>) => {
    if (r.attributes) r.attributes = Object.fromEntries(Object.entries(r.attributes).filter(([k]) => keep.has(k)));
    if (r.meta) r.meta = Object.fromEntries(Object.entries(r.meta).filter(([k]) => keep.has(k) || KEPT_META.has(k)));
  };
  for (const r of data) {
    const keep = sets.byType[r.type] ?? sets.common;
    if (keep) trim(r, keep);
  }
  for (const r of included) {
    const keep = sets.byType[r.type];
    if (keep) trim(r, keep);
  }
}

/** express's default ETag of a body (weak: its length in bytes and the start of its SHA-1), which lists have always carried. */
const weakETag = (body: Buffer) => `W/"${body.length.toString(16)}-${hash('sha1', body, 'base64').slice(0, 27)}"`;

function send(res: Response, status: number, doc: unknown, headers?: Record<string, string>, version?: number) {
  if (headers) for (const k in headers) res.setHeader(k, headers[k]);
  if (!res.getHeader('Content-Type')) res.setHeader('Content-Type', 'application/vnd.api+json');
  // Encoded once, then hashed, measured and sent (a list page is ~25 kB of text).
  const body = Buffer.from(JSON.stringify(doc));
  // The object's strong ETag; one the route set (a draft's); else express's weak one.
  const set = res.getHeader('ETag');
  const etag = version !== undefined ? `"v${version}-${hash('sha1', body, 'base64url').slice(0, 16)}"` : typeof set === 'string' ? set : weakETag(body);
  res.setHeader('ETag', etag);
  // A response whose send() the response cache wraps (response-cache.ts: it stores the bytes):
  // through express, as a Buffer (express adds `; charset=utf-8` to string bodies, and JSON:API
  // forbids media type parameters).
  if (Object.hasOwn(res, 'send')) {
    res.status(status).send(body);
    return;
  }
  // Otherwise written as express's send() would (Content-Length, 304 for a fresh GET or HEAD, no
  // body for HEAD), without its checks: the headers and the bytes go out in one write (the socket
  // is corked for the turn: http/flush-per-turn.ts).
  res.statusCode = status;
  const req = res.req;
  const read = req.method === 'GET' || req.method === 'HEAD';
  if (read && ((status >= 200 && status < 300) || status === 304) && fresh(req.headers, { etag })) {
    res.statusCode = 304;
    res.removeHeader('Content-Type');
    res.end();
    return;
  }
  res.setHeader('Content-Length', body.length);
  if (req.method === 'HEAD') res.end();
  else res.end(body);
}

export function sendResource(req: Request, res: Response, data: Resource | null, opts: DocumentOptions = {}): void {
  applyFieldsets(req, data ? [data] : [], opts.included ?? []);
  const doc: Record<string, unknown> = {
    data,
    links: { self: selfUrl(req), home: homeUrl(req), ...(opts.links ?? {}) },
  };
  if (opts.meta) doc.meta = opts.meta;
  if (opts.included) doc.included = opts.included;
  send(res, opts.status ?? 200, doc, opts.headers, opts.version);
}

export function paginationMeta(p: PageInfo, pageItems: number) {
  return {
    count: p.count,
    page: p.page,
    page_count: Math.max(1, Math.ceil(p.count / p.pageSize)),
    page_items: pageItems,
    page_size: p.pageSize,
  };
}

export function pageLinks(req: Request, p: PageInfo) {
  const last = Math.max(1, Math.ceil(p.count / p.pageSize));
  const pageUrl = pageUrls(req);
  return {
    first: pageUrl(1),
    last: pageUrl(last),
    prev: p.page > 1 ? pageUrl(Math.min(p.page - 1, last)) : null,
    next: p.page < last ? pageUrl(p.page + 1) : null,
  };
}

export function sendList(req: Request, res: Response, data: Resource[], page: PageInfo, opts: DocumentOptions = {}): void {
  applyFieldsets(req, data, opts.included ?? []);
  const doc: Record<string, unknown> = {
    data,
    links: { self: selfUrl(req), home: homeUrl(req), ...pageLinks(req, page), ...(opts.links ?? {}) },
    meta: { ...(opts.meta ?? {}), pagination: paginationMeta(page, data.length) },
  };
  if (opts.included) doc.included = opts.included;
  send(res, opts.status ?? 200, doc, opts.headers);
}

/** A document with `links` only (relationship writes), or with `data` as well. */
export function sendLinks(req: Request, res: Response, status = 200, extra: Record<string, unknown> = {}): void {
  send(res, status, { ...extra, links: { self: selfUrl(req), home: homeUrl(req) } });
}

/** A document with meta only (login answers, /status, /home). */
export function sendMeta(req: Request, res: Response, meta: Record<string, unknown>, status = 200): void {
  send(res, status, { links: { self: selfUrl(req), home: homeUrl(req) }, meta });
}

export function sendNoContent(res: Response): void {
  res.status(204).end();
}

/** The `data` member of a JSON API request body (404-free shape check: 400 when missing). */
export function requestData(req: Request): unknown {
  const body = req.body as { data?: unknown } | undefined;
  if (!body || typeof body !== 'object' || Array.isArray(body) || !('data' in body)) {
    throw badRequest('The request body must be a JSON API document with a "data" member', 'invalid_body');
  }
  return body.data;
}

export interface ResourceInput {
  id?: string;
  type: string;
  attributes: Record<string, unknown>;
  meta: Record<string, unknown>;
  relationships: Record<string, unknown>;
}

/** 400 `unknown_attribute` naming the first attribute not in `allowed` (resources checked without a JSON Schema). */
export function onlyAttributes(attributes: Record<string, unknown>, allowed: readonly string[]): void {
  const unknown = Object.keys(attributes).find((k) => !allowed.includes(k));
  if (unknown !== undefined) throw badRequest(`Invalid data: unknown attribute "${unknown}"`, 'unknown_attribute');
}

export const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** PHP encodes an empty associative array as `[]`: where an object is expected, that is `{}` (as BEdita reads it). */
export const phpObject = (v: unknown): unknown => (Array.isArray(v) && v.length === 0 ? {} : v);

/**
 * `data` as one resource object: `type` must be one of `types`, `id` (number or string) must
 * match `expectId` when given; attributes/meta/relationships default to {}.
 */
export function resourceInput(req: Request, types: string | string[], expectId?: string | number): ResourceInput {
  return resourceOf(requestData(req), types, expectId);
}

/** resourceInput of a `data` value found anywhere (an atomic operation's `data`). */
export function resourceOf(given: unknown, types: string | string[], expectId?: string | number): ResourceInput {
  if (!isPlainObject(given)) throw badRequest('"data" must be a resource object', 'invalid_body');
  let data = given;
  const allowed = Array.isArray(types) ? types : [types];
  if (typeof data.type !== 'string' || !allowed.includes(data.type)) {
    throw new ApiError(409, 'type_mismatch', `"data.type" must be ${allowed.join(' or ')}`);
  }
  let id: string | undefined;
  if (data.id !== undefined && data.id !== null) {
    if (typeof data.id !== 'string' && typeof data.id !== 'number') throw badRequest('"data.id" must be a string or a number', 'invalid_body');
    id = String(data.id);
  }
  if (expectId !== undefined) {
    if (id === undefined) throw badRequest('"data.id" is required', 'invalid_body');
    if (id !== String(expectId)) throw new ApiError(409, 'id_mismatch', `"data.id" ${id} does not match the URL id ${expectId}`);
  }
  // PHP clients encode an empty object as `[]` (BEdita reads it as none).
  if (Array.isArray(data.attributes) && data.attributes.length === 0) data.attributes = {};
  for (const key of ['attributes', 'meta', 'relationships'] as const) {
    data = { ...data, [key]: phpObject(data[key]) };
    if (data[key] !== undefined && data[key] !== null && !isPlainObject(data[key])) {
      throw badRequest(`"data.${key}" must be an object`, 'invalid_body');
    }
  }
  return {
    id,
    type: given.type as string,
    attributes: (data.attributes as Record<string, unknown>) ?? {},
    meta: (data.meta as Record<string, unknown>) ?? {},
    relationships: (data.relationships as Record<string, unknown>) ?? {},
  };
}

/** `data` as a list of resource identifiers ({type, id, meta?}); one object is taken as a list of one. */
export function identifiersInput(req: Request): Array<{ id: string; type: string; meta: Record<string, unknown> }> {
  return identifiersOf(requestData(req)) as Array<{ id: string; type: string; meta: Record<string, unknown> }>;
}

/**
 * A `data` value as resource identifiers; with `allowLid`, an identifier may name an object of the
 * same request by `lid` instead of `id` (atomic operations).
 */
export function identifiersOf(data: unknown, allowLid = false): Array<{ id: string; type: string; meta: Record<string, unknown>; lid?: string }> {
  const list = Array.isArray(data) ? data : [data];
  if (list.length > MAX_IDENTIFIERS) throw tooManyIdentifiers();
  return list.map((item, i) => {
    if (!isPlainObject(item)) throw badRequest(`data[${i}] must be an object with "type" and "id"`, 'invalid_body');
    if (typeof item.type !== 'string' || !item.type) throw badRequest(`data[${i}].type is required`, 'invalid_body');
    const byLid = allowLid && item.id === undefined && typeof item.lid === 'string' && item.lid !== '';
    if (!byLid && ((typeof item.id !== 'string' && typeof item.id !== 'number') || item.id === '')) {
      throw badRequest(`data[${i}].id is required (string or number)`, 'invalid_body');
    }
    const given = phpObject(item.meta);
    if (given !== undefined && given !== null && !isPlainObject(given)) throw badRequest(`data[${i}].meta must be an object`, 'invalid_body');
    const meta: Record<string, unknown> = { ...((given as Record<string, unknown> | null) ?? {}) };
    if (meta.relation !== undefined) {
      const relation = phpObject(meta.relation);
      meta.relation = isPlainObject(relation) && relation.params !== undefined ? { ...relation, params: phpObject(relation.params) } : relation;
    }
    return byLid ? { id: '', lid: item.lid as string, type: item.type, meta } : { id: String(item.id), type: item.type, meta };
  });
}
