// The embedded Folio server of the desktop app: the same createServer() as `npm start`, configured
// from the desktop settings, on the preferred port or the next free one, bound to 127.0.0.1 or (LAN
// sharing) 0.0.0.0. Start, stop and restart are serialised so quick menu clicks cannot overlap.
import os from 'node:os';
import { createServer, type FolioServer } from '../server/src/app.js';
import { loadConfig } from '../server/src/config.js';
import type { DesktopSettings } from './settings.js';

export interface EmbeddedServerOptions {
  dataDir: string;
  /** The built admin UI (ui/dist). */
  uiDir: string;
  /** better-sqlite3 addon built for Electron's ABI, when running from a checkout. */
  sqliteNativeBinding?: string | null;
  log?: (line: string) => void;
  /** How many ports from the preferred one on are tried (default 20). */
  portAttempts?: number;
}

export interface RunningServer {
  port: number;
  /** The port the settings asked for; differs from `port` when it was taken. */
  preferredPort: number;
  host: string;
  lanSharing: boolean;
  /** http://127.0.0.1:<port>: what the app's window uses. */
  localUrl: string;
  adminUrl: string;
  /** http://<address>:<port> for each LAN address, when LAN sharing is on. */
  lanUrls: string[];
}

export interface EmbeddedServer {
  start(settings: DesktopSettings): Promise<RunningServer>;
  /** Stop accepting, finish requests in flight, close the database. Safe to call when stopped. */
  stop(): Promise<void>;
  /** Stop, then start with (new) settings: how LAN sharing and port changes are applied. */
  restart(settings: DesktopSettings): Promise<RunningServer>;
  current(): RunningServer | null;
  /** The admin created by the first start of this data dir in this session, if any. */
  initialAdmin(): FolioServer['initialAdmin'] | null;
}

const loopback = '127.0.0.1';
const everyInterface = '0.0.0.0';

/** The environment the server's own loadConfig() reads, built from the desktop settings. */
export function settingsToEnv(settings: DesktopSettings, dataDir: string): Record<string, string> {
  const env: Record<string, string> = {
    FOLIO_DATA_DIR: dataDir,
    PORT: String(settings.port),
    HOST: settings.lanSharing ? everyInterface : loopback,
  };
  if (settings.smtpUrl) env.FOLIO_SMTP_URL = settings.smtpUrl;
  if (settings.mailFrom) env.FOLIO_MAIL_FROM = settings.mailFrom;
  return env;
}

/** IPv4 addresses other machines can reach this one on (loopback and link-local left out). */
export function lanAddresses(interfaces: NodeJS.Dict<os.NetworkInterfaceInfo[]> = os.networkInterfaces()): string[] {
  const out: string[] = [];
  for (const infos of Object.values(interfaces)) {
    for (const info of infos ?? []) {
      if (info.family === 'IPv4' && !info.internal && !info.address.startsWith('169.254.') && !out.includes(info.address)) out.push(info.address);
    }
  }
  return out;
}

const portTaken = (err: unknown) => ['EADDRINUSE', 'EACCES'].includes((err as NodeJS.ErrnoException)?.code ?? '');

/** Listen on `preferred`, or on the next port that is free, trying `attempts` ports in all. */
export async function listenOnFreePort<T>(listen: (port: number) => Promise<T>, preferred: number, attempts = 20): Promise<T> {
  let lastError: unknown = null;
  for (let port = preferred; port < preferred + attempts && port <= 65535; port++) {
    try {
      return await listen(port);
    } catch (err) {
      if (!portTaken(err)) throw err;
      lastError = err;
    }
  }
  throw new Error(`no free port from ${preferred} to ${Math.min(preferred + attempts - 1, 65535)} (${(lastError as Error)?.message ?? 'all taken'})`);
}

export function createEmbeddedServer(options: EmbeddedServerOptions): EmbeddedServer {
  const log = options.log ?? ((line: string) => console.log(line));
  let server: FolioServer | null = null;
  let running: RunningServer | null = null;
  let firstAdmin: FolioServer['initialAdmin'] | null = null;
  // Every start/stop runs after the previous one settled.
  let queue: Promise<unknown> = Promise.resolve();
  const serialise = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    queue = next.catch(() => undefined);
    return next;
  };

  async function doStop() {
    if (!server) return;
    const s = server;
    server = null;
    running = null;
    await s.close();
    log('Folio server stopped');
  }

  async function doStart(settings: DesktopSettings): Promise<RunningServer> {
    await doStop();
    const config = loadConfig(settingsToEnv(settings, options.dataDir), { sqliteNativeBinding: options.sqliteNativeBinding ?? null });
    const s = await createServer(config, { uiDir: options.uiDir, log });
    if (s.initialAdmin.created && !firstAdmin) firstAdmin = s.initialAdmin;
    let bound: { port: number };
    try {
      bound = await listenOnFreePort((port) => s.listen(port, config.host), settings.port, options.portAttempts);
    } catch (err) {
      await s.close();
      throw err;
    }
    server = s;
    const localUrl = `http://${loopback}:${bound.port}`;
    running = {
      port: bound.port,
      preferredPort: settings.port,
      host: config.host,
      lanSharing: settings.lanSharing,
      localUrl,
      adminUrl: `${localUrl}/admin`,
      lanUrls: settings.lanSharing ? lanAddresses().map((a) => `http://${a}:${bound.port}`) : [],
    };
    log(`Folio server listening on ${config.host}:${bound.port}${bound.port !== settings.port ? ` (port ${settings.port} was taken)` : ''}`);
    return running;
  }

  const start = (settings: DesktopSettings) => serialise(() => doStart(settings));
  return {
    start,
    stop: () => serialise(doStop),
    restart: start,
    current: () => running,
    initialAdmin: () => firstAdmin,
  };
}
