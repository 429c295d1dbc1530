// Admin UI, the media library and images in texts, at 1024×700 in the
// dark theme: search, type, folder and sort filters kept in the URL (Back, Forward, reload), empty
// results that say so; alt text and caption edited on the image's page; the rich-text image dialog
// that places an image with its alt text and caption (figure + figcaption), editable per use, and
// a published body that keeps them for the public; the same as a restricted editor.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { mp4Header, png } from '../server/test/helpers/media-files.js';
import { createRestrictedUser, expectNoSeriousA11yViolations, signInAs, signInAsAdmin, startE2E, type E2E, untilNewToast } from './helpers/browser.js';

describe('media library, alt text and caption', () => {
  let e: E2E;
  let token: string;
  const ids: Record<string, string> = {};
  const upload = async (type: string, name: string, raw: Buffer, contentType: string, attributes: Record<string, unknown> = {}) => {
    const res = await e.server.request('POST', `/${type}/upload/${name}`, { token, raw, headers: { 'Content-Type': contentType } });
    assert.equal(res.status, 201, res.text);
    const id = String(res.body.data.id);
    if (Object.keys(attributes).length) {
      const patched = await e.server.request('PATCH', `/${type}/${id}`, { token, body: { data: { id, type, attributes } } });
      assert.equal(patched.status, 200, patched.text);
    }
    return id;
  };
  const folder = async (title: string, parent?: string) => {
    const res = await e.server.request('POST', '/folders', { token, body: { data: { type: 'folders', attributes: { title } } } });
    const id = String(res.body.data.id);
    if (parent) await e.server.request('PATCH', `/folders/${id}/relationships/parent`, { token, body: { data: { type: 'folders', id: parent } } });
    return id;
  };
  const file = (folderId: string, type: string, id: string) => e.server.request('POST', `/folders/${folderId}/relationships/children`, { token, body: { data: [{ type, id }] } });
  const read = async (type: string, id: string) => (await e.server.request('GET', `/${type}/${id}`, { token })).body.data;
  /** The titles the grid shows, in order. */
  const shown = async () => e.page.getByRole('list', { name: 'Media' }).locator('.media-card .caption > a').allInnerTexts();
  const waitShown = async (titles: string[]) => {
    try {
      await e.page.waitForFunction((want) => JSON.stringify([...document.querySelectorAll('.media-card .caption > a')].map((a) => a.textContent)) === want, JSON.stringify(titles));
    } catch (err) {
      // Say what the grid showed instead (and whatever note the page has).
      throw new Error(`expected ${JSON.stringify(titles)}, the grid shows ${JSON.stringify(await shown())} (${e.page.url()}): ${await e.page.locator('main').innerText()}`, { cause: err });
    }
  };

  before(async () => {
    e = await startE2E();
    token = await e.server.adminToken();
    ids.harbour = await upload('images', 'harbour.png', await png(64, 48), 'image/png', {
      title: 'Harbour at dawn',
      alt_text: 'Fishing boats moored in a calm harbour at dawn',
      description: 'The old harbour, 1962.',
    });
    ids.boat = await upload('images', 'boat.png', await png(48, 48), 'image/png', { title: 'Blue boat' });
    ids.clip = await upload('videos', 'harbour-tour.mp4', mp4Header(), 'video/mp4', { title: 'Harbour tour' });
    ids.notes = await upload('files', 'notes.txt', Buffer.from('Tide tables for the harbour.\n'), 'text/plain', { title: 'Tide tables', description: 'High and low water in the harbour.' });
    ids.coast = await folder('Coast');
    ids.boats = await folder('Boats', ids.coast);
    await file(ids.coast, 'images', ids.harbour);
    await file(ids.boats, 'images', ids.boat);
    await e.page.setViewportSize({ width: 1024, height: 700 });
    await e.page.emulateMedia({ colorScheme: 'dark' });
    await signInAsAdmin(e.page, '#/media');
  });
  after(async () => {
    await e?.close();
  });

  test('search, type, folder and sort filter the library and live in the URL (reload, Back, Forward)', async () => {
    const { page } = e;
    await waitShown(['Tide tables', 'Harbour tour', 'Blue boat', 'Harbour at dawn']);
    assert.equal(await page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches), true, 'the dark theme (the theme follows the system)');
    // An image without alt text is marked; one with it is not.
    const grid = page.getByRole('list', { name: 'Media' });
    assert.equal(await grid.getByRole('listitem').filter({ hasText: 'Blue boat' }).getByText('no alt text').count(), 1);
    assert.equal(await grid.getByRole('listitem').filter({ hasText: 'Harbour at dawn' }).getByText('no alt text').count(), 0);
    await grid.getByRole('listitem').filter({ hasText: 'Harbour at dawn' }).getByText('64 × 48').waitFor();

    await page.getByRole('searchbox', { name: 'Search media' }).fill('harbour');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelectorAll('.media-card').length === 3);
    assert.deepEqual((await shown()).sort(), ['Harbour at dawn', 'Harbour tour', 'Tide tables']);
    assert.equal(await page.getByRole('search').getByLabel('Sort').inputValue(), 'relevance', 'a search is sorted by best match');
    await page.getByRole('search').getByLabel('Sort').selectOption('title');
    await waitShown(['Harbour at dawn', 'Harbour tour', 'Tide tables']);
    await page.getByRole('search').getByLabel('Type').selectOption('videos');
    await waitShown(['Harbour tour']);
    assert.match(page.url(), /#\/media\?.*q=harbour/);
    assert.match(page.url(), /type=videos/);
    await page.reload();
    await waitShown(['Harbour tour']);
    assert.equal(await page.getByRole('searchbox', { name: 'Search media' }).inputValue(), 'harbour');
    assert.equal(await page.getByRole('search').getByLabel('Type').inputValue(), 'videos');
    await page.goBack();
    await waitShown(['Harbour at dawn', 'Harbour tour', 'Tide tables']);
    assert.equal(await page.getByRole('search').getByLabel('Type').inputValue(), '');
    await page.goForward();
    await waitShown(['Harbour tour']);

    // Nothing matches: the list says so and offers to clear the filters.
    await page.getByRole('search').getByLabel('Type').selectOption('audio');
    await page.getByText('No audio match “harbour”.').waitFor();
    await e.shot('media-library-empty', { viewport: true });
    await expectNoSeriousA11yViolations(page, 'media library, no match, dark');
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await waitShown(['Tide tables', 'Harbour tour', 'Blue boat', 'Harbour at dawn']);
    assert.equal(await page.getByRole('searchbox', { name: 'Search media' }).inputValue(), '');

    // A folder: its own media, or with its subfolders'.
    await page.getByRole('search').getByLabel('Folder').selectOption({ label: 'Coast' });
    await waitShown(['Harbour at dawn']);
    await page.getByLabel('Include its subfolders').check();
    await waitShown(['Blue boat', 'Harbour at dawn']);
    assert.match(page.url(), /below=1/);
    await page.getByRole('search').getByLabel('Folder').selectOption({ label: 'Coast / Boats' });
    await waitShown(['Blue boat']);
    await page.getByRole('search').getByLabel('Folder').selectOption('');
    // Images without alt text (filter[alt_text]=null on /images).
    await page.getByRole('search').getByLabel('Type').selectOption('images');
    await page.getByLabel('Only images without alt text').check();
    await waitShown(['Blue boat']);
    await page.getByRole('search').getByLabel('Sort').selectOption('-title');
    await page.getByLabel('Only images without alt text').uncheck();
    await waitShown(['Harbour at dawn', 'Blue boat']);
    await page.locator('.media-card img').nth(1).waitFor();
    await e.shot('media-library-filters', { viewport: true });
    await expectNoSeriousA11yViolations(page, 'media library, filters, dark');
  });

  test('alt text and caption are edited on the image’s page and stored on the image', async () => {
    const { page } = e;
    await page.goto(`/admin/#/objects/images/${ids.boat}`);
    const form = page.getByRole('form', { name: 'Edit object' });
    await form.getByLabel('Alt text', { exact: true }).fill('A small blue rowing boat');
    await form.getByLabel('Caption').fill('Our boat, summer 2024.');
    await untilNewToast(page, 'Changes saved.', () => page.getByRole('button', { name: 'Save', exact: true }).click());
    const boat = await read('images', ids.boat);
    assert.equal(boat.attributes.alt_text, 'A small blue rowing boat');
    assert.equal(boat.attributes.description, 'Our boat, summer 2024.');
    // The preview's alt is the image's alt text.
    await page.locator('.media-preview img[alt="A small blue rowing boat"]').waitFor();
    await e.shot('media-details-alt', { viewport: true });
    await expectNoSeriousA11yViolations(page, 'image page, dark');
  });

  test('the rich-text dialog places an image with its alt text and caption, editable per use; the public body keeps them', async () => {
    const { page } = e;
    const doc = (await e.server.request('POST', '/documents', { token, body: { data: { type: 'documents', attributes: { title: 'Harbour stories' } } } })).body.data.id;
    await page.goto(`/admin/#/objects/documents/${doc}`);
    const tools = page.getByRole('toolbar', { name: 'Formatting' });
    await page.getByRole('textbox', { name: 'Body' }).click();
    await page.keyboard.type('Morning at the harbour.');
    await tools.getByRole('button', { name: 'Image from the media library' }).click();
    const dialog = page.getByRole('dialog', { name: 'Insert an image' });
    await dialog.getByRole('button', { name: 'Insert Harbour at dawn' }).click();
    // The image's own alt text and caption are the defaults.
    assert.equal(await dialog.getByLabel('Alt text', { exact: true }).inputValue(), 'Fishing boats moored in a calm harbour at dawn');
    assert.equal(await dialog.getByLabel('Caption').inputValue(), 'The old harbour, 1962.');
    assert.equal(await page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.value), 'Fishing boats moored in a calm harbour at dawn', 'focus on the alt text');
    await dialog.getByLabel('Caption').fill('The old harbour, 1962, from the pier.');
    await e.shot('image-dialog-details', { viewport: true });
    await expectNoSeriousA11yViolations(page, 'image dialog, alt text and caption, dark');
    await dialog.getByRole('button', { name: 'Insert image' }).click();
    await page.locator('.rte-content figure figcaption', { hasText: 'The old harbour, 1962, from the pier.' }).waitFor();

    // An image without alt text: the dialog asks for one (or "decorative") before inserting.
    await page.keyboard.press('Control+End');
    await tools.getByRole('button', { name: 'Image from the media library' }).click();
    await page.getByRole('dialog', { name: 'Insert an image' }).getByRole('button', { name: 'Insert Blue boat' }).click();
    // The boat got its alt text on its page in the previous test; clear it here to see the check.
    await dialog.getByLabel('Alt text', { exact: true }).fill('');
    await dialog.getByRole('button', { name: 'Insert image' }).click();
    await dialog.getByText('Describe what the image shows, or mark it as decorative.').waitFor();
    assert.equal(await dialog.getByLabel('Alt text', { exact: true }).getAttribute('aria-invalid'), 'true');
    await dialog.getByLabel('Decorative image (screen readers skip it)').check();
    await dialog.getByLabel('Caption').fill('');
    await dialog.getByRole('button', { name: 'Insert image' }).click();
    await page.locator('.rte-content > img[alt=""]').waitFor();

    await untilNewToast(page, 'Changes saved.', () => page.keyboard.press('Control+s'));
    const body = String((await read('documents', doc)).attributes.body);
    const src = `/streams/download/${(await read('images', ids.harbour)).relationships.streams.data[0].id}`;
    assert.ok(
      body.includes(`<figure><img src="${src}" alt="Fishing boats moored in a calm harbour at dawn"><figcaption>The old harbour, 1962, from the pier.</figcaption></figure>`),
      body,
    );
    assert.match(body, /<img src="\/streams\/download\/[0-9a-f-]{36}" alt="">/);
    // Per use only: the image's own caption is unchanged.
    assert.equal((await read('images', ids.harbour)).attributes.description, 'The old harbour, 1962.');

    // A placed image is edited by selecting it: the caption goes, so the figure becomes an image.
    await page.locator('.rte-content figure').click();
    await tools.getByRole('button', { name: 'Alt text, caption, size and alignment of this image' }).click();
    const edit = page.getByRole('dialog', { name: 'Image in the text' });
    assert.equal(await edit.getByLabel('Caption').inputValue(), 'The old harbour, 1962, from the pier.');
    await edit.getByLabel('Alt text', { exact: true }).fill('Boats in the harbour at first light');
    await edit.getByLabel('Caption').fill('');
    await edit.getByRole('button', { name: 'Update image' }).click();
    await page.locator('.rte-content > img[alt="Boats in the harbour at first light"]').waitFor();
    assert.equal(await page.locator('.rte-content figure').count(), 0);
    await untilNewToast(page, 'Changes saved.', () => page.keyboard.press('Control+s'));

    // Caption back, published: an anonymous read of the body keeps the figure, alt and caption.
    await page.locator('.rte-content > img[alt="Boats in the harbour at first light"]').click();
    await tools.getByRole('button', { name: 'Alt text, caption, size and alignment of this image' }).click();
    await edit.getByLabel('Caption').fill('First light.');
    await edit.getByRole('button', { name: 'Update image' }).click();
    await page.locator('.rte-content figure figcaption', { hasText: 'First light.' }).waitFor();
    await page.getByRole('form', { name: 'Edit object' }).getByLabel('Status').selectOption('on');
    await page.keyboard.press('Control+s');
    const check = page.getByRole('dialog', { name: 'Some of what it uses is not public' });
    await untilNewToast(page, 'Changes saved.', () => check.getByRole('button', { name: /^Publish (it|these \d+) too$/ }).click());
    const publicRead = await e.server.request('GET', `/documents/${doc}`);
    assert.equal(publicRead.status, 200);
    assert.ok(String(publicRead.body.data.attributes.body).includes(`<figure><img src="${src}" alt="Boats in the harbour at first light"><figcaption>First light.</figcaption></figure>`), publicRead.text);
    await e.shot('image-in-body', { viewport: true });
  });

  test('a restricted editor (no upload right) filters the library, edits alt text and places images', async () => {
    const { page } = e;
    // Its images are published: changing their alt text is a change of what the public sees (publish).
    await createRestrictedUser(e.server, 'mira', 'mira-password-1', { media: ['read', 'update', 'publish'], documents: ['read', 'create', 'update'], folders: ['read'] });
    await signInAs(page, 'mira', 'mira-password-1', '#/media?type=images&sort=title');
    await waitShown(['Blue boat', 'Harbour at dawn']);
    assert.equal(await page.getByRole('region', { name: 'Upload' }).count(), 0, 'no upload without the create right');
    const upload = page.getByRole('button', { name: 'Upload files', exact: true });
    assert.ok(await upload.isDisabled(), 'Upload files is shown disabled');
    await page.getByText('Your roles do not let you add media.').waitFor();
    await page.getByRole('search').getByLabel('Folder').selectOption({ label: 'Coast' });
    await waitShown(['Harbour at dawn']);
    await e.shot('media-library-editor', { viewport: true });
    await expectNoSeriousA11yViolations(page, 'media library as an editor, dark');
    await page.getByRole('list', { name: 'Media' }).getByRole('link', { name: 'Harbour at dawn' }).click();
    const form = page.getByRole('form', { name: 'Edit object' });
    await form.getByLabel('Alt text', { exact: true }).fill('Boats moored at dawn');
    await untilNewToast(page, 'Changes saved.', () => page.getByRole('button', { name: 'Save', exact: true }).click());
    assert.equal((await read('images', ids.harbour)).attributes.alt_text, 'Boats moored at dawn');

    const doc = (await e.server.request('POST', '/documents', { token, body: { data: { type: 'documents', attributes: { title: 'Mira’s page' } } } })).body.data.id;
    await page.goto(`/admin/#/objects/documents/${doc}`);
    await page.getByRole('textbox', { name: 'Body' }).click();
    await page.getByRole('toolbar', { name: 'Formatting' }).getByRole('button', { name: 'Image from the media library' }).click();
    const dialog = page.getByRole('dialog', { name: 'Insert an image' });
    await dialog.getByRole('button', { name: 'Insert Harbour at dawn' }).click();
    assert.equal(await dialog.getByLabel('Alt text', { exact: true }).inputValue(), 'Boats moored at dawn');
    await dialog.getByRole('button', { name: 'Insert image' }).click();
    await page.locator('.rte-content figure img[alt="Boats moored at dawn"]').waitFor();
    await untilNewToast(page, 'Changes saved.', () => page.keyboard.press('Control+s'));
    assert.match(String((await read('documents', doc)).attributes.body), /<figure><img src="[^"]+" alt="Boats moored at dawn"><figcaption>The old harbour, 1962\.<\/figcaption><\/figure>/);
  });
});

// A search by best match ranks the newest 1,000 matches (docs/decisions.md, the search window):
// past that the library says so, and another order lists every match.
describe('media library, best match over more matches than it ranks', () => {
  let e: E2E;
  before(async () => {
    e = await startE2E();
    const token = await e.server.adminToken();
    const ATOMIC = 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"';
    for (let start = 0; start < 1003; start += 100) {
      const operations = Array.from({ length: Math.min(100, 1003 - start) }, (_, i) => ({ op: 'add', data: { type: 'images', attributes: { title: `Lighthouse ${start + i}`, status: 'on' } } }));
      const res = await e.server.request('POST', '/operations', { token, body: { 'atomic:operations': operations }, headers: { 'Content-Type': ATOMIC, Accept: ATOMIC } });
      assert.equal(res.status, 200, res.text);
    }
    await signInAsAdmin(e.page, '#/media');
  });
  after(async () => {
    await e?.close();
  });

  test('best match says it ranks the newest 1,000; another order lists all 1,003', async () => {
    const { page } = e;
    const search = page.getByRole('search');
    await search.getByLabel('Search media').fill('lighthouse');
    await search.getByRole('button', { name: 'Search' }).click();
    await page.getByText('Best match ranks the 1,000 newest matches. Choose another order to list every match.').waitFor();
    await page.getByRole('navigation', { name: 'Media pages' }).getByText('1000 items').waitFor();
    await e.shot('media-best-match-window', { viewport: true });
    await page.getByRole('button', { name: 'List every match, newest first' }).click();
    await page.getByRole('navigation', { name: 'Media pages' }).getByText('1003 items').waitFor();
    assert.equal(await search.getByLabel('Sort').inputValue(), '-created');
    await page.getByRole('list', { name: 'Media' }).getByRole('link', { name: 'Lighthouse 1002', exact: true }).waitFor();
    await search.getByLabel('Sort').selectOption({ label: 'Best match' });
    await page.getByRole('navigation', { name: 'Media pages' }).getByText('1000 items').waitFor();
    await search.getByLabel('Sort').selectOption({ label: 'Oldest first' });
    await page.getByRole('navigation', { name: 'Media pages' }).getByText('1003 items').waitFor();
    assert.equal(await page.getByText('Best match ranks').count(), 0, 'no note when every match is listed');
    await page.getByRole('list', { name: 'Media' }).getByRole('link', { name: 'Lighthouse 0', exact: true }).waitFor();
  });
});
