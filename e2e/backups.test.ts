// Admin UI, backups: make a backup (the progress shows while it runs), see it listed with what it
// holds, download the file, delete it.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { signInAsAdmin, startE2E, type E2E } from './helpers/browser.js';

describe('admin backups', () => {
  let e: E2E;
  before(async () => {
    e = await startE2E();
    // A large file that does not compress makes the backup take a moment.
    const token = await e.server.adminToken();
    const big = await e.server.request('POST', '/files/upload/noise.bin', { token, raw: crypto.randomBytes(24 * 1024 * 1024), headers: { 'Content-Type': 'application/octet-stream' } });
    assert.equal(big.status, 201, big.text);
    await signInAsAdmin(e.page, '#/backups');
  });
  after(async () => {
    await e?.close();
  });

  test('making a backup shows its progress, then lists it with its size and what it holds', async () => {
    const { page } = e;
    await page.getByText('No backups yet.').waitFor();
    await page.getByRole('button', { name: 'Make a backup' }).click();
    // The panel as first seen, read in one go: the backup may end (and the panel go) at any time.
    const seen = await page.waitForFunction(() => {
      const panel = [...document.querySelectorAll('[role=status]')].find((el) => el.textContent?.includes('in progress'));
      return panel ? { text: panel.textContent ?? '', bars: panel.querySelectorAll('progress').length } : null;
    });
    const first = (await seen.jsonValue())!;
    assert.match(first.text, /^Backup in progress: /);
    assert.equal(first.bars, 1);
    await e.shot('backups-progress');
    const notice = page.getByText(/^Backup folio-backup-.+\.tar\.gz made: 2 objects \(1 user\), 1 file, 2[45] MB\.$/);
    await notice.waitFor({ timeout: 60_000 });
    assert.equal(await page.locator('progress').count(), 0, 'the progress is gone');
    const rows = page.locator('tbody tr');
    // The list is read again only after the answer that raised the notice: wait for its row.
    await rows.filter({ hasText: 'folio-backup-' }).waitFor();
    assert.equal(await rows.count(), 1);
    assert.match(await rows.first().innerText(), /folio-backup-\d{8}T\d{6}Z-[0-9a-f]{6}\.tar\.gz\s+2[45] MB\s+2 objects \(1 user\), 1 file\s+Manual/);
    await e.shot('backups-list');
  });

  test('Download saves the backup file; Delete asks, then removes it', async () => {
    const { page } = e;
    const list = await e.server.request('GET', '/backups', { token: await e.server.adminToken() });
    const b = list.body.data[0];
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: `Download ${b.attributes.file_name}` }).click()]);
    assert.equal(download.suggestedFilename(), b.attributes.file_name);
    const saved = await download.path();
    assert.ok(saved);
    assert.ok(fs.readFileSync(saved).equals(fs.readFileSync(path.join(e.server.dataDir, 'backups', b.attributes.file_name))));

    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('will be deleted').waitFor();
    await e.shot('backups-delete');
    await dialog.getByRole('button', { name: 'Delete backup' }).click();
    await page.getByText(`Backup ${b.attributes.file_name} deleted.`).waitFor();
    await page.getByText('No backups yet.').waitFor();
    assert.deepEqual(fs.readdirSync(path.join(e.server.dataDir, 'backups')).filter((f) => !f.startsWith('.')), []);
  });
});
