// Admin UI, folders and media: build a folder tree, rename and move a folder (dialog and drag
// and drop), make it a root, manage a folder's contents; upload an image and see its thumbnail.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { waitUntil } from '../server/test/helpers/wait.js';
import { signInAsAdmin, startE2E, type E2E, untilEqual } from './helpers/browser.js';

describe('admin folders and media', () => {
  let e: E2E;
  const tree = () => e.page.getByRole('tree', { name: 'Folder tree' });
  /** A folder's own row in the tree (the treeitem; its open subfolders are a group it owns). */
  const row = (title: string, within = tree()) => within.getByRole('treeitem', { name: title, exact: true });
  const parentOf = async (title: string) => {
    const { server } = e;
    const token = await server.adminToken();
    const list = await server.request('GET', `/folders?filter[title]=${encodeURIComponent(title)}`, { token });
    return String(list.body.data[0].meta.path);
  };
  before(async () => {
    e = await startE2E();
    await signInAsAdmin(e.page, '#/folders');
  });
  after(async () => {
    await e?.close();
  });

  test('a folder tree is built from root folders and subfolders, and expands', async () => {
    const { page } = e;
    await page.getByText('Choose a folder in the tree, or create a root folder.').waitFor();
    for (const title of ['Site', 'Archive']) {
      await page.getByRole('textbox', { name: 'New root folder' }).fill(title);
      await page.getByRole('form', { name: 'New root folder' }).getByRole('button', { name: 'Create' }).click();
      await page.getByRole('heading', { name: title }).waitFor();
    }
    await row('Site').click();
    await page.getByRole('heading', { name: 'Site' }).waitFor();
    assert.equal(await tree().getByRole('treeitem', { name: 'Site', exact: true }).getAttribute('aria-expanded'), null, 'a leaf has no expand state');
    for (const title of ['News', 'Blog']) {
      await page.getByRole('textbox', { name: 'New subfolder' }).fill(title);
      await page.getByRole('button', { name: 'Create subfolder' }).click();
      await page.getByText('Subfolder created.').first().waitFor();
      // The tree shows the new subfolder at once, without reopening anything.
      await tree().getByRole('treeitem', { name: title, exact: true }).waitFor();
    }
    assert.equal(await tree().getByRole('treeitem', { name: 'Site', exact: true }).getAttribute('aria-expanded'), 'true');
    const contents = page.getByRole('region', { name: 'Contents' });
    // The contents are read again apart from the tree (which shows Blog already): wait for them.
    await untilEqual(() => contents.getByRole('listitem').locator('a').allInnerTexts(), ['News', 'Blog'], 'the contents to list News and Blog');
    await e.shot('folders');
  });

  test('contents are reordered, objects added from search and removed', async () => {
    const { page, server } = e;
    const contents = page.getByRole('region', { name: 'Contents' });
    await contents.getByRole('button', { name: 'Move Blog up' }).click();
    await page.waitForFunction(() => document.querySelector('[aria-label="Contents"] li a')?.textContent === 'Blog');
    assert.deepEqual(await contents.getByRole('listitem').locator('a').allInnerTexts(), ['Blog', 'News']);

    await server.request('POST', '/documents', { token: await server.adminToken(), body: { data: { type: 'documents', attributes: { title: 'Welcome page' } } } });
    await contents.getByRole('button', { name: 'Add existing objects' }).click();
    await contents.getByLabel('Find objects to add').fill('Welcome');
    await contents.getByRole('button', { name: 'Find' }).click();
    await contents.getByRole('button', { name: 'Add Welcome page' }).click();
    await contents.getByRole('link', { name: 'Welcome page' }).waitFor();
    await e.shot('folder-contents');
    await contents.getByRole('button', { name: 'Remove Welcome page from folder' }).click();
    await page.waitForFunction(() => ![...document.querySelectorAll('[aria-label="Contents"] .related a')].some((a) => a.textContent === 'Welcome page'));
  });

  test('a folder is renamed and moved under another folder with the move dialog', async () => {
    const { page } = e;
    await row('News').click();
    await page.getByRole('heading', { name: 'News' }).waitFor();
    await page.getByRole('form', { name: 'Rename folder' }).getByLabel('Title').fill('Press');
    await page.getByRole('button', { name: 'Rename' }).click();
    await page.getByText('Folder renamed.').waitFor();
    await page.getByText('Site / Press').waitFor();
    await page.getByRole('button', { name: 'Move…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Move “Press”' });
    await row('Archive', dialog.getByRole('tree')).click();
    await page.getByText('Folder moved.').waitFor();
    await page.getByText('Archive / Press').waitFor();
    const archive = await parentOf('Archive');
    assert.match(await parentOf('Press'), new RegExp(`^${archive}/\\d+$`));
    await tree().getByRole('treeitem', { name: 'Press', exact: true }).waitFor();
    await e.shot('folder-moved');
  });

  test('a folder is made a root, then dragged onto another folder', async () => {
    const { page } = e;
    await page.getByRole('button', { name: 'Make root' }).click();
    await page.getByText('The folder is now a root.').waitFor();
    assert.match(await parentOf('Press'), /^\/\d+$/);
    const press = tree().locator(':scope > li > .tree-row', { hasText: 'Press' });
    await press.dragTo(tree().locator(':scope > li > .tree-row', { hasText: 'Site' }));
    const site = await parentOf('Site');
    // The drop is saved when the server answers: wait for Press's path to move under Site.
    await waitUntil(async () => (new RegExp(`^${site}/\\d+$`).test(await parentOf('Press')) ? true : undefined), 'Press to move under Site');
  });

  test('an uploaded image becomes an image object and shows its thumbnail', async () => {
    const { page } = e;
    const png = await sharp({ create: { width: 320, height: 200, channels: 3, background: '#3366cc' } }).png().toBuffer();
    await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Media' }).click();
    await page.getByText('No media yet.').waitFor();
    await page.getByLabel('Choose files…').setInputFiles({ name: 'blue-sky.png', mimeType: 'image/png', buffer: png });
    await page.getByText('Uploaded “blue-sky.png” as image').waitFor();
    const card = page.getByRole('list', { name: 'Media' }).getByRole('listitem').first();
    const img = card.locator('img[alt="blue-sky.png"]');
    await img.waitFor();
    await page.waitForFunction(() => {
      const i = document.querySelector<HTMLImageElement>('.media-card img');
      return Boolean(i && i.complete && i.naturalWidth > 0);
    });
    await e.shot('media');
    await card.getByRole('link', { name: 'blue-sky.png', exact: true }).click();
    const preview = page.getByRole('region', { name: 'Preview' });
    await preview.getByRole('img', { name: 'blue-sky.png' }).waitFor();
    for (const fact of ['blue-sky.png', 'image/png', '320 × 200 px']) await preview.getByText(fact, { exact: true }).waitFor();
    for (const preset of ['small', 'medium', 'default']) await preview.getByRole('img', { name: `${preset} thumbnail` }).waitFor();
    await preview.getByRole('link', { name: 'Download blue-sky.png' }).waitFor();
    // The preview is at the top of the page, above the form.
    const [previewBox, formBox] = [await preview.boundingBox(), await page.getByRole('form', { name: 'Edit object' }).boundingBox()];
    assert.ok(previewBox && formBox && previewBox.y < formBox.y && previewBox.y < 300);
    await e.shot('media-object');
  });

  test('an upload the server refuses shows the API error', async () => {
    const { page } = e;
    await page.goto('/admin/#/media');
    await page.getByLabel('Create as').selectOption('images');
    await page.getByLabel('Choose files…').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('plain text') });
    const alert = page.getByRole('region', { name: 'Upload' }).getByRole('alert');
    await alert.waitFor();
    assert.match(await alert.innerText(), /^\S.* — .+/);
    // The row says it failed, in red, instead of a full progress bar.
    const row = page.getByRole('list', { name: 'Uploads' }).getByRole('listitem').filter({ hasText: 'notes.txt' });
    await row.getByText('Failed').waitFor();
    assert.equal(await row.locator('progress').count(), 0);
    assert.equal(await row.evaluate((li) => li.classList.contains('failed')), true);
    await e.shot('upload-failed', { viewport: true });
  });
});
