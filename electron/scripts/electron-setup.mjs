// What `npm run desktop` and `npm run dist` need besides the npm install: Electron's binary (npm
// install skips its download, see TOOLCHAIN.md) and better-sqlite3 built for Electron's ABI. The
// Electron build of better-sqlite3 is made in a staging copy and cached under electron/.native, so
// the Node build in node_modules (used by `npm start` and `npm test`) is never touched.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../..', import.meta.url));
const electronPackageDir = path.join(root, 'node_modules', 'electron');

/** A set-up step that cannot be done here; the message says what to do. */
export class SetupError extends Error {}

export function electronVersion() {
  const file = path.join(electronPackageDir, 'package.json');
  if (!fs.existsSync(file)) throw new SetupError('The electron package is not installed: run `npm install` first.');
  return JSON.parse(fs.readFileSync(file, 'utf8')).version;
}

/** The Electron executable: $ELECTRON_PATH, or the one the electron package downloaded; null if none. */
export function findElectronBinary(env = process.env) {
  if (env.ELECTRON_PATH) return fs.existsSync(env.ELECTRON_PATH) ? env.ELECTRON_PATH : null;
  try {
    const relative = fs.readFileSync(path.join(electronPackageDir, 'path.txt'), 'utf8').trim();
    const binary = path.join(electronPackageDir, 'dist', relative);
    return fs.existsSync(binary) ? binary : null;
  } catch {
    return null;
  }
}

/** Find Electron's binary, fetching it on first use with the electron package's own installer. */
export function ensureElectronBinary() {
  const found = findElectronBinary();
  if (found) return found;
  if (process.env.ELECTRON_PATH) {
    throw new SetupError(`ELECTRON_PATH is set to ${process.env.ELECTRON_PATH}, which does not exist.`);
  }
  const version = electronVersion();
  console.log(`Electron ${version} is not downloaded yet (npm install skips it); fetching it now…`);
  const env = { ...process.env };
  delete env.ELECTRON_SKIP_BINARY_DOWNLOAD; // the installer silently does nothing while it is set
  // The installer's own failure is a stack trace (a mirror that does not answer, no network):
  // kept back, and only its error line shown within the message below.
  const res = spawnSync(process.execPath, [path.join(electronPackageDir, 'install.js')], { stdio: ['ignore', 'inherit', 'pipe'], env });
  const binary = findElectronBinary();
  if (res.status === 0 && binary) return binary;
  const said = String(res.stderr ?? '')
    .split('\n')
    .map((l) => l.trim())
    .find((l) => /error/i.test(l) && !/^at /.test(l));
  const from = env.ELECTRON_MIRROR ? `the mirror ${env.ELECTRON_MIRROR}` : 'GitHub';
  throw new SetupError(
    [
      `Could not fetch Electron ${version}'s binary (the download from ${from} failed or is not reachable from this machine${said ? `: ${said.slice(0, 200)}` : ''}).`,
      'What you can do:',
      '  - retry with internet access: npm run desktop',
      '  - behind a mirror: ELECTRON_MIRROR=https://your.mirror/electron/ npm run desktop',
      `  - use an Electron ${version.split('.')[0]}.x you already have: ELECTRON_PATH=/path/to/electron npm run desktop`,
      '  - or run the same server without the desktop shell: npm start (admin UI at http://127.0.0.1:8090/admin)',
    ].join('\n'),
  );
}

/** Where the Electron build of better-sqlite3 for this Electron version, platform and arch is cached. */
export function sqliteBindingPath(version = electronVersion(), platform = process.platform, arch = process.arch) {
  return path.join(root, 'electron', '.native', `better-sqlite3-electron-${version}-${platform}-${arch}.node`);
}

/**
 * Build better-sqlite3 for Electron (a prebuilt binary when one can be downloaded, else a compile
 * against Electron's headers) in a staging copy, and cache the addon. Returns its path.
 */
export async function ensureSqliteBinding({ version = electronVersion(), arch = process.arch } = {}) {
  const target = sqliteBindingPath(version, process.platform, arch);
  if (fs.existsSync(target)) return target;
  console.log(`Building better-sqlite3 for Electron ${version} (${process.platform}-${arch}); this happens once…`);
  const stage = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-electron-native-'));
  try {
    const source = path.join(root, 'node_modules', 'better-sqlite3');
    const { version: moduleVersion } = JSON.parse(fs.readFileSync(path.join(source, 'package.json'), 'utf8'));
    fs.writeFileSync(path.join(stage, 'package.json'), JSON.stringify({ name: 'folio-native-stage', private: true, dependencies: { 'better-sqlite3': moduleVersion } }));
    const copy = path.join(stage, 'node_modules', 'better-sqlite3');
    const buildDir = path.join(source, 'build');
    fs.cpSync(source, copy, { recursive: true, filter: (src) => src !== buildDir && !src.startsWith(buildDir + path.sep) });
    const { rebuild } = await import('@electron/rebuild');
    // Under `npm run`, npm's nodedir setting reaches node-gyp, which would then build against the
    // local Node's headers instead of Electron's: hide it for the rebuild.
    const nodedir = process.env.npm_config_nodedir;
    delete process.env.npm_config_nodedir;
    try {
      await rebuild({ buildPath: stage, electronVersion: version, arch, onlyModules: ['better-sqlite3'], force: true });
    } finally {
      if (nodedir !== undefined) process.env.npm_config_nodedir = nodedir;
    }
    const built = path.join(copy, 'build', 'Release', 'better_sqlite3.node');
    if (!fs.existsSync(built)) throw new Error('the rebuild produced no better_sqlite3.node');
    if (arch === process.arch) assertElectronAbi(built);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.copyFileSync(built, `${target}.tmp`);
    fs.renameSync(`${target}.tmp`, target);
    return target;
  } catch (err) {
    throw new SetupError(
      [
        `Could not build better-sqlite3 for Electron ${version}: ${err?.message ?? err}`,
        'It needs internet access (for a prebuilt binary or Electron\'s headers) and, without a prebuilt one,',
        'a C++ toolchain (build-essential and python3 on Linux, Xcode tools on macOS, Visual Studio Build Tools on Windows).',
      ].join('\n'),
    );
  } finally {
    fs.rmSync(stage, { recursive: true, force: true });
  }
}

/**
 * Make sure an addon was built for Electron, not for this Node: Node must refuse to load it,
 * naming Electron's module version (node_modules/electron/abi_version).
 */
function assertElectronAbi(addon) {
  const abi = fs.readFileSync(path.join(electronPackageDir, 'abi_version'), 'utf8').trim();
  const probe = 'try { process.dlopen({ exports: {} }, process.argv[1]); console.log("loaded") } catch (e) { console.log(e.message) }';
  const res = spawnSync(process.execPath, ['-e', probe, addon], { encoding: 'utf8' });
  if (!res.stdout.includes(`NODE_MODULE_VERSION ${abi}`)) {
    throw new Error(`the addon was not built for Electron's module version ${abi} (${res.stdout.trim() || res.stderr.trim()})`);
  }
}

/** Newest modification time of the files under `dirs` (recursively) whose names pass `accept`. */
export function newestMtime(dirs, accept = () => true) {
  let newest = 0;
  for (const dir of dirs) {
    const full = path.join(root, dir);
    if (!fs.existsSync(full)) continue;
    const stat = fs.statSync(full);
    if (stat.isFile()) {
      newest = Math.max(newest, stat.mtimeMs);
      continue;
    }
    for (const entry of fs.readdirSync(full, { recursive: true, withFileTypes: true })) {
      if (entry.isFile() && accept(entry.name)) newest = Math.max(newest, fs.statSync(path.join(entry.parentPath ?? entry.path, entry.name)).mtimeMs);
    }
  }
  return newest;
}

const mtime = (file) => (fs.existsSync(path.join(root, file)) ? fs.statSync(path.join(root, file)).mtimeMs : 0);

/** Run `npm run <script>` in the repository; a failure stops with its exit code. */
export function npmRun(script) {
  const res = spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', script], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
  if (res.status !== 0) throw new SetupError(`npm run ${script} failed (exit code ${res.status}).`);
}

/** Build the admin UI and the desktop shell (with the server it compiles) when their output is older than the sources. */
export function buildIfNeeded() {
  const ts = (name) => /\.(ts|cts|tsx)$/.test(name);
  if (mtime('ui/dist/index.html') < newestMtime(['ui/src', 'ui/index.html', 'ui/vite.config.ts'])) npmRun('build:ui');
  if (mtime('electron/dist/electron/main.js') < newestMtime(['electron', 'server/src'], (n) => ts(n) && !n.endsWith('.test.ts'))) npmRun('build:electron');
}
