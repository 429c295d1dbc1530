// npm test's runner: every *.test.ts under server/test, electron/test and e2e, through node's
// test runner with the tsx loader (its summary prints the pass/fail counts CI reads), and a
// second pass of the server API test files listed in POSTGRES_FILES against a PostgreSQL server
// of its own (server/test/helpers/postgres-run.ts), each test server on a fresh database. The two
// passes run at the same time so that both cores stay busy (the SQLite pass, browser tests
// included, with FOLIO_TEST_CONCURRENCY files at once, default 2; the PostgreSQL pass with
// FOLIO_TEST_PG_CONCURRENCY, default 1): the SQLite pass prints as it goes, the PostgreSQL pass's
// output follows it whole; the exit status is the first failure's; each pass's time ends the output
// (and is appended to FOLIO_TEST_TIMINGS, a file, when set: `.ci/run` prints them).
// Every test, and every test file as a whole, has FOLIO_TEST_TIMEOUT_MS (default 30 minutes) as a
// hang guard, far beyond any slow machine's time: a test that waits for
// what never happens fails instead of stalling the run; no test depends on being fast.
// Arguments filter files by substring. FOLIO_TEST_DB=sqlite runs the first pass only,
// FOLIO_TEST_DB=postgres the second only (then any server test file may be named, listed or not);
// FOLIO_TEST_PG_URL names a PostgreSQL server to use instead of starting one.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';

/**
 * Server test files that pass on PostgreSQL. Left out: backups (its restore CLI children and
 * fixtures read the SQLite file), permissions-migration (0080 on an older SQLite file), folders-tree-storage,
 * reliability-busy and reliability-crash (SQLite's file, locks and crash recovery themselves),
 * production-bundle (the built bundle on the default database).
 */
const POSTGRES_FILES = [
  'accounts-applications', 'accounts-mail', 'accounts-users', 'auth', 'folders', 'foundation', 'legacy',
  'media-objects', 'media-streams', 'media-thumbs', 'model', 'model-bedita', 'objects', 'operations', 'performance-caches',
  'reliability-auth', 'reliability-concurrency', 'reliability-files', 'reliability-fuzz', 'reliability-limits',
  'structure', 'webhooks', 'objects-search', 'backups-postgres', 'storage-s3', 'instances', 'history', 'permissions', 'account-security',
  'jobs-queue', 'instances-processes', 'proxy-headers', 'storage-orphans', 'kernel', 'instances-start', 'bedita-lists', 'translations',
  'terms-bedita', 'model-project', 'model-guards', 'media-private', 'model-hidden', 'instances-model', 'publishing', 'accounts-bedita', 'admin-bedita', 'annotations', 'bedita-sdk',
].map((name) => `server/test/${name}.test.ts`);

const roots = ['server/test', 'electron/test', 'e2e', 'bench/test'];
const only = process.argv.slice(2);
const matches = (file) => !only.length || only.some((o) => file.includes(o));
const files = [];
for (const root of roots) {
  if (!fs.existsSync(root)) continue;
  for (const entry of fs.readdirSync(root, { recursive: true })) {
    const file = path.join(root, String(entry));
    if (file.endsWith('.test.ts') && matches(file)) files.push(file);
  }
}
files.sort();
const which = process.env.FOLIO_TEST_DB;
const timeout = process.env.FOLIO_TEST_TIMEOUT_MS ?? '1800000';

/**
 * One pass of node's test runner over `list`; `out`: where its output goes (inherit: as it comes;
 * a file: printed when the pass is done). Resolves with its exit status.
 */
function runTests(list, { env = process.env, concurrency = '2', out = 'inherit' } = {}) {
  const args = ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, `--test-timeout=${timeout}`, ...list];
  const fd = out === 'inherit' ? 'pipe' : fs.openSync(out, 'w');
  const child = spawn(process.execPath, args, { stdio: ['ignore', fd, fd], env });
  if (typeof fd === 'number') fs.closeSync(fd);
  const done = [];
  if (fd === 'pipe') {
    // Printed as it comes, and read for failures (the run's output is long: CI shows its end).
    const collect = failureCollector();
    for (const stream of [child.stdout, child.stderr]) {
      const target = stream === child.stdout ? process.stdout : process.stderr;
      stream.on('data', (chunk) => target.write(chunk));
      const lines = readline.createInterface({ input: stream });
      lines.on('line', collect);
      done.push(new Promise((resolve) => lines.once('close', resolve)));
    }
  }
  return new Promise((resolve) => {
    child.once('error', () => resolve(1));
    child.once('exit', (code) => Promise.all(done).then(() => resolve(code ?? 1)));
  });
}

/** Failed tests of every pass (name, then the first lines of their report), printed at the end. */
const failures = [];
/** A line reader that keeps each `not ok` line and the start of the YAML block under it. */
function failureCollector() {
  let current = null;
  return (line) => {
    const failed = /^(\s*)not ok \d+ - (.*)$/.exec(line);
    if (failed) {
      current = { indent: failed[1], lines: [line.trim()] };
      failures.push(current);
      return;
    }
    if (!current) return;
    if (line.trim() === '...' || current.lines.length > 18) current = null;
    else if (!/^\s*(---|duration_ms:|type:)/.test(line)) current.lines.push(`  ${line.trim()}`);
  };
}

/** Runs `work` (a pass), noting its time; resolves with its status. */
const times = [];
async function timed(name, work) {
  const started = Date.now();
  const status = await work();
  times.push({ name, seconds: Math.round((Date.now() - started) / 1000), status });
  return status;
}

const passes = [];
/** Output files of passes that ran beside another, printed once all are done. */
const printed = [];
if (which !== 'postgres' && files.length) {
  passes.push(timed(`SQLite pass (${files.length} files)`, () => runTests(files, { concurrency: process.env.FOLIO_TEST_CONCURRENCY ?? '2' })));
}
// Named files run on PostgreSQL when FOLIO_TEST_DB=postgres asks for it, listed or not.
const named = which === 'postgres' && only.length;
const postgresFiles = named ? files.filter((f) => f.startsWith(path.join('server', 'test'))) : POSTGRES_FILES.filter((f) => files.includes(f));
if (which !== 'sqlite' && postgresFiles.length) {
  // Alone, it prints as it goes; beside the SQLite pass, into a file printed once both are done.
  const log = passes.length ? path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'folio-pg-pass-')), 'output.tap') : 'inherit';
  passes.push(timed(`PostgreSQL pass (${postgresFiles.length} files)`, () => postgresPass(postgresFiles, log)).then((status) => {
    if (log !== 'inherit') printed.push(log);
    return status;
  }));
}
const statuses = await Promise.all(passes);
for (const log of printed) {
  console.log('# ---- PostgreSQL pass (run beside the SQLite pass) ----');
  const text = fs.readFileSync(log, 'utf8');
  process.stdout.write(text);
  const collect = failureCollector();
  for (const line of text.split('\n')) collect(line);
  fs.rmSync(path.dirname(log), { recursive: true, force: true });
}
if (failures.length) {
  console.log(`# ---- ${failures.length} failed (suites included) ----`);
  for (const failure of failures) console.log(failure.lines.map((l) => `# ${l}`).join('\n'));
}
for (const t of times) console.log(`# ${t.name}: ${t.seconds} s${t.status ? ` (exit ${t.status})` : ''}`);
if (process.env.FOLIO_TEST_TIMINGS) fs.appendFileSync(process.env.FOLIO_TEST_TIMINGS, times.map((t) => `${t.name}\t${t.seconds}\t${t.status}\n`).join(''));
process.exit(statuses.find((s) => s !== 0) ?? 0);

/** The PostgreSQL binaries (15 or later), as server/test/helpers/postgres.ts looks for them. */
function havePostgres() {
  if (process.env.FOLIO_PG_BIN) return fs.existsSync(path.join(process.env.FOLIO_PG_BIN, 'initdb'));
  const root = '/usr/lib/postgresql';
  return fs.existsSync(root) && fs.readdirSync(root).some((v) => Number(v) >= 15 && fs.existsSync(path.join(root, v, 'bin', 'initdb')));
}

async function postgresPass(list, out) {
  const env = { ...process.env, FOLIO_TEST_DB: 'postgres' };
  const concurrency = process.env.FOLIO_TEST_PG_CONCURRENCY ?? (out === 'inherit' ? '2' : '1');
  // A server of the developer's own (trust authentication, may create databases).
  if (process.env.FOLIO_TEST_PG_URL) return runTests(list, { env, concurrency, out });
  if (!havePostgres()) {
    console.log('# PostgreSQL pass skipped: PostgreSQL 15+ binaries not found (apt-get install postgresql-15, or set FOLIO_PG_BIN)');
    return 0;
  }
  console.log(`# PostgreSQL pass: ${list.length} server test files`);
  const server = spawn(process.execPath, ['--import', 'tsx', 'server/test/helpers/postgres-run.ts'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const url = await new Promise((resolve, reject) => {
    readline.createInterface({ input: server.stdout }).once('line', resolve);
    server.once('exit', (code) => reject(new Error(`the PostgreSQL server for the tests did not start (exit ${code})`)));
  });
  try {
    return await runTests(list, { env: { ...env, FOLIO_TEST_PG_URL: url }, concurrency, out });
  } finally {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.stdin.end();
    await exited;
  }
}
