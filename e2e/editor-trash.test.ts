// Admin UI, an editor's own trash (issue 46): a restricted editor (documents with `delete:own`)
// moves their article to the trash from its page — the page asks nothing more about it (no 404s for
// its translations, history or poster) — presses Undo in the toast and is back on it; trashes it
// again, finds it on the Trash page (not the admin's trashed document), is told why permanent
// deletion is not offered, and restores it. The admin still deletes for good. Photographed at
// 1024×700 and 1366×850 in both themes, checked with axe.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Response } from 'playwright-core';
import { contextAt, createObject, createRestrictedUser, shotsAtBothSizes, signInAs, signInAsAdmin, startE2E, untilNewToast, type E2E } from './helpers/browser.js';

describe('an editor restores what they trashed', () => {
  let e: E2E;
  let token: string;
  let editorToken: string;
  let ownId: string;
  let adminsId: string;
  const status = async (id: string) => (await e.server.request('GET', `/documents/${id}`, { token })).status;

  before(async () => {
    e = await startE2E();
    token = await e.server.adminToken();
    editorToken = await createRestrictedUser(e.server, 'tess', 'tess-password-1', { documents: ['read', 'create', 'update', 'delete:own'], images: ['read'] });
    const own = await e.server.request('POST', '/documents', { token: editorToken, body: { data: { type: 'documents', attributes: { title: 'Tide tables', body: '<p>High water at noon.</p>' } } } });
    assert.equal(own.status, 201, own.text);
    ownId = String(own.body.data.id);
    adminsId = await createObject(e.server, 'documents', { title: 'Board minutes' });
    assert.equal((await e.server.request('DELETE', `/documents/${adminsId}`, { token })).status, 204);
  });
  after(async () => {
    await e?.close();
  });

  test('the editor trashes their article, is asked nothing more about it, and undoes it from the toast', async () => {
    const context = await contextAt(e, 1366, 850);
    const page = await context.newPage();
    await signInAs(page, 'tess', 'tess-password-1', `#/objects/documents/${ownId}`);
    await page.getByRole('form', { name: 'Edit object' }).getByLabel('Title').waitFor();
    await page.getByRole('region', { name: 'History' }).getByRole('listitem').first().waitFor();
    const refused: string[] = [];
    let trashed = false;
    const watch = (res: Response) => {
      if (trashed && res.status() === 404) refused.push(`${res.request().method()} ${new URL(res.url()).pathname}`);
    };
    page.on('response', watch);
    await page.getByRole('button', { name: 'Move to trash' }).click();
    const dialog = page.getByRole('dialog', { name: 'Move this object to the trash?' });
    await dialog.getByText('or undo right after').waitFor();
    trashed = true;
    await dialog.getByRole('button', { name: 'Move to trash' }).click();
    const toast = page.locator('.toast', { hasText: '“Tide tables” moved to the trash.' });
    await toast.waitFor();
    await page.getByRole('heading', { name: 'Documents', level: 1 }).waitFor();
    await page.waitForLoadState('networkidle');
    assert.equal(await status(ownId), 404, 'it is in the trash');
    assert.deepEqual(refused, [], 'nothing asked about the trashed object');
    await page.setViewportSize({ width: 1024, height: 700 });
    await page.screenshot({ path: 'test-artifacts/editor-trash-undo-toast-1024.png' });
    await untilNewToast(page, '“Tide tables” restored.', () => toast.getByRole('button', { name: 'Undo' }).click());
    await page.getByRole('form', { name: 'Edit object' }).getByLabel('Title').waitFor();
    assert.equal(page.url().endsWith(`#/objects/documents/${ownId}`), true, page.url());
    assert.equal(await status(ownId), 200, 'back from the trash');
    page.off('response', watch);
    await context.close();
  });

  test('on the Trash page the editor finds only what they may restore, learns who deletes for good, and restores it', async () => {
    assert.equal((await e.server.request('DELETE', `/documents/${ownId}`, { token: editorToken })).status, 204);
    const context = await contextAt(e, 1366, 850);
    const page = await context.newPage();
    await signInAs(page, 'tess', 'tess-password-1');
    await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Trash' }).click();
    const table = page.getByRole('table', { name: 'Trash' });
    await table.getByText('Tide tables').waitFor();
    assert.equal(await table.getByText('Board minutes').count(), 0, 'not what others trashed');
    await page.getByText('Only administrators delete for good').waitFor();
    assert.equal(await page.getByRole('button', { name: /Delete.*permanently/ }).count(), 0, 'no permanent deletion offered');
    await shotsAtBothSizes(page, 'editor-trash-page');
    await untilNewToast(page, '1 object restored.', () => page.getByRole('button', { name: 'Restore Tide tables' }).click());
    await page.getByText('The trash is empty.').waitFor();
    assert.equal(await status(ownId), 200);
    await context.close();
  });

  test('the admin still deletes for good', async () => {
    await signInAsAdmin(e.page, '#/trash');
    await e.page.getByRole('table', { name: 'Trash' }).getByText('Board minutes').waitFor();
    await e.page.getByRole('button', { name: 'Delete selected permanently' }).waitFor();
    assert.equal(await e.page.getByText('Only administrators delete for good').count(), 0);
  });
});
