// Password hashing with scrypt from node:crypto (salted, memory-hard), stored as
// scrypt$N$r$p$salt$hash (base64). A hash runs on a hashing thread of its own (a worker, never the
// event loop's thread), at most one per core but one (others wait their turn): a burst of logins
// can use every core and would starve the event loop of CPU. Logins are bounded by the hash on
// purpose; everything else goes on.
// Why workers and not libuv's thread pool (crypto.scrypt): each hash allocates 16 MB (128·N·r
// bytes), which glibc keeps in the arena of the thread that ran it. The pool's four threads took
// turns, and a server that had a few logins kept 64 MB it never used again (measured: RSS 43 →
// 107 MB after 12 hashes). The workers are few, and end after HASHER_IDLE_MS without work.
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

/** How long a hashing worker stays after its last hash (the next login then pays its start, a few ms). */
const HASHER_IDLE_MS = 5_000;

/** The worker's code (CommonJS, evaluated: no file of its own to find in every build). */
const HASHER = `const { parentPort } = require('node:worker_threads');
const crypto = require('node:crypto');
parentPort.on('message', ({ password, salt, n, r, p, keylen, maxmem }) => {
  try {
    parentPort.postMessage({ key: crypto.scryptSync(password, salt, keylen, { N: n, r, p, maxmem }) });
  } catch (err) {
    parentPort.postMessage({ error: String((err && err.message) || err) });
  }
});`;

interface Hasher {
  worker: Worker;
  idle: NodeJS.Timeout | null;
  /** It ended (an error, or terminated): never used again. */
  ended: boolean;
  /** The hash under way: its callbacks (one at a time per worker). */
  job: { resolve: (key: Buffer) => void; reject: (err: Error) => void } | null;
}

/** Workers without a hash under way (at most MAX_PARALLEL exist: one per slot). */
const free: Hasher[] = [];

function newHasher(): Hasher {
  const h: Hasher = { worker: new Worker(HASHER, { eval: true }), idle: null, ended: false, job: null };
  h.worker.on('message', (m: { key?: Uint8Array; error?: string }) => {
    const job = h.job;
    h.job = null;
    if (m.key) job?.resolve(Buffer.from(m.key));
    else job?.reject(new Error(m.error ?? 'the hash failed'));
  });
  const ended = (err: Error) => {
    h.ended = true;
    h.job?.reject(err);
    h.job = null;
    const at = free.indexOf(h);
    if (at >= 0) free.splice(at, 1);
  };
  h.worker.on('error', ended);
  h.worker.on('exit', () => ended(new Error('the hashing worker ended')));
  return h;
}

function hashOn(h: Hasher, job: { password: string; salt: Buffer; n: number; r: number; p: number }): Promise<Buffer> {
  if (h.idle) clearTimeout(h.idle);
  h.idle = null;
  h.worker.ref();
  return new Promise<Buffer>((resolve, reject) => {
    h.job = { resolve, reject };
    h.worker.postMessage({ ...job, keylen: KEYLEN, maxmem: MAXMEM });
  }).finally(() => {
    // Back among the free ones; it does not keep the process alive, and ends when unused.
    if (h.ended) return;
    h.worker.unref();
    free.push(h);
    h.idle = setTimeout(() => {
      const at = free.indexOf(h);
      if (at >= 0) free.splice(at, 1);
      void h.worker.terminate();
    }, HASHER_IDLE_MS);
    h.idle.unref();
  });
}

async function scrypt(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  // A slot is taken here, or handed over by the hash that ends (running stays the same).
  if (running >= MAX_PARALLEL) await new Promise<void>((resolve) => waiting.push(resolve));
  else running++;
  try {
    return await hashOn(free.pop() ?? newHasher(), { password, salt, n, r, p });
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
