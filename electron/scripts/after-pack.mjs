// electron-builder afterPack hook (see electron-builder.yml): replaces the Node build of
// better-sqlite3 in the packed app by the one built for Electron's ABI (electron-setup.mjs).
import fs from 'node:fs';
import path from 'node:path';
import { ensureSqliteBinding, electronVersion } from './electron-setup.mjs';

// electron-builder's Arch enum, by value.
const archNames = ['ia32', 'x64', 'armv7l', 'arm64', 'universal'];

export async function afterPack(context) {
  if (context.electronPlatformName !== process.platform) {
    throw new Error(`cannot package for ${context.electronPlatformName} on ${process.platform}: better-sqlite3 must be built on the target platform`);
  }
  const arch = archNames[context.arch];
  if (!arch || arch === 'universal') throw new Error(`unsupported target architecture ${arch ?? context.arch}`);
  const binding = await ensureSqliteBinding({ version: electronVersion(), arch });
  const release = path.join(context.packager.getResourcesDir(context.appOutDir), 'app.asar.unpacked', 'node_modules', 'better-sqlite3', 'build', 'Release');
  if (!fs.existsSync(release)) throw new Error(`${release} is missing: is better-sqlite3 still in asarUnpack?`);
  fs.copyFileSync(binding, path.join(release, 'better_sqlite3.node'));
  // The intermediate objects of the Node build are of no use in the app.
  for (const leftover of ['obj', 'obj.target', 'test_extension.node']) fs.rmSync(path.join(release, leftover), { recursive: true, force: true });
}

export default afterPack;
