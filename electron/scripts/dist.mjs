// npm run dist: build everything, build better-sqlite3 for Electron (in a staging copy; the Node
// build in node_modules is left alone), then package with electron-builder (electron-builder.yml).
// Extra arguments go to electron-builder, e.g. `npm run dist -- --linux AppImage`.
// Everything here needs internet access on first use: Electron's headers or a prebuilt addon,
// Electron's release archive and the packaging tools electron-builder downloads.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ensureSqliteBinding, npmRun, root, SetupError } from './electron-setup.mjs';

async function main() {
  npmRun('build');
  await ensureSqliteBinding();
  const cli = path.join(root, 'node_modules', 'electron-builder', 'cli.js');
  const res = spawnSync(process.execPath, [cli, '--config', 'electron-builder.yml', '--publish', 'never', ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
  if (res.status !== 0) {
    throw new SetupError(
      `electron-builder failed (exit code ${res.status}). It downloads Electron's release archive and its packaging tools ` +
        'on first use, so it needs internet access; see its output above. The installers land in release/.',
    );
  }
  console.log(`Installers written to ${path.join(root, 'release')}`);
}

main().catch((err) => {
  if (err instanceof SetupError) {
    console.error(`\nnpm run dist: ${err.message}`);
    process.exit(1);
  }
  throw err;
});
