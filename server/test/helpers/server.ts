// Starts a real Folio server on a loopback port over a fresh temp data dir, and offers a small
// fetch wrapper for the tests. Every test file uses this one helper.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createServer, type FolioServer, type ServerOptions } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createTestDatabase } from './test-database.js';

export const ADMIN = { username: 'admin', password: 'admin-secret-1' };

export interface TestServer {
  url: string;
  server: FolioServer;
  dataDir: string;
  /** The PostgreSQL database the server runs on (FOLIO_TEST_DB=postgres), else null: SQLite in dataDir. */
  databaseUrl: string | null;
  /** Issue a request; JSON bodies are serialised; the answer's JSON (if any) is parsed. */
  request(method: string, path: string, opts?: RequestOptions): Promise<TestResponse>;
  login(username?: string, password?: string): Promise<{ jwt: string; renew: string }>;
  /** An admin access token (logged in once, cached). */
  adminToken(): Promise<string>;
  close(): Promise<void>;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  /** Raw body (Buffer or string) sent as is. */
  raw?: Buffer | string;
  headers?: Record<string, string>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS']);

/** fetch's error for a connection reset or closed by the other side before any answer came. */
function connectionLost(err: unknown): boolean {
  const cause = (err as { cause?: { code?: string } } | null)?.cause;
  return err instanceof TypeError && ['ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE'].includes(String(cause?.code));
}

/** `overrides` set Config fields that have no environment variable (timeouts); `options` the UI dir. */
export async function startServer(
  env: Record<string, string> = {},
  overrides: Partial<Config> = {},
  options: Omit<ServerOptions, 'log'> = {},
): Promise<TestServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-test-'));
  // FOLIO_TEST_DB=postgres: a fresh PostgreSQL database per server (see test-database.ts).
  const database = await createTestDatabase();
  const config = loadConfig(
    {
      FOLIO_ADMIN_USERNAME: ADMIN.username,
      FOLIO_ADMIN_PASSWORD: ADMIN.password,
      FOLIO_LOGIN_LIMIT: '0',
      ...(database ? { FOLIO_DATABASE_URL: database.url } : {}),
      ...env,
      FOLIO_DATA_DIR: dataDir,
    },
    { logRequests: false, ...overrides },
  );
  let server: FolioServer;
  try {
    server = await createServer(config, { ...options, log: () => {} });
  } catch (err) {
    await database?.drop();
    throw err;
  }
  const { port } = await server.listen(0, '127.0.0.1');
  const url = `http://127.0.0.1:${port}`;
  let cachedAdmin: string | null = null;

  const request: TestServer['request'] = async (method, p, opts = {}) => {
    const headers: Record<string, string> = { Accept: 'application/vnd.api+json', ...(opts.headers ?? {}) };
    if (opts.token) headers.Authorization = `Bearer ${opts.token}`;
    let body: string | Uint8Array | undefined;
    if (opts.raw !== undefined) body = typeof opts.raw === 'string' ? opts.raw : new Uint8Array(opts.raw);
    else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['Content-Type'] ??= 'application/vnd.api+json';
    }
    // Buffers are valid fetch bodies at run time; @types/node's BodyInit lacks them.
    const send = () => fetch(url + p, { method, headers, body: body as string | undefined, redirect: 'manual' });
    let res: Response;
    try {
      res = await send();
    } catch (err) {
      // A kept-alive connection the server closed as idle while this request was being sent on it
      // (a busy machine runs the two timers late): browsers send such a request again on a new
      // connection when it is idempotent, and so does this.
      if (!IDEMPOTENT.has(method.toUpperCase()) || !connectionLost(err)) throw err;
      res = await send();
    }
    const text = await res.text();
    let parsed: any = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = null;
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  };

  const login: TestServer['login'] = async (username = ADMIN.username, password = ADMIN.password) => {
    const res = await request('POST', '/auth', { body: { username, password }, headers: { 'Content-Type': 'application/json' } });
    if (res.status !== 200) throw new Error(`login failed: ${res.status} ${res.text}`);
    return res.body.meta;
  };

  return {
    url,
    server,
    dataDir,
    databaseUrl: database?.url ?? null,
    request,
    login,
    async adminToken() {
      cachedAdmin ??= (await login()).jwt;
      return cachedAdmin;
    },
    async close() {
      await server.close();
      await database?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The environment of another server on the same data as `t` (its data dir and, on PostgreSQL, its database). */
export function sameData(t: Pick<TestServer, 'dataDir' | 'databaseUrl'>): Record<string, string> {
  return { FOLIO_DATA_DIR: t.dataDir, ...(t.databaseUrl ? { FOLIO_DATABASE_URL: t.databaseUrl } : {}) };
}

/**
 * The account limits count in fixed windows (15 minutes for logins, an hour for mail, from the
 * epoch): a test that fills one and then expects the next hit refused waits, when the current
 * window ends within `needMs`, for the next one to begin (a run crossing the edge starts afresh
 * half way, as the limit is documented to).
 */
export async function awayFromWindowEdge(windowMs: number, needMs = 20_000): Promise<void> {
  const left = windowMs - (Date.now() % windowMs);
  if (left < needMs) await new Promise((resolve) => setTimeout(resolve, left + 250));
}
export const LOGIN_WINDOW_MS = 15 * 60 * 1000;
export const MAIL_WINDOW_MS = 60 * 60 * 1000;

/** Assert the spec's error body and return it. */
export function expectError(res: TestResponse, status: number, code?: string) {
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${res.text}`);
  const e = res.body?.error;
  if (!e || e.status !== String(status) || typeof e.title !== 'string' || typeof e.code !== 'string') {
    throw new Error(`not a JSON API error body: ${res.text}`);
  }
  if (!res.body.links?.self || !res.body.links?.home) throw new Error(`error without links: ${res.text}`);
  if (code && e.code !== code) throw new Error(`expected code ${code}, got ${e.code}: ${res.text}`);
  return e;
}
