// The server under load: the bundled build `npm start` runs (server/dist/*.bundle.js) with
// production settings and request logging off, on a data dir (empty at first: the benchmark seeds
// it through this very process, then measures it, then starts it again). Plain JavaScript on
// purpose, so that neither start time nor memory includes a TypeScript loader. Reports its URL.
import path from 'node:path';
import v8 from 'node:v8';
// FOLIO_BENCH_UNBUNDLED=1: the compiled files one by one instead (a profile then names each file).
const unbundled = process.env.FOLIO_BENCH_UNBUNDLED === '1';
const { createServer } = await import(unbundled ? '../server/dist/app.js' : '../server/dist/app.bundle.js');
const { loadConfig } = await import(unbundled ? '../server/dist/config.js' : '../server/dist/config.bundle.js');

export const BENCH_ADMIN = { username: 'bench-admin', password: 'bench-admin-password' };

const [dataDir, databaseUrl] = process.argv.slice(2);
const config = loadConfig(
  {
    FOLIO_DATA_DIR: dataDir,
    ...(databaseUrl ? { FOLIO_DATABASE_URL: databaseUrl } : {}),
    // The first admin, made on the first start (the seed signs in as it).
    FOLIO_ADMIN_USERNAME: BENCH_ADMIN.username,
    FOLIO_ADMIN_PASSWORD: BENCH_ADMIN.password,
    // The benchmark logs in thousands of times from one address on purpose.
    FOLIO_LOGIN_LIMIT: '0',
    FOLIO_JWT_SECRET: 'bench-secret-bench-secret-bench-secret',
    // Tokens outlive the run: at a million documents the scenarios after a restart take longer
    // than the default 20 minutes, and the admin's token empties the caches before each of them.
    // (Verifying a token costs the same whatever its lifetime.)
    FOLIO_ACCESS_TOKEN_TTL: String(6 * 3600),
  },
  { logRequests: false },
);
const server = await createServer(config, { log: () => {} });
const { url } = await server.listen(0, '127.0.0.1');
process.send?.({ type: 'ready', url, readyMs: performance.now() });
// Where the memory is (the benchmark prints it beside the RSS): V8's heap, buffers, the rest.
// FOLIO_BENCH_HEAP_DIR: also writes a heap snapshot there at each memory line (to see what V8 holds).
process.on('message', (m) => {
  if (m?.type !== 'memory') return;
  const usage = process.memoryUsage();
  if (process.env.FOLIO_BENCH_HEAP_DIR) v8.writeHeapSnapshot(path.join(process.env.FOLIO_BENCH_HEAP_DIR, `folio-${process.pid}-${Date.now()}.heapsnapshot`));
  process.send?.({ type: 'memory', ...usage });
});
const stop = () => void server.close().then(() => process.exit(0));
process.on('disconnect', stop);
process.on('SIGTERM', stop);
