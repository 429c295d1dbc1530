// npm start: configuration → createServer → listen → clean shutdown on SIGINT/SIGTERM.
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
}

main().catch((err) => {
  if (err instanceof ConfigError) {
    console.error(`folio: configuration error: ${err.message}`);
    process.exit(2);
  }
  console.error(`folio: failed to start: ${err?.message ?? err}`);
  process.exit(1);
});
