// Admin UI, words and looks (issue 46): types read as words in menus, headings, back links and the
// trash ("News items", "New news item", not news_items); Home's button names the type the user may
// create (an events editor gets "New event"); a user's status reads "Active"; the new-webhook form
// has Cancel and Create on one row; a toast is wide enough to read in a line or two; the sidebar's
// colour reaches the bottom of a long page. Photographed at 1024×700 and 1366×850 in both themes,
// checked with axe.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { ADMIN } from '../server/test/helpers/server.js';
import { contextAt, createObject, createRestrictedUser, shotsAtBothSizes, signInAs, signInAsAdmin, startE2E, untilNewToast, type E2E } from './helpers/browser.js';

describe('words and looks', () => {
  let e: E2E;

  before(async () => {
    e = await startE2E();
    const token = await e.server.adminToken();
    const type = await e.server.request('POST', '/model/object_types', { token, body: { data: { type: 'object_types', attributes: { name: 'news_items', singular: 'news_item', parent_name: 'objects' } } } });
    assert.equal(type.status, 201, type.text);
    await createObject(e.server, 'news_items', { title: 'Harbour reopens' });
    await createRestrictedUser(e.server, 'eve', 'eve-password-1', { events: ['read', 'create', 'update'], documents: ['read'] });
    // A long page: enough documents for the list to run past the window.
    for (let i = 1; i <= 30; i++) await createObject(e.server, 'documents', { title: `Notice ${i}` });
  });
  after(async () => {
    await e?.close();
  });

  test('types read as words in the menu, the heading, the new-object dialog, the back link and the trash', async () => {
    const { page } = e;
    await page.setViewportSize({ width: 1366, height: 850 });
    await signInAsAdmin(page, '#/objects');
    const menu = page.getByRole('main').getByRole('combobox', { name: 'Type', exact: true });
    await menu.locator('option', { hasText: /^News items$/ }).waitFor({ state: 'attached' });
    await menu.selectOption('news_items');
    await page.getByRole('heading', { name: 'News items', level: 1 }).waitFor();
    await page.getByRole('main').getByRole('button', { name: 'New news item' }).first().click();
    await page.getByRole('dialog', { name: 'New news item' }).getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('link', { name: 'Harbour reopens' }).click();
    await page.getByRole('link', { name: '‹ News items' }).waitFor();
    await page.getByRole('button', { name: 'Move to trash' }).click();
    await untilNewToast(page, 'moved to the trash', () => page.getByRole('dialog').getByRole('button', { name: 'Move to trash' }).click());
    // The toast reads in a line or two, beside the sidebar rather than squeezed into it.
    const toast = page.locator('.toast').last();
    const box = (await toast.boundingBox())!;
    assert.ok(box.width > 300, `toast ${box.width}px wide`);
    assert.ok(box.height < 70, `toast ${box.height}px high`);
    await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Trash' }).click();
    await page.getByRole('table', { name: 'Trash' }).getByRole('cell', { name: 'News item', exact: true }).waitFor();
  });

  test("a user's status reads Active, and the new-webhook form has Cancel and Create on one row", async () => {
    const { page } = e;
    await page.goto('/admin/#/users');
    const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: ADMIN.username, exact: true }) });
    await row.getByText('Active', { exact: true }).waitFor();
    await page.getByRole('link', { name: ADMIN.username, exact: true }).click();
    const status = page.getByLabel('Status');
    assert.equal(await status.locator('option:checked').innerText(), 'Active');
    await page.goto('/admin/#/webhooks');
    await page.getByRole('button', { name: 'New webhook' }).click();
    const form = page.getByRole('form', { name: 'New webhook' });
    const cancel = (await form.getByRole('button', { name: 'Cancel' }).boundingBox())!;
    const create = (await form.getByRole('button', { name: 'Create webhook' }).boundingBox())!;
    assert.ok(Math.abs(cancel.y - create.y) < 2, `Cancel at ${cancel.y}, Create at ${create.y}`);
    assert.ok(cancel.x < create.x, 'Cancel before Create');
    await shotsAtBothSizes(page, 'words-webhook-form');
  });

  test("the sidebar's colour reaches the bottom of a long page", async () => {
    const { page } = e;
    await page.goto('/admin/#/objects/documents');
    // A full page of the 30 notices, whichever order the list keeps (a busy machine spreads their
    // creation over seconds, and the list is newest first).
    await page.getByRole('link', { name: /^Notice \d+$/ }).nth(19).waitFor();
    await shotsAtBothSizes(page, 'words-long-list');
    for (const theme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: theme });
      const png = await page.screenshot({ fullPage: true });
      const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
      const at = (x: number, y: number) => [...data.subarray((y * info.width + x) * info.channels, (y * info.width + x) * info.channels + 3)];
      assert.ok(info.height > 950, `a page longer than the window (${info.height}px)`);
      assert.deepEqual(at(150, info.height - 10), at(150, 400), `${theme}: the sidebar's colour at the bottom of the page`);
    }
    await page.emulateMedia({ colorScheme: 'light' });
  });

  test("Home's button names the type the user may create", async () => {
    const context = await contextAt(e, 1024, 700);
    const page = await context.newPage();
    await signInAs(page, 'eve', 'eve-password-1');
    await page.getByRole('link', { name: 'New event' }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'New document' }).count(), 0);
    await shotsAtBothSizes(page, 'words-home-editor');
    await context.close();
  });
});
