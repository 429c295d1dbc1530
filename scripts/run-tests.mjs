// npm test's runner: every *.test.ts under server/test, electron/test and e2e, through node's
// test runner with the tsx loader (its summary prints the pass/fail counts CI reads). Then a
// second pass of the server API test files listed in POSTGRES_FILES against a PostgreSQL server
// of its own (server/test/helpers/postgres-run.ts), each test server on a fresh database.
// Arguments filter files by substring. FOLIO_TEST_DB=sqlite runs the first pass only,
// FOLIO_TEST_DB=postgres the second only (then any server test file may be named, listed or not);
// FOLIO_TEST_PG_URL names a PostgreSQL server to use instead of starting one.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
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
  'terms-bedita', 'model-project', 'publishing', 'accounts-bedita', 'admin-bedita', 'annotations', 'bedita-sdk',
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
const concurrency = process.env.FOLIO_TEST_CONCURRENCY ?? '2';
const which = process.env.FOLIO_TEST_DB;
const runTests = (list, env = process.env) =>
  spawnSync(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...list], { stdio: 'inherit', env }).status ?? 1;

let status = 0;
if (which !== 'postgres' && files.length) status = runTests(files);

// Named files run on PostgreSQL when FOLIO_TEST_DB=postgres asks for it, listed or not.
const named = which === 'postgres' && only.length;
const postgresFiles = named ? files.filter((f) => f.startsWith(path.join('server', 'test'))) : POSTGRES_FILES.filter((f) => files.includes(f));
if (which !== 'sqlite' && postgresFiles.length) status = (await postgresPass(postgresFiles)) || status;
process.exit(status);

/** The PostgreSQL binaries (15 or later), as server/test/helpers/postgres.ts looks for them. */
function havePostgres() {
  if (process.env.FOLIO_PG_BIN) return fs.existsSync(path.join(process.env.FOLIO_PG_BIN, 'initdb'));
  const root = '/usr/lib/postgresql';
  return fs.existsSync(root) && fs.readdirSync(root).some((v) => Number(v) >= 15 && fs.existsSync(path.join(root, v, 'bin', 'initdb')));
}

async function postgresPass(list) {
  // A server of the developer's own (trust authentication, may create databases).
  if (process.env.FOLIO_TEST_PG_URL) return runTests(list, { ...process.env, FOLIO_TEST_DB: 'postgres' });
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
    return runTests(list, { ...process.env, FOLIO_TEST_DB: 'postgres', FOLIO_TEST_PG_URL: url });
  } finally {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.stdin.end();
    await exited;
  }
}
