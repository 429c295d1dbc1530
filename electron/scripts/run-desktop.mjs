// npm run desktop: build what is stale, fetch Electron's binary and build better-sqlite3 for it on
// first use, then run the desktop app from the working tree. Arguments are passed on to the app
// (e.g. `npm run desktop -- --folio-user-data=/tmp/folio-try` for a throw-away data folder).
import { spawn } from 'node:child_process';
import { buildIfNeeded, ensureElectronBinary, ensureSqliteBinding, root, SetupError } from './electron-setup.mjs';

async function main() {
  buildIfNeeded();
  const electron = ensureElectronBinary();
  const binding = await ensureSqliteBinding();
  const env = { ...process.env };
  delete env.ELECTRON_RUN_AS_NODE; // it would start Electron as plain Node
  const child = spawn(electron, [root, `--folio-sqlite-binding=${binding}`, ...process.argv.slice(2)], { stdio: 'inherit', env });
  // Ctrl+C reaches the app, which stops its server cleanly before exiting.
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

main().catch((err) => {
  if (err instanceof SetupError) {
    console.error(`\nnpm run desktop: ${err.message}`);
    process.exit(1);
  }
  throw err;
});
