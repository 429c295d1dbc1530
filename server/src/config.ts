// The only reader of process.env: turns the environment into a typed, validated Config with the
// contract's defaults. A bad value throws ConfigError naming the variable (main.ts prints it).
import net from 'node:net';
import path from 'node:path';

/** Where stream files and thumbnails live (FOLIO_STORAGE_URL). */
export type StorageConfig =
  | { kind: 'local' }
  | {
      kind: 's3';
      bucket: string;
      /** Key prefix inside the bucket, without slashes at either end; '' for none. */
      prefix: string;
      /** Endpoint of an S3-compatible service (MinIO, R2…); null: AWS. */
      endpoint: string | null;
      region: string;
      pathStyle: boolean;
      /** AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (/ AWS_SESSION_TOKEN); null: the SDK's default chain (instance roles). */
      credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string } | null;
    };

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | null;
  adminUsername: string | null;
  adminPassword: string | null;
  jwtSecret: string | null;
  accessTokenTtl: number;
  /** Seconds a draft's preview token works (FOLIO_PREVIEW_TTL). */
  previewTtl: number;
  /** Error code of the 401 for an expired access token (FOLIO_EXPIRED_TOKEN_CODE; BEdita's clients renew on `be_token_expired`). */
  expiredTokenCode: string;
  smtpUrl: string | null;
  mailFrom: string;
  debug: boolean;
  publication: string | null;
  thumbsAllowAny: boolean;
  uploadMaxBytes: number;
  loginLimit: number;
  /** FOLIO_SIGNUP: whether POST /signup and /signup/activation are open (default off). */
  signup: boolean;
  /** FOLIO_SIGNUP_ROLES: names of the roles an activated signup gets. */
  signupRoles: string[];
  /** FOLIO_MAIL_LIMIT: mail-sending requests one client IP may make in an hour; 0: no limit. */
  mailLimit: number;
  /** FOLIO_PASSWORD_MIN_LENGTH: shortest password accepted (create, change, signup, own profile). */
  passwordMinLength: number;
  /** Hours after its upload an unlinked stream is deleted (the contract's 24). */
  unlinkedStreamHours: number;
  uploadQuotaBytes: number | null;
  uploadMaxFiles: number | null;
  corsOrigins: string[];
  requireApiKey: boolean;
  legacyWritableTypes: string[] | null;
  /** Log one line per request (tests and the benchmark turn it off). */
  logRequests: boolean;
  /** FOLIO_PUBLIC_URL: the base URL of links and token issuers, without a trailing slash (otherwise taken from the request). */
  baseUrl: string | null;
  /**
   * FOLIO_TRUST_PROXY, express's `trust proxy`: false (default: the socket's address is the
   * client), a number of proxy hops, or the addresses/CIDR ranges/named ranges of trusted proxies.
   */
  trustProxy: TrustProxy;
  /** Path of the better-sqlite3 native addon to load instead of the installed one (the desktop app,
   *  run from a checkout, passes one built for Electron's ABI); never read from the environment. */
  sqliteNativeBinding: string | null;
  /** Connections each server keeps to PostgreSQL at most (never read from the environment). */
  databasePoolSize: number;
  /** Longest time a client may take to send a whole request (headers and body), then 408. */
  requestTimeoutMs: number;
  /** Longest time a client may take to send the request headers, then 408. */
  headersTimeoutMs: number;
  /** Waits before each retry of a mail that could not be sent (tests shorten them). */
  mailRetryDelaysMs: number[];
  /** Waits before each retry of a webhook delivery (see docs/decisions.md, Webhooks; tests shorten them). */
  webhookRetryDelaysMs: number[];
  /** Longest wait for a webhook receiver's answer. */
  webhookTimeoutMs: number;
  /** How often publication windows are swept for bounds passed (objects.publish / unpublish). */
  publicationSweepMs: number;
  /**
   * The clock-driven maintenance (publication sweep, storage sweep, upload purge). No variable:
   * tests that prove a refused request writes nothing turn it off, so no timer writes in between.
   */
  maintenanceTimers: boolean;
  /** How long an instance holds a claimed job without renewing it: a killed instance's jobs return after it. */
  jobLeaseMs: number;
  /** Longest sleep of the job worker between looks at the queue (jobs of other instances, expired leases). */
  jobPollMs: number;
  /** At shutdown, the longest time given to due and running jobs before they are released. */
  jobShutdownGraceMs: number;
  /** Hours between scheduled backups (FOLIO_BACKUP_INTERVAL_HOURS); null: none. */
  backupIntervalHours: number | null;
  /** Scheduled backups kept (FOLIO_BACKUP_KEEP); older scheduled ones are deleted. */
  backupKeep: number;
  /** FOLIO_STORAGE_URL: the local folder (default) or an S3-compatible bucket. */
  storage: StorageConfig;
  /**
   * Started by an npm script (npm sets npm_lifecycle_event): stop when the parent process goes
   * away. A process manager that signals npm alone ends npm and its shell, not node (main.ts).
   */
  stopWithParent: boolean;
}

export type TrustProxy = false | number | string[];

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

/** Every variable name the configuration has looked at (unreadVariables). */
const looked = new Set<string>();

/** An error code clients compare (`be_token_expired`): lower snake case. */
function code(env: Env, name: string, fallback: string): string {
  const value = str(env, name);
  if (value === null) return fallback;
  if (!/^[a-z][a-z0-9_]{0,63}$/.test(value)) throw new ConfigError(`${name} must be an error code in lower snake case, e.g. be_token_expired`);
  return value;
}

function str(env: Env, name: string): string | null {
  looked.add(name);
  const v = env[name];
  return v === undefined || v === '' ? null : v;
}

function int(env: Env, name: string, def: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const v = str(env, name);
  if (v === null) return def;
  const n = Number(v.trim());
  if (!/^\d+$/.test(v.trim()) || n < min || n > max) {
    const what =
      max !== Number.MAX_SAFE_INTEGER ? `an integer from ${min} to ${max}` : min === 1 ? 'a positive integer' : min === 0 ? 'a whole number (0 or more)' : `an integer of at least ${min}`;
    throw new ConfigError(`${name} must be ${what}, got "${v}"`);
  }
  return n;
}

function optInt(env: Env, name: string): number | null {
  return str(env, name) === null ? null : int(env, name, 0, 0);
}

/** A positive decimal number (e.g. hours: `24`, `0.5`), or null when unset. */
function optPositive(env: Env, name: string, max: number): number | null {
  const v = str(env, name);
  if (v === null) return null;
  if (!/^\d+(\.\d+)?$/.test(v.trim())) throw new ConfigError(`${name} must be a positive number, got "${v}"`);
  const n = Number(v.trim());
  if (!(n > 0) || n > max) throw new ConfigError(`${name} must be greater than 0 and at most ${max}, got ${n}`);
  return n;
}

function flag(env: Env, name: string): boolean {
  const v = str(env, name);
  if (v === null) return false;
  if (['1', 'true', 'yes', 'on'].includes(v.toLowerCase())) return true;
  if (['0', 'false', 'no', 'off'].includes(v.toLowerCase())) return false;
  throw new ConfigError(`${name} must be on or off (1 or 0), got "${v}"`);
}

function list(env: Env, name: string): string[] | null {
  const v = str(env, name);
  if (v === null) return null;
  return v.split(',').map((s) => s.trim()).filter(Boolean);
}

/** The named ranges express (proxy-addr) knows. */
const PROXY_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);
const MAX_PROXY_HOPS = 16;

/** Whether `mask` is a contiguous IPv4 netmask (255.255.240.0), as proxy-addr requires. */
function isNetmask(mask: string): boolean {
  if (net.isIPv4(mask) === false) return false;
  const bits = mask.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);
  const inverted = 2 ** 32 - 1 - bits;
  return bits !== 0 && (inverted & (inverted + 1)) === 0;
}

/** One entry of a trusted-proxy list: a named range, an IP address, `IP/prefix` or `IPv4/netmask`. */
function isProxyEntry(entry: string): boolean {
  if (PROXY_RANGES.has(entry)) return true;
  const slash = entry.lastIndexOf('/');
  const address = slash === -1 ? entry : entry.slice(0, slash);
  const kind = address.includes('%') ? 0 : net.isIP(address);
  if (kind === 0) return false;
  if (slash === -1) return true;
  const range = entry.slice(slash + 1);
  if (/^\d{1,3}$/.test(range)) return Number(range) >= 1 && Number(range) <= (kind === 4 ? 32 : 128);
  return kind === 4 && isNetmask(range);
}

/**
 * FOLIO_TRUST_PROXY: unset or `off` → false; a number of hops (1 for one reverse proxy); or a
 * comma-separated list of trusted proxies (`loopback`, `10.0.0.0/8`, `192.168.1.5`…). `true`
 * (trust every hop) is refused: the left-most X-Forwarded-For entry is whatever the client sent.
 */
function trustProxyConfig(env: Env): TrustProxy {
  const name = 'FOLIO_TRUST_PROXY';
  const raw = str(env, name)?.trim() ?? '';
  const expected = `expected a number of proxy hops (1 to ${MAX_PROXY_HOPS}), or a comma-separated list of loopback, linklocal, uniquelocal, IP addresses and CIDR ranges`;
  if (raw === '' || ['off', 'false', '0'].includes(raw.toLowerCase())) return false;
  if (['on', 'true', 'yes'].includes(raw.toLowerCase())) {
    throw new ConfigError(`${name}=${raw} would trust any X-Forwarded-For a client sends; ${expected}`);
  }
  if (/^\d+$/.test(raw)) {
    const hops = Number(raw);
    if (hops > MAX_PROXY_HOPS) throw new ConfigError(`${name} must be at most ${MAX_PROXY_HOPS} hops, got ${raw}`);
    return hops;
  }
  const entries = raw.split(',').map((e) => e.trim());
  const bad = entries.find((e) => !isProxyEntry(e));
  if (bad !== undefined) throw new ConfigError(`${name} has an invalid entry "${bad}": ${expected}`);
  return entries;
}

/** FOLIO_PUBLIC_URL: an http(s) URL without credentials, query or fragment; kept without a trailing slash. */
function publicUrl(env: Env): string | null {
  const raw = str(env, 'FOLIO_PUBLIC_URL');
  if (raw === null) return null;
  let url: URL | null = null;
  try {
    url = new URL(raw);
  } catch {
    // reported below
  }
  if (!url || !['http:', 'https:'].includes(url.protocol) || url.username || url.password || url.search || url.hash || raw.includes('?') || raw.includes('#')) {
    throw new ConfigError(`FOLIO_PUBLIC_URL must be an http(s) URL without credentials, query or fragment (e.g. https://cms.example.org), got "${raw}"`);
  }
  return url.toString().replace(/\/+$/, '');
}

const S3_PARAMS = new Set(['endpoint', 'region', 'path_style']);

/** `s3://BUCKET[/PREFIX]?endpoint=URL&region=R&path_style=1`, checked part by part. */
function storageConfig(env: Env): StorageConfig {
  const raw = str(env, 'FOLIO_STORAGE_URL');
  if (raw === null) return { kind: 'local' };
  const bad = (why: string) => new ConfigError(`FOLIO_STORAGE_URL ${why} (expected s3://BUCKET[/PREFIX]?endpoint=URL&region=R&path_style=1)`);
  const m = /^s3:\/\/([^/?#]*)(\/[^?#]*)?(\?[^#]*)?$/.exec(raw.trim());
  if (!m) throw bad(`must be an s3:// URL, got "${raw}"`);
  const bucket = m[1];
  // S3's bucket naming rules (DNS-compatible names).
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket) || bucket.includes('..') || /^\d+\.\d+\.\d+\.\d+$/.test(bucket)) {
    throw bad(`has an invalid bucket name "${bucket}": 3 to 63 lowercase letters, digits, dots and hyphens`);
  }
  const prefix = (m[2] ?? '').replace(/^\/+|\/+$/g, '');
  let prefixText: string;
  try {
    prefixText = decodeURIComponent(prefix);
  } catch {
    throw bad(`has a malformed prefix "${prefix}"`);
  }
  if (prefixText && (prefixText.split('/').some((p) => !p || p === '.' || p === '..') || /[\u0000-\u001f\u007f\\]/.test(prefixText) || prefixText.length > 200)) {
    throw bad(`has an invalid prefix "${prefix}"`);
  }
  const params = new URLSearchParams(m[3] ?? '');
  for (const key of params.keys()) if (!S3_PARAMS.has(key)) throw bad(`has an unknown parameter "${key}" (known: endpoint, region, path_style)`);
  for (const key of S3_PARAMS) if (params.getAll(key).length > 1) throw bad(`gives "${key}" twice`);
  const endpoint = params.get('endpoint') || null;
  if (endpoint !== null) {
    let url: URL;
    try {
      url = new URL(endpoint);
    } catch {
      throw bad(`has an endpoint that is not a URL: "${endpoint}"`);
    }
    if (!['http:', 'https:'].includes(url.protocol) || url.username || url.password || url.search || url.hash) throw bad(`endpoint must be an http(s) URL without credentials or query, got "${endpoint}"`);
  }
  const region = params.get('region') || 'us-east-1';
  if (!/^[a-z0-9-]{1,40}$/.test(region)) throw bad(`has an invalid region "${region}"`);
  const style = params.get('path_style');
  if (style !== null && !['0', '1', 'true', 'false'].includes(style)) throw bad(`path_style must be 1 or 0, got "${style}"`);
  const accessKeyId = str(env, 'AWS_ACCESS_KEY_ID');
  const secretAccessKey = str(env, 'AWS_SECRET_ACCESS_KEY');
  if ((accessKeyId === null) !== (secretAccessKey === null)) {
    throw new ConfigError('AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set together (or neither, to use the AWS default credential chain)');
  }
  const sessionToken = str(env, 'AWS_SESSION_TOKEN');
  return {
    kind: 's3',
    bucket,
    prefix: prefixText,
    endpoint,
    region,
    pathStyle: style === '1' || style === 'true',
    credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) } : null,
  };
}

/**
 * FOLIO_* variables set in `env` that loadConfig did not read: most often a misspelt name
 * (FOLIO_DATABSE_URL), which would otherwise be ignored without a word. The tests' and the
 * benchmark's own are left out.
 */
export function unreadVariables(env: Env = process.env): string[] {
  return Object.keys(env).filter((k) => k.startsWith('FOLIO_') && !looked.has(k) && !/^FOLIO_(TEST|BENCH|FUZZ|CRASH)_|^FOLIO_PG_BIN$/.test(k));
}

/** Which database a configuration runs on, for the start banner: never the password. */
export function describeDatabase(config: Pick<Config, 'databaseUrl' | 'dataDir'>): string {
  if (!config.databaseUrl) return `SQLite at ${path.join(config.dataDir, 'folio.sqlite')}`;
  try {
    const url = new URL(config.databaseUrl);
    const db = decodeURIComponent(url.pathname.replace(/^\//, '')) || '(default database)';
    return `PostgreSQL ${db} on ${url.hostname || 'localhost'}:${url.port || '5432'}${url.username ? ` as ${decodeURIComponent(url.username)}` : ''}`;
  } catch {
    return 'PostgreSQL (FOLIO_DATABASE_URL)';
  }
}

export function loadConfig(env: Env = process.env, overrides: Partial<Config> = {}): Config {
  const databaseUrl = str(env, 'FOLIO_DATABASE_URL');
  if (databaseUrl !== null && !/^(postgres|postgresql):\/\//.test(databaseUrl)) {
    // The value is not echoed: it may hold a password.
    const scheme = /^([a-z][\w+.-]*):/i.exec(databaseUrl)?.[1];
    throw new ConfigError(
      `FOLIO_DATABASE_URL must be a postgres://user:password@host:5432/db URL (unset: SQLite in FOLIO_DATA_DIR), got ${scheme ? `a "${scheme}:" URL` : 'no URL'}`,
    );
  }
  const smtpUrl = str(env, 'FOLIO_SMTP_URL');
  if (smtpUrl !== null && !/^smtps?:\/\//.test(smtpUrl)) {
    throw new ConfigError(`FOLIO_SMTP_URL must start with smtp:// or smtps://, got "${smtpUrl}"`);
  }
  const host = str(env, 'HOST') ?? '127.0.0.1';
  if (!/^[\w.:-]+$/.test(host)) throw new ConfigError(`HOST is not a valid address: "${host}"`);
  const adminPassword = str(env, 'FOLIO_ADMIN_PASSWORD');
  if (adminPassword !== null && adminPassword.length < 8) {
    throw new ConfigError('FOLIO_ADMIN_PASSWORD must have at least 8 characters');
  }
  const jwtSecret = str(env, 'FOLIO_JWT_SECRET');
  if (jwtSecret !== null && jwtSecret.length < 16) {
    throw new ConfigError('FOLIO_JWT_SECRET must have at least 16 characters');
  }
  const origins = list(env, 'FOLIO_CORS_ORIGINS') ?? [];
  for (const o of origins) {
    if (o !== '*' && !/^https?:\/\/[^/]+$/.test(o)) throw new ConfigError(`FOLIO_CORS_ORIGINS has an invalid origin "${o}"`);
  }
  const cfg: Config = {
    port: int(env, 'PORT', 8090, 0, 65535),
    host,
    dataDir: path.resolve(str(env, 'FOLIO_DATA_DIR') ?? './data'),
    databaseUrl,
    adminUsername: str(env, 'FOLIO_ADMIN_USERNAME'),
    adminPassword,
    jwtSecret,
    accessTokenTtl: int(env, 'FOLIO_ACCESS_TOKEN_TTL', 1200, 1),
    previewTtl: int(env, 'FOLIO_PREVIEW_TTL', 86400, 1),
    expiredTokenCode: code(env, 'FOLIO_EXPIRED_TOKEN_CODE', 'expired_token'),
    smtpUrl,
    mailFrom: str(env, 'FOLIO_MAIL_FROM') ?? 'folio@localhost',
    debug: flag(env, 'FOLIO_DEBUG'),
    publication: str(env, 'FOLIO_PUBLICATION'),
    thumbsAllowAny: flag(env, 'FOLIO_THUMBS_ALLOW_ANY'),
    uploadMaxBytes: int(env, 'FOLIO_UPLOAD_MAX_BYTES', 104857600, 1),
    loginLimit: int(env, 'FOLIO_LOGIN_LIMIT', 20, 0),
    signup: flag(env, 'FOLIO_SIGNUP'),
    signupRoles: list(env, 'FOLIO_SIGNUP_ROLES') ?? [],
    mailLimit: int(env, 'FOLIO_MAIL_LIMIT', 10, 0),
    passwordMinLength: int(env, 'FOLIO_PASSWORD_MIN_LENGTH', 8, 1, 1024),
    unlinkedStreamHours: 24,
    uploadQuotaBytes: optInt(env, 'FOLIO_UPLOAD_QUOTA_BYTES'),
    uploadMaxFiles: optInt(env, 'FOLIO_UPLOAD_MAX_FILES'),
    corsOrigins: origins,
    requireApiKey: flag(env, 'FOLIO_REQUIRE_API_KEY'),
    legacyWritableTypes: list(env, 'FOLIO_LEGACY_WRITABLE_TYPES'),
    logRequests: true,
    baseUrl: publicUrl(env),
    trustProxy: trustProxyConfig(env),
    sqliteNativeBinding: null,
    databasePoolSize: 10,
    requestTimeoutMs: 10 * 60 * 1000,
    headersTimeoutMs: 60 * 1000,
    mailRetryDelaysMs: [2000, 10000, 60000, 300000],
    // 9 tries over about 10 h 40 min: 10 s, 30 s, 2 min, 10 min, 30 min, 1 h, 3 h, 6 h.
    webhookRetryDelaysMs: [10_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 10_800_000, 21_600_000],
    webhookTimeoutMs: 10_000,
    publicationSweepMs: 30_000,
    maintenanceTimers: true,
    jobLeaseMs: 10_000,
    jobPollMs: 2_000,
    jobShutdownGraceMs: 5_000,
    // Fractions allowed (0.5: every 30 minutes); at most a year.
    backupIntervalHours: optPositive(env, 'FOLIO_BACKUP_INTERVAL_HOURS', 8760),
    backupKeep: int(env, 'FOLIO_BACKUP_KEEP', 7, 1, 10000),
    storage: storageConfig(env),
    stopWithParent: str(env, 'npm_lifecycle_event') !== null,
  };
  return { ...cfg, ...overrides };
}
