// Password hashing with scrypt from node:crypto (salted, memory-hard), stored as
// scrypt$N$r$p$salt$hash (base64). A hash runs in a hasher of its own, never on the event loop's
// thread, at most one per core but one (others wait their turn): a burst of logins can use every
// core and would starve the event loop of CPU. Logins are bounded by the hash on purpose;
// everything else goes on.
// Where the hash runs, and why: each hash allocates 16 MB (128·N·r bytes), and glibc keeps what a
// thread freed in that thread's arena, for the life of the process — also after the thread ended.
// libuv's pool (crypto.scrypt) kept 64 MB after a few logins (four threads taking turns:
// RSS 43 → 107 MB after 12 hashes); a worker thread kept 17 MB (measured: arenas 0.7 → 18 MB after
// three logins, still there once the worker had ended). So a server run by node hashes in a small
// child process (node -e, started with the first login, ~40 ms) that ends after HASHER_IDLE_MS
// without work, taking the memory with it. Electron's desktop server keeps worker threads (a
// child there would be another Electron; a desktop has one user and few logins).
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import os from 'node:os';
import { Worker } from 'node:worker_threads';

const N = 16384;
const R = 8;
const P = 1;
const KEYLEN = 32;
const MAXMEM = 64 * 1024 * 1024;

const MAX_PARALLEL = Math.max(1, os.availableParallelism() - 1);
let running = 0;
const waiting: Array<() => void> = [];

/** How long a hasher stays after its last hash (the next login then pays its start: a few ms for a thread, ~40 ms for a process). */
const HASHER_IDLE_MS = 5_000;

/**
 * The hasher's code (CommonJS, evaluated: no file of its own to find in every build), for a
 * worker thread (`parentPort`) or a child process (`process`, which ends when the server
 * disconnects or ends).
 */
const hasherCode = (port: string) => `const crypto = require('node:crypto');
const port = ${port};
port.on('message', ({ password, salt, n, r, p, keylen, maxmem }) => {
  try {
    port.postMessage({ key: crypto.scryptSync(password, salt, keylen, { N: n, r, p, maxmem }) });
  } catch (err) {
    port.postMessage({ error: String((err && err.message) || err) });
  }
});`;
const THREAD_CODE = hasherCode(`require('node:worker_threads').parentPort`);
const PROCESS_CODE = `${hasherCode(`{ on: (e, f) => process.on(e, f), postMessage: (m) => process.send(m) }`)}
process.on('disconnect', () => process.exit(0));`;

/** Hash in a child process (node), or on a worker thread (Electron, where a child would be another Electron). */
const IN_PROCESS_OF_ITS_OWN = !process.versions.electron;

/** A worker thread or a child process, as the hasher uses them (both emit 'message', 'error' and 'exit'). */
interface Runner {
  on(event: 'message', listener: (m: { key?: Uint8Array; error?: string }) => void): unknown;
  on(event: 'error', listener: (err: Error) => void): unknown;
  on(event: 'exit', listener: () => void): unknown;
  post(message: unknown): void;
  /** Whether it keeps the server's process alive (only while it hashes). */
  hold(keep: boolean): void;
  stop(): void;
}

function startRunner(): Runner {
  if (!IN_PROCESS_OF_ITS_OWN) {
    const worker = new Worker(THREAD_CODE, { eval: true });
    return Object.assign(worker, {
      post: (m: unknown) => worker.postMessage(m),
      hold: (keep: boolean) => (keep ? worker.ref() : worker.unref()),
      stop: () => void worker.terminate(),
    });
  }
  // Plain node: none of the server's node options (a loader, a debugger's port, heap sizes) and
  // none of its environment (the database URL, mail passwords): it hashes, nothing else.
  const child: ChildProcess = spawn(process.execPath, ['-e', PROCESS_CODE], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    serialization: 'advanced',
    env: process.platform === 'win32' ? { SystemRoot: process.env.SystemRoot ?? '' } : {},
  });
  return Object.assign(child, {
    post: (m: unknown) => child.send(m as import('node:child_process').Serializable),
    hold: (keep: boolean) => {
      if (keep) {
        child.ref();
        child.channel?.ref();
      } else {
        child.unref();
        child.channel?.unref();
      }
    },
    stop: () => {
      if (child.connected) child.disconnect();
    },
  }) as Runner;
}

/** The hasher ended (or its channel closed) before it answered. */
class HasherEnded extends Error {}

interface Hasher {
  runner: Runner;
  idle: NodeJS.Timeout | null;
  /** It ended (an error, or terminated): never used again. */
  ended: boolean;
  /** The hash under way: its callbacks (one at a time per hasher). */
  job: { resolve: (key: Buffer) => void; reject: (err: Error) => void } | null;
}

/** Hashers without a hash under way (at most MAX_PARALLEL exist: one per slot). */
const free: Hasher[] = [];

function newHasher(): Hasher {
  const h: Hasher = { runner: startRunner(), idle: null, ended: false, job: null };
  h.runner.on('message', (m: { key?: Uint8Array; error?: string }) => {
    const job = h.job;
    h.job = null;
    if (m.key) job?.resolve(Buffer.from(m.key));
    else job?.reject(new Error(m.error ?? 'the hash failed'));
  });
  const ended = (cause: Error) => {
    const err = new HasherEnded(cause.message);
    h.ended = true;
    h.job?.reject(err);
    h.job = null;
    const at = free.indexOf(h);
    if (at >= 0) free.splice(at, 1);
  };
  h.runner.on('error', ended);
  h.runner.on('exit', () => ended(new Error('the hasher ended')));
  return h;
}

function hashOn(h: Hasher, job: { password: string; salt: Buffer; n: number; r: number; p: number }): Promise<Buffer> {
  if (h.idle) clearTimeout(h.idle);
  h.idle = null;
  h.runner.hold(true);
  return new Promise<Buffer>((resolve, reject) => {
    h.job = { resolve, reject };
    h.runner.post({ ...job, keylen: KEYLEN, maxmem: MAXMEM });
  }).finally(() => {
    // Back among the free ones; it does not keep the process alive, and ends when unused.
    if (h.ended) return;
    h.runner.hold(false);
    free.push(h);
    h.idle = setTimeout(() => {
      const at = free.indexOf(h);
      if (at >= 0) free.splice(at, 1);
      h.runner.stop();
    }, HASHER_IDLE_MS);
    h.idle.unref();
  });
}

async function scrypt(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  // A slot is taken here, or handed over by the hash that ends (running stays the same).
  if (running >= MAX_PARALLEL) await new Promise<void>((resolve) => waiting.push(resolve));
  else running++;
  try {
    // A hasher that ended under the hash (killed, out of memory) or just before it was handed the
    // hash: once more on a new one. A hash that failed in a working hasher is not tried again.
    try {
      return await hashOn(free.pop() ?? newHasher(), { password, salt, n, r, p });
    } catch (err) {
      if (!(err instanceof HasherEnded)) throw err;
      return await hashOn(newHasher(), { password, salt, n, r, p });
    }
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(16);
  const key = await scrypt(password, salt, N, R, P);
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64')}$${key.toString('base64')}`;
}

// A fixed dummy hash so that an unknown username costs the same time as a wrong password.
let dummy: Promise<string> | null = null;

export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  if (!stored) {
    dummy ??= hashPassword('folio-dummy-password');
    await verifyPassword(password, await dummy);
    return false;
  }
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const key = await scrypt(password, Buffer.from(salt, 'base64'), Number(n), Number(r), Number(p));
  return key.length === expected.length && crypto.timingSafeEqual(key, expected);
}
