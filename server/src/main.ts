// npm start: configuration → createServer → listen → clean shutdown on SIGINT/SIGTERM, or when
// the npm that started it is gone.
import net from 'node:net';
import { createServer } from './app.js';
import { ConfigError, describeDatabase, loadConfig, unreadVariables, type Config } from './config.js';

/** A start that cannot bind its port: a configuration error (exit 2) saying what to do. */
class PortInUseError extends ConfigError {}

function portError(err: NodeJS.ErrnoException, config: Config): Error {
  if (err.code === 'EADDRINUSE') {
    return new PortInUseError(`port ${config.port} on ${config.host} is in use (another Folio?): stop what uses it, or choose another port: PORT=${config.port + 1} npm start`);
  }
  if (err.code === 'EACCES') return new PortInUseError(`port ${config.port} on ${config.host} is not allowed for this user: choose another port (PORT=8090)`);
  if (err.code === 'EADDRNOTAVAIL') return new PortInUseError(`HOST ${config.host} is not an address of this machine`);
  return err;
}

/**
 * The port is tried before anything is made (data dir, database, the first admin and its
 * password file): a start on a busy port leaves nothing behind.
 */
function checkPort(config: Config): Promise<void> {
  if (config.port === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (err) => reject(portError(err, config)));
    probe.listen(config.port, config.host, () => probe.close(() => resolve()));
  });
}

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
  await checkPort(config);
  const server = await createServer(config);
  const { url } = await server.listen().catch(async (err) => {
    await server.close();
    throw portError(err, config);
  });
  // Before the banner: whoever reads it may signal at once.
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
  console.log(`Folio is listening on ${url} (admin UI: ${url}/admin, data: ${config.dataDir})`);
  console.log(`Database: ${describeDatabase(config)}`);
  for (const name of unreadVariables()) console.log(`Warning: ${name} is set but Folio does not read it (a misspelt name?)`);
  if (config.host === '0.0.0.0') console.log('Serving LAN clients on every network interface');
  if (server.initialAdmin.passwordFile) {
    console.log(`First start: log in as "${server.initialAdmin.username}" with the password in ${server.initialAdmin.passwordFile}`);
  } else if (server.initialAdmin.created) {
    console.log(`First start: log in as "${server.initialAdmin.username}" with FOLIO_ADMIN_PASSWORD`);
  }
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
