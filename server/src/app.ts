// createServer(config): opens the database, wires every family and returns {app, listen, close}.
// The same factory serves `npm start`, the Electron main process and the tests; no global state.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import cors from 'cors';
import express, { type Express } from 'express';
import helmet from 'helmet';
import qs from 'qs';
import type { Config } from './config.js';
import { createTasks, type AppContext } from './context.js';
import { openDatabase, type OpenedDatabase } from './db/database.js';
import { createReadCache } from './db/read-cache.js';
import { createWriteBatcher } from './db/write-batch.js';
import { createResponseCache } from './http/response-cache.js';
import { authenticate, createTokenCache } from './http/auth.js';
import { batchedLineLog } from './http/request-log.js';
import { flushOncePerTurn } from './http/flush-per-turn.js';
import { createJobQueue, type JobQueue } from './jobs/queue.js';
import { createMailer, type Mailer } from './mail/mailer.js';
import { knownAuthInfo, loadAuthInfo } from './resources/accounts/auth-info.js';
import { knownRestrictions, restrictionsExist } from './resources/permissions/object-perms.js';
import { withRestrictions } from './identity.js';
import { createSchemaRegistry } from './resources/objects/schema.js';
import { StreamService } from './resources/streams/service.js';
import { ThumbService } from './resources/thumbs/service.js';
import { errorHandler, notFoundRoute, rawErrorResponse } from './http/errors.js';
import { directDispatch, methodFallback, mountRoutes } from './http/router.js';
import { fixedHeaders } from './http/fixed-headers.js';
import { families } from './resources/index.js';
import { ADMIN_ENDPOINTS } from './resources/admin/routes.js';
import { createKernel, whenCommitted, type KernelParts } from './resources/objects/pipeline.js';
import { modelFollower } from './resources/objects/model.js';
import { ensureInitialAdmin } from './resources/users/service.js';
import { openStorage } from './storage/open-storage.js';
import { withPublishEpochs } from './db/publish-epochs.js';
import { confirmByRefresh, READ_ALONG, readAlongOf, VersionMoved, type WithReadAlong } from './db/read-along.js';
import { nextPublishBound } from './resources/objects/publish-window.js';
import type { Storage } from './storage/storage.js';
import { markRunning } from './running.js';

export interface FolioServer {
  app: Express;
  ctx: AppContext;
  /** Start listening; resolves with the bound port and the URL to print. */
  listen(port?: number, host?: string): Promise<{ port: number; url: string }>;
  /** Stop accepting, finish requests in flight, run shutdown hooks, close the database. */
  close(): Promise<void>;
  /** Where the first-start admin password was written, when it was generated. */
  initialAdmin: { created: boolean; username?: string; passwordFile?: string };
}

export interface ServerOptions {
  /** Where the built admin UI lives (default: ui/dist of this checkout). */
  uiDir?: string;
  log?: (line: string) => void;
  /** Kernel parts an embedder adds after the families' own (tests: a guard or an observer of their own). */
  kernel?: KernelParts;
}

/** Requests Node's parser refuses (too large headers, too slow, malformed) get a JSON API error. */
function answerClientError(err: NodeJS.ErrnoException, socket: Duplex, base: string): void {
  // A response already under way on this connection cannot be followed by another one; an
  // earlier finished response on a keep-alive connection does not matter.
  const s = socket as Duplex & { _httpMessage?: { headersSent?: boolean } | null };
  if (err.code === 'ECONNRESET' || !s.writable || s._httpMessage?.headersSent) {
    s.destroy();
    return;
  }
  const [status, code, detail] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'headers_too_large', 'The request headers are too large']
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'request_timeout', 'The request took too long to arrive']
        : [400, 'malformed_request', 'The HTTP request is malformed'];
  s.end(rawErrorResponse(status as number, code as string, detail as string, base.replace(/\/$/, '')));
}

/** Set on a request whose data version was read as it arrived (PostgreSQL), so it is not read twice. */
const VERSION_READ = Symbol('data version read');
/** Jobs (mails, thumbnails) one instance runs at once. */
const JOB_CONCURRENCY = 4;

const defaultUiDir = () => fileURLToPath(new URL('../../ui/dist', import.meta.url));

/**
 * Request and response classes whose prototypes are the app's own `request` and `response`.
 * Express re-parents every incoming req/res with Object.setPrototypeOf, which V8 punishes: the
 * objects drop to slow property access for the rest of the request (measured: an empty express
 * handler ran at 40% of node:http). Created with the right prototype from the start, express's
 * setPrototypeOf finds nothing to change and requests run about 2.3x faster.
 */
function expressClasses(app: Express) {
  function Request(this: http.IncomingMessage, socket: unknown) {
    (http.IncomingMessage as unknown as (this: unknown, s: unknown) => void).call(this, socket);
  }
  Request.prototype = app.request;
  function Response(this: http.ServerResponse, req: unknown, options: unknown) {
    (http.ServerResponse as unknown as (this: unknown, r: unknown, o: unknown) => void).call(this, req, options);
  }
  Response.prototype = app.response;
  return { IncomingMessage: Request as unknown as typeof http.IncomingMessage, ServerResponse: Response as unknown as typeof http.ServerResponse };
}

/**
 * The composition root: the services every family is given, built once with their types, on an
 * opened database and storage, and the write kernel assembled once from every family's parts
 * (resources/family.ts) and `extra`, with the request checks. Nothing starts (no job worker, no
 * timers, no first admin). createServer mounts the families' routes on it; commands that run
 * outside a server (`npm run model`) use it as it is, with the same kernel and the same guards.
 */
export async function createContext(config: Config, database: OpenedDatabase, storage: Storage, log: (line: string) => void, extra: KernelParts = {}): Promise<AppContext> {
  // The job queue, mail, streams and thumbnails take the context (or part of it), so they are set
  // right after it exists.
  // Caches also follow publication windows: the version moves when a window bound passes.
  const dataVersion = withPublishEpochs(database.dataVersion, (after) => nextPublishBound(database.db, after), log);
  const ctx: AppContext = {
    config,
    db: database.db,
    dialect: database.dialect,
    dataVersion,
    readCache: createReadCache(dataVersion),
    writes: createWriteBatcher(database.db),
    responseCache: createResponseCache(dataVersion),
    jwtSecret: config.jwtSecret ?? (await database.keptJwtSecret()),
    log,
    tasks: createTasks(log, () => database.statistics.settle()),
    routes: [],
    // The job queue stops first (due work gets its grace time), then the mail transport closes.
    onClose: [() => ctx.jobs.stop(), () => ctx.mailer.close()],
    objects: createKernel([]),
    model: {},
    schemas: createSchemaRegistry(),
    tokens: createTokenCache(),
    unameHints: new Map(),
    ownUrl: null,
    storage,
    jobs: undefined as unknown as JobQueue,
    mailer: undefined as unknown as Mailer,
    webhooks: null,
    streams: undefined as unknown as StreamService,
    thumbs: undefined as unknown as ThumbService,
    requestChecks: [],
  };
  ctx.jobs = createJobQueue({
    db: database.db,
    dialect: database.dialect,
    log,
    // A job queued inside a unit of work wakes the worker after its commit.
    afterCommit: (trx, fn) => whenCommitted(ctx, trx, fn),
    leaseMs: config.jobLeaseMs,
    pollMs: config.jobPollMs,
    concurrency: JOB_CONCURRENCY,
    graceMs: config.jobShutdownGraceMs,
  });
  ctx.mailer = createMailer(config, ctx.jobs);
  ctx.streams = new StreamService(ctx);
  ctx.thumbs = new ThumbService(ctx, ctx.streams);
  ctx.objects = createKernel([...families.map((f) => f.kernel?.(ctx) ?? {}), extra]);
  ctx.requestChecks = families.flatMap((f) => f.requestChecks?.(ctx) ?? []);
  return ctx;
}

export async function createServer(config: Config, options: ServerOptions = {}): Promise<FolioServer> {
  // Without the embedder's own log: standard output, written in batches (http/request-log.ts).
  const stdoutLog = options.log ? null : batchedLineLog();
  // Lines queued in the last turn before an exit are written too.
  if (stdoutLog) process.on('exit', stdoutLog.flush);
  const log = options.log ?? stdoutLog!;
  fs.mkdirSync(config.dataDir, { recursive: true });
  const database = await openDatabase(config, log);
  const storage = await openStorage(config.storage, { dataDir: config.dataDir });
  if (storage.kind !== 'local') {
    // Not awaited: a bucket that is down at start is reported, and requests answer 503 until it is back.
    storage.check().catch((err) => log(`storage: ${storage.description} does not answer: ${(err as Error).message}`));
  }
  const ctx = await createContext(config, database, storage, log, options.kernel);

  const app = express();
  app.locals.ctx = ctx;
  app.disable('x-powered-by');
  // Paths are case-sensitive, express's own routes (the admin UI's /admin) as the declared ones
  // (http/router.ts): /ADMIN is 404, not the UI.
  app.enable('case sensitive routing');
  // FOLIO_TRUST_PROXY (issue 21, proxies): req.ip, req.protocol and req.host follow X-Forwarded-* only from trusted proxies.
  app.set('trust proxy', config.trustProxy);
  const parseQuery = (str: string) => qs.parse(str, { depth: 4, arrayLimit: 100, parameterLimit: 1000 });
  app.set('query parser', parseQuery);
  // express 5 parses the query string again on every read of req.query: parse it once.
  const parsedQuery = Symbol('query');
  Object.defineProperty(app.request, 'query', {
    configurable: true,
    enumerable: true,
    get(this: express.Request & { [parsedQuery]?: unknown }) {
      if (this[parsedQuery] === undefined) {
        const at = this.url.indexOf('?');
        this[parsedQuery] = parseQuery(at < 0 ? '' : this.url.slice(at + 1));
      }
      return this[parsedQuery];
    },
  });

  const securityHeaders = fixedHeaders(
    helmet({
      contentSecurityPolicy: {
        directives: { 'img-src': ["'self'", 'data:', 'blob:'], 'connect-src': ["'self'"], 'upgrade-insecure-requests': null },
      },
      crossOriginResourcePolicy: { policy: 'cross-origin' },
      strictTransportSecurity: false,
    }),
  );
  app.use(securityHeaders);
  if (config.corsOrigins.length) {
    app.use(
      cors({
        origin: config.corsOrigins.includes('*') ? '*' : config.corsOrigins,
        allowedHeaders: ['Authorization', 'Content-Type', 'Accept', 'X-Api-Key'],
        exposedHeaders: ['Location', 'Content-Disposition', 'ETag'],
        methods: ['GET', 'HEAD', 'POST', 'PATCH', 'PUT', 'DELETE'],
        maxAge: 600,
      }),
    );
  }

  const uiDir = options.uiDir ?? defaultUiDir();
  // Browsers ask for /favicon.ico on every origin: answer with the admin UI's icon (issue 23).
  app.get('/favicon.ico', (req, res, next) => {
    const icon = path.join(uiDir, 'favicon.ico');
    if (!fs.existsSync(icon)) return next();
    res.sendFile(icon, { maxAge: '1d' });
  });
  app.use('/admin', express.static(uiDir, { index: 'index.html', maxAge: '1h' }));
  // Every other path under /admin is the UI; BEdita's /admin/{name} endpoints go on to the routes.
  const adminApi = new RegExp(`^/admin/(${ADMIN_ENDPOINTS.join('|')})(/|$)`);
  app.get(/^\/admin(\/.*)?$/, (req, res, next) => {
    if (adminApi.test(req.path)) return next();
    const index = path.join(uiDir, 'index.html');
    if (!fs.existsSync(index)) return next();
    res.sendFile(index);
  });

  const followModel = modelFollower(ctx);
  // A signed-in user's identity as held (most requests), else read.
  const identityOf = (userId: number) => {
    const known = knownAuthInfo(ctx, userId);
    return known !== undefined ? known : loadAuthInfo(ctx, userId);
  };
  const auth = authenticate({ tokens: ctx.tokens, secret: ctx.jwtSecret, issuer: config.baseUrl?.replace(/\/$/, '') ?? null, loadIdentity: identityOf, expiredTokenCode: config.expiredTokenCode });
  app.use(auth);
  const beforeRoutes: express.RequestHandler = async (req, res, next) => {
    // A request a cacheable route answered before, with nothing written since: answered here,
    // without walking the routes (see http/response-cache.ts).
    // PostgreSQL: the data version is read first, so another instance's writes drop the cache,
    // and another instance's change of the object model is loaded here too.
    // A read by id on PostgreSQL may go ahead without it (db/read-along.ts): its read confirms it.
    const along = readAlongOf(req);
    if (!along && !(req as typeof req & { [VERSION_READ]?: true })[VERSION_READ]) {
      const fresh = ctx.dataVersion.refresh();
      if (typeof fresh !== 'number') await fresh;
    }
    // Each step below waits only when it has to (a promise per step cost every read a few µs).
    const following = followModel();
    if (following) await following;
    // Anonymous callers and applications know, as users do (auth-info.ts), whether any object
    // permission exists: their lists then leave the object-permission condition out on a site
    // without any (kept until the next write to the settings).
    if (req.auth.restrictions === undefined && !req.auth.isAdmin) req.auth = withRestrictions(req.auth, knownRestrictions(ctx) ?? (await restrictionsExist(ctx)));
    // The request checks see the model as it is now (a field another process just hid).
    for (const check of ctx.requestChecks) {
      const checking = check(req);
      if (checking) await checking;
    }
    // A held answer goes out only once the version is read (confirmByRefresh throws VersionMoved if it moved).
    if (along && ctx.responseCache.size && ctx.responseCache.holds(req)) await confirmByRefresh(ctx.dataVersion, along);
    if (ctx.responseCache.serve(req, res)) return;
    next();
  };
  app.use(beforeRoutes);
  for (const family of families) if (family.routes) mountRoutes(app, ctx, await family.routes(ctx));
  // Reads by id go straight to their route, through the middlewares above (CORS, when configured,
  // is left to express's path: its answers depend on the request's Origin).
  const onError = errorHandler(config.debug, log, database.dialect.errors);
  // A request read along (db/read-along.ts) answered again from the start, the data version read
  // first this time (it moved, or the request leaves the route that confirms it).
  const afresh = (req: express.Request, res: express.Response, then: (req: express.Request, res: express.Response) => void) => {
    (req as express.Request & WithReadAlong)[READ_ALONG] = undefined;
    req.authError = undefined;
    const fresh = ctx.dataVersion.refresh();
    const go = () => {
      (req as express.Request & { [VERSION_READ]?: true })[VERSION_READ] = true;
      then(req, res);
    };
    if (typeof fresh === 'number') go();
    else fresh.then(go, () => app(req, res));
  };
  // Errors of a request read along: sent only once its version is confirmed (an error may come from
  // a cache: an unknown type, a session another instance ended).
  const alongErrors: express.ErrorRequestHandler = (err, req, res, next) => {
    const along = readAlongOf(req);
    if (!along || res.headersSent) return onError(err, req, res, next);
    if (err instanceof VersionMoved) return afresh(req, res, answer);
    if (along.confirmed) return onError(err, req, res, next);
    confirmByRefresh(ctx.dataVersion, along).then(
      () => onError(err, req, res, next),
      (moved: unknown) => (moved instanceof VersionMoved ? afresh(req, res, answer) : onError(moved, req, res, next)),
    );
  };
  const passOn = (req: express.Request, res: express.Response) => (readAlongOf(req) ? afresh(req, res, app) : app(req, res));
  const direct = config.corsOrigins.length
    ? null
    : directDispatch(app, [securityHeaders, auth, beforeRoutes], alongErrors, (p) => p === '/favicon.ico' || p === '/admin' || p.startsWith('/admin/'), passOn);
  // Reads by id and a type's list take the data version along with their rows (db/read-along.ts).
  const readsAlong = direct !== null && ctx.dataVersion.along !== undefined;
  app.use(methodFallback(ctx.routes));
  app.use(notFoundRoute);
  app.use(onError);

  const initialAdmin = await ensureInitialAdmin(ctx);
  // Every kind of job is defined by now (mail, thumbnails): the worker may claim.
  ctx.jobs.start();

  const classes = expressClasses(app);
  // Cached anonymous answers go out before express when no middleware in front of the routes
  // depends on the request: no CORS (its headers follow the Origin) and no API key required
  // (see http/response-cache.ts). The request log is written here, for both paths.
  const rawHits = !config.corsOrigins.length && !config.requireApiKey;
  const handler: http.RequestListener = (req, res) => {
    if (config.logRequests) {
      const started = process.hrtime.bigint();
      // As received: express rewrites req.url inside mounted middleware (/admin).
      const pathname = (req.url ?? '').split('?')[0];
      res.on('finish', () => {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        log(`${req.method} ${pathname} ${res.statusCode} ${ms.toFixed(1)}ms`);
      });
    }
    // The data version is read once, as the request starts: every cache the request consults
    // (answers, auth, counts) is checked against it, so another instance's write answered before
    // this request began is always seen (PostgreSQL: one query; SQLite: always current).
    if (readsAlong && direct.readsAlong(req as express.Request)) {
      const along = ctx.dataVersion.along!;
      (req as http.IncomingMessage & WithReadAlong)[READ_ALONG] = { expected: along.seen(), confirmed: false };
      // Up to its first wait, its caches are checked against the version as last seen (SQLite: no
      // pragma read); its read confirms it.
      if (along.assume) along.assume(() => answer(req, res));
      else answer(req, res);
      return;
    }
    const fresh = ctx.dataVersion.refresh();
    if (typeof fresh !== 'number') {
      fresh.then(
        () => {
          (req as http.IncomingMessage & { [VERSION_READ]?: true })[VERSION_READ] = true;
          answer(req, res);
        },
        // The database is out of reach: the app tries again and reports it.
        () => app(req, res),
      );
      return;
    }
    (req as http.IncomingMessage & { [VERSION_READ]?: true })[VERSION_READ] = true;
    answer(req, res);
  };
  /** A cached anonymous answer, else a direct route, else express. */
  const answer = (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (rawHits && ctx.responseCache.size) {
      // A held answer goes out only after the version is read: a request read along reads it now.
      if (readAlongOf(req)) {
        if (ctx.responseCache.holdsRaw(req)) return afresh(req as express.Request, res as express.Response, answer as never);
      } else if (ctx.responseCache.serveRaw(req, res)) return;
    }
    if (direct?.(req as express.Request, res as express.Response)) return;
    app(req, res);
  };
  let server: http.Server | null = null;
  let closing: Promise<void> | null = null;
  let unmarkRunning = () => {};
  return {
    app,
    ctx,
    initialAdmin,
    listen(port = config.port, host = config.host) {
      return new Promise((resolve, reject) => {
        const { requestTimeoutMs, headersTimeoutMs } = config;
        const s = http.createServer(
          {
            requestTimeout: requestTimeoutMs,
            headersTimeout: Math.min(headersTimeoutMs, requestTimeoutMs),
            keepAliveTimeout: 5000,
            // How often Node looks for requests past their timeout (its default is 30 s).
            connectionsCheckingInterval: Math.max(50, Math.min(30_000, Math.floor(Math.min(headersTimeoutMs, requestTimeoutMs) / 4))),
            ...classes,
          },
          handler,
        );
        let ownUrl = '';
        s.on('connection', flushOncePerTurn);
        s.on('clientError', (err: NodeJS.ErrnoException, socket) => answerClientError(err, socket, config.baseUrl ?? ownUrl));
        s.once('error', reject);
        s.listen(port, host, () => {
          server = s;
          const bound = (s.address() as AddressInfo).port;
          const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
          ownUrl = `http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${bound}`;
          ctx.ownUrl = ownUrl;
          unmarkRunning = markRunning(config.dataDir, bound, ownUrl);
          resolve({ port: bound, url: ownUrl });
        });
      });
    },
    close() {
      // A second call waits for the first (the database closes once).
      closing ??= closeAll();
      return closing;
    },
  };

  async function closeAll(): Promise<void> {
    if (server) {
      const s = server;
      server = null;
      unmarkRunning();
      await new Promise<void>((resolve) => {
        // A connection whose request finishes after close() turns idle and would otherwise
        // stay open until keepAliveTimeout: sweep idle ones until the last is gone.
        const sweep = setInterval(() => s.closeIdleConnections(), 50);
        s.close(() => {
          clearInterval(sweep);
          resolve();
        });
        s.closeIdleConnections();
      });
    }
    await ctx.tasks.drain();
    for (const hook of ctx.onClose) await hook();
    await storage.close();
    await database.close();
    if (stdoutLog) {
      stdoutLog.flush();
      process.off('exit', stdoutLog.flush);
    }
  }
}
