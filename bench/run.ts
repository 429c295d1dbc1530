// npm run bench [-- --quick]: starts Folio on a fresh data dir and seeds it through POST
// /operations, measures the uncached reads right there (a freshly filled site), restarts Folio on
// it, measures start time and idle memory, the uncached reads again and every other scenario, each
// driven from a separate load process against Folio and a minimal reference server, with each
// server's CPU per request; prints the table and writes it as JSON to bench/results/.
// Options for working on one figure: `--data DIR` keeps the seeded data dir (and reuses it when
// it holds a seed already); `--only a,b` runs the scenarios whose names contain a or b (and the reference runs they are compared with);
// `--seconds N` sets each scenario's duration; `--documents N` seeds N documents (the rest as the size says); `--db postgres` runs Folio and the reference server
// on PostgreSQL (a database on FOLIO_BENCH_PG_URL, or on a server it starts itself);
// `--seed-only` (with --data) seeds and stops; `--baseline FILE` names the 20,000-document run (a JSON result) the uncached reads of a bigger
// run are compared with (default: the latest such run on the same database in bench/results/).
// Each row prints its target, the reference's own CPU per request and how busy the machine was.
// Folio is served from its bundled build (server/dist/*.bundle.js, rebuilt first), as `npm start` runs it.
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { entrySize } from '../scripts/ui-entry-size.mjs';
import {
  LIST_QUERY,
  UNCACHED_ANONYMOUS,
  UNCACHED_SIGNED_IN,
  checkTargets,
  formatReport,
  missedTargets,
  scenarios,
  chooseScenarios,
  compareWithReference,
  uncachedScenarios,
  alternatingReads,
  warmUpRequests,
  warmUpSearches,
  WARM_UP_SEARCHES,
  type Baseline,
  type BenchReport,
  type LoadFigures,
  type LoadSpec,
  type MachineLoad,
  type Readers,
  type Scenario,
  type ScenarioResult,
} from './lib/scenarios.js';
import { FULL, QUICK, seed, type SeedResult } from './lib/seed.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const option = (name: string) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const quick = argv.includes('--quick');
const keptDir = option('--data');
const only = option('--only')?.split(',');
const seconds = Number(option('--seconds') ?? (quick ? 3 : 10));
const database = option('--db') ?? 'sqlite';
const documents = option('--documents') ? Number(option('--documents')) : undefined;
const baselineFile = option('--baseline');
const seedOnly = argv.includes('--seed-only');
/** A wrong option: one line, exit 2. */
function usage(message: string): never {
  console.error(`bench: ${message}`);
  process.exit(2);
}
if (documents !== undefined && !(Number.isInteger(documents) && documents >= 100)) usage('--documents is a whole number, at least 100');
if (database !== 'sqlite' && database !== 'postgres') usage('--db is sqlite or postgres');
if (database === 'postgres' && keptDir) usage('--data keeps a SQLite data set; it cannot be combined with --db postgres');
if (seedOnly && !keptDir) usage('--seed-only needs --data DIR (where the seed is kept)');
const tsx = ['--import', 'tsx'];

/** The node options `npm start` gives the server (package.json's start script): the measured server runs with them too. */
function startOptions(): string[] {
  const start: string = JSON.parse(fs.readFileSync(path.join(here, '..', 'package.json'), 'utf8')).scripts.start;
  const words = start.split(/\s+/);
  if (words[0] !== 'node') throw new Error(`the start script does not run node: ${start}`);
  return words.slice(1).filter((w) => w.startsWith('--'));
}

function child(script: string, args: string[]): ChildProcess {
  // The server as `npm start` runs it, plus FOLIO_BENCH_SERVER_ARGS: node options for the measured
  // server alone (e.g. V8 heap sizes).
  const serverArgs = script === 'serve.mjs' ? [...startOptions(), ...(process.env.FOLIO_BENCH_SERVER_ARGS ?? '').split(' ').filter(Boolean)] : [];
  const execArgv = script.endsWith('.ts') ? tsx : serverArgs;
  return fork(path.join(here, script), args, { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
}

function message<T>(p: ChildProcess, type?: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: any) => {
      if (type && m?.type !== type) return;
      p.off('message', onMessage);
      resolve(m as T);
    };
    p.on('message', onMessage);
    p.once('exit', (code) => reject(new Error(`child exited with ${code} before answering`)));
  });
}

/** The live child processes of a process (Folio's image helper while it runs); none elsewhere than Linux. */
function childPids(pid: number): number[] {
  try {
    return fs
      .readdirSync(`/proc/${pid}/task`)
      .flatMap((task) => fs.readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number));
  } catch {
    return [];
  }
}

/** Resident memory of a process in MB (Linux /proc); null elsewhere. */
function ownRssMb(pid: number): number | null {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** Resident memory of a process and its live children in MB (Folio counts with its image helper). */
function rssMb(pid: number): number | null {
  const own = ownRssMb(pid);
  return own === null ? null : childPids(pid).reduce((sum, child) => sum + (ownRssMb(child) ?? 0), own);
}

async function firstAnswer(url: string): Promise<void> {
  for (;;) {
    try {
      const res = await fetch(`${url}/status`);
      if (res.ok) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Documents in the database (drafts included: the caller signs in). */
async function documentCount(url: string, token: string): Promise<number> {
  const res = await fetch(`${url}/documents?page_size=1`, { headers: { Accept: 'application/vnd.api+json', Authorization: `Bearer ${token}` } });
  return ((await res.json()) as { meta: { pagination: { count: number } } }).meta.pagination.count;
}

/** Clock ticks per second of /proc's CPU times. */
const ticksPerSecond = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU time a process has used (user + system) in seconds (Linux /proc); null elsewhere. */
function cpuSeconds(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) in parentheses: utime and stime are the
    // 14th and 15th, then cutime and cstime (children that ended: an image helper that went idle).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const own = fields.slice(11, 15).reduce((sum, f) => sum + Number(f), 0) / ticksPerSecond;
    // Children still running (the image helper) count too.
    return childPids(pid).reduce((sum, child) => sum + (child === pid ? 0 : (cpuSeconds(child) ?? 0)), own);
  } catch {
    return null;
  }
}

/** Busy and total clock ticks of every core since boot (Linux /proc/stat); null elsewhere. */
function machineTicks(): { busy: number; total: number } | null {
  try {
    const fields = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const total = fields.slice(0, 8).reduce((a, b) => a + b, 0);
    // idle and iowait are the idle ones.
    return { busy: total - fields[3] - (fields[4] ?? 0), total };
  } catch {
    return null;
  }
}

const cores = os.cpus().length;

async function runLoad(spec: LoadSpec, serverPid: number, alongside?: LoadSpec): Promise<LoadFigures & { peakRssMb: number | null; cpuUsPerRequest: number | null; machine: MachineLoad | null }> {
  const load = child('load.ts', []);
  const second = alongside ? child('load.ts', []) : null;
  let peak: number | null = null;
  const sampler = setInterval(() => {
    const r = rssMb(serverPid);
    if (r !== null) peak = Math.max(peak ?? 0, r);
  }, 100);
  const cpuBefore = cpuSeconds(serverPid);
  const ticksBefore = machineTicks();
  const ownBefore = process.cpuUsage();
  if (second && alongside) second.send(alongside);
  load.send(spec);
  const [figures, secondFigures] = await Promise.all([message<LoadFigures>(load), second ? message<LoadFigures>(second) : null]);
  const cpuAfter = cpuSeconds(serverPid);
  const ticksAfter = machineTicks();
  const own = process.cpuUsage(ownBefore);
  clearInterval(sampler);
  const cpuUsPerRequest = cpuBefore === null || cpuAfter === null || !figures.requests ? null : ((cpuAfter - cpuBefore) * 1e6) / figures.requests;
  let machine: MachineLoad | null = null;
  if (ticksBefore && ticksAfter && ticksAfter.total > ticksBefore.total) {
    // The ticks of every core: their share that was busy, in cores; what the benchmark's own
    // processes used (the server, the load generators, this one) is taken out for "other".
    const elapsed = (ticksAfter.total - ticksBefore.total) / cores / ticksPerSecond;
    const busyCores = ((ticksAfter.busy - ticksBefore.busy) / (ticksAfter.total - ticksBefore.total)) * cores;
    const ours = (cpuAfter ?? 0) - (cpuBefore ?? 0) + (figures.cpuSeconds ?? 0) + (secondFigures?.cpuSeconds ?? 0) + (own.user + own.system) / 1e6;
    machine = { cores, busyCores, otherCores: Math.max(0, busyCores - ours / elapsed) };
  }
  return { ...figures, peakRssMb: peak, cpuUsPerRequest, machine };
}

const stop = (p: ChildProcess) => new Promise<void>((resolve) => (p.exitCode !== null ? resolve() : (p.once('exit', () => resolve()), p.kill('SIGTERM'))));

/**
 * `--db postgres`: a fresh database on FOLIO_BENCH_PG_URL (a server where we may create one), or on
 * a PostgreSQL server of our own (Debian's binaries, as the tests start it).
 */
async function postgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const { default: pg } = await import('pg');
  let base = process.env.FOLIO_BENCH_PG_URL;
  let stopServer = () => {};
  if (!base) {
    const { startPostgres } = await import('../server/test/helpers/postgres.js');
    const server = await startPostgres();
    base = server.url;
    stopServer = server.stop;
  }
  const name = `folio_bench_${Date.now()}`;
  const admin = async (text: string) => {
    const client = new pg.Client({ connectionString: base });
    await client.connect();
    try {
      await client.query(text);
    } finally {
      await client.end();
    }
  };
  await admin(`create database ${name} encoding 'UTF8' template template0 locale 'C.UTF-8'`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      await admin(`drop database if exists ${name} with (force)`);
      stopServer();
    },
  };
}

/** The admin UI's first-load JavaScript in kB (gzip), from the built ui/dist; null when not built. */
function uiFirstLoadKb(): number | null {
  try {
    return entrySize(path.join(here, '..', 'ui', 'dist')).total / 1000;
  } catch {
    return null;
  }
}

interface Running {
  process: ChildProcess;
  url: string;
  readyMs: number;
  startToFirstAnswerMs: number;
}

/** The server's memory by kind (process.memoryUsage(), asked over IPC), printed on one line. */
async function printMemory(when: string, on: Running): Promise<void> {
  const answer = message<NodeJS.MemoryUsage>(on.process, 'memory');
  on.process.send({ type: 'memory' });
  const m = await answer;
  const mb = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MB`;
  // Linux: how much of the RSS is anonymous memory, mapped files (code, libraries) and shared memory.
  let kinds = '';
  try {
    const status = fs.readFileSync(`/proc/${on.process.pid}/status`, 'utf8');
    kinds = ['RssAnon', 'RssFile', 'RssShmem'].map((k) => `${k} ${Math.round(Number(new RegExp(`${k}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) / 1024)} MB`).join(', ');
  } catch {
    /* not Linux */
  }
  console.log(`memory ${when}: RSS ${mb(m.rss)} (${kinds}), V8 heap ${mb(m.heapUsed)} used of ${mb(m.heapTotal)}, external ${mb(m.external)} (array buffers ${mb(m.arrayBuffers)})`);
  const anon = anonymousMemory(on.process.pid!);
  if (anon) console.log(`  anonymous memory ${when}: ${anon}`);
  const helpers = childPids(on.process.pid!);
  console.log(`  helper processes (image helper, password hasher) ${when}: ${helpers.length ? helpers.map((p) => `${p} (RSS ${(ownRssMb(p) ?? 0).toFixed(0)} MB, counted in the RSS figures)`).join(', ') : 'not running'}`);
}

/**
 * Where a process's anonymous resident memory is (Linux /proc/pid/smaps): glibc's main arena
 * (`[heap]`), its thread arenas (glibc reserves each one 64 MB, aligned to 64 MB: worker threads
 * that allocate get their own), and the rest (V8's heap pages, large allocations mapped apart).
 */
function anonymousMemory(pid: number): string | null {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/smaps`, 'utf8');
  } catch {
    return null;
  }
  const ARENA = 64 * 1024 * 1024;
  let main = 0;
  let arenas = 0;
  let arenaCount = 0;
  let other = 0;
  let kind: 'main' | 'arena' | 'other' | null = null;
  for (const line of text.split('\n')) {
    const header = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ (\d+)\s*(.*)$/.exec(line);
    if (header) {
      const [, start, , inode, name] = header;
      if (name === '[heap]') kind = 'main';
      else if (inode !== '0' || name) kind = null;
      else if (Number(BigInt(`0x${start}`) % BigInt(ARENA)) === 0) {
        kind = 'arena';
        arenaCount++;
      } else kind = 'other';
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss && kind) {
      const kb = Number(rss[1]) * 1024;
      if (kind === 'main') main += kb;
      else if (kind === 'arena') arenas += kb;
      else other += kb;
    }
  }
  const mb = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MB`;
  return `malloc main arena ${mb(main)}, malloc thread arenas ${mb(arenas)} (${arenaCount} mappings at 64 MB bounds), other (V8 heap pages, large allocations) ${mb(other)}`;
}

async function startFolio(dataDir: string, dbArgs: string[]): Promise<Running> {
  const spawnedAt = performance.now();
  const process = child('serve.mjs', [dataDir, ...dbArgs]);
  const ready = await message<{ url: string; readyMs: number }>(process, 'ready');
  await firstAnswer(ready.url);
  return { process, url: ready.url, readyMs: ready.readyMs, startToFirstAnswerMs: performance.now() - spawnedAt };
}

async function startReference(dataDir: string, dbArgs: string[]): Promise<{ process: ChildProcess; url: string }> {
  const process = child('reference.ts', [dataDir, ...dbArgs]);
  return { process, url: (await message<{ url: string }>(process, 'ready')).url };
}

/** How long a scenario that asks for each of its paths once may run (every id of the full seed at ~500 req/s). */
const UNCACHED_SECONDS = 300;

const JSONAPI = 'application/vnd.api+json';

async function signIn(url: string, credentials: { username: string; password: string }): Promise<string> {
  const res = await fetch(`${url}/auth`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(credentials) });
  if (!res.ok) throw new Error(`sign-in of ${credentials.username} failed: ${res.status}`);
  return ((await res.json()) as { meta: { jwt: string } }).meta.jwt;
}

/** A write, so that every cache of the server (answers, reads, identities) starts empty. */
async function emptyCaches(url: string, adminToken: string, documentId: number): Promise<void> {
  const res = await fetch(`${url}/documents/${documentId}`, {
    method: 'PATCH',
    headers: { Accept: JSONAPI, 'Content-Type': JSONAPI, Authorization: `Bearer ${adminToken}` },
    body: JSON.stringify({ data: { id: String(documentId), type: 'documents', attributes: { description: `Caches emptied at ${new Date().toISOString()}` } } }),
  });
  if (!res.ok) throw new Error(`PATCH to empty the caches failed: ${res.status}`);
}

/** A second of anonymous reads by id (of documents spread over the seed), just before a scenario. */
const BUSY_READS = 2000;
async function busyBefore(url: string, pid: number, seed: SeedResult): Promise<void> {
  const step = Math.max(1, Math.floor(seed.documentIds.length / BUSY_READS));
  const paths = seed.documentIds.filter((_, i) => i % step === 0).slice(0, BUSY_READS).map((id) => `/documents/${id}`);
  await runLoad({ url: url + '/documents', connections: 10, seconds: 60, method: 'GET', headers: { Accept: JSONAPI }, paths, once: true }, pid);
}

/** The uncached reads of a 20,000-document run on this database: --baseline, or the latest in bench/results/. */
function findBaseline(db: string, documents: number): Baseline | null {
  const dir = path.join(here, 'results');
  const files = baselineFile ? [path.resolve(baselineFile)] : fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort().reverse().map((f) => path.join(dir, f)) : [];
  const names = [UNCACHED_ANONYMOUS, UNCACHED_SIGNED_IN, 'uncached GET API key'].flatMap((n) => [`${n} (after seeding)`, `${n} (after restart)`]);
  for (const file of files) {
    let report: BenchReport;
    try {
      report = JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch {
      if (baselineFile) usage(`--baseline ${baselineFile} is no benchmark result`);
      continue;
    }
    const smaller = report.seed?.sizes?.documents;
    if ((report.database ?? 'sqlite') !== db || !smaller || smaller >= documents || (!baselineFile && smaller !== 20_000)) continue;
    const cpu: Record<string, number> = {};
    for (const s of report.scenarios) if (names.includes(s.name) && s.cpuUsPerRequest) cpu[s.name] = s.cpuUsPerRequest;
    if (Object.keys(cpu).length) return { file: path.relative(process.cwd(), file), documents: smaller, cpuUsPerRequest: cpu };
  }
  return null;
}

/**
 * Requests each server answers before the uncached scenarios, on both servers alike
 * (warmUpRequests says which): a process's first thousands of requests cost about three times the
 * steady figure while its code compiles, and they all fell on the first scenario measured
 * (anonymous reads), which then looked a tenth dearer than signed-in ones asked right after (285
 * against 257 µs; the same 212 against 213 µs once both ran warm). The same held for the list
 * pages (a hundred warmed them: a profile of the thousand after them found V8's compiler threads
 * at a fifth of the process's CPU) and for PATCH (none was warm: the mixed scenarios compiled it).
 * The first pass over every document also fills the database's page cache (SQLite's,
 * PostgreSQL's buffers): whichever scenario came first paid for it (anonymous reads first: 233
 * against 206 µs signed in; signed in first: 227 against 219 µs anonymous), and the reference's one
 * pass always did. So the list pages are read, the edits made, then every document read once,
 * anonymously and signed in; every Folio scenario then starts with its caches emptied (emptyCaches), so
 * nothing read here is served from a response cache there.
 */
async function warmUp(folio: Running, reference: { process: ChildProcess; url: string }, seed: SeedResult, who: Readers): Promise<void> {
  const { reads, pages, writes } = warmUpRequests(seed, who.adminToken);
  const started = performance.now();
  for (const [url, pid, signedIn] of [
    [folio.url, folio.process.pid!, true],
    [reference.url, reference.process.pid!, false],
  ] as const) {
    const read = (headers: Record<string, string>, paths: string[], edits?: typeof writes) => runLoad({ url: url + '/documents', connections: 10, seconds: 120, method: 'GET', headers: { Accept: JSONAPI, ...headers }, paths, once: true, writes: edits }, pid);
    await read({}, pages);
    // Every request a write (the paths stand for the count).
    await read({}, writes.requests.map((w) => w.path), writes);
    // The reads by id last, as the scenarios begin with them (a first pass over the documents
    // right after the list pages cost a third more than the next).
    await read({}, reads);
    // The reference knows no users: it reads anonymously again.
    await read(signedIn ? { Authorization: `Bearer ${who.editorToken}` } : {}, reads);
    // Only Folio searches.
    if (signedIn) await runLoad({ url: url + '/objects', connections: 10, seconds: 120, method: 'GET', headers: { Accept: JSONAPI }, paths: warmUpSearches(), once: true }, pid);
  }
  console.log(`  (warmed up: ${reads.length * 2 + pages.length} reads and ${writes.requests.length} edits on each server, ${WARM_UP_SEARCHES} searches on Folio, ${((performance.now() - started) / 1000).toFixed(0)} s)`);
}

async function main() {
  const startedAt = new Date().toISOString();
  const loadAtStart = os.loadavg()[0];
  const dataDir = keptDir ? path.resolve(keptDir) : fs.mkdtempSync(path.join(os.tmpdir(), 'folio-bench-'));
  const seedFile = path.join(dataDir, 'bench-seed.json');
  const pgDatabase = database === 'postgres' ? await postgresDatabase() : null;
  const dbArgs = pgDatabase ? [pgDatabase.url] : [];
  const results: ScenarioResult[] = [];
  let folio: Running | null = null;
  let reference: ChildProcess | null = null;
  try {
    console.log('building the server (server/dist) …');
    execFileSync('npm', ['run', '--silent', 'build:server'], { cwd: path.join(here, '..'), stdio: 'inherit' });
    console.log(`Folio's node options (as npm start gives them): ${startOptions().join(' ') || 'none'}${process.env.FOLIO_BENCH_SERVER_ARGS ? `, and ${process.env.FOLIO_BENCH_SERVER_ARGS}` : ''}`);
    const reused = keptDir && fs.existsSync(seedFile);
    fs.mkdirSync(dataDir, { recursive: true });
    folio = await startFolio(dataDir, dbArgs);
    let token = await signIn(folio.url, { username: 'bench-admin', password: 'bench-admin-password' });
    let seeded: { result: SeedResult; rss: number | null };
    if (reused) {
      seeded = JSON.parse(fs.readFileSync(seedFile, 'utf8'));
      console.log(`reusing the data set seeded in ${dataDir} (no scenarios right after seeding)`);
    } else {
      // Written through the server that is measured next, as an importer fills a new site.
      console.log(`seeding ${quick ? 'quick' : 'full'} data set in ${dataDir} through POST /operations …`);
      let shown = 0;
      const sizes = { ...(quick ? QUICK : FULL), ...(documents ? { documents } : {}) };
      const url = folio.url;
      const result = await seed(
        url,
        token,
        sizes,
        (done, total) => {
          if (done - shown >= total / 10 || done === total) {
            shown = done;
            process.stdout.write(`  ${done}/${total} objects\n`);
          }
        },
        async () => (token = await signIn(url, { username: 'bench-admin', password: 'bench-admin-password' })),
      );
      seeded = { result, rss: rssMb(folio.process.pid!) };
      console.log(`seeded in ${result.seconds.toFixed(1)} s`);
      if (keptDir) fs.writeFileSync(seedFile, JSON.stringify(seeded));
      if (seedOnly) {
        console.log(`seeded at ${(result.sizes.documents / result.seconds).toFixed(0)} documents/s; server RSS ${seeded.rss?.toFixed(0) ?? '-'} MB; kept in ${dataDir}`);
        return;
      }
    }
    // The reference is started afresh with each start of Folio: both phases compare two
    // processes that started together (a reference warmed by the first phase made Folio's
    // freshly restarted process look 3x worse: 383 against 130 µs per request for the reference).
    let ref = await startReference(dataDir, dbArgs);
    reference = ref.process;

    const compare = (result: ScenarioResult) => compareWithReference(result, results);
    const runScenario = async (s: Scenario, on: Running) => {
      const target = s.target === 'folio' ? on.url : ref.url;
      const pid = s.target === 'folio' ? on.process.pid! : ref.process.pid!;
      const { path: p, ...rest } = s.spec;
      process.stdout.write(`  ${s.name}${s.note ? ` (${s.note})` : ''} … `);
      // Each uncached scenario starts on a server that was just busy, as the reference's first
      // one does (it follows the reference's warm-up): an idle process shrinks its heap and the
      // scenario after the idle spell paid its growing back (the first Folio scenario, anonymous
      // reads, cost 7-10% more than the same reads measured second; signed in first: the reverse).
      if (s.uncached && s.target === 'folio') await busyBefore(target, pid, seeded.result);
      if (s.uncached) await emptyCaches(on.url, token, seeded.result.documentIds[0]);
      const side = s.alongside ? (({ path: sp, ...r }) => ({ ...r, url: target + sp, seconds }))(s.alongside) : undefined;
      const before = s.creates ? await documentCount(on.url, token) : 0;
      // A scenario that asks for each path once runs to its end (up to UNCACHED_SECONDS), so that
      // a process's first thousands of requests (its code still being compiled, ~3x the steady
      // cost) weigh the same in every phase and on both servers, whatever --seconds says.
      const f = await runLoad({ ...rest, url: target + p, connections: 10, seconds: rest.once ? Math.max(seconds, UNCACHED_SECONDS) : seconds }, pid, side);
      const result: ScenarioResult = {
        name: s.name,
        target: s.target,
        ...f,
        ratio: null,
        cpuRatio: null,
        cpuTarget: s.cpuTarget,
        p99Target: s.p99Target,
        comparedTo: s.comparedTo,
      };
      compare(result);
      const cpuRatio = result.cpuRatio ?? null;
      if (s.creates) {
        // Nothing lost: every answered create is in the database. Requests still in flight when
        // the load stopped may add a few more (at most one per connection), never fewer.
        await new Promise((r) => setTimeout(r, 500));
        const answered = (f.requests - f.non2xx) * s.creates;
        const counted = (await documentCount(on.url, token)) - before;
        result.objectsPerSecond = f.rps * s.creates;
        result.created = { answered, counted, lost: Math.max(0, answered - counted) };
      }
      results.push(result);
      const cpu = f.cpuUsPerRequest === null ? '' : `, ${f.cpuUsPerRequest.toFixed(0)} µs CPU/req${cpuRatio === null ? '' : ` (ref/this ${cpuRatio.toFixed(2)}${Array.isArray(s.comparedTo) ? ' so far' : ''})`}`;
      console.log(`${f.rps.toFixed(0)} req/s, p99 ${f.p99} ms, errors ${f.errors}${cpu}${result.created ? `, ${result.objectsPerSecond!.toFixed(0)} objects/s, lost ${result.created.lost}` : ''}`);
      // A reference run that follows Folio scenarios compared with it: their ratios are now whole.
      if (s.target === 'reference') {
        for (const r of results) {
          if (!Array.isArray(r.comparedTo) || !r.comparedTo.includes(s.name)) continue;
          compare(r);
          console.log(`    ${r.name}: ref/this ${r.cpuRatio?.toFixed(2) ?? '-'} against the reference's mean of ${r.refCpuUsPerRequest?.toFixed(0) ?? '-'} µs (${r.comparedTo.join(', ')})`);
        }
      }
    };
    const chosen = (list: Scenario[]) => chooseScenarios(list, only);
    /**
     * Anonymous and signed-in reads by id measured in turns (alternatingReads), when the uncached
     * reads by id are among the scenarios run: what "anonymous no dearer than signed in" is judged on.
     */
    const inTurns = async (on: Running, phase: 'after seeding' | 'after restart') => {
      const names = chosen(uncachedScenarios(seeded.result, { adminToken: token, editorToken: '', apiKey: '' }, phase)).map((s) => s.name);
      if (!names.includes(`${UNCACHED_ANONYMOUS} (${phase})`) || !names.includes(`${UNCACHED_SIGNED_IN} (${phase})`)) return;
      // Signed in only when the row runs: a login starts the password hasher (a child process that
      // stays 5 s), and the RSS read just after would count it (41 MB at a million, round 19).
      const who = await readers(on);
      await emptyCaches(on.url, token, seeded.result.documentIds[0]);
      const totals = new Map<string, { cpuUs: number; requests: number; seconds: number; p50: number; p99: number; errors: number; non2xx: number; peakRssMb: number | null }>();
      const slices = alternatingReads(seeded.result, who, phase);
      for (const slice of slices) {
        const server = slice.kind === 'reference' ? ref : on;
        const f = await runLoad({ ...slice.spec, url: server.url + slice.spec.path, connections: 10, seconds: UNCACHED_SECONDS }, server.process.pid!);
        const t = totals.get(slice.name) ?? { cpuUs: 0, requests: 0, seconds: 0, p50: 0, p99: 0, errors: 0, non2xx: 0, peakRssMb: null };
        t.cpuUs += (f.cpuUsPerRequest ?? NaN) * f.requests;
        t.requests += f.requests;
        t.seconds += f.requests / Math.max(f.rps, 1e-9);
        // Percentiles cannot be added up: the worst of the slices' p50 and p99.
        t.p50 = Math.max(t.p50, f.p50);
        t.p99 = Math.max(t.p99, f.p99);
        t.errors += f.errors;
        t.non2xx += f.non2xx;
        t.peakRssMb = Math.max(t.peakRssMb ?? 0, f.peakRssMb ?? 0);
        totals.set(slice.name, t);
      }
      const refName = slices.find((s) => s.kind === 'reference')!.name;
      const rows = [...totals].map(([name, t]): ScenarioResult => {
        const cpu = t.requests ? t.cpuUs / t.requests : null;
        const isRef = name === refName;
        return { name, target: isRef ? 'reference' : 'folio', requests: t.requests, rps: t.requests / Math.max(t.seconds, 1e-9), p50: t.p50, p99: t.p99, errors: t.errors, non2xx: t.non2xx, peakRssMb: t.peakRssMb, ratio: null, cpuUsPerRequest: cpu !== null && Number.isFinite(cpu) ? cpu : null, ...(isRef ? {} : { comparedTo: refName, cpuTarget: 0.5 }) };
      });
      results.push(...rows);
      // Folio's two rows against the reference's, at most twice its CPU.
      for (const r of rows) {
        compare(r);
        console.log(`  ${r.name} … ${r.requests} requests in turns, ${r.cpuUsPerRequest == null ? '-' : r.cpuUsPerRequest.toFixed(0)} µs CPU/req${r.cpuRatio == null ? '' : ` (ref/this ${r.cpuRatio.toFixed(2)})`}`);
      }
    };
    const uncachedRssMb = { afterSeeding: null as number | null, afterRestart: null as number | null };
    const readers = async (on: Running): Promise<Readers> => ({ adminToken: token, editorToken: await signIn(on.url, seeded.result.editor), apiKey: seeded.result.apiKey });

    if (!reused) {
      console.log('right after seeding, on the server that took the writes:');
      // One sign-in per phase, before the warm-up: its password hasher has ended by the time the
      // RSS is read (a sign-in right before a short `--only` run left it counted).
      const who = await readers(folio);
      await warmUp(folio, ref, seeded.result, who);
      for (const s of chosen(uncachedScenarios(seeded.result, who, 'after seeding'))) await runScenario(s, folio);
      await inTurns(folio, 'after seeding');
      uncachedRssMb.afterSeeding = rssMb(folio.process.pid!);
      await printMemory('after the uncached scenarios, on the server that took the seed', folio);
    }

    await stop(folio.process);
    await stop(reference);
    folio = await startFolio(dataDir, dbArgs);
    ref = await startReference(dataDir, dbArgs);
    reference = ref.process;
    const server = folio;
    // Idle: restarted on the seeded database, answering, nothing asked of it yet.
    await new Promise((r) => setTimeout(r, 1000));
    const idleRssMb = rssMb(server.process.pid!);
    token = await signIn(server.url, { username: 'bench-admin', password: 'bench-admin-password' });
    const editorToken = await signIn(server.url, seeded.result.editor);
    const accept = { Accept: JSONAPI };
    const search = await (await fetch(`${server.url}/objects?filter[query]=${encodeURIComponent(seeded.result.searchWord)}&page_size=1`, { headers: accept })).json();
    // The thumbnail is made once here; the scenario then asks for the cached one.
    const thumbPath = `/media/thumbs/${seeded.result.imageIds[0]}?preset=small`;
    const thumb = (await (await fetch(server.url + thumbPath, { headers: accept })).json()) as { meta: { thumbnails: Array<{ ready: boolean }> } };
    if (!thumb.meta.thumbnails[0]?.ready) throw new Error('thumbnail not ready');
    await new Promise((r) => setTimeout(r, 1000));
    const warmRssMb = rssMb(server.process.pid!);

    console.log('after a restart on the seeded data:');
    const who = await readers(server);
    await warmUp(server, ref, seeded.result, who);
    for (const s of chosen(uncachedScenarios(seeded.result, who, 'after restart'))) await runScenario(s, server);
    await inTurns(server, 'after restart');
    uncachedRssMb.afterRestart = rssMb(server.process.pid!);
    await printMemory('after the uncached scenarios, after the restart', server);

    const firstPage = (await (await fetch(`${server.url}/documents?${LIST_QUERY}`, { headers: accept })).json()) as { meta: { pagination: { page_count: number } } };
    const deepPage = Math.min(500, firstPage.meta.pagination.page_count);
    for (const s of chosen(scenarios(seeded.result, token, thumbPath, deepPage, editorToken))) await runScenario(s, server);
    const p1 = results.find((r) => r.name === 'GET list of 20, filter + sort');
    const p500 = results.find((r) => r.name === `GET list page=${deepPage}`);
    const { documentIds: _d, imageIds: _i, editor: _e, apiKey: _k, ...seedInfo } = seeded.result;
    const report: BenchReport = {
      startedAt,
      mode: quick ? 'quick' : 'full',
      database: database as 'sqlite' | 'postgres',
      seed: { ...seedInfo, searchMatches: (search as { meta: { pagination: { count: number } } }).meta.pagination.count },
      seedRssMb: seeded.rss,
      idleRssMb,
      warmRssMb,
      startToFirstAnswerMs: server.startToFirstAnswerMs,
      startInProcessMs: server.readyMs,
      deepPage,
      page500VsPage1: p1 && p500 ? p1.rps / p500.rps : null,
      uiFirstLoadKb: uiFirstLoadKb(),
      uncachedRssMb,
      scenarios: results,
      loadAverage: { start: loadAtStart, end: os.loadavg()[0], cores },
      baseline: seeded.result.sizes.documents > 20_000 ? findBaseline(database, seeded.result.sizes.documents) : undefined,
    };
    report.targets = checkTargets(report);
    console.log('\n' + formatReport(report));
    const dir = path.join(here, 'results');
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `${startedAt.replace(/[:.]/g, '-')}.json`);
    fs.writeFileSync(file, JSON.stringify(report, null, 2) + '\n');
    console.log(`\nwritten to ${path.relative(process.cwd(), file)}`);
    const missed = missedTargets(report.targets);
    if (missed) {
      console.log(`bench: ${missed} target${missed === 1 ? '' : 's'} missed`);
      process.exitCode = 1;
    }
  } finally {
    if (reference) await stop(reference);
    if (folio) await stop(folio.process);
    if (!keptDir) fs.rmSync(dataDir, { recursive: true, force: true });
    await pgDatabase?.drop();
  }
}

await main();
