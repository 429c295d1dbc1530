// A new user's first hour, run as they run it: the real commands (npm run …, the bundles `npm
// install` builds) in temp dirs. Every failure is one line with the documented exit code and no
// stack; flags npm would keep for itself are refused with the right spelling, changing nothing;
// folders a command writes into are made; `npm run -s model -- export` is clean JSON; a start on a
// busy port leaves nothing behind; the start banner names the database; the first admin's password
// file goes once it is no longer true (a password change, a restore); restore refuses a running
// server; tokens of another issuer are refused when FOLIO_PUBLIC_URL is set; the README shows the
// quick start and every variable the scripts read.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import jwt from 'jsonwebtoken';
import { ADMIN, sameData, startServer } from './helpers/server.js';
import { createTestDatabase, type TestDatabase } from './helpers/test-database.js';
import { runCommand, type CommandResult } from './helpers/run-command.js';
import { PATIENCE_MS } from './helpers/wait.js';

const root = path.resolve(import.meta.dirname, '..', '..');
const dist = (name: string) => path.join(root, 'server', 'dist', `${name}.bundle.js`);
const JSON_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json' };

const temps: string[] = [];
const databases: TestDatabase[] = [];
after(async () => {
  for (const d of temps) fs.rmSync(d, { recursive: true, force: true });
  for (const db of databases) await db.drop();
});
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-newcomer-'));
  temps.push(dir);
  return dir;
}
/** A new install: a data dir and, on the PostgreSQL pass, a database of its own. */
async function install(): Promise<{ dataDir: string; databaseUrl: string | null; env: Record<string, string> }> {
  const dataDir = path.join(tempDir(), 'data');
  const db = await createTestDatabase();
  if (db) databases.push(db);
  const s = { dataDir, databaseUrl: db?.url ?? null };
  return { ...s, env: sameData(s) };
}

type Run = CommandResult;
const run = runCommand;
const node = (args: string[], env: Record<string, string> = {}) => run(process.execPath, args, env);

/** A failure as the README promises it: this exit code, one line on stderr, no stack. */
function oneLineFailure(r: Run, code: number, pattern: RegExp): void {
  assert.equal(r.code, code, `exit code: ${r.stderr}`);
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1, `one line:\n${r.stderr}`);
  assert.doesNotMatch(r.stderr, /^\s+at /m, 'no stack');
  assert.match(lines[0], pattern);
}

/** `npm start`'s bundle with `env` and PORT=0 until it listens: its URL and what it printed. */
async function startMain(env: Record<string, string>): Promise<{ url: string; port: number; out: () => string; stop: () => Promise<number | null>; child: ChildProcess }> {
  const child = spawn(process.execPath, [dist('main')], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: '0', HOST: '127.0.0.1', FOLIO_LOGIN_LIMIT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/[\d.]+:\d+)[^\n]*\n[^\n]*\n/.exec(out);
      if (m) resolve(m[1]);
    });
    exited.then((code) => reject(new Error(`exited ${code} before listening: ${err}`)));
    setTimeout(() => reject(new Error(`no start within ${PATIENCE_MS} ms: ${out}${err}`)), PATIENCE_MS).unref();
  });
  return {
    url,
    port: Number(new URL(url).port),
    out: () => out,
    child,
    stop: () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

async function login(url: string, username: string, password: string): Promise<string | null> {
  const res = await fetch(`${url}/auth`, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify({ username, password }) });
  return res.status === 200 ? ((await res.json()) as { meta: { jwt: string } }).meta.jwt : null;
}

describe('a newcomer at the command line', () => {
  for (const name of ['main', 'backup', 'restore', 'model']) {
    assert.ok(fs.existsSync(dist(name)), `${dist(name)} is missing: run npm run build:server`);
  }

  test('npm run model apply FILE --dry-run (without --): npm keeps the flag; refused with the right spelling, nothing applied', async () => {
    const s = await startServer();
    try {
      const token = await s.adminToken();
      const model = (await s.request('GET', '/model/project', { token, headers: { Accept: 'application/json' } })).body;
      model.tags.push({ name: 'newcomer', label: 'Newcomer', enabled: true });
      const file = path.join(tempDir(), 'project.json');
      fs.writeFileSync(file, JSON.stringify(model));
      const tags = async () => (await s.request('GET', '/model/tags', { token })).body.data.map((t: { attributes: { name: string } }) => t.attributes.name);

      const swallowed = await run('npm', ['run', '--silent', 'model', 'apply', file, '--dry-run'], sameData(s));
      assert.equal(swallowed.code, 2, swallowed.stderr);
      assert.ok(swallowed.stderr.includes(`npm run model -- apply ${file} --dry-run`), swallowed.stderr);
      assert.doesNotMatch(swallowed.stderr, /^\s+at /m);
      assert.equal(swallowed.stdout, '');
      assert.ok(!(await tags()).includes('newcomer'), 'nothing was applied');
      // --delete too (npm_config_delete), and restore's --replace (npm expands it to --replace-registry-host).
      oneLineFailure(await node([dist('model'), 'apply', file], { ...sameData(s), npm_config_delete: 'true' }), 2, /npm run model -- apply \S+ --delete/);
      oneLineFailure(await node([dist('restore'), file], { ...sameData(s), npm_config_replace_registry_host: 'true' }), 2, /npm run restore -- \S+ --replace/);

      // A tag only the database has: kept, and the CLI names its own option for removing it.
      assert.equal((await s.request('POST', '/model/tags', { token, body: { data: { type: 'tags', attributes: { name: 'spare' } } } })).status, 201);
      const dry = await run('npm', ['run', '--silent', 'model', '--', 'apply', file, '--dry-run'], sameData(s));
      assert.equal(dry.code, 0, dry.stderr);
      assert.match(dry.stdout, /\+ newcomer/);
      assert.match(dry.stdout, /= spare \(kept: not in the file \(removed only with --delete\)\)/);
      assert.match(dry.stdout, /dry run, nothing was changed/);
      assert.ok(!(await tags()).includes('newcomer'));

      // `npm run -s model -- export`: clean JSON on stdout; into a folder that does not exist yet.
      const exported = await run('npm', ['run', '-s', 'model', '--', 'export'], sameData(s));
      assert.equal(exported.code, 0, exported.stderr);
      assert.deepEqual(Object.keys(JSON.parse(exported.stdout)).sort(), Object.keys(model).sort());
      const target = path.join(tempDir(), 'model', 'project.json');
      const written = await node([dist('model'), 'export', target], sameData(s));
      assert.equal(written.code, 0, written.stderr);
      assert.deepEqual(JSON.parse(fs.readFileSync(target, 'utf8')), JSON.parse(exported.stdout));

      // A file that cannot be applied: one line, "nothing was changed" once.
      const refusedFile = path.join(tempDir(), 'bad.json');
      fs.writeFileSync(refusedFile, '{ not json');
      const bad = await node([dist('model'), 'apply', refusedFile], sameData(s));
      oneLineFailure(bad, 1, /not valid JSON.*nothing was changed/);
      oneLineFailure(await node([dist('model'), 'frobnicate'], sameData(s)), 2, /unknown command "frobnicate" \(usage: npm run model -- export/);
    } finally {
      await s.close();
    }
  });

  test('npm run backup into a folder that does not exist makes it; failures and usage errors are one line', async () => {
    const s = await startServer();
    try {
      const file = path.join(tempDir(), 'missing', 'folder', 'x.tar.gz');
      const made = await node([dist('backup'), file], sameData(s));
      assert.equal(made.code, 0, made.stderr);
      assert.ok(fs.statSync(file).size > 0);
      const newFolder = path.join(tempDir(), 'new', 'backups') + '/';
      assert.equal((await node([dist('backup'), newFolder], sameData(s))).code, 0);
      assert.match(fs.readdirSync(newFolder).join(), /^folio-backup-.*\.tar\.gz$/, 'a name ending in / is a folder, made');
      const notAFolder = path.join(file, 'y.tar.gz'); // below a file
      oneLineFailure(await node([dist('backup'), notAFolder], sameData(s)), 1, /^backup: failed: .*(ENOTDIR|EEXIST|not a directory)/);
      oneLineFailure(await node([dist('backup'), 'a', 'b'], sameData(s)), 2, /give at most one FILE \(usage: npm run backup/);
      oneLineFailure(await node([dist('restore')], sameData(s)), 2, /give exactly one backup FILE/);
      oneLineFailure(await node([dist('restore'), path.join(tempDir(), 'nope.tar.gz')], sameData(s)), 1, /is not a file/);
    } finally {
      await s.close();
    }
  });

  test('configuration errors exit 2 in one line: an unknown database scheme (the password never shown), a negative TTL', async () => {
    const dataDir = path.join(tempDir(), 'data');
    const scheme = await node([dist('main')], { PORT: '0', FOLIO_DATA_DIR: dataDir, FOLIO_DATABASE_URL: 'mysql://folio:hunter22secret@db.example/folio' });
    oneLineFailure(scheme, 2, /FOLIO_DATABASE_URL must be a postgres:\/\/.*"mysql:"/);
    assert.doesNotMatch(scheme.stderr, /hunter22secret/);
    oneLineFailure(await node([dist('main')], { PORT: '0', FOLIO_DATA_DIR: dataDir, FOLIO_ACCESS_TOKEN_TTL: '-5' }), 2, /FOLIO_ACCESS_TOKEN_TTL must be a positive integer/);
    assert.ok(!fs.existsSync(dataDir), 'nothing was made');
  });

  test('first start: the banner names the database, the password file logs in; a busy port, a live restore, a password change, a restore', async () => {
    const a = await install();
    // A misspelt variable is not silently ignored: the banner says so.
    const server = await startMain({ ...a.env, FOLIO_DATABSE_URL: 'postgres://folio@db.example/folio' });
    let stopped = false;
    try {
      const banner = server.out();
      if (a.databaseUrl) {
        const u = new URL(a.databaseUrl);
        assert.match(banner, new RegExp(`Database: PostgreSQL ${u.pathname.slice(1)} on ${u.hostname}:${u.port}`));
        if (u.password) assert.ok(!banner.includes(u.password), 'the banner never shows the password');
      } else {
        assert.ok(banner.includes(`Database: SQLite at ${path.join(a.dataDir, 'folio.sqlite')}`), banner);
      }
      // The quick start: the password file, POST /auth, a call with the token (by then the
      // warning that follows the banner has been printed too).
      await fetch(`${server.url}/status`);
      assert.match(server.out(), /Warning: FOLIO_DATABSE_URL is set but Folio does not read it \(a misspelt name\?\)/);
      assert.doesNotMatch(server.out(), /Warning: FOLIO_DATA_DIR/);
      const passwordFile = path.join(a.dataDir, 'initial-admin-password');
      const password = fs.readFileSync(passwordFile, 'utf8').trim();
      const token = await login(server.url, 'admin', password);
      assert.ok(token, 'the password in the file logs in');
      const me = await fetch(`${server.url}/auth/user`, { headers: { Authorization: `Bearer ${token}` } });
      assert.equal(me.status, 200);

      // A second server on the same port: exit 2, one line naming PORT, nothing made.
      const other = path.join(tempDir(), 'data');
      const busy = await node([dist('main')], { PORT: String(server.port), HOST: '127.0.0.1', FOLIO_DATA_DIR: other });
      oneLineFailure(busy, 2, new RegExp(`port ${server.port} on 127\\.0\\.0\\.1 is in use.*PORT=`));
      assert.ok(!fs.existsSync(other), 'no data dir, no database, no admin, no password file');

      // A backup while it serves is fine; a restore is refused, naming the server.
      const backupOfA = path.join(tempDir(), 'a.tar.gz');
      assert.equal((await node([dist('backup'), backupOfA], a.env)).code, 0);
      const live = await node([dist('restore'), backupOfA, '--replace'], a.env);
      oneLineFailure(live, 1, new RegExp(`a Folio server is running on .*pid ${server.child.pid} at ${server.url}.*stop it first; nothing was changed`));

      // The password changed (here by PATCH /auth/user): the file no longer tells the truth and goes.
      const changed = await fetch(`${server.url}/auth/user`, {
        method: 'PATCH',
        headers: { ...JSON_HEADERS, Authorization: `Bearer ${token}` },
        body: JSON.stringify({ password: 'a-new-admin-password', old_password: password }),
      });
      assert.equal(changed.status, 200, await changed.text());
      assert.ok(!fs.existsSync(passwordFile), 'initial-admin-password is removed');
      const afterChange = path.join(tempDir(), 'a-changed.tar.gz');
      assert.equal((await node([dist('backup'), afterChange], a.env)).code, 0);

      assert.equal(await server.stop(), 0);
      stopped = true;
      assert.deepEqual(fs.readdirSync(path.join(a.dataDir, 'running')), [], 'the stopped server left no record');

      // A new install restored from its own backup keeps its password file (still true); from
      // A's backup (another admin password) it loses it.
      const c = await install();
      const first = await startMain(c.env);
      assert.equal(await first.stop(), 0);
      const cFile = path.join(c.dataDir, 'initial-admin-password');
      const cPassword = fs.readFileSync(cFile, 'utf8').trim();
      const ownBackup = path.join(tempDir(), 'c.tar.gz');
      assert.equal((await node([dist('backup'), ownBackup], c.env)).code, 0);
      const own = await node([dist('restore'), ownBackup, '--replace'], c.env);
      assert.equal(own.code, 0, own.stderr);
      assert.equal(fs.readFileSync(cFile, 'utf8').trim(), cPassword, 'still true: kept');
      const foreign = await node([dist('restore'), afterChange, '--replace'], c.env);
      assert.equal(foreign.code, 0, foreign.stderr);
      assert.ok(!fs.existsSync(cFile), 'no longer true after the restore: removed');
    } finally {
      if (!stopped) await server.stop();
    }
  });
});

test('npm run desktop behind a mirror that fails: the helpful message, no installer stack before it', async (t) => {
  const setup = path.join(root, 'electron', 'scripts', 'electron-setup.mjs');
  const script = `import('${setup}').then((m) => { if (m.findElectronBinary()) { console.log('present'); return; } try { m.ensureElectronBinary(); } catch (e) { console.error(e.message); process.exit(1); } })`;
  const r = await node(['-e', script], { ELECTRON_MIRROR: 'http://127.0.0.1:1/' });
  if (r.stdout.includes('present')) return t.skip('an Electron binary is already here: nothing is fetched');
  assert.equal(r.code, 1);
  assert.doesNotMatch(r.stderr, /^\s+at /m, `no stack:\n${r.stderr}`);
  assert.match(r.stderr, /^Could not fetch Electron [\d.]+'s binary \(the download from the mirror http:\/\/127\.0\.0\.1:1\/ failed.*ECONNREFUSED/);
  assert.match(r.stderr, /ELECTRON_PATH=/);
});

describe('token issuers', () => {
  test('with FOLIO_PUBLIC_URL a token whose iss differs is refused (401); unset, a token issued under another Host of this server is accepted', async () => {
    const pinned = await startServer({ FOLIO_PUBLIC_URL: 'https://cms.example.org' });
    const open = await startServer();
    try {
      const token = await pinned.adminToken();
      assert.equal((jwt.decode(token) as { iss: string }).iss, 'https://cms.example.org');
      assert.equal((await pinned.request('GET', '/auth/user', { token })).status, 200);
      const { iat: _iat, exp: _exp, ...claims } = jwt.decode(token) as Record<string, unknown>;
      const foreign = jwt.sign({ ...claims, iss: 'https://other.example.org' }, pinned.server.ctx.jwtSecret, { algorithm: 'HS256', expiresIn: 600 });
      const refused = await pinned.request('GET', '/auth/user', { token: foreign });
      assert.equal(refused.status, 401);
      assert.equal(refused.body.error.code, 'invalid_token');

      const own = await open.adminToken();
      const { iat: _i, exp: _e, ...mine } = jwt.decode(own) as Record<string, unknown>;
      assert.equal(mine.iss, open.url, 'unset: iss follows the Host asked');
      const otherHost = jwt.sign({ ...mine, iss: `http://localhost:${new URL(open.url).port}` }, open.server.ctx.jwtSecret, { algorithm: 'HS256', expiresIn: 600 });
      assert.equal((await open.request('GET', '/auth/user', { token: otherHost })).status, 200);
    } finally {
      await pinned.close();
      await open.close();
    }
  });
});

describe('the README a newcomer reads', () => {
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');

  test('a quick start near the top: Node version, install, start, the password file, POST /auth, a call with the token, the admin UI, what the warnings mean', () => {
    const quick = readme.indexOf('## Quick start');
    assert.ok(quick > 0 && quick < readme.indexOf('## Commands'), 'the quick start comes before the commands');
    const section = readme.slice(quick, readme.indexOf('\n## ', quick + 5));
    for (const needle of [
      'Node.js 20.19',
      'python3, make and g++',
      'npm install',
      'npm start',
      'data/initial-admin-password',
      "curl -X POST http://127.0.0.1:8090/auth -H 'Content-Type: application/json'",
      'Authorization: Bearer',
      'http://127.0.0.1:8090/admin',
      'EBADENGINE',
      'npm run -s',
    ]) {
      assert.ok(section.includes(needle), `the quick start shows ${needle}`);
    }
    // Its "model in git" example runs on a fresh clone: model/ is made by the export.
    assert.match(readme, /npm run model -- export model\/project\.json/);
  });

  test('every FOLIO_ variable the server, the scripts, the tests and the bench read is in the README', () => {
    const names = new Set<string>();
    for (const dir of ['server/src', 'server/test', 'scripts', 'bench', 'electron/src', 'electron/scripts', 'e2e']) {
      const full = path.join(root, dir);
      if (!fs.existsSync(full)) continue;
      for (const entry of fs.readdirSync(full, { recursive: true })) {
        const file = path.join(full, String(entry));
        if (!/\.(ts|mts|mjs|js)$/.test(file) || file.includes(`${path.sep}dist${path.sep}`) || !fs.statSync(file).isFile()) continue;
        for (const m of fs.readFileSync(file, 'utf8').matchAll(/process\.env\.(FOLIO_[A-Z0-9_]+)|env\.(FOLIO_[A-Z0-9_]+)|['"`](FOLIO_[A-Z0-9_]+)['"`]/g)) names.add(m[1] ?? m[2] ?? m[3]);
      }
    }
    assert.ok(names.has('FOLIO_TEST_DB') && names.has('FOLIO_BENCH_PG_URL'), [...names].join(' '));
    const missing = [...names].filter((n) => !readme.includes(n));
    assert.deepEqual(missing, [], `not in the README: ${missing.join(', ')}`);
    assert.match(readme, /--documents N/);
  });
});

// A free port probe is what a start does first: it must not keep the port.
test('a start on a free port still starts (the port probe lets go of the port)', async () => {
  const probe = net.createServer();
  const port = await new Promise<number>((resolve) => probe.listen(0, '127.0.0.1', () => resolve((probe.address() as net.AddressInfo).port)));
  await new Promise((resolve) => probe.close(resolve));
  const a = await install();
  const server = await startMain({ ...a.env, PORT: String(port), FOLIO_ADMIN_USERNAME: ADMIN.username, FOLIO_ADMIN_PASSWORD: ADMIN.password });
  try {
    assert.equal(server.port, port);
    assert.ok(!fs.existsSync(path.join(a.dataDir, 'initial-admin-password')), 'FOLIO_ADMIN_PASSWORD: no password file');
  } finally {
    await server.stop();
  }
});
