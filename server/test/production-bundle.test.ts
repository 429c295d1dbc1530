// `npm start` runs the bundled server (server/dist/main.bundle.js, made by `npm run build`): it
// starts on a fresh data dir, answers the API and the admin UI, knows its own version, and stops
// cleanly on SIGTERM.
// postgres pass: not run (the built bundle on the default database, which is SQLite)
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { PATIENCE_MS, processAlive, waitUntil } from './helpers/wait.js';

const root = path.resolve(import.meta.dirname, '..', '..');
const bundle = path.join(root, 'server', 'dist', 'main.bundle.js');

test('the production bundle starts, answers and stops cleanly', async () => {
  assert.ok(fs.existsSync(bundle), `${bundle} is missing: run npm run build`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-bundle-'));
  const child = spawn(process.execPath, [bundle], {
    env: { ...process.env, FOLIO_DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', FOLIO_DEBUG: '1', FOLIO_ADMIN_USERNAME: 'admin', FOLIO_ADMIN_PASSWORD: 'bundle-secret-1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    let out = '';
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no start within ${PATIENCE_MS} ms: ${out}`)), PATIENCE_MS);
      child.stdout.on('data', (d) => {
        out += d;
        const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
      child.once('exit', (code) => reject(new Error(`exited with ${code}: ${out}`)));
    });
    const status = await fetch(`${url}/status`, { headers: { Accept: 'application/vnd.api+json' } });
    assert.equal(status.status, 200);
    const version = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version;
    assert.equal(((await status.json()) as { meta: { status: { versions: { folio: string } } } }).meta.status.versions.folio, version);
    const login = await fetch(`${url}/auth`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: 'bundle-secret-1' }) });
    assert.equal(login.status, 200);
    const admin = await fetch(`${url}/admin/`);
    assert.equal(admin.status, 200);
    assert.match(await admin.text(), /<div id="root">/);
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

/** Pids of every process below `pid` (Linux / procps `ps`). */
function descendants(pid: number): number[] {
  const out = spawnSync('ps', ['-eo', 'pid=,ppid='], { encoding: 'utf8' }).stdout;
  const rows = out.trim().split('\n').map((l) => l.trim().split(/\s+/).map(Number));
  const found: number[] = [];
  const walk = (p: number) => {
    for (const [child, parent] of rows) if (parent === p) found.push(child), walk(child);
  };
  walk(pid);
  return found;
}


test('npm start stops the server when a process manager signals npm alone', { skip: process.platform === 'win32' && 'POSIX signals' }, async () => {
  assert.ok(fs.existsSync(bundle), `${bundle} is missing: run npm run build`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-npm-start-'));
  const npm = spawn('npm', ['start'], {
    cwd: root,
    env: { ...process.env, FOLIO_DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', FOLIO_ADMIN_USERNAME: 'admin', FOLIO_ADMIN_PASSWORD: 'bundle-secret-1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let below: number[] = [];
  try {
    let out = '';
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no start within ${PATIENCE_MS} ms: ${out}`)), PATIENCE_MS);
      npm.stdout.on('data', (d) => {
        out += d;
        const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
      npm.once('exit', (code) => reject(new Error(`npm exited with ${code}: ${out}`)));
    });
    assert.equal((await fetch(`${url}/status`)).status, 200);
    below = descendants(npm.pid!);
    assert.ok(below.length >= 1, 'node runs below npm');
    const npmExited = new Promise((resolve) => npm.once('exit', resolve));
    process.kill(npm.pid!, 'SIGTERM'); // as `kill <npm pid>` does: npm alone
    await npmExited;
    await waitUntil(() => (below.some(processAlive) ? undefined : true), `no process of npm start left (${below.filter(processAlive)})`);
    await assert.rejects(fetch(`${url}/status`), 'the port no longer answers');
    assert.match(out, /npm exited: finishing requests in flight/);
  } finally {
    for (const pid of below.filter(processAlive)) process.kill(pid, 'SIGKILL');
    if (npm.exitCode === null && npm.signalCode === null) npm.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
