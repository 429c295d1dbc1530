// Folio as a child process (`node --import tsx server/src/main.ts`) on a given data dir: what the
// crash-safety suite kills with SIGKILL and restarts, and what the soak run loads.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ADMIN } from './server.js';
import { PATIENCE_MS } from './wait.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

export interface ChildServer {
  url: string;
  child: ChildProcess;
  /** SIGKILL: no shutdown hooks, no flush; resolves when the process is gone. */
  kill(): Promise<void>;
  /** SIGTERM and wait for the clean exit. */
  stop(): Promise<number | null>;
}

export async function startChildServer(dataDir: string, env: Record<string, string> = {}): Promise<ChildServer> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'server/src/main.ts')], {
    cwd: repoRoot,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      PORT: '0',
      HOST: '127.0.0.1',
      FOLIO_DATA_DIR: dataDir,
      FOLIO_ADMIN_USERNAME: ADMIN.username,
      FOLIO_ADMIN_PASSWORD: ADMIN.password,
      FOLIO_LOGIN_LIMIT: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let errText = '';
  child.stderr!.on('data', (d) => (errText = (errText + d).slice(-4000)));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const onData = (d: Buffer) => {
      out += d;
      const m = /listening on (http:\/\/[^\s]+)/.exec(out);
      if (m) resolve(m[1]);
      else out = out.slice(-2000);
    };
    child.stdout!.on('data', onData);
    exited.then((code) => reject(new Error(`server exited (${code}) before listening: ${errText}`)));
    setTimeout(() => reject(new Error(`server did not start in ${PATIENCE_MS} ms: ${errText}`)), PATIENCE_MS).unref();
  });
  // Keep draining the request log so the pipe never fills up.
  child.stdout!.resume();
  return {
    url,
    child,
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

/** `npm start`'s server with only `env` (and PATH, HOME, PORT=0), expected to stop by itself: its exit code and stderr. */
export async function runServerToExit(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'server/src/main.ts')], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  child.stdout!.resume();
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, stderr };
}

/** `npm run restore -- FILE` (the CLI through tsx) with only `env` (and PATH, HOME): its exit code and output. */
export function runRestoreCli(file: string, env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'server/src/cli/restore.ts'), file], {
      cwd: repoRoot,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, out }));
  });
}
