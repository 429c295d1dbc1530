// The server under load: the bundled build `npm start` runs (server/dist/*.bundle.js) with
// production settings and request logging off, on an existing data dir. Plain JavaScript on
// purpose, so that neither start time nor memory includes a TypeScript loader. Reports its URL.
import { createServer } from '../server/dist/app.bundle.js';
import { loadConfig } from '../server/dist/config.bundle.js';

const [dataDir, databaseUrl] = process.argv.slice(2);
const config = loadConfig(
  {
    FOLIO_DATA_DIR: dataDir,
    ...(databaseUrl ? { FOLIO_DATABASE_URL: databaseUrl } : {}),
    FOLIO_LOGIN_LIMIT: '0',
    FOLIO_JWT_SECRET: 'bench-secret-bench-secret-bench-secret',
  },
  { logRequests: false },
);
const server = await createServer(config, { log: () => {} });
const { url } = await server.listen(0, '127.0.0.1');
process.send?.({ type: 'ready', url, readyMs: performance.now() });
const stop = () => void server.close().then(() => process.exit(0));
process.on('disconnect', stop);
process.on('SIGTERM', stop);
