// Password hashing with scrypt from node:crypto (salted, memory-hard, run on libuv's thread pool
// so a login never blocks the event loop). Stored as scrypt$N$r$p$salt$hash (base64).
// At most one hash per core but one runs at a time (others wait their turn): a burst of logins
// can use every thread of the pool and every core, and would starve the event loop of CPU and
// file reads of threads. Logins are bounded by the hash on purpose; everything else goes on.
import crypto from 'node:crypto';
import os from 'node:os';

const N = 16384;
const R = 8;
const P = 1;
const KEYLEN = 32;

const MAX_PARALLEL = Math.max(1, os.availableParallelism() - 1);
let running = 0;
const waiting: Array<() => void> = [];

async function scrypt(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  // A slot is taken here, or handed over by the hash that ends (running stays the same).
  if (running >= MAX_PARALLEL) await new Promise<void>((resolve) => waiting.push(resolve));
  else running++;
  try {
    return await new Promise<Buffer>((resolve, reject) =>
      crypto.scrypt(password, salt, KEYLEN, { N: n, r, p, maxmem: 64 * 1024 * 1024 }, (err, key) => (err ? reject(err) : resolve(key))),
    );
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
