// `node --import tsx server/test/helpers/postgres-run.ts`: starts a PostgreSQL server for a test
// run (postgres.ts), prints its URL as one line, and stops and removes it when stdin closes (the
// runner ended, or died). scripts/run-tests.mjs runs its PostgreSQL pass on it.
import { startPostgres } from './postgres.js';

const server = await startPostgres();
let stopped = false;
const stop = () => {
  if (stopped) return;
  stopped = true;
  server.stop();
  process.exit(0);
};
process.stdin.on('end', stop);
process.stdin.on('error', stop);
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.stdin.resume();
process.stdout.write(`${server.url}\n`);
