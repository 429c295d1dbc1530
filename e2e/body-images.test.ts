// Admin UI, images in an article's body load with the session only (issue 46): an editor opens an
// article whose body holds a draft image and a published one, types in it, saves, and leaves for
// the list; the images show (through the session), and no request for a body image's bytes ever
// leaves the page without the session's token — neither while writing nor when leaving. Photographed
// at 1024×700 and 1366×850 in both themes, checked with axe.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Request } from 'playwright-core';
import sharp from 'sharp';
import { contextAt, createObject, createRestrictedUser, shotsAtBothSizes, signInAs, startE2E, typeInEditor, untilNewToast, type E2E } from './helpers/browser.js';

describe('body images load with the session', () => {
  let e: E2E;
  let docId: string;

  before(async () => {
    e = await startE2E();
    const token = await e.server.adminToken();
    const upload = async (name: string, colour: string, status: 'on' | 'draft') => {
      const png = await sharp({ create: { width: 480, height: 200, channels: 3, background: colour } }).png().toBuffer();
      const up = await e.server.request('POST', `/images/upload/${name}`, { token, raw: png, headers: { 'Content-Type': 'image/png' } });
      assert.equal(up.status, 201, up.text);
      const id = String(up.body.data.id);
      const set = await e.server.request('PATCH', `/images/${id}`, { token, body: { data: { id, type: 'images', attributes: { status, title: name } } } });
      assert.equal(set.status, 200, set.text);
      return String(set.body.data.meta.media_url);
    };
    const draftSrc = await upload('lighthouse.png', '#b5462f', 'draft');
    const liveSrc = await upload('pier.png', '#2f6db5', 'on');
    docId = await createObject(e.server, 'documents', {
      title: 'Lighthouse tours',
      body: `<p>Tours start at ten.</p><p><img src="${draftSrc}" alt="The lighthouse"></p><p><img src="${liveSrc}" alt="The pier"></p>`,
    });
    await createRestrictedUser(e.server, 'ivy', 'ivy-password-1', { documents: ['read', 'create', 'update'], images: ['read'] });
  });
  after(async () => {
    await e?.close();
  });

  test('writing in the article and leaving it never asks for an image without the session', async () => {
    const context = await contextAt(e, 1366, 850);
    const bare: string[] = [];
    context.on('request', (request: Request) => {
      const url = new URL(request.url());
      if (/^\/(streams\/download|media\/thumbs)\//.test(url.pathname) && !request.headers().authorization) bare.push(url.pathname);
    });
    const page = await context.newPage();
    await signInAs(page, 'ivy', 'ivy-password-1', `#/objects/documents/${docId}`);
    const body = page.getByRole('textbox', { name: 'Body' });
    // Both images show, from the session's copies.
    await page.waitForFunction(() => {
      const imgs = [...document.querySelectorAll('.rte-content img')] as HTMLImageElement[];
      return imgs.length === 2 && imgs.every((i) => i.complete && i.naturalWidth > 0 && i.src.startsWith('blob:'));
    });
    await shotsAtBothSizes(page, 'body-images-editor');
    await body.getByText('Tours start at ten.').click();
    await page.keyboard.press('End');
    await typeInEditor(page, ' Book ahead.');
    await untilNewToast(page, 'Changes saved.', () => page.getByRole('button', { name: 'Save changes' }).click());
    await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Objects' }).click();
    await page.getByRole('link', { name: 'Lighthouse tours' }).waitFor();
    await page.waitForLoadState('networkidle');
    assert.deepEqual(bare, [], 'no image asked for without the session');
    await context.close();
  });
});
