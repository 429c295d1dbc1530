// The compiled desktop shell (what `npm run desktop` and the packages run): the preloads are
// CommonJS, as sandboxed preloads must be, and the compiled embedded server starts and stops under
// Node. Skipped, with the reason, when electron/dist is missing or older than its sources.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { newestMtime, root } from '../scripts/electron-setup.mjs';
import { freePort } from './helpers/free-port.js';

const dist = path.join(root, 'electron', 'dist', 'electron');
const main = path.join(dist, 'main.js');

function whyNot(): string | false {
  if (!fs.existsSync(main)) return 'electron/dist is not built (npm run build:electron)';
  const sources = newestMtime(['electron', 'server/src'], (n) => /\.c?ts$/.test(n) && !n.endsWith('.test.ts') && !n.endsWith('.d.mts'));
  if (fs.statSync(main).mtimeMs < sources) return 'electron/dist is older than its sources (npm run build:electron)';
  return false;
}
const skip = whyNot();

test('the preloads compile to CommonJS that only requires electron', { skip }, () => {
  for (const file of ['preload.cjs', 'settings-preload.cjs']) {
    const code = fs.readFileSync(path.join(dist, file), 'utf8');
    assert.doesNotMatch(code, /^\s*(import|export)\s/m, file);
    assert.deepEqual([...code.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]), ['electron'], file);
    assert.match(code, /contextBridge\.exposeInMainWorld/, file);
  }
});

test('the compiled embedded server starts on its port, serves the API and stops', { skip }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-desktop-build-'));
  const { createEmbeddedServer } = await import(pathToFileURL(path.join(dist, 'embedded-server.js')).href);
  const server = createEmbeddedServer({ dataDir: path.join(dir, 'data'), uiDir: path.join(root, 'ui', 'dist'), log: () => {} });
  try {
    const port = await freePort();
    const running = await server.start({ port, lanSharing: false, smtpUrl: null, mailFrom: null });
    assert.equal(running.localUrl, `http://127.0.0.1:${port}`);
    const res = await fetch(`${running.localUrl}/status`);
    assert.equal(res.status, 200);
    assert.ok((await res.json()).meta.status);
    await server.stop();
    assert.equal(fs.existsSync(path.join(dir, 'data', 'folio.sqlite-wal')), false, 'the database was closed cleanly');
  } finally {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
