// Admin UI, images where the writer works (issue 46): an editor whose role may write documents and
// create images uploads a new image from inside the rich-text image dialog (a refused file says so
// there), places it small on the right with the text beside it, and after a save and a reload changes
// it to medium on the left with a caption — the body stores classes on the image, as
// docs/decisions.md says; the poster picker shows the images' thumbnails (fetched with the session)
// and takes a new one dropped on it, then shows the poster's thumbnail ("See also", which takes any
// type, offers no upload, nor does the image dialog to an editor who may not create images); an
// image opened from Media stays in the Media area and its back link returns to the library with its
// filters. Photographed at 1024×700 and 1366×850 in both themes, checked with axe.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { BrowserContext, Page, Request } from 'playwright-core';
import sharp from 'sharp';
import { contextAt, createObject, createRestrictedUser, shotsAtBothSizes, signInAs, startE2E, untilEditorSelection, untilNewToast, type E2E } from './helpers/browser.js';

const png = (width: number, height: number, colour: string) => sharp({ create: { width, height, channels: 3, background: colour } }).png().toBuffer();

describe('images in pickers and in the body', () => {
  let e: E2E;
  let token: string;
  let docId: string;
  let context: BrowserContext;
  let page: Page;
  /** Requests for a file's bytes or a thumbnail that left the page without the session. */
  const bare: string[] = [];

  const read = async (type: string, id: string) => (await e.server.request('GET', `/${type}/${id}`, { token })).body.data;

  before(async () => {
    e = await startE2E();
    token = await e.server.adminToken();
    const up = await e.server.request('POST', '/images/upload/pier.png', { token, raw: await png(640, 400, '#2f6db5'), headers: { 'Content-Type': 'image/png' } });
    assert.equal(up.status, 201, up.text);
    const pierId = String(up.body.data.id);
    const set = await e.server.request('PATCH', `/images/${pierId}`, { token, body: { data: { id: pierId, type: 'images', attributes: { title: 'Pier at noon', alt_text: 'The pier in the midday sun', status: 'on' } } } });
    assert.equal(set.status, 200, set.text);
    const words = 'The harbour walk starts at the old customs house and follows the quay past the fish market, the boatyards and the ferry landing, then climbs to the lighthouse. ';
    docId = await createObject(e.server, 'documents', { title: 'Harbour guide', body: `<p>A walk of two hours.</p><p>${words.repeat(5)}</p>` });
    await createRestrictedUser(e.server, 'nora', 'nora-password-1', { documents: ['read', 'create', 'update'], images: ['read', 'create'] });
    context = await contextAt(e, 1366, 850);
    context.on('request', (request: Request) => {
      const url = new URL(request.url());
      if (/^\/(streams\/download|media\/thumbs)\//.test(url.pathname) && !request.headers().authorization) bare.push(url.pathname);
    });
    page = await context.newPage();
    await signInAs(page, 'nora', 'nora-password-1', `#/objects/documents/${docId}`);
  });
  after(async () => {
    await context?.close();
    await e?.close();
  });

  test('the image dialog uploads a new image (a refused file says why) and places it small on the right, the text beside it', async () => {
    await page.getByRole('textbox', { name: 'Body' }).getByText('A walk of two hours.').click();
    await page.keyboard.press('End');
    await untilEditorSelection(page, { atLineEnd: true });
    await page.getByRole('toolbar', { name: 'Formatting' }).getByRole('button', { name: 'Image from the media library' }).click();
    const dialog = page.getByRole('dialog', { name: 'Insert an image' });
    // The library's image shows its thumbnail, drawn from the session's copy.
    await page.waitForFunction(() => {
      const img = document.querySelector('[role="dialog"] .image-choices .thumb img') as HTMLImageElement | null;
      return Boolean(img?.complete && img.naturalWidth > 0 && img.src.startsWith('blob:'));
    });
    const upload = dialog.getByLabel('Upload a new file…');

    // A file that is not what it says: refused, the reason beside the upload zone.
    await upload.setInputFiles({ name: 'notes.png', mimeType: 'image/png', buffer: Buffer.from('These are notes, not a picture.') });
    await dialog.getByText('“notes.png” was not uploaded.').waitFor();
    const reason = await dialog.getByRole('alert').innerText();
    assert.match(reason, /image\/png/, `the refusal names the declared type: ${reason}`);
    await shotsAtBothSizes(page, 'picker-images-dialog-refused');

    // A real image: its progress shows while it goes up (the request is held a moment to see it).
    await page.route(
      '**/images/upload/**',
      async (route) => {
        await new Promise((r) => setTimeout(r, 700));
        await route.continue();
      },
      { times: 1 },
    );
    await upload.setInputFiles({ name: 'lighthouse.png', mimeType: 'image/png', buffer: await png(900, 600, '#c0392b') });
    await dialog.getByRole('status').filter({ hasText: 'Uploading “lighthouse.png”…' }).waitFor();
    assert.equal(await dialog.getByRole('progressbar', { name: 'Upload progress of lighthouse.png' }).count(), 1, 'a progress bar for the upload');
    // The new image is chosen at once: the dialog asks how it is used here.
    const form = dialog.getByRole('form', { name: 'Image details' });
    await form.getByText('lighthouse.png', { exact: true }).waitFor();
    assert.equal(await dialog.getByText('was not uploaded').count(), 0, 'the earlier refusal is gone');
    await form.getByLabel('Alt text', { exact: true }).fill('The red lighthouse on the point');
    const size = form.getByRole('group', { name: 'Size' });
    const align = form.getByRole('group', { name: 'Alignment' });
    assert.ok(await size.getByRole('radio', { name: 'Full width' }).isChecked(), 'a new image starts full width');
    assert.ok(await align.getByRole('radio', { name: 'Centre' }).isChecked(), 'a new image starts centred');
    // Both groups by keyboard: arrows move between the choices of a group.
    await size.getByRole('radio', { name: 'Full width' }).focus();
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    assert.ok(await size.getByRole('radio', { name: 'Small' }).isChecked(), 'Small chosen with the arrow keys');
    await page.keyboard.press('Tab');
    await page.keyboard.press('ArrowRight');
    assert.ok(await align.getByRole('radio', { name: 'Right, text beside' }).isChecked(), 'Right chosen with the arrow keys');
    await shotsAtBothSizes(page, 'picker-images-dialog-layout');
    await form.getByRole('button', { name: 'Insert image' }).click();

    const placed = page.locator('.rte-content img.image-small.image-right');
    await page.waitForFunction(() => {
      const img = document.querySelector('.rte-content img.image-small.image-right') as HTMLImageElement | null;
      return Boolean(img?.complete && img.naturalWidth > 0 && img.src.startsWith('blob:'));
    });
    assert.equal(await placed.getAttribute('alt'), 'The red lighthouse on the point');
    // A third of the text's width, on the right, and the next paragraph's first words beside it.
    const layout = await page.evaluate(() => {
      const img = document.querySelector('.rte-content img.image-small') as HTMLImageElement;
      const box = img.getBoundingClientRect();
      const text = (img.closest('.rte-content') as HTMLElement).getBoundingClientRect();
      const next = img.nextElementSibling as HTMLElement;
      const range = document.createRange();
      range.setStart(next.firstChild!, 0);
      range.setEnd(next.firstChild!, 3);
      const word = range.getBoundingClientRect();
      return { float: getComputedStyle(img).float, share: box.width / text.width, wordRight: word.right, wordTop: word.top, imgLeft: box.left, imgTop: box.top, imgBottom: box.bottom };
    });
    assert.equal(layout.float, 'right', 'the image floats right');
    assert.ok(layout.share > 0.25 && layout.share < 0.4, `small is about a third of the text's width (${layout.share.toFixed(2)})`);
    assert.ok(layout.wordTop >= layout.imgTop - 2 && layout.wordTop < layout.imgBottom && layout.wordRight < layout.imgLeft, `the next paragraph starts beside the image: ${JSON.stringify(layout)}`);
    await untilNewToast(page, 'Changes saved.', () => page.getByRole('button', { name: 'Save changes' }).click());
    const body = String((await read('documents', docId)).attributes.body);
    assert.match(body, /<img src="\/streams\/download\/[0-9a-f-]{36}" alt="The red lighthouse on the point" class="image-small image-right">/, `the body stores the size and alignment as classes: ${body}`);
    await shotsAtBothSizes(page, 'picker-images-body-small-right');
  });

  test('after a reload the image keeps its size and alignment, and becomes medium on the left with a caption', async () => {
    await page.reload();
    const placed = page.locator('.rte-content img.image-small.image-right');
    await placed.waitFor();
    await placed.click();
    await page.getByRole('toolbar', { name: 'Formatting' }).getByRole('button', { name: 'Alt text, caption, size and alignment of this image' }).click();
    const edit = page.getByRole('dialog', { name: 'Image in the text' });
    assert.ok(await edit.getByRole('radio', { name: 'Small' }).isChecked(), 'the dialog reads the stored size');
    assert.ok(await edit.getByRole('radio', { name: 'Right, text beside' }).isChecked(), 'the dialog reads the stored alignment');
    await edit.getByRole('radio', { name: 'Medium' }).check();
    await edit.getByRole('radio', { name: 'Left, text beside' }).check();
    await edit.getByLabel('Caption').fill('The lighthouse, lit since 1871.');
    await edit.getByRole('button', { name: 'Update image' }).click();
    await page.locator('.rte-content figure.image-medium.image-left figcaption', { hasText: 'The lighthouse, lit since 1871.' }).waitFor();
    assert.equal(await page.locator('.rte-content figure.image-medium.image-left').evaluate((f) => getComputedStyle(f).float), 'left', 'the figure floats left');
    await untilNewToast(page, 'Changes saved.', () => page.getByRole('button', { name: 'Save changes' }).click());
    const body = String((await read('documents', docId)).attributes.body);
    assert.match(
      body,
      /<figure class="image-medium image-left"><img src="\/streams\/download\/[0-9a-f-]{36}" alt="The red lighthouse on the point"><figcaption>The lighthouse, lit since 1871\.<\/figcaption><\/figure>/,
      `the figure carries the classes: ${body}`,
    );
    await page.reload();
    await page.locator('.rte-content figure.image-medium.image-left').waitFor();
    await shotsAtBothSizes(page, 'picker-images-body-medium-left');
  });

  test('the poster picker shows thumbnails and takes a new image dropped on it', async () => {
    const poster = page.getByRole('group', { name: 'Poster' });
    await poster.getByRole('button', { name: /^Poster/ }).click();
    await poster.getByRole('button', { name: 'Add to Poster' }).click();
    await poster.getByRole('search').getByRole('button', { name: 'Find' }).click();
    const list = poster.locator('.pick-list');
    await list.getByText('Pier at noon').waitFor();
    // Each result names its type in words ("Image"), not by the machine's plural name.
    await list.getByText('(Image)').first().waitFor();
    assert.equal(await list.getByText('(images)').count(), 0, 'no result names its type "images"');
    // Every image found shows its thumbnail beside its title, drawn from the session's copy.
    await page.waitForFunction(() => {
      const rows = [...document.querySelectorAll('.pick-list li')];
      return rows.length >= 2 && rows.every((li) => {
        const img = li.querySelector('.pick-thumb img') as HTMLImageElement | null;
        return Boolean(img?.complete && img.naturalWidth > 0 && img.src.startsWith('blob:'));
      });
    });
    await shotsAtBothSizes(page, 'picker-images-poster-thumbnails');

    // A file dropped on the picker's upload zone is uploaded and becomes the poster.
    const bytes = (await png(800, 500, '#1e8449')).toString('base64');
    const dropped = await page.evaluateHandle((b64) => {
      const data = new DataTransfer();
      data.items.add(new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], 'harbour-map.png', { type: 'image/png' }));
      return data;
    }, bytes);
    const zone = poster.locator('.picker-upload');
    await zone.dispatchEvent('dragover', { dataTransfer: dropped });
    await untilNewToast(page, '“harbour-map.png” added to Poster.', () => zone.dispatchEvent('drop', { dataTransfer: dropped }));
    await poster.getByRole('list').filter({ has: page.getByRole('link', { name: 'harbour-map.png' }) }).waitFor();
    // The poster shows its thumbnail beside its title too.
    await page.waitForFunction(() => {
      const img = document.querySelector('.related li .pick-thumb img') as HTMLImageElement | null;
      return Boolean(img?.complete && img.naturalWidth > 0 && img.src.startsWith('blob:'));
    });
    await shotsAtBothSizes(page, 'picker-images-poster-added');
    const posters = (await e.server.request('GET', `/documents/${docId}/poster`, { token })).body.data as Array<{ attributes: { title: string } }>;
    assert.deepEqual(posters.map((p) => p.attributes.title), ['harbour-map.png'], 'the dropped image is the poster');
    assert.deepEqual(bare, [], 'no thumbnail or image asked for without the session');
    // "See also" takes any type: its picker is for finding, with no upload zone.
    const seeAlso = page.getByRole('group', { name: 'See also' });
    await seeAlso.getByRole('button', { name: /^See also/ }).click();
    await seeAlso.getByRole('button', { name: 'Add to See also' }).click();
    await seeAlso.getByRole('search').waitFor();
    assert.equal(await seeAlso.getByLabel('Upload a new file…').count(), 0, 'no upload in the See also picker');
  });

  test('an editor who may not create images finds them in the dialog, without an upload zone', async () => {
    await createRestrictedUser(e.server, 'olaf', 'olaf-password-1', { documents: ['read', 'create', 'update'], images: ['read'] });
    const other = await contextAt(e, 1024, 700);
    const p = await other.newPage();
    await signInAs(p, 'olaf', 'olaf-password-1', `#/objects/documents/${docId}`);
    await p.getByRole('textbox', { name: 'Body' }).getByText('A walk of two hours.').click();
    await p.getByRole('toolbar', { name: 'Formatting' }).getByRole('button', { name: 'Image from the media library' }).click();
    const dialog = p.getByRole('dialog', { name: 'Insert an image' });
    await dialog.getByRole('button', { name: 'Insert Pier at noon' }).waitFor();
    assert.equal(await dialog.getByLabel('Upload a new file…').count(), 0, 'no upload without the right to create images');
    await other.close();
  });

  test('an image opened from Media stays in the Media area; its back link returns to the filtered library', async () => {
    await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Media' }).click();
    await page.getByRole('search').getByLabel('Type').selectOption('images');
    await page.getByRole('search').getByLabel('Search media').fill('pier');
    await page.getByRole('search').getByRole('button', { name: 'Search', exact: true }).click();
    const grid = page.getByRole('list', { name: 'Media' });
    await grid.getByRole('link', { name: 'Pier at noon' }).waitFor();
    await grid.getByRole('link', { name: 'Pier at noon' }).click();
    await page.getByRole('heading', { name: 'Pier at noon', level: 1 }).waitFor();
    const hash = await page.evaluate(() => window.location.hash);
    assert.match(hash, /^#\/media\/images\/\d+\?/, `the image's page is in the Media area: ${hash}`);
    assert.equal(await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Media' }).getAttribute('aria-current'), 'page', 'Media is the current area');
    await shotsAtBothSizes(page, 'picker-images-media-image');
    await page.getByRole('link', { name: '‹ Media' }).click();
    await grid.getByRole('link', { name: 'Pier at noon' }).waitFor();
    const back = new URLSearchParams((await page.evaluate(() => window.location.hash)).split('?')[1] ?? '');
    assert.equal(back.get('type'), 'images', 'the type filter is kept');
    assert.equal(back.get('q'), 'pier', 'the search is kept');
    assert.equal(await page.getByRole('search').getByLabel('Search media').inputValue(), 'pier', 'the search box shows the search');
    assert.equal(await page.getByRole('search').getByLabel('Type').inputValue(), 'images', 'the type menu shows images');

    // A file just uploaded on the Media page opens there too.
    await page.getByRole('region', { name: 'Upload' }).getByLabel('Choose files…').setInputFiles({ name: 'buoy.png', mimeType: 'image/png', buffer: await png(300, 300, '#f1c40f') });
    await page.getByRole('link', { name: 'Open buoy.png' }).click();
    await page.getByRole('heading', { name: 'buoy.png', level: 1 }).waitFor();
    assert.match(await page.evaluate(() => window.location.hash), /^#\/media\/images\/\d+\?/, 'the new image opens in the Media area');
    await page.getByRole('link', { name: '‹ Media' }).click();
    assert.equal(await page.getByRole('search').getByLabel('Search media').inputValue(), 'pier', 'back in the library as it was left');
  });
});
