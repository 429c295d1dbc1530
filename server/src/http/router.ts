// Endpoint declarations. A family lists its endpoints as RouteDef objects — method, path, guard,
// what it reads and answers, and the one handler — and mountRoutes wires them into express with
// negotiation, body parsing and the permission guard (one dispatcher, not express's route walk).
// The registry also answers 405 and /home.
import express, { type ErrorRequestHandler, type Express, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { match } from 'path-to-regexp';
import { ApiError, methodNotAllowed } from './errors.js';
import { checkContentType, isJsonType, negotiate, type BodyKind, type Produces } from './negotiate.js';
import { enforceGuard, type Guard } from './auth.js';
import { parseFieldsets } from './jsonapi.js';
import type { ResponseCache, Vary } from './response-cache.js';

export type Method = 'get' | 'post' | 'patch' | 'put' | 'delete';

/** Handlers close over the services their family was built with: only the request and response come in. */
export type Handler = (req: Request, res: Response) => unknown | Promise<unknown>;

export interface RouteDef {
  method: Method;
  path: string;
  guard: Guard;
  handler: Handler;
  /** Response media types (default 'jsonapi'). */
  produces?: Produces;
  /** Request body kind (default 'json' for post/patch/put/delete, 'none' for get). */
  body?: BodyKind;
  /** When false for a request, the route is skipped (used to choose the legacy layout). */
  when?: (req: Request) => boolean;
  /** Extra middleware run after the guard, before the body is parsed (e.g. rate limits). */
  before?: RequestHandler[];
  /**
   * A read whose answer depends only on the request's URL, Accept, base URL and caller and on the
   * data: it may be answered from the response cache until the next write (see response-cache.ts).
   */
  cache?: boolean;
  /** With `cache`: what in the request the answer depends on (default: the whole URL and Accept). */
  vary?: Vary;
  /**
   * What a route that is not a read may change: `objects` (through the write kernel, which checks
   * the rights on every object a change touches, records and versions it) and the names of the
   * other tables it writes (db/owners.ts); `[]` for none. Every non-GET route declares it, and
   * structure-entry-points.test.ts attacks each route by its declaration.
   */
  writes?: readonly string[];
  /**
   * A GET route answered directly from the server's request handler (directDispatch) when it is
   * the first route whose path matches: the same middlewares and chain, without walking express's
   * stack (a `when` that declines sends the request through express from the start).
   */
  direct?: boolean;
  /**
   * With `direct`: the route's read confirms the data version (db/read-along.ts), so on PostgreSQL
   * the request may go ahead without reading it first.
   */
  readsAlong?: boolean;
}

export interface RouteRecord {
  method: Method;
  path: string;
  guard: Guard;
  produces: Produces;
  matcher: (path: string) => unknown;
  /** The route's `when`, so 405 answers only count routes that would take the request. */
  when?: (req: Request) => boolean;
  /** What it may change (RouteDef.writes). */
  writes?: readonly string[];
}

const JSON_LIMIT = '2mb';

/** Deepest nesting a JSON body may have: deeper documents would overflow the stack of recursive code (JSON.stringify, validators). */
export const MAX_BODY_DEPTH = 64;

/** Walks the parsed body without recursion; 400 past MAX_BODY_DEPTH. */
const refuseDeepBodies: RequestHandler = (req, _res, next) => {
  const stack: Array<[unknown, number]> = [[req.body, 1]];
  while (stack.length) {
    const [value, depth] = stack.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    if (depth > MAX_BODY_DEPTH) throw new ApiError(400, 'body_too_deep', `The request body is nested deeper than ${MAX_BODY_DEPTH} levels`);
    for (const child of Object.values(value)) stack.push([child, depth + 1]);
  }
  next();
};

function bodyParsers(kind: BodyKind): RequestHandler[] {
  if (kind === 'none' || kind === 'raw') return [];
  const json = express.json({ limit: JSON_LIMIT, type: (req) => isJsonType(req as Request) || !req.headers['content-type'] });
  if (kind === 'form') return [json, express.urlencoded({ extended: false, limit: JSON_LIMIT }), refuseDeepBodies];
  return [json, refuseDeepBodies];
}

/** What mountRoutes fills and uses: the registry of declared routes and the response cache. */
export interface RouteTable {
  routes: RouteRecord[];
  responseCache: ResponseCache;
}

/** A declared route as the dispatcher runs it: its matcher and its chain of handlers. */
interface Mounted {
  /** How specific its path is (specificity()): among the routes that match, the most specific answers first. */
  rank: string;
  /** Registration order: among routes of the same specificity, the first declared answers first. */
  order: number;
  match: (path: string) => { params: Record<string, unknown> } | false;
  chain: RequestHandler[];
  /** RouteDef.direct. */
  direct: boolean;
  /** RouteDef.readsAlong. */
  readsAlong: boolean;
}

/** Routes of one method: by their literal first path segment, and those whose first segment is a parameter. */
interface MethodRoutes {
  bySegment: Map<string, Mounted[]>;
  anySegment: Mounted[];
  /** bySegment's list merged with anySegment in declaration order, made on first use. */
  merged: Map<string, Mounted[]>;
}

/**
 * A path's specificity, as a key that sorts the most specific first: segment by segment, a literal
 * segment before a parameter, and a parameter before a wildcard (`*rest`), so that
 * `/{type}/{id}/history` wins over `/{type}/{id}/{relation}` and `/folders/{id}` over `/{type}/{id}`
 * whatever order their families were mounted in; a shorter path before a longer one that extends it.
 */
export function specificity(path: string): string {
  const segments = path.split('/').filter(Boolean);
  return segments.map((s) => (s.startsWith('*') || s.startsWith('{') ? '2' : s.includes(':') ? '1' : '0')).join('');
}

/** Routes sorted as the dispatcher tries them: by specificity, then declaration order. */
const byPrecedence = (a: Mounted, b: Mounted) => (a.rank < b.rank ? -1 : a.rank > b.rank ? 1 : a.order - b.order);

/** A first path segment without parameters or wildcards: the routes under it are found by it. */
const LITERAL_SEGMENT = /^\/([A-Za-z0-9_.~-]*)(?:\/|$)/;

/** express's decoding of path parameters: a malformed one is the client's mistake (400). */
function decodeParam(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch (err) {
    if (err instanceof URIError) throw Object.assign(err, { message: `Failed to decode param '${value}'`, status: 400 });
    throw err;
  }
}

/**
 * How a declared path matches a request's: case-sensitive, so that `/OBJECTS/1` is no other
 * spelling of `/objects/1` (404) and no rule keyed on a path (endpoint permissions, disabled
 * endpoints, route guards) can be stepped around; parameters decoded as express does.
 */
const PATH_MATCH = { decode: decodeParam, sensitive: true };

/**
 * The routes of consecutive mountRoutes calls, answered by one middleware. express walks its
 * stack one layer at a time, testing each route's pattern and running its parameter machinery:
 * with a few hundred routes, GET /documents/1 (a generic route, declared last) tested nearly all of
 * them (measured: about a sixth of an uncached read's CPU). Here a request looks only at the routes
 * of its method whose first segment is its own or a parameter, in declaration order, with
 * path-to-regexp's matching (trailing slash allowed) but case-sensitive (PATH_MATCH), the same
 * `req.params` as express, HEAD answered by GET routes, and next() / next('route') / next(err) as in express.
 */
class Dispatcher {
  private readonly methods = new Map<string, MethodRoutes>();
  private count = 0;

  readonly handle: RequestHandler = (req, res, done) => {
    const routes = this.methods.get(req.method === 'HEAD' ? 'GET' : req.method);
    if (!routes) return done();
    const path = req.path;
    const literal = LITERAL_SEGMENT.exec(path);
    const candidates = literal ? this.candidates(routes, literal[1]) : routes.anySegment;
    let i = 0;
    const nextRoute = (err?: unknown): void => {
      if (err !== undefined && err !== 'route') return done(err === 'router' ? undefined : err);
      while (i < candidates.length) {
        const route = candidates[i++];
        let matched: { params: Record<string, unknown> } | false;
        try {
          matched = route.match(path);
        } catch (e) {
          return done(e);
        }
        if (!matched) continue;
        req.params = matched.params as Request['params'];
        return this.run(route.chain, req, res, nextRoute);
      }
      done();
    };
    nextRoute();
  };

  /**
   * The chain and parameters of the route that answers GET `path` if it is a direct one (the first
   * whose path matches, as handle() would find it); null otherwise, or when a malformed parameter
   * makes matching fail (express's path then answers it).
   */
  direct(path: string): { chain: RequestHandler[]; params: Record<string, unknown>; readsAlong: boolean } | null {
    const routes = this.methods.get('GET');
    if (!routes) return null;
    const literal = LITERAL_SEGMENT.exec(path);
    for (const route of literal ? this.candidates(routes, literal[1]) : routes.anySegment) {
      let matched: { params: Record<string, unknown> } | false;
      try {
        matched = route.match(path);
      } catch {
        return null;
      }
      if (matched) return route.direct ? { chain: route.chain, params: matched.params, readsAlong: route.readsAlong } : null;
    }
    return null;
  }

  private candidates(routes: MethodRoutes, segment: string): Mounted[] {
    let list = routes.merged.get(segment);
    if (!list) {
      const own = routes.bySegment.get(segment);
      if (!own) return routes.anySegment;
      list = [...own, ...routes.anySegment].sort(byPrecedence);
      routes.merged.set(segment, list);
    }
    return list;
  }

  /** One route's handlers in turn; what the last passes on (or any passes as 'route' or an error) goes to `after`. */
  run(chain: RequestHandler[], req: Request, res: Response, after: (err?: unknown) => void): void {
    let k = 0;
    const next = (err?: unknown): void => {
      if (err !== undefined || k >= chain.length) return after(err);
      const handler = chain[k++];
      try {
        const result = handler(req, res, next) as unknown;
        if (result instanceof Promise) result.catch((e: unknown) => next(e ?? new Error('Rejected promise')));
      } catch (e) {
        next(e);
      }
    };
    next();
  }

  add(method: Method, path: string, chain: RequestHandler[], direct = false, readsAlong = false): void {
    const key = method.toUpperCase();
    let routes = this.methods.get(key);
    if (!routes) this.methods.set(key, (routes = { bySegment: new Map(), anySegment: [], merged: new Map() }));
    const route: Mounted = { rank: specificity(path), order: this.count++, match: match(path, PATH_MATCH) as Mounted['match'], chain, direct, readsAlong };
    const literal = LITERAL_SEGMENT.exec(path);
    if (literal) {
      const segment = literal[1];
      routes.bySegment.set(segment, [...(routes.bySegment.get(segment) ?? []), route].sort(byPrecedence));
    } else {
      routes.anySegment.push(route);
      routes.anySegment.sort(byPrecedence);
    }
    routes.merged.clear();
  }
}

/** The dispatcher at the end of the app's stack, if the last mountRoutes left it there (nothing registered since). */
const dispatchers = new WeakMap<Express, Dispatcher>();

function dispatcherOf(app: Express): Dispatcher {
  const stack = (app as unknown as { router: { stack: Array<{ handle: unknown }> } }).router.stack;
  const last = dispatchers.get(app);
  if (last && stack[stack.length - 1]?.handle === last.handle) return last;
  const dispatcher = new Dispatcher();
  app.use(dispatcher.handle);
  dispatchers.set(app, dispatcher);
  return dispatcher;
}

export function mountRoutes(app: Express, { routes, responseCache }: RouteTable, defs: RouteDef[]): void {
  const dispatcher = dispatcherOf(app);
  for (const def of defs) {
    const produces = def.produces ?? 'jsonapi';
    const body = def.body ?? (def.method === 'get' ? 'none' : 'json');
    const shape = def.cache ? responseCache.declare(def.vary) : null;
    routes.push({
      method: def.method,
      path: def.path,
      guard: def.guard,
      produces,
      matcher: match(def.path, PATH_MATCH),
      when: def.when,
      writes: def.writes,
    });
    const pre: RequestHandler = (req, res, next) => {
      if (def.when && !def.when(req)) return next('route');
      // Who asks comes first: a caller who may not use the endpoint at all learns no more (401/403)
      // than that, whatever it accepts.
      enforceGuard(req, def.guard);
      const type = negotiate(req, produces);
      if (type) res.type(type);
      checkContentType(req, body);
      // fields[…] shapes the answer: refuse a malformed one before a write happens, not after.
      if (produces === 'jsonapi' && req.query.fields !== undefined) parseFieldsets(req);
      next();
    };
    const run: RequestHandler = async (req, res, next) => {
      try {
        if (req.body === undefined && body !== 'raw' && body !== 'none') req.body = {};
        // Hits are answered before the routes (app.ts); this stores the answer of a miss.
        if (shape) responseCache.capture(req, res, shape);
        await def.handler(req, res);
      } catch (err) {
        next(err);
      }
    };
    if (def.direct && def.method !== 'get') throw new Error(`${def.method.toUpperCase()} ${def.path}: only GET routes may be direct`);
    if (def.readsAlong && !def.direct) throw new Error(`${def.method.toUpperCase()} ${def.path}: only direct routes may read the version along`);
    dispatcher.add(def.method, def.path, [pre, ...(def.before ?? []), ...bodyParsers(body), run], def.direct, def.readsAlong);
  }
}

/**
 * Reads of direct routes (RouteDef.direct) answered from the server's request handler, without
 * express's stack: its router walked every layer in front of the routes, matching each one's path
 * (about a sixth of an uncached read by id: issue 48). The request goes through the same
 * functions as on express's path, in the same order: `front` (the app's middlewares in front of
 * the routes, those whose paths cannot be the route's left out), then the route's chain, errors to
 * `onError` (the app's error handler); the request and response are set up as express's app and
 * router set them up. Returns false, having done nothing, for any request it does not take: not a
 * GET or HEAD, a path `skip` says express's own layers serve, or no direct route answering first;
 * a route that passes the request on (next() without an error) sends it through express from the start.
 */
export interface DirectDispatch {
  /** Answers `req` when a direct route takes it; false, having done nothing, otherwise. */
  (req: Request, res: Response): boolean;
  /** Whether the direct route that would take `req` reads the data version along (RouteDef.readsAlong). */
  readsAlong(req: Request): boolean;
}

/** The direct route found for a request (looked up once when readsAlong() asked first). */
const DIRECT_ROUTE = Symbol('direct route');
type DirectRoute = ReturnType<Dispatcher['direct']>;

/** `passOn`: where a request a direct route passes on (next()) goes; express's app by default. */
export function directDispatch(app: Express, front: RequestHandler[], onError: ErrorRequestHandler, skip: (path: string) => boolean, passOn: (req: Request, res: Response) => void = app): DirectDispatch {
  const dispatcher = dispatcherOf(app);
  /** `front` and each direct route's chain, joined once. */
  const joined = new WeakMap<RequestHandler[], RequestHandler[]>();
  const routeOf = (req: Request & { [DIRECT_ROUTE]?: DirectRoute }): DirectRoute => {
    if (req[DIRECT_ROUTE] !== undefined) return req[DIRECT_ROUTE];
    let route: DirectRoute = null;
    if (req.method === 'GET' || req.method === 'HEAD') {
      const url = req.url;
      const at = url.indexOf('?');
      const path = at < 0 ? url : url.slice(0, at);
      if (!skip(path)) route = dispatcher.direct(path);
    }
    return (req[DIRECT_ROUTE] = route);
  };
  const dispatch = (req: Request, res: Response): boolean => {
    const route = routeOf(req);
    if (!route) return false;
    const url = req.url;
    req.res = res;
    res.req = req;
    if (!res.locals) res.locals = Object.create(null);
    req.baseUrl = '';
    req.originalUrl = url;
    req.params = route.params as Request['params'];
    const failed = (err: unknown) => onError(err, req, res, () => {});
    let chain = joined.get(route.chain);
    if (!chain) joined.set(route.chain, (chain = [...front, ...route.chain]));
    dispatcher.run(chain, req, res, (err) => (err !== undefined && err !== 'route' ? failed(err) : passOn(req, res)));
    return true;
  };
  return Object.assign(dispatch, { readsAlong: (req: Request) => routeOf(req)?.readsAlong ?? false });
}

/** After every route: 405 with Allow for a known path, else 404; OPTIONS answers Allow. */
export function methodFallback(routes: readonly RouteRecord[]): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const allowed = new Set<string>();
    for (const r of routes) if (r.matcher(req.path) && (!r.when || r.when(req))) allowed.add(r.method.toUpperCase());
    if (!allowed.size) return next();
    if (allowed.has('GET')) allowed.add('HEAD');
    const allow = [...allowed].sort();
    if (req.method === 'OPTIONS') {
      res.setHeader('Allow', [...allow, 'OPTIONS'].join(', '));
      res.status(204).end();
      return;
    }
    next(methodNotAllowed(allow));
  };
}

export { ApiError };
