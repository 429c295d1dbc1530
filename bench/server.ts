// The server side of the benchmark, run as a child process of run.ts so that its memory is its
// own. `seed <dataDir> <quick|full>`: start Folio on a fresh data dir, seed it, report and exit.
// `serve <dataDir>`: start Folio on the existing data dir with production settings and report
// the port; run.ts measures from spawn to the first answer.
import { createServer } from '../server/src/app.js';
import { loadConfig } from '../server/src/config.js';
import { FULL, QUICK, seed } from './lib/seed.js';

export const BENCH_ADMIN = { username: 'bench-admin', password: 'bench-admin-password' };

const [mode, dataDir, size, databaseUrl] = process.argv.slice(2);
const send = (msg: unknown) => process.send?.(msg);

const config = loadConfig(
  {
    FOLIO_DATA_DIR: dataDir,
    ...(databaseUrl ? { FOLIO_DATABASE_URL: databaseUrl } : {}),
    FOLIO_ADMIN_USERNAME: BENCH_ADMIN.username,
    FOLIO_ADMIN_PASSWORD: BENCH_ADMIN.password,
    // The benchmark logs in thousands of times from one address on purpose.
    FOLIO_LOGIN_LIMIT: '0',
    FOLIO_JWT_SECRET: 'bench-secret-bench-secret-bench-secret',
  },
  { logRequests: false },
);
const server = await createServer(config, { log: () => {} });
const { url } = await server.listen(0, '127.0.0.1');

if (mode === 'seed') {
  const login = await fetch(`${url}/auth`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(BENCH_ADMIN),
  });
  const token = ((await login.json()) as { meta: { jwt: string } }).meta.jwt;
  const result = await seed(server, url, token, size === 'full' ? FULL : QUICK);
  send({ type: 'seeded', result, rss: process.memoryUsage().rss });
  await server.close();
  process.exit(0);
} else {
  send({ type: 'ready', url, readyMs: performance.now() });
  process.on('disconnect', () => void server.close().then(() => process.exit(0)));
  process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
}
