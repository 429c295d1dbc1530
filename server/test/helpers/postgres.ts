// A PostgreSQL server of the tests' own: initdb into a temp dir, started on a free loopback port
// with trust authentication, stopped and removed by stop(). Debian's binaries (postgresql-15 or
// later) are run as the `postgres` user, which initdb requires when the tests run as root. Used by
// scripts/run-tests.mjs (one server for the PostgreSQL pass, FOLIO_TEST_PG_URL to the test files)
// and by server.ts when FOLIO_TEST_DB=postgres is set without a URL.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface PostgresServer {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`: the maintenance database. */
  url: string;
  stop(): void;
}

/** The directory of Debian's PostgreSQL binaries (15 or later; FOLIO_PG_BIN overrides), or null. */
export function postgresBinaries(): string | null {
  const given = process.env.FOLIO_PG_BIN;
  if (given) return fs.existsSync(path.join(given, 'initdb')) ? given : null;
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return null;
  const versions = fs
    .readdirSync(root)
    .filter((v) => /^\d+$/.test(v) && Number(v) >= 15 && fs.existsSync(path.join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? path.join(root, versions[0], 'bin') : null;
}

/** Why the PostgreSQL tests cannot run here, or null when they can. */
export function postgresMissing(): string | null {
  return postgresBinaries() ? null : 'PostgreSQL 15+ binaries not found (apt-get install postgresql-15, or set FOLIO_PG_BIN)';
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** Runs a PostgreSQL binary, as the `postgres` user when we are root (initdb refuses root). */
function runAs(bin: string, args: string[], asPostgres: boolean): void {
  const [cmd, argv] = asPostgres ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
  const res = spawnSync(cmd, argv, { encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`${path.basename(bin)} failed (${res.status}): ${res.stderr || res.stdout}`);
}

export async function startPostgres(): Promise<PostgresServer> {
  const bin = postgresBinaries();
  if (!bin) throw new Error(postgresMissing()!);
  const asPostgres = process.getuid?.() === 0;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-pg-'));
  if (asPostgres) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    fs.chownSync(dir, uid, gid);
  }
  const data = path.join(dir, 'data');
  // C.UTF-8: text sorts by code point, as SQLite's does.
  runAs(path.join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync', '--no-instructions'], asPostgres);
  let lastError: unknown;
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    const options = [
      `-p ${port}`,
      '-c listen_addresses=127.0.0.1',
      `-c unix_socket_directories=${dir}`,
      // A throwaway server: durability is not what the tests check.
      '-c fsync=off',
      '-c synchronous_commit=off',
      '-c full_page_writes=off',
      '-c max_connections=300',
    ].join(' ');
    try {
      runAs(path.join(bin, 'pg_ctl'), ['-D', data, '-l', path.join(dir, 'log'), '-w', '-t', '30', '-o', options, 'start'], asPostgres);
    } catch (err) {
      lastError = err; // most likely the port was taken meanwhile
      continue;
    }
    let stopped = false;
    const stop = () => {
      if (stopped) return;
      stopped = true;
      try {
        runAs(path.join(bin, 'pg_ctl'), ['-D', data, '-w', '-m', 'immediate', 'stop'], asPostgres);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    };
    return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, stop };
  }
  fs.rmSync(dir, { recursive: true, force: true });
  throw lastError;
}
