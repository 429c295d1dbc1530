// End to end: the real Electron app under Xvfb (or the current display), driven by Playwright's
// Electron support. It runs only where an Electron binary exists (ELECTRON_PATH or the one the
// electron package downloaded) together with better-sqlite3 built for it; otherwise it reports
// itself as skipped with the reason, and the other desktop tests still run.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { _electron } from 'playwright-core';
import { findElectronBinary, root, sqliteBindingPath } from '../scripts/electron-setup.mjs';
import { freePort } from './helpers/free-port.js';

const electron = findElectronBinary();
const binding = sqliteBindingPath();
const xvfb = ['/usr/bin/Xvfb', '/usr/local/bin/Xvfb'].find((f) => fs.existsSync(f)) ?? null;
const needsDisplay = process.platform === 'linux';

function whyNot(): string | false {
  if (!electron) return 'no Electron binary on this machine: set ELECTRON_PATH, or run `npm run desktop` once where Electron can be downloaded';
  if (!fs.existsSync(binding)) return `better-sqlite3 is not built for Electron yet (${binding}): run \`npm run desktop\` once`;
  if (!fs.existsSync(path.join(root, 'electron', 'dist', 'electron', 'main.js'))) return 'the desktop shell is not built: npm run build:electron';
  if (needsDisplay && !process.env.DISPLAY && !xvfb) return 'no display and no Xvfb (apt-get install xvfb)';
  return false;
}

/** Start Xvfb on a display it picks itself; resolves with ":<n>" and the process. */
function startXvfb(): Promise<{ display: string; proc: ChildProcess }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(xvfb as string, ['-displayfd', '3', '-screen', '0', '1280x800x24', '-nolisten', 'tcp'], { stdio: ['ignore', 'ignore', 'ignore', 'pipe'] });
    let out = '';
    proc.stdio[3]?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve({ display: `:${out.trim()}`, proc });
    });
    proc.once('error', reject);
    proc.once('exit', (code) => reject(new Error(`Xvfb exited with ${code}`)));
  });
}

test('the desktop app shows the admin login over its embedded server, locked down, and quits cleanly', { skip: whyNot(), timeout: 90_000 }, async () => {
  const userData = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-desktop-e2e-'));
  const port = await freePort();
  fs.writeFileSync(path.join(userData, 'settings.json'), JSON.stringify({ port }));
  const display = needsDisplay && !process.env.DISPLAY ? await startXvfb() : null;
  const args = [root, `--folio-user-data=${userData}`, `--folio-sqlite-binding=${binding}`];
  // Chromium refuses to run as root with its OS sandbox (CI containers); the renderer sandbox option stays on.
  if (process.getuid?.() === 0) args.push('--no-sandbox');
  const env = { ...process.env, ...(display ? { DISPLAY: display.display } : {}) } as Record<string, string>;
  delete env.ELECTRON_RUN_AS_NODE;
  const app = await _electron.launch({ executablePath: electron as string, args, env, timeout: 60_000 });
  try {
    const window = await app.firstWindow();
    await window.waitForURL(`http://127.0.0.1:${port}/admin**`);
    await window.locator('input[type="password"]').or(window.getByText(/sign in|log in/i)).first().waitFor({ timeout: 30_000 });

    // The page has no Node, only the preload's bridge (contextBridge works only with context isolation).
    assert.equal(await window.evaluate(() => typeof (globalThis as Record<string, unknown>).require), 'undefined');
    assert.equal(await window.evaluate(() => typeof (globalThis as Record<string, unknown>).process), 'undefined');
    const info = (await window.evaluate(() => (globalThis as any).folioDesktop.info())) as { apiUrl: string; lanSharing: boolean; version: string };
    assert.equal(info.apiUrl, `http://127.0.0.1:${port}`);
    assert.equal(info.lanSharing, false);
    assert.equal(info.version, JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version);

    // Navigation off the local server is refused: the window stays on the admin UI.
    await window.evaluate(() => {
      location.href = 'file:///etc/hostname';
    });
    await new Promise((r) => setTimeout(r, 500));
    assert.match(window.url(), new RegExp(`^http://127\\.0\\.0\\.1:${port}/admin`));

    // The first start created the admin and stored its generated password.
    assert.ok(fs.readFileSync(path.join(userData, 'data', 'initial-admin-password'), 'utf8').trim().length >= 12);
  } finally {
    const exited = new Promise((r) => app.process().once('exit', r));
    await app.evaluate(({ app: electronApp }) => electronApp.quit()).catch(() => undefined);
    await exited;
    display?.proc.kill();
  }
  // Quitting stopped the server and closed the database (its write-ahead log is checkpointed away).
  assert.equal(fs.existsSync(path.join(userData, 'data', 'folio.sqlite-wal')), false);
  assert.match(fs.readFileSync(path.join(userData, 'logs', 'server.log'), 'utf8'), /Folio server stopped/);
  fs.rmSync(userData, { recursive: true, force: true });
});
