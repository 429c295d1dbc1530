// The packaging set-up, checked without packaging (which needs downloads): electron-builder.yml
// points at what the build produces, the icons exist in the sizes the targets need, the package's
// main entry is what electron/tsconfig.json emits, and the Electron-ABI checks refuse a Node build.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, test } from 'node:test';
import { getConfig, validateConfiguration } from 'app-builder-lib/out/util/config/config.js';
import type { Configuration } from 'app-builder-lib';
import { DebugLogger, log } from 'builder-util';
import sharp from 'sharp';

const root = path.resolve(import.meta.dirname, '..', '..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');
let builder: Configuration & Record<string, any>;
let files: string[];

before(async () => {
  // electron-builder logs to this process's stdout ("• loaded configuration …", in three writes),
  // which node:test reads its reports from: a report cut by those bytes failed the whole file once
  // ("Unable to deserialize cloned data"). Its log goes nowhere here; its errors still throw.
  (log as unknown as { stream: { write(chunk: unknown): boolean } }).stream = { write: () => true };
  // electron-builder's own loader and schema check: a config it would refuse fails here.
  builder = await getConfig(root, path.join(root, 'electron-builder.yml'), null);
  await validateConfiguration(builder, new DebugLogger(false));
  files = (builder.files as Array<string | { filter: string[] }>).flatMap((f) => (typeof f === 'string' ? [f] : f.filter));
});

test('electron-builder.yml names the app, the targets of every platform and the native modules to unpack', () => {
  assert.equal(builder.appId, 'org.folio.desktop');
  assert.equal(builder.productName, 'Folio');
  assert.deepEqual(builder.linux?.target, ['AppImage', 'deb']);
  assert.deepEqual(builder.mac?.target, ['dmg']);
  assert.deepEqual(builder.win?.target, ['nsis']);
  for (const native of ['node_modules/better-sqlite3/**', 'node_modules/sharp/**', 'node_modules/@img/**', 'server/native/build/**']) assert.ok((builder.asarUnpack as string[]).includes(native), native);
  assert.equal(builder.npmRebuild, false, 'node_modules is never rebuilt in place');
  assert.ok(fs.existsSync(path.join(root, builder.afterPack as string)), 'the afterPack hook exists');
});

test('the packaged files hold the main entry, the preloads, the settings page, the admin UI and the run-time icons', () => {
  const pkg = JSON.parse(read('package.json'));
  assert.equal(pkg.main, 'electron/dist/electron/main.js');
  const tsconfig = read('electron/tsconfig.json');
  assert.match(tsconfig, /"rootDir": "\.\."/);
  assert.match(tsconfig, /"outDir": "dist"/);
  for (const pattern of ['electron/dist/**', 'electron/settings/**', 'ui/dist/**', 'package.json', 'server/native/build/**']) assert.ok(files.includes(pattern), pattern);
  for (const source of ['electron/main.ts', 'electron/preload.cts', 'electron/settings-preload.cts', 'electron/settings/settings.html', 'electron/settings/settings.js']) {
    assert.ok(fs.existsSync(path.join(root, source)), source);
  }
  assert.match(read('electron/settings/settings.html'), /Content-Security-Policy/);
  assert.match(read('electron/main.ts'), /'preload\.cjs'/);
  assert.match(read('electron/main.ts'), /'settings-preload\.cjs'/);
});

test('the icons exist in the sizes the targets and the tray need', async () => {
  const size = async (file: string) => {
    const meta = await sharp(path.join(root, 'resources', file)).metadata();
    assert.equal(meta.format, 'png', file);
    return [meta.width, meta.height];
  };
  assert.deepEqual(await size('icon.png'), [1024, 1024]);
  for (const n of [16, 32, 48, 64, 128, 256, 512]) assert.deepEqual(await size(`icons/${n}x${n}.png`), [n, n]);
  assert.deepEqual(await size('tray.png'), [32, 32]);
  assert.deepEqual(await size('trayTemplate.png'), [16, 16]);
  assert.deepEqual(await size('trayTemplate@2x.png'), [32, 32]);
  for (const glob of files.filter((f) => f.startsWith('resources/'))) {
    const dir = path.join(root, path.dirname(glob));
    const re = new RegExp(`^${path.basename(glob).replace('.', '\\.').replace('*', '.*')}$`);
    assert.ok(fs.readdirSync(dir).some((f) => re.test(f)), `${glob} matches a file`);
  }
});

test('the Electron build of better-sqlite3 is cached per Electron version, platform and architecture', async () => {
  const setup = await import('../scripts/electron-setup.mjs');
  const version = JSON.parse(read('node_modules/electron/package.json')).version;
  assert.equal(setup.electronVersion(), version);
  assert.equal(
    setup.sqliteBindingPath(version, 'linux', 'arm64'),
    path.join(root, 'electron', '.native', `better-sqlite3-electron-${version}-linux-arm64.node`),
  );
  assert.equal(setup.findElectronBinary({ ELECTRON_PATH: path.join(root, 'no-such-electron') }), null);
  assert.equal(setup.findElectronBinary({ ELECTRON_PATH: process.execPath }), process.execPath);
});
