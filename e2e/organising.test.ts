// Admin UI, organising: the folder tree by keyboard (WAI-ARIA tree view:
// arrows, Home/End, Enter, type-ahead), arrows only on folders with children, paths by title;
// an object's page shows its folders and files it into two and out of one; dialogs keep focus.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createObject, signInAsAdmin, startE2E, type E2E } from './helpers/browser.js';

describe('admin organising: tree by keyboard, an object in folders, dialogs', () => {
  let e: E2E;
  let token: string;
  let docId: string;
  const focusedItem = () => e.page.evaluate(() => document.activeElement?.getAttribute('role') === 'treeitem' ? document.getElementById(document.activeElement.getAttribute('aria-labelledby')!)?.textContent : null);
  before(async () => {
    e = await startE2E();
    token = await e.server.adminToken();
    const folder = async (title: string, parent?: string) =>
      String((await e.server.request('POST', '/folders', { token, body: { data: { type: 'folders', attributes: { title }, ...(parent ? { relationships: { parent: { data: { type: 'folders', id: parent } } } } : {}) } } })).body.data.id);
    const site = await folder('Site');
    await folder('News', site);
    await folder('Blog', site);
    await folder('Archive');
    await folder('Events');
    docId = await createObject(e.server, 'documents', { title: 'Harbour report' });
    await signInAsAdmin(e.page, '#/folders');
  });
  after(async () => {
    await e?.close();
  });

  test('the tree is one tab stop; arrows, Home/End, type-ahead and Enter work, arrows only where there are children', async () => {
    const { page } = e;
    const tree = page.getByRole('tree', { name: 'Folder tree' });
    await tree.getByRole('treeitem', { name: 'Site' }).waitFor();
    assert.equal(await tree.getByRole('treeitem', { name: 'Site' }).getAttribute('aria-expanded'), 'false');
    assert.equal(await tree.getByRole('treeitem', { name: 'Archive' }).getAttribute('aria-expanded'), null, 'a leaf has no arrow');
    assert.equal(await tree.locator('[role=treeitem][tabindex="0"]').count(), 1);
    await tree.getByRole('treeitem', { name: 'Site' }).focus();
    await page.keyboard.press('ArrowRight');
    await tree.getByRole('treeitem', { name: 'News' }).waitFor();
    assert.equal(await focusedItem(), 'Site');
    await page.keyboard.press('ArrowRight');
    assert.equal(await focusedItem(), 'News');
    await page.keyboard.press('ArrowDown');
    assert.equal(await focusedItem(), 'Blog');
    await page.keyboard.press('ArrowLeft');
    assert.equal(await focusedItem(), 'Site');
    await page.keyboard.press('End');
    assert.equal(await focusedItem(), 'Events');
    await page.keyboard.press('Home');
    assert.equal(await focusedItem(), 'Site');
    await page.keyboard.type('ar');
    assert.equal(await focusedItem(), 'Archive');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Archive' }).waitFor();
    assert.equal(await tree.getByRole('treeitem', { name: 'Archive' }).getAttribute('aria-selected'), 'true');
    await page.keyboard.press('Home');
    await page.keyboard.press('ArrowLeft');
    await tree.getByRole('treeitem', { name: 'News' }).waitFor({ state: 'detached' });
    assert.equal(await tree.getByRole('treeitem', { name: 'Site' }).getAttribute('aria-expanded'), 'false');
    await e.shot('organising-tree');
  });

  test('a new subfolder appears in the tree at once, and the path is told by titles', async () => {
    const { page } = e;
    const tree = page.getByRole('tree', { name: 'Folder tree' });
    await page.getByRole('textbox', { name: 'New subfolder' }).fill('2024');
    await page.getByRole('button', { name: 'Create subfolder' }).click();
    await tree.getByRole('treeitem', { name: '2024' }).waitFor();
    assert.equal(await tree.getByRole('treeitem', { name: 'Archive' }).getAttribute('aria-expanded'), 'true');
    await tree.getByRole('treeitem', { name: '2024' }).click();
    await page.getByText('Archive / 2024').waitFor();
  });

  test('an object is filed into two folders from its page by keyboard, then taken out of one', async () => {
    const { page } = e;
    await page.goto(`/admin/#/objects/documents/${docId}`);
    const panel = page.getByRole('region', { name: 'Folders' });
    await panel.getByText('Not in any folder yet.').waitFor();
    for (const [path, keys] of [
      ['Site / News', ['ArrowRight', 'ArrowDown']],
      ['Archive / 2024', ['a', 'ArrowRight', 'ArrowDown']],
    ] as const) {
      await panel.getByRole('button', { name: 'Add to folder…' }).focus();
      await page.keyboard.press('Enter');
      const dialog = page.getByRole('dialog', { name: 'Add “Harbour report” to a folder' });
      await dialog.getByRole('treeitem').first().waitFor();
      await dialog.getByRole('treeitem').first().focus();
      for (const k of keys) await page.keyboard.press(k);
      await page.keyboard.press('Enter');
      await page.getByRole('status').filter({ hasText: `“Harbour report” added to “${path}”.` }).waitFor();
      await panel.getByRole('link', { name: path }).waitFor();
    }
    const parents = (await e.server.request('GET', `/documents/${docId}/parents`, { token })).body.data.map((p: { attributes: { title: string } }) => p.attributes.title).sort();
    assert.deepEqual(parents, ['2024', 'News']);
    await e.shot('organising-object-folders');
    await panel.getByRole('button', { name: 'Remove from Site / News' }).click();
    await panel.getByRole('link', { name: 'Site / News' }).waitFor({ state: 'detached' });
    const left = (await e.server.request('GET', `/documents/${docId}/parents`, { token })).body.data.map((p: { attributes: { title: string } }) => p.attributes.title);
    assert.deepEqual(left, ['2024']);
  });

  test('a dialog keeps Tab and Shift+Tab inside, closes with Escape and gives focus back', async () => {
    const { page } = e;
    const opener = page.getByRole('region', { name: 'Folders' }).getByRole('button', { name: 'Add to folder…' });
    await opener.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Add “Harbour report” to a folder' });
    await dialog.getByRole('treeitem').first().waitFor();
    const inside = () => page.evaluate(() => Boolean(document.activeElement?.closest('[role=dialog]')));
    for (let i = 0; i < 8; i++) {
      await page.keyboard.press('Tab');
      assert.ok(await inside(), `Tab ${i + 1} stays in the dialog`);
    }
    for (let i = 0; i < 8; i++) {
      await page.keyboard.press('Shift+Tab');
      assert.ok(await inside(), `Shift+Tab ${i + 1} stays in the dialog`);
    }
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    assert.equal(await page.evaluate(() => document.activeElement?.textContent?.trim()), 'Add to folder…');
  });
});
