// Issue 23's "done when", as one story: a new editor writes a formatted article, files it in two
// folders, attaches and relates an image, publishes it and finds it again, without losing an
// edit on the way (leaving the page with unsaved text saves it when asked) — with axe checks.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { expectNoSeriousA11yViolations, signInAsAdmin, startE2E, type E2E, typeInEditor, untilNewToast } from './helpers/browser.js';

describe('an editor’s day: write, file, illustrate, publish, find', () => {
  let e: E2E;
  let token: string;
  before(async () => {
    e = await startE2E();
    token = await e.server.adminToken();
    const folder = async (title: string, parent?: string) =>
      String((await e.server.request('POST', '/folders', { token, body: { data: { type: 'folders', attributes: { title }, ...(parent ? { relationships: { parent: { data: { type: 'folders', id: parent } } } } : {}) } } })).body.data.id);
    const magazine = await folder('Magazine');
    await folder('Features', magazine);
    await folder('Coast');
  });
  after(async () => {
    await e?.close();
  });

  test('write a formatted article, file it in two folders, attach and relate an image, publish it and find it again', async () => {
    const { page } = e;
    const toast = (text: string) => page.locator('.toasts').getByText(text).last().waitFor();

    // 1. Start from home: the title is asked first.
    await signInAsAdmin(page);
    await page.getByRole('link', { name: 'New document' }).click();
    await page.getByRole('dialog', { name: 'New document' }).getByLabel('Title').fill('Lighthouse restored');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Lighthouse restored' }).waitFor();
    await toast('Document “Lighthouse restored” created as a draft.');
    const id = /#\/objects\/documents\/(\d+)/.exec(page.url())![1];
    const doc = async () => (await e.server.request('GET', `/documents/${id}`, { token })).body.data;

    // 2. Write with formatting, save with Ctrl+S.
    await page.getByRole('textbox', { name: 'Body' }).click();
    await page.getByRole('toolbar', { name: 'Formatting' }).getByRole('button', { name: 'Heading', exact: true }).click();
    await page.keyboard.type('Back to light');
    await page.keyboard.press('Enter');
    await typeInEditor(page, 'The old lamp is ');
    await page.keyboard.press('Control+b');
    await typeInEditor(page, 'shining again');
    await page.keyboard.press('Control+b');
    await page.keyboard.type('. ');
    await untilNewToast(page, 'Changes saved.', () => page.keyboard.press('Control+s'));
    assert.match((await doc()).attributes.body, /<h2>Back to light<\/h2><p>The old lamp is <strong>shining again<\/strong>\.\s*<\/p>/);

    // 3. Keep writing, then wander off to Media: asked, and "Save and leave" keeps the words.
    await page.keyboard.type('Visitors are welcome on Sundays.');
    await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Media' }).click();
    await page.getByRole('dialog', { name: 'Unsaved changes' }).getByRole('button', { name: 'Save and leave' }).click();
    await page.getByRole('heading', { name: 'Media', exact: true }).waitFor();
    assert.match((await doc()).attributes.body, /Visitors are welcome on Sundays\./);

    // 4. Upload the photo by dropping it.
    const png = await sharp({ create: { width: 640, height: 480, channels: 3, background: '#e0b040' } }).png().toBuffer();
    const transfer = await page.evaluateHandle((bytes) => {
      const dt = new DataTransfer();
      dt.items.add(new File([new Uint8Array(bytes)], 'lighthouse.png', { type: 'image/png' }));
      return dt;
    }, [...png]);
    await page.locator('.dropzone').dispatchEvent('drop', { dataTransfer: transfer });
    await toast('Uploaded “lighthouse.png” as image.');

    // 5. Back to the article from home's "My drafts".
    await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Home' }).click();
    await page.getByRole('region', { name: 'My drafts' }).getByRole('link', { name: 'Lighthouse restored' }).click();
    await page.getByRole('heading', { name: 'Lighthouse restored' }).waitFor();

    // 6. File it in two folders, by keyboard in the folder dialog.
    const folders = page.getByRole('region', { name: 'Folders' });
    for (const [path, keys] of [
      ['Magazine / Features', ['m', 'ArrowRight', 'ArrowDown']],
      ['Coast', ['c']],
    ] as const) {
      await folders.getByRole('button', { name: 'Add to folder…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Add “Lighthouse restored” to a folder' });
      await dialog.getByRole('treeitem').first().focus();
      for (const k of keys) await page.keyboard.press(k);
      await page.keyboard.press('Enter');
      await folders.getByRole('link', { name: path }).waitFor();
    }

    // 7. Attach the image and make it the poster; also place it in the text.
    for (const label of ['Attachments', 'Poster']) {
      const group = page.getByRole('group', { name: label, exact: true });
      await group.getByRole('button', { name: new RegExp(`^${label}`) }).click();
      await group.getByRole('button', { name: `Add to ${label}` }).click();
      await group.getByLabel(`Find objects to add to ${label}`).fill('lighthouse');
      await page.keyboard.press('Enter');
      await group.getByRole('button', { name: 'Add lighthouse.png' }).click();
      await group.getByRole('link', { name: 'lighthouse.png' }).waitFor();
      assert.equal(await group.getByRole('button', { name: 'Add Lighthouse restored' }).count(), 0, 'the article cannot relate to itself');
    }
    await page.getByRole('textbox', { name: 'Body' }).click();
    await page.keyboard.press('Control+End');
    await page.getByRole('toolbar', { name: 'Formatting' }).getByRole('button', { name: 'Image from the media library' }).click();
    await page.getByRole('dialog', { name: 'Insert an image' }).getByRole('button', { name: 'Insert lighthouse.png' }).click();
    // The image has no alt text yet: the dialog asks for one for this use.
    await page.getByRole('dialog', { name: 'Insert an image' }).getByLabel('Alt text').fill('The lighthouse after its restoration');
    await page.getByRole('dialog', { name: 'Insert an image' }).getByRole('button', { name: 'Insert image' }).click();

    // 8. Publish and save in one go.
    await page.getByRole('form', { name: 'Edit object' }).getByLabel('Status').selectOption('on');
    await page.keyboard.press('Control+s');
    // The uploaded image is still a draft: publishing says where it is used and publishes it too.
    const check = page.getByRole('dialog', { name: 'Some of what it uses is not public' });
    await check.getByText('Image in Body').waitFor();
    const item = await check.getByRole('listitem').innerText();
    for (const part of ['lighthouse.png', 'Image in Body', 'Attachments', 'Poster']) assert.ok(item.includes(part), item);
    await untilNewToast(page, 'Changes saved.', () => check.getByRole('button', { name: 'Publish it too' }).click());
    await expectNoSeriousA11yViolations(page, 'the finished article');
    await e.shot('journey-article');

    // 9. Find it again: search, published only; the list survives a reload.
    await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Objects' }).click();
    await page.getByRole('searchbox', { name: 'Search' }).fill('lighthouse');
    await page.keyboard.press('Enter');
    await page.getByLabel('Status').selectOption('on');
    await page.getByRole('link', { name: 'Lighthouse restored' }).waitFor();
    await page.reload();
    await page.getByRole('link', { name: 'Lighthouse restored' }).click();
    await page.getByRole('heading', { name: 'Lighthouse restored' }).waitFor();
    await e.shot('journey-found');

    // Everything is there, as the API tells it.
    const saved = await doc();
    assert.equal(saved.attributes.status, 'on');
    assert.match(saved.attributes.body, /^<h2>Back to light<\/h2><p>The old lamp is <strong>shining again<\/strong>\. Visitors are welcome on Sundays\.<\/p><img src="\/streams\/download\/[0-9a-f-]{36}" alt="The lighthouse after its restoration">/);
    const parents = (await e.server.request('GET', `/documents/${id}/parents`, { token })).body.data.map((p: { attributes: { title: string } }) => p.attributes.title).sort();
    assert.deepEqual(parents, ['Coast', 'Features']);
    for (const rel of ['attach', 'poster']) {
      const related = (await e.server.request('GET', `/documents/${id}/${rel}`, { token })).body.data.map((r: { attributes: { title: string } }) => r.attributes.title);
      assert.deepEqual(related, ['lighthouse.png'], rel);
    }
  });
});
