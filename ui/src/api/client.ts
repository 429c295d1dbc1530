// The admin UI's only way to the server: a typed client over the public JSON API. It keeps the
// session (access + refresh token) in localStorage, shared by the tabs of one browser (storage
// events tell each tab of a sign-in, a renewal or a sign-out in another), renews it before the
// access token expires, one tab at a time,
// and turns every failure into an ApiError carrying the error body's title and detail. Single
// objects come with their ETag; saves send it back as If-Match, and a 412 is a ConflictError.
import { readableError, type ReadableError } from './error-text';
import type { ObjectAttributesByType } from './schema-types';

export interface Resource<A = Record<string, any>> {
  id: string;
  type: string;
  attributes: A;
  meta: Record<string, any>;
  links?: Record<string, string | null>;
  relationships?: Record<string, { links?: { related: string; self: string }; data?: any }>;
}

export interface Pagination {
  count: number;
  page: number;
  page_count: number;
  page_items: number;
  page_size: number;
}

export interface ListResult<A = Record<string, any>> {
  data: Resource<A>[];
  pagination: Pagination;
  included: Resource[];
  meta: Record<string, any>;
}

export interface SingleResult<A = Record<string, any>> {
  data: Resource<A>;
  included: Resource[];
  meta: Record<string, any>;
  /** The answer's strong ETag (`"v<version>-<digest>"` for one object), null when it has none. */
  etag: string | null;
}

/** What a save names as the version it edits: the ETag its page loaded (or last saved). */
export interface SaveOptions {
  /** Sent as If-Match; null or absent: the write is unconditional. */
  ifMatch?: string | null;
}

/** A failed API call: what the error body said, ready to show. */
export class ApiError extends Error {
  constructor(
    public status: number,
    public code: string,
    public title: string,
    public detail: string,
    /** The error body's `meta` (e.g. the items a model apply refused), when it has one. */
    public meta: Record<string, unknown> = {},
  ) {
    super(detail ? `${title}: ${detail}` : title);
  }
  /** Titles of the objects the failed call named, by id, so messages name them (`nameObjects`). */
  names?: Map<string, string>;
  /** Worded by the server (to be put in plain words by error-text.ts); errors the UI words itself are shown as they are. */
  fromServer = false;
}

/** An error body's `error` member as an ApiError (worded by the server). */
function serverError(status: number, e: { code?: unknown; title: string; detail?: unknown; meta?: unknown }): ApiError {
  const err = new ApiError(status, String(e.code ?? ''), e.title, String(e.detail ?? ''), e.meta && typeof e.meta === 'object' ? (e.meta as Record<string, unknown>) : {});
  err.fromServer = true;
  return err;
}

/** `err`, knowing the titles of `objects` (those a failed call was about), for its message. */
export function nameObjects<T>(err: T, objects: Array<{ id: string; attributes?: Record<string, unknown>; title?: string }>): T {
  if (err instanceof ApiError) {
    err.names = new Map([...(err.names ?? []), ...objects.map((o): [string, string] => [String(o.id), String(o.title ?? o.attributes?.title ?? o.attributes?.uname ?? `#${o.id}`)])]);
  }
  return err;
}

/** A save refused with 412 `precondition_failed`: someone else wrote the object since its ETag. */
export class ConflictError extends ApiError {
  constructor() {
    super(412, 'precondition_failed', 'Someone else changed this', 'It was changed by someone else since you opened it; reload to see their version. Your edits are still in the form.');
  }
}

/** The version number inside one of Folio's ETags (`"v12-…"` → 12), null for any other tag. */
export function etagVersion(etag: string | null): number | null {
  const m = etag ? /^"v(\d+)(?:-[^"]*)?"$/.exec(etag) : null;
  return m ? Number(m[1]) : null;
}

export type Query = Record<string, string | number | boolean | undefined | null>;

interface Session {
  jwt: string;
  renew: string;
  /** Access token expiry, epoch ms. */
  expires: number;
  /** How long before `expires` to renew, ms. */
  margin: number;
}

const STORAGE_KEY = 'folio.session';
const USERNAME_KEY = 'folio.username';
/** Renew when the access token has less than this left (a third of its life when shorter). */
const RENEW_MARGIN_MS = 60_000;
const JSONAPI = 'application/vnd.api+json';

/** Why the session ended, for the other tabs: `none` (signed out) or `expired`. */
const ENDED_KEY = 'folio.session.ended';
/** Fallback lease on renewal where the Web Locks API is missing (plain http off localhost): `<tab>:<until>`. */
const RENEWING_KEY = 'folio.session.renewing';
const TAB_ID = Math.random().toString(36).slice(2);

function parseSession(raw: string | null): Session | null {
  try {
    const stored = raw ? (JSON.parse(raw) as Session) : null;
    return stored && typeof stored.jwt === 'string' ? { ...stored, margin: stored.margin ?? RENEW_MARGIN_MS } : null;
  } catch {
    return null;
  }
}

const readSession = () => parseSession(localStorage.getItem(STORAGE_KEY));

/** When the access token expires and when to renew it, from its `exp` and `iat` claims. */
function tokenTimes(jwt: string): { expires: number; margin: number } {
  try {
    const payload = JSON.parse(atob(jwt.split('.')[1].replace(/-/g, '+').replace(/_/g, '/')));
    const expires = payload.exp * 1000;
    const lifetime = expires - (typeof payload.iat === 'number' ? payload.iat * 1000 : Date.now());
    if (!Number.isFinite(expires)) throw new Error('no exp');
    return { expires, margin: Math.min(RENEW_MARGIN_MS, lifetime / 3) };
  } catch {
    return { expires: Date.now() + 5 * 60_000, margin: RENEW_MARGIN_MS };
  }
}

const needsRenewal = (s: Session | null) => s !== null && s.expires - Date.now() < s.margin;

let session: Session | null = readSession();
let renewing: Promise<boolean> | null = null;
let renewTimer: ReturnType<typeof setTimeout> | null = null;
const listeners = new Set<(state: SessionState) => void>();

/** `active`: logged in; `expired`: the session ended under the user's feet; `none`: logged out. */
export type SessionState = 'active' | 'expired' | 'none';
let state: SessionState = session ? 'active' : 'none';

function setState(next: SessionState) {
  state = next;
  for (const l of listeners) l(next);
}

/** The username of the last sign-in in this browser (to prefill the form when a session expires). */
export function lastUsername(): string {
  return localStorage.getItem(USERNAME_KEY) ?? '';
}

export function sessionState(): SessionState {
  return state;
}

export function onSessionChange(listener: (state: SessionState) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function storeSession(jwt: string, renew: string) {
  session = { jwt, renew, ...tokenTimes(jwt) };
  localStorage.setItem(STORAGE_KEY, JSON.stringify(session));
  scheduleRenewal();
}

/** Ends the session in this tab and, through storage events, in the others (`expired` keeps their pages under the sign-in dialog). */
function dropSession(next: SessionState) {
  forgetSession(next);
  localStorage.setItem(ENDED_KEY, next);
  localStorage.removeItem(STORAGE_KEY);
}

function forgetSession(next: SessionState) {
  session = null;
  if (renewTimer) clearTimeout(renewTimer);
  renewTimer = null;
  setState(next);
}

/** Another tab signed in, renewed or ended the session: this tab follows. */
function followOtherTab(e: StorageEvent) {
  if (e.key !== STORAGE_KEY && e.key !== null) return;
  const stored = readSession();
  if (stored) {
    session = stored;
    scheduleRenewal();
    if (state !== 'active') setState('active');
  } else if (session || state === 'active') forgetSession(localStorage.getItem(ENDED_KEY) === 'expired' ? 'expired' : 'none');
}

if (typeof window !== 'undefined') window.addEventListener('storage', followOtherTab);

/**
 * Runs `renew` while no other tab of this browser renews: each refresh token is good for one
 * renewal, so two tabs sending the same one would end the session. Web Locks where there are; a
 * lease in localStorage elsewhere (waiting at most 10 s for a tab that holds one). The lock is
 * kept a second after the answer: another tab's copy of localStorage takes a moment to show the
 * new pair, and the next tab in line must read it, not the spent one.
 */
function oneTabAtATime<T>(renew: () => Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const held = async () => {
      await renew().then(resolve, reject);
      await new Promise((r) => setTimeout(r, 1_000));
    };
    if (typeof navigator !== 'undefined' && navigator.locks) {
      navigator.locks.request('folio.session.renew', held).catch(reject);
      return;
    }
    const leased = () => {
      const [tab, until] = (localStorage.getItem(RENEWING_KEY) ?? '').split(':');
      return Boolean(tab) && tab !== TAB_ID && Number(until) > Date.now();
    };
    const attempt = () => {
      if (leased()) return void setTimeout(attempt, 100);
      localStorage.setItem(RENEWING_KEY, `${TAB_ID}:${Date.now() + 10_000}`);
      void held().finally(() => localStorage.removeItem(RENEWING_KEY));
    };
    attempt();
  });
}

function scheduleRenewal() {
  if (renewTimer) clearTimeout(renewTimer);
  if (!session) return;
  const wait = Math.max(1_000, session.expires - Date.now() - session.margin);
  renewTimer = setTimeout(() => void renewSession(), Math.min(wait, 2 ** 31 - 1));
}

scheduleRenewal();

async function parseError(res: Response): Promise<ApiError> {
  let body: any = null;
  try {
    body = await res.json();
  } catch {
    /* not JSON */
  }
  const e = body?.error;
  if (res.status === 412 && e?.code === 'precondition_failed') return new ConflictError();
  if (e && typeof e.title === 'string') return serverError(res.status, e);
  return new ApiError(res.status, 'http_error', res.statusText || `HTTP ${res.status}`, 'The server gave an unexpected answer.');
}

async function rawFetch(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (e) {
    // A read given up by its caller (the query cache cancels what is no longer asked for).
    if (init.signal?.aborted) throw e;
    throw new ApiError(0, 'network_error', 'Network error', 'The server cannot be reached. Check that Folio is running.');
  }
}

const writeListeners = new Set<(path: string, method: string) => void>();

/** Called with the path and method of every write that succeeded (the query cache marks what it changed as stale). */
export function onApiWrite(listener: (path: string, method: string) => void): () => void {
  writeListeners.add(listener);
  return () => writeListeners.delete(listener);
}

function wrote(path: string, method: string) {
  for (const l of writeListeners) l(path, method);
}

/** Exchange the refresh token for a new pair; false (and session dropped) when that fails. */
async function renewSession(): Promise<boolean> {
  if (!session) return false;
  const mine = session.renew;
  renewing ??= oneTabAtATime(async () => {
    // Another tab may have renewed (or ended the session) while this one waited: take its pair.
    const stored = readSession();
    if (!stored) {
      if (session) forgetSession(localStorage.getItem(ENDED_KEY) === 'expired' ? 'expired' : 'none');
      return false;
    }
    if (stored.renew !== mine) {
      session = stored;
      scheduleRenewal();
      return true;
    }
    try {
      const res = await rawFetch('/auth', {
        method: 'POST',
        headers: { Accept: JSONAPI, 'Content-Type': 'application/json', Authorization: `Bearer ${stored.renew}` },
        body: JSON.stringify({ grant_type: 'refresh_token' }),
      });
      if (!res.ok) {
        if (res.status === 401 || res.status === 400 || res.status === 404) dropSession('expired');
        return false;
      }
      const body = await res.json();
      storeSession(body.meta.jwt, body.meta.renew);
      return true;
    } catch {
      return false;
    }
  }).finally(() => {
    renewing = null;
  });
  return renewing;
}

const forbiddenListeners = new Set<() => void>();

/**
 * Called whenever the server refuses a signed-in write with 403: the user's rights may have
 * changed since they were read (components/rights.tsx reads them again). Returns the unsubscribe.
 */
export function onForbidden(listener: () => void): () => void {
  forbiddenListeners.add(listener);
  return () => void forbiddenListeners.delete(listener);
}

export function buildUrl(path: string, query?: Query): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v === undefined || v === null || v === '') continue;
    params.append(k, String(v));
  }
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

/** One entry of `atomic:operations`. */
export interface AtomicOperation {
  op: 'add' | 'update' | 'remove';
  ref?: { type: string; id: string; relationship?: string };
  data?: unknown;
}

interface CallOptions {
  query?: Query;
  accept?: string;
  body?: unknown;
  /** A whole top-level document (for /operations, whose body has no `data`). */
  atomic?: unknown;
  /** Anonymous call (login). */
  anonymous?: boolean;
  /** If-Match (a save of one object against the version it edits). */
  ifMatch?: string | null;
  /** The body's Content-Type when not JSON:API (the plain JSON of /model/project). */
  contentType?: string;
  /** Gives the call up (a read no longer wanted). */
  signal?: AbortSignal;
}

/** What a read may take besides its query: the signal that gives it up. */
export interface ReadOptions {
  signal?: AbortSignal;
}

async function call(method: string, path: string, opts: CallOptions = {}): Promise<any> {
  return (await callTagged(method, path, opts)).body;
}

/** A call whose answer's ETag matters (one object read or written). */
async function callTagged(method: string, path: string, opts: CallOptions = {}): Promise<{ body: any; etag: string | null }> {
  if (!opts.anonymous && needsRenewal(session)) await renewSession();
  const send = () => {
    const headers: Record<string, string> = { Accept: opts.accept ?? JSONAPI };
    const payload = opts.atomic ?? opts.body;
    if (payload !== undefined) headers['Content-Type'] = opts.contentType ?? JSONAPI;
    if (!opts.anonymous && session) headers.Authorization = `Bearer ${session.jwt}`;
    if (opts.ifMatch) headers['If-Match'] = opts.ifMatch;
    // The server ignores attributes it does not know, as BEdita does, unless asked to be strict:
    // the admin UI wants a typo in a field name refused, not dropped.
    if (method !== 'GET' && method !== 'HEAD') headers.Prefer = 'handling=strict';
    return rawFetch(buildUrl(path, opts.query), {
      method,
      headers,
      body: payload === undefined ? undefined : JSON.stringify(payload),
      signal: opts.signal,
    });
  };
  let res = await send();
  if (res.status === 401 && !opts.anonymous && session) {
    // The access token expired or was revoked: renew once and retry, else the session is over.
    if (await renewSession()) res = await send();
    else {
      if (session) dropSession('expired');
      throw await parseError(res);
    }
  }
  if (!res.ok) {
    const err = await parseError(res);
    if (res.status === 401 && !opts.anonymous) dropSession('expired');
    // A refused write may mean the user's rights changed (a refused read is an object's own rule).
    if (res.status === 403 && !opts.anonymous && method !== 'GET') for (const l of forbiddenListeners) l();
    throw err;
  }
  const etag = res.headers.get('ETag');
  if (method !== 'GET') wrote(path, method);
  if (res.status === 204) return { body: null, etag };
  const text = await res.text();
  return { body: text ? JSON.parse(text) : null, etag };
}

function toList(body: any): ListResult {
  const data = Array.isArray(body?.data) ? body.data : [];
  return {
    data: data.map(normalize),
    pagination: body?.meta?.pagination ?? { count: data.length, page: 1, page_count: 1, page_items: data.length, page_size: data.length },
    included: (body?.included ?? []).map(normalize),
    meta: body?.meta ?? {},
  };
}

function normalize(r: any): Resource {
  return { ...r, attributes: r.attributes ?? {}, meta: r.meta ?? {} };
}

function toSingle(body: any, etag: string | null = null): SingleResult {
  return { data: normalize(body.data), included: (body?.included ?? []).map(normalize), meta: body?.meta ?? {}, etag };
}

const tagged = ({ body, etag }: { body: any; etag: string | null }) => toSingle(body, etag);

export type Identifier = { type: string; id: string; meta?: Record<string, unknown> };

/** The attributes of objects of type `T` as the model's schema gives them (schema-types.ts, made by `npm run ui:types`); any attributes for a type made later. */
export type AttributesOf<T extends string> = T extends keyof ObjectAttributesByType ? ObjectAttributesByType[T] : Record<string, any>;

type IfEquals<X, Y, A, B> = (<V>() => V extends X ? 1 : 2) extends <V>() => V extends Y ? 1 : 2 ? A : B;
type WritableKeys<T> = { [P in keyof T]-?: IfEquals<{ [Q in P]: T[P] }, { -readonly [Q in P]: T[P] }, P, never> }[keyof T];
/** What a write may send: the attributes that are not read-only, each optional. */
export type WritableAttributes<T> = Partial<Pick<T, WritableKeys<T>>>;

/** The JSON API calls the admin needs, by shape rather than by endpoint. */
export const api = {
  list: async (path: string, query?: Query, opts: ReadOptions = {}) => toList(await call('GET', path, { query, signal: opts.signal })),
  /** One resource, with its ETag. */
  get: async (path: string, query?: Query, opts: ReadOptions = {}) => tagged(await callTagged('GET', path, { query, signal: opts.signal })),
  getRaw: (path: string, query?: Query) => call('GET', path, { query }),
  /** `more`: other members of `data` (e.g. `relationships` of the new resource). */
  create: async (path: string, type: string, attributes: Record<string, unknown>, more: Record<string, unknown> = {}) =>
    tagged(await callTagged('POST', path, { body: { data: { type, attributes, ...more } } })),
  /** A save: with `ifMatch`, refused as a ConflictError when someone else wrote it since. */
  update: async (path: string, type: string, id: string, attributes: Record<string, unknown>, meta?: Record<string, unknown>, opts: SaveOptions = {}) =>
    tagged(await callTagged('PATCH', path, { body: { data: { id, type, attributes, ...(meta ? { meta } : {}) } }, ifMatch: opts.ifMatch })),
  remove: (path: string, opts: SaveOptions = {}) => call('DELETE', path, { ifMatch: opts.ifMatch }),
  /** Relationship writes: POST adds, PATCH replaces, DELETE removes. */
  relate: (method: 'POST' | 'PATCH' | 'DELETE', path: string, data: Identifier | Identifier[] | null) => call(method, path, { body: { data } }),
  /** PATCH with an arbitrary `data` (trash restore). */
  patch: (path: string, data: unknown) => call('PATCH', path, { body: { data } }),
  /** Every item of a list, page by page (at most `maxPages` pages of 100). */
  listAll: async (path: string, query?: Query, maxPages = 50, opts: ReadOptions = {}): Promise<Resource[]> => {
    const out: Resource[] = [];
    for (let page = 1; page <= maxPages; page++) {
      const r = toList(await call('GET', path, { query: { ...query, page, page_size: 100 }, signal: opts.signal }));
      out.push(...r.data);
      if (page >= r.pagination.page_count) break;
    }
    return out;
  },
  /** Several writes in one transaction, all or nothing (POST /operations, JSON:API atomic). */
  operations: (ops: AtomicOperation[]) => call('POST', '/operations', { body: undefined, atomic: { 'atomic:operations': ops } }),
  /** The JSON Schema of a type (GET /model/schema/{type}). */
  schema: (type: string): Promise<JsonSchema> =>
    call('GET', `/model/schema/${encodeURIComponent(type)}`, { accept: 'application/schema+json' }),
};

/** The trash (`/trash`): what a user may delete comes back with a restore; only admins purge. */
export const trash = {
  get: (id: string) => api.get(`/trash/${encodeURIComponent(id)}`),
  restore: (id: string) => api.patch(`/trash/${encodeURIComponent(id)}`, { id, type: 'objects' }),
  purge: (id: string) => api.remove(`/trash/${encodeURIComponent(id)}`),
};

/** Objects of one type, read and written with the types of its attributes. */
export function objectsOf<T extends string>(type: T) {
  type A = AttributesOf<T>;
  const path = (id?: string) => (id ? `/${encodeURIComponent(type)}/${encodeURIComponent(id)}` : `/${encodeURIComponent(type)}`);
  return {
    path,
    get: async (id: string) => (await api.get(path(id))) as SingleResult<A>,
    list: async (query?: Query) => (await api.list(path(), query)) as ListResult<A>,
    create: async (attributes: WritableAttributes<A>, more: Record<string, unknown> = {}) => (await api.create(path(), type, attributes, more)) as SingleResult<A>,
    update: async (id: string, attributes: WritableAttributes<A>, opts: SaveOptions = {}) => (await api.update(path(id), type, id, attributes, undefined, opts)) as SingleResult<A>,
    remove: (id: string, opts: SaveOptions = {}) => api.remove(path(id), opts),
  };
}

/** User accounts (an object type: /users). */
export const users = objectsOf('users');

export interface JsonSchemaProperty {
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  maxLength?: number;
  default?: unknown;
  description?: string;
  title?: string;
  readOnly?: boolean;
  isMeta?: boolean;
  oneOf?: JsonSchemaProperty[];
}

export interface JsonSchema {
  $id?: string;
  properties: Record<string, JsonSchemaProperty>;
  required?: string[];
}

/** Log in with username and password; the session starts (or resumes after expiry). */
export async function signIn(username: string, password: string): Promise<void> {
  const res = await rawFetch('/auth', {
    method: 'POST',
    headers: { Accept: JSONAPI, 'Content-Type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  if (!res.ok) throw await parseError(res);
  const body = await res.json();
  // The username first: the other tabs read it when the session appears (their cache follows the user).
  localStorage.setItem(USERNAME_KEY, username);
  storeSession(body.meta.jwt, body.meta.renew);
  setState('active');
}

/** Revoke the refresh token and forget the session. */
export async function signOut(): Promise<void> {
  const current = session;
  localStorage.removeItem(USERNAME_KEY);
  dropSession('none');
  if (current) {
    try {
      await rawFetch(`/auth/${encodeURIComponent(current.renew)}`, { method: 'DELETE', headers: { Accept: JSONAPI } });
    } catch {
      /* the local session is gone either way */
    }
  }
}

export interface CurrentUser {
  id: string;
  username: string;
  name: string | null;
  roles: string[];
  /** From the server's meta: whether the user is an admin, and what it may do per object type. */
  admin: boolean;
  rights: Record<string, string[]>;
}

export async function currentUser(): Promise<CurrentUser> {
  const { data, included, meta } = await api.get('/auth/user', { include: 'roles' });
  return {
    id: data.id,
    username: String(data.attributes.username ?? ''),
    name: (data.attributes.name as string | null) ?? null,
    roles: included.filter((r) => r.type === 'roles').map((r) => String(r.attributes.name)),
    admin: Boolean(meta.admin),
    rights: (meta.rights as Record<string, string[]> | undefined) ?? {},
  };
}

/**
 * Upload a file's bytes in one step (POST /{mediaType}/upload/{file_name}), reporting progress.
 * XMLHttpRequest, because fetch cannot report upload progress.
 */
export async function uploadMedia(mediaType: string, file: File, onProgress: (fraction: number) => void): Promise<SingleResult> {
  if (needsRenewal(session)) await renewSession();
  const send = () =>
    new Promise<{ status: number; text: string }>((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.open('POST', `/${encodeURIComponent(mediaType)}/upload/${encodeURIComponent(file.name)}`);
      xhr.setRequestHeader('Accept', JSONAPI);
      xhr.setRequestHeader('Content-Type', file.type || 'application/octet-stream');
      if (session) xhr.setRequestHeader('Authorization', `Bearer ${session.jwt}`);
      xhr.upload.onprogress = (e) => {
        if (e.lengthComputable) onProgress(e.loaded / e.total);
      };
      xhr.onload = () => resolve({ status: xhr.status, text: xhr.responseText });
      xhr.onerror = () => reject(new ApiError(0, 'network_error', 'Network error', 'The upload did not reach the server.'));
      xhr.send(file);
    });
  let res = await send();
  if (res.status === 401 && (await renewSession())) res = await send();
  if (res.status < 400) wrote(`/${mediaType}`, 'POST');
  let body: any = null;
  try {
    body = res.text ? JSON.parse(res.text) : null;
  } catch {
    body = null;
  }
  if (res.status >= 400) {
    const e = body?.error;
    if (res.status === 401) dropSession('expired');
    if (res.status === 403) for (const l of forbiddenListeners) l();
    throw e && typeof e.title === 'string' ? serverError(res.status, e) : new ApiError(res.status, 'http_error', `HTTP ${res.status}`, '');
  }
  onProgress(1);
  return toSingle(body);
}

/**
 * A served file (thumbnail, stream download) as an object URL for <img>/<a>: fetched with the
 * session's token, since drafts' files are not public and <img> cannot send the header.
 */
export async function fileObjectUrl(url: string): Promise<string> {
  if (needsRenewal(session)) await renewSession();
  const res = await rawFetch(url, { headers: session ? { Authorization: `Bearer ${session.jwt}` } : {} });
  if (!res.ok) throw await parseError(res);
  return URL.createObjectURL(await res.blob());
}

/** Save a served file (a stream download) under its name, fetched with the session's token. */
export async function downloadFile(url: string, fileName: string): Promise<void> {
  const objectUrl = await fileObjectUrl(url);
  const a = document.createElement('a');
  a.href = objectUrl;
  a.download = fileName;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(objectUrl), 10_000);
}

/** A same-origin URL without its origin (`/streams/download/…`), for HTML that moves hosts. */
export function relativeUrl(url: string): string {
  try {
    const u = new URL(url, window.location.origin);
    return u.origin === window.location.origin ? u.pathname + u.search : url;
  } catch {
    return url;
  }
}

export interface Thumbnail {
  id: number | string;
  uuid?: string;
  ready: boolean;
  url?: string;
  acceptable?: boolean;
}

/** Thumbnail entries of media objects for a preset (GET /media/thumbs?ids=…&preset=…). */
export async function thumbnails(ids: string[], preset: string): Promise<Thumbnail[]> {
  if (!ids.length) return [];
  const body = await call('GET', '/media/thumbs', { query: { ids: ids.join(','), preset } });
  return (body?.meta?.thumbnails ?? []) as Thumbnail[];
}

/** The human message of any error thrown by this module (or anything else), in plain words. */
export function errorMessage(err: unknown): ReadableError {
  if (err instanceof ApiError) return err.fromServer ? readableError(err) : { title: err.title, detail: err.detail };
  return { title: 'Error', detail: err instanceof Error ? err.message : String(err) };
}

// ---- webhooks (admins) ----

export const WEBHOOK_EVENTS = ['objects.create', 'objects.update', 'objects.trash', 'objects.restore', 'objects.remove', 'objects.publish', 'objects.unpublish', 'drafts.submitted'] as const;

export interface WebhookAttributes {
  name: string;
  url: string;
  /** Event names, or ['*'] for every event. */
  events: string[];
  /** Object type names (abstract ones cover their sub-types); [] for every type. */
  types: string[];
  enabled: boolean;
}

export interface DeliveryAttributes {
  event: string;
  resource_id: string;
  status: number | null;
  attempts: number;
  delivered: string | null;
  created: string;
  last_attempt: string | null;
}

/** /webhooks: CRUD, the test event, a new secret, deliveries and sending one again. */
export const webhooks = {
  path: (id?: string) => (id ? `/webhooks/${encodeURIComponent(id)}` : '/webhooks'),
  deliveriesPath: (id: string) => `/webhooks/${encodeURIComponent(id)}/deliveries`,
  create: async (attributes: Partial<WebhookAttributes>) => (await api.create('/webhooks', 'webhooks', attributes)) as SingleResult<WebhookAttributes>,
  update: async (id: string, attributes: Partial<WebhookAttributes>) =>
    (await api.update(webhooks.path(id), 'webhooks', id, attributes)) as SingleResult<WebhookAttributes>,
  remove: (id: string) => api.remove(webhooks.path(id)),
  /** Sends a test event now and answers the delivery as it ended. */
  sendTest: async (id: string) => toSingle(await call('POST', `${webhooks.path(id)}/test`)) as SingleResult<DeliveryAttributes>,
  newSecret: async (id: string) => toSingle(await call('POST', `${webhooks.path(id)}/secret`)) as SingleResult<WebhookAttributes>,
  redeliver: async (id: string, deliveryId: string) =>
    toSingle(await call('POST', `${webhooks.deliveriesPath(id)}/${encodeURIComponent(deliveryId)}/redeliver`)) as SingleResult<DeliveryAttributes>,
};

// ---- history ----

export type HistoryAction = 'create' | 'update' | 'trash' | 'restore' | 'remove';

export interface HistoryAttributes {
  resource_id: string;
  resource_type: 'objects';
  user_id: number | null;
  application_id: number | null;
  user_action: HistoryAction;
  /** New values of the fields that changed (every field set, on create). */
  changed: Record<string, unknown>;
  created: string;
}

/** `meta` of an entry in an object's history. */
export interface HistoryMeta {
  object_type: string;
  username: string | null;
  /** Values of the changed fields just before the change; null for a create. */
  before?: Record<string, unknown> | null;
}

/**
 * An object's history (`{objectPath}` is `/{type}/{id}` or `/objects/{id}`) and restoring a version:
 * the server writes the object back to its state at that entry, as a new change.
 */
export const history = {
  path: (objectPath: string) => `${objectPath}/history`,
  restore: async (objectPath: string, historyId: string) =>
    toSingle(await call('POST', `${history.path(objectPath)}/${encodeURIComponent(historyId)}/restore`)),
};

// ---- translations ----

export type TranslationStatus = 'on' | 'draft' | 'off';

export interface TranslationAttributes {
  object_id: string | number;
  /** A BCP 47 tag (`it`, `pt-BR`). */
  lang: string;
  status: TranslationStatus;
  /** Field → translated text (null: not translated). */
  translated_fields: Record<string, string | null>;
}

/**
 * Translations of objects (/translations). Each write is an update of its object: it moves the
 * object's version (ETag) by one, like a relation write.
 */
export const translations = {
  /** One translation (its ETag is its object's version: any write of the object moves it). */
  path: (id: string) => `/translations/${encodeURIComponent(id)}`,
  /** Every translation of an object, in any language. */
  ofObjectPath: (type: string, id: string) => `/${encodeURIComponent(type)}/${encodeURIComponent(id)}/translations`,
  /** Translations of several objects in one request (one page of a list). */
  ofObjects: async (ids: string[]) =>
    ids.length
      ? ((await api.list('/translations', { 'filter[object_id]': ids.join(','), page_size: 100, sort: 'lang' })).data as Resource<TranslationAttributes>[])
      : [],
  create: async (objectId: string, lang: string, status: TranslationStatus, fields: Record<string, string | null>) =>
    (await api.create('/translations', 'translations', { object_id: objectId, lang, status, translated_fields: fields })) as SingleResult<TranslationAttributes>,
  /** `fields` are merged field by field into what is stored. With `ifMatch`, a ConflictError (412)
   *  when the object was written since that version. */
  update: async (id: string, changes: { status?: TranslationStatus; translated_fields?: Record<string, string | null> }, opts: SaveOptions = {}) =>
    (await api.update(translations.path(id), 'translations', id, changes, undefined, opts)) as SingleResult<TranslationAttributes>,
  remove: (id: string, opts: SaveOptions = {}) => api.remove(translations.path(id), opts),
};

// ---- property types (admins write) ----

export interface PropertyTypeAttributes {
  name: string;
  /** A JSON Schema fragment every value must match (a choice list: {type: 'string', enum: […]}). */
  params: Record<string, unknown> | null;
}

export const propertyTypes = {
  path: (id?: string) => (id ? `/model/property_types/${encodeURIComponent(id)}` : '/model/property_types'),
  create: (attributes: PropertyTypeAttributes) => api.create(propertyTypes.path(), 'property_types', { ...attributes }),
  update: (id: string, attributes: Partial<PropertyTypeAttributes>) => api.update(propertyTypes.path(id), 'property_types', id, attributes),
  remove: (id: string) => api.remove(propertyTypes.path(id)),
};

// ---- the model as one file (admins; GET/POST /model/project, plain JSON) ----

export const MODEL_SECTIONS = ['applications', 'roles', 'property_types', 'object_types', 'relations', 'properties', 'categories', 'tags'] as const;
export type ModelSection = (typeof MODEL_SECTIONS)[number];

/** One item of a model file: `name`, `object` for properties and categories, and its fields. */
export type ModelItem = { name: string; object?: string | null } & Record<string, unknown>;

/** What applying a model file does (or did), per section. */
export interface ModelDiff {
  dry_run: boolean;
  delete: boolean;
  /** Whether anything was written. */
  applied: boolean;
  create: Partial<Record<ModelSection, ModelItem[]>>;
  update: Partial<Record<ModelSection, Array<{ name: string; object?: string | null; changes: Record<string, { from: unknown; to: unknown }> }>>>;
  remove: Partial<Record<ModelSection, Array<{ name: string; object?: string | null }>>>;
  /** In the database, not in the file, left alone (without `delete`, or core). */
  kept: Partial<Record<ModelSection, Array<{ name: string; object?: string | null; reason: string }>>>;
}

export const modelProject = {
  /** The whole model as BEdita 5's project document. */
  export: (): Promise<Record<string, unknown>> => call('GET', '/model/project', { accept: 'application/json' }),
  /** Compare `document` with the model; unless `dryRun`, apply the differences (removals only with `remove`). */
  apply: (document: unknown, opts: { dryRun: boolean; remove: boolean }): Promise<ModelDiff> =>
    call('POST', '/model/project', {
      accept: 'application/json',
      contentType: 'application/json',
      body: document,
      query: { dry_run: opts.dryRun ? 1 : undefined, delete: opts.remove ? 1 : undefined },
    }),
};

// ---- categories and tags (/model/categories, /model/tags; admins write, signed-in users read) ----

export interface CategoryAttributes {
  name: string;
  label: string | null;
  labels?: Record<string, string> | null;
  /** The object type the category belongs to. */
  type: string | null;
  parent_id: string | number | null;
  enabled: boolean;
}

export interface TagAttributes {
  name: string;
  label: string | null;
  labels?: Record<string, string> | null;
  enabled: boolean;
}

/** One vocabulary's endpoint: list (optionally filtered), create, change, delete. */
function vocabulary<A>(path: string, type: string) {
  const one = (id: string) => `${path}/${encodeURIComponent(id)}`;
  return {
    list: async (query?: Query) => (await api.listAll(path, query, 10)) as Resource<A>[],
    create: (attributes: Partial<A>) => api.create(path, type, { ...attributes }),
    update: (id: string, attributes: Partial<A>) => api.update(one(id), type, id, { ...attributes }),
    remove: (id: string) => api.remove(one(id)),
  };
}

export const categories = vocabulary<CategoryAttributes>('/model/categories', 'categories');
export const tags = vocabulary<TagAttributes>('/model/tags', 'tags');

// ---- administration (admins): configuration entries and endpoint permissions ----

export interface ConfigAttributes {
  name: string;
  /** `app` unless given. */
  context: string;
  /** Text (often JSON text). */
  content: string;
  /** null: a global entry, read by every application. */
  application_id: number | null;
}

/** Per access: allowed, not allowed, only the caller's own (`mine`), or refused outright (`block`). */
export type EndpointAccess = true | false | 'mine' | 'block';

export interface EndpointPermissionAttributes {
  /** null: every endpoint. */
  endpoint_id: number | null;
  /** null: every application (and requests without one). */
  application_id: number | null;
  /** null: every role. */
  role_id: number | null;
  read: EndpointAccess;
  write: EndpointAccess;
}

export const configEntries = vocabulary<ConfigAttributes>('/config', 'config');
export const endpointPermissions = vocabulary<EndpointPermissionAttributes>('/admin/endpoint_permissions', 'endpoint_permissions');

// ---- annotations (signed-in users who may read the object; the author or an admin changes one) ----

export interface AnnotationAttributes {
  object_id: number | string;
  description: string | null;
  /** Any JSON, or null. */
  params: unknown;
}

/** `meta`: `user_id`, `username` (the author), `created`, `modified`. */
export const annotations = {
  ofObject: async (objectId: string) => (await api.listAll('/annotations', { 'filter[object_id]': objectId, sort: 'id' }, 10)) as Resource<AnnotationAttributes>[],
  create: (objectId: string, description: string, params: unknown) =>
    api.create('/annotations', 'annotations', { object_id: objectId, description, ...(params === undefined ? {} : { params }) }),
  update: (id: string, changes: { description?: string; params?: unknown }) => api.update(`/annotations/${encodeURIComponent(id)}`, 'annotations', id, changes),
  remove: (id: string) => api.remove(`/annotations/${encodeURIComponent(id)}`),
};

/** A draft's translation change: the status and fields it sets, or null (the translation goes). */
export type DraftTranslation = { status?: TranslationStatus; translated_fields?: Record<string, string | null> } | null;

/** What a draft holds besides attributes: whole relation lists (`parents`: its folders) and translation changes by language. */
export interface DraftParts {
  relationships?: Record<string, { data: Identifier[] }>;
  translations?: Record<string, DraftTranslation>;
}

/** `meta.draft` of a draft as GET /drafts/{id} answers it. */
export interface DraftMeta {
  created?: string;
  modified?: string;
  modified_by?: number | string | null;
  modified_by_name?: string | null;
  changed?: string[];
  translations?: Record<string, DraftTranslation>;
  submitted?: string | null;
  publish_at?: string | null;
}

/**
 * Drafts of published objects (/drafts): a change saved beside the live object until a publisher
 * publishes it (now or at an instant), discards it, or shares a preview link of it.
 */
export const drafts = {
  path: (id: string) => `/drafts/${encodeURIComponent(id)}`,
  /** The object as it will be, with `meta.draft`; null when it has no draft (404). */
  get: async (id: string): Promise<Resource | null> => {
    try {
      return tagged(await callTagged('GET', drafts.path(id))).data;
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) return null;
      throw e;
    }
  },
  /** Saves changes into the draft (made when there is none): attributes, and relations, place in folders (`parents`) or translations. */
  save: async (type: string, id: string, attributes: Record<string, unknown>, parts: DraftParts = {}) =>
    tagged(
      await callTagged('PATCH', drafts.path(id), {
        body: { data: { id, type, attributes, ...(parts.relationships ? { relationships: parts.relationships } : {}), ...(parts.translations ? { meta: { translations: parts.translations } } : {}) } },
      }),
    ).data,
  submit: async (id: string) => tagged(await callTagged('POST', `${drafts.path(id)}/submit`)).data,
  /** Publishes now against the live object's version `ifMatch`; the answer is the live object. */
  publish: async (id: string, ifMatch: string | null) => tagged(await callTagged('POST', `${drafts.path(id)}/publish`, { ifMatch })),
  schedule: async (id: string, publishAt: string) =>
    tagged(await callTagged('POST', `${drafts.path(id)}/publish`, { body: { publish_at: publishAt }, contentType: 'application/json' })).data,
  discard: (id: string) => call('DELETE', drafts.path(id)),
  preview: async (id: string): Promise<{ preview_token: string; preview_url: string; expires: string }> => (await call('POST', `${drafts.path(id)}/preview`)).meta,
  /** A draft read with its preview token, by anyone (no session needed). */
  readPreview: async (id: string, token: string) => toSingle(await call('GET', drafts.path(id), { query: { preview_token: token }, anonymous: true })),
};

/** The poster of a published object as anonymous readers get it (null when it has none or they may not). */
export async function publicPoster(type: string, id: string): Promise<string | null> {
  try {
    const list = toList(await call('GET', `/${encodeURIComponent(type)}/${encodeURIComponent(id)}/poster`, { anonymous: true }));
    const url = list.data[0]?.meta.media_url;
    return typeof url === 'string' ? relativeUrl(url) : null;
  } catch {
    return null;
  }
}
