// npm start: configuration → createServer → listen → clean shutdown on SIGINT/SIGTERM, or when
// the npm that started it is gone.
import { createServer } from './app.js';
import { ConfigError, loadConfig } from './config.js';

async function main() {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`folio: configuration error: ${err.message}`);
      process.exit(2);
    }
    throw err;
  }
  const server = await createServer(config);
  const { url } = await server.listen();
  console.log(`Folio is listening on ${url} (admin UI: ${url}/admin, data: ${config.dataDir})`);
  if (config.host === '0.0.0.0') console.log('Serving LAN clients on every network interface');
  if (server.initialAdmin.passwordFile) {
    console.log(`First start: log in as "${server.initialAdmin.username}" with the password in ${server.initialAdmin.passwordFile}`);
  } else if (server.initialAdmin.created) {
    console.log(`First start: log in as "${server.initialAdmin.username}" with FOLIO_ADMIN_PASSWORD`);
  }
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: finishing requests in flight and closing the database…`);
    await server.close();
    console.log('Folio stopped.');
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  if (config.stopWithParent) watchParent(() => void stop('npm exited'));
}

/** How often the parent process is looked at. */
const PARENT_CHECK_MS = 500;

/**
 * `npm start` runs `sh -c "node …"`; `kill <npm pid>` makes npm pass SIGTERM to that shell, which
 * dies without passing it on, and node is left listening, adopted by init. The parent changing
 * is how node learns of it (a poll: no event exists), and then it stops as on SIGTERM.
 */
function watchParent(onGone: () => void): void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    onGone();
  }, PARENT_CHECK_MS);
  timer.unref();
}

main().catch((err) => {
  if (err instanceof ConfigError) {
    console.error(`folio: configuration error: ${err.message}`);
    process.exit(2);
  }
  console.error(`folio: failed to start: ${err?.message ?? err}`);
  process.exit(1);
});
