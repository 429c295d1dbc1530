// Admin UI, finding: columns sort, and search, filters, sort and page live in
// the URL, so a reload and Back bring the same list back; several objects selected at once are
// published, unpublished, moved to a folder and trashed, each in one request.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createObject, expectNoSeriousA11yViolations, signInAsAdmin, startE2E, type E2E, untilEqual } from './helpers/browser.js';

describe('admin lists: sort, URL state, bulk actions', () => {
  let e: E2E;
  let token: string;
  const titles = async () => (await e.page.locator('table tbody tr td:nth-child(2) a').allInnerTexts()).map((t) => t.trim());
  const get = async (path: string) => (await e.server.request('GET', path, { token })).body;
  before(async () => {
    e = await startE2E();
    token = await e.server.adminToken();
    // 25 documents: more than one page of 20; "Doc 07" and "Doc 17" carry the word "zebra".
    for (let i = 1; i <= 25; i++) {
      const n = String(i).padStart(2, '0');
      await createObject(e.server, 'documents', { title: `Doc ${n}`, body: i % 10 === 7 ? '<p>a zebra</p>' : '<p>text</p>' });
    }
    await signInAsAdmin(e.page, '#/objects/documents');
  });
  after(async () => {
    await e?.close();
  });

  test('a column header sorts the list, both ways, and says so with aria-sort', async () => {
    const { page } = e;
    await page.locator('table tbody tr').first().waitFor();
    const header = page.getByRole('columnheader', { name: /Title/ });
    await header.getByRole('button').click();
    await page.waitForFunction(() => location.hash.includes('sort=title'));
    await page.getByRole('link', { name: 'Doc 01' }).waitFor();
    assert.equal(await header.getAttribute('aria-sort'), 'ascending');
    // The list shown before the sort's answer may hold Doc 01 too (modified times are whole
    // seconds, ties go by id): wait for the sorted list.
    await untilEqual(async () => (await titles()).slice(0, 3), ['Doc 01', 'Doc 02', 'Doc 03'], 'the list sorted by title');
    await header.getByRole('button').click();
    await page.waitForFunction(() => location.hash.includes('sort=-title'));
    await page.getByRole('link', { name: 'Doc 25' }).waitFor();
    assert.equal(await header.getAttribute('aria-sort'), 'descending');
    assert.deepEqual((await titles()).slice(0, 2), ['Doc 25', 'Doc 24']);
    await e.shot('finding-sorted');
  });

  test('the page and the sort survive a reload; Back returns to the previous page', async () => {
    const { page } = e;
    await page.getByRole('navigation', { name: 'Object pages' }).getByRole('button', { name: /Next/ }).click();
    await page.waitForFunction(() => location.hash.includes('page=2'));
    await page.getByRole('link', { name: 'Doc 05' }).waitFor();
    assert.deepEqual(await titles(), ['Doc 05', 'Doc 04', 'Doc 03', 'Doc 02', 'Doc 01']);
    await page.reload();
    await page.getByRole('link', { name: 'Doc 05' }).waitFor();
    assert.deepEqual(await titles(), ['Doc 05', 'Doc 04', 'Doc 03', 'Doc 02', 'Doc 01']);
    assert.equal(await page.getByRole('columnheader', { name: /Title/ }).getAttribute('aria-sort'), 'descending');
    await page.goBack();
    await page.getByRole('link', { name: 'Doc 25' }).waitFor();
    assert.equal((await titles()).length, 20);
  });

  test('a search and a status filter are kept in the URL, through a reload and Back', async () => {
    const { page } = e;
    await page.getByRole('searchbox', { name: 'Search' }).fill('zebra');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForFunction(() => location.hash.includes('q=zebra'));
    // Doc 17 is on the page shown until the search's answer too: wait for that answer.
    await untilEqual(async () => (await titles()).sort(), ['Doc 07', 'Doc 17'], 'the search for “zebra” to list Doc 07 and Doc 17');
    await page.getByLabel('Status').selectOption('on');
    await page.getByText('No object matches these filters.').waitFor();
    await page.reload();
    await page.getByText('No object matches these filters.').waitFor();
    assert.equal(await page.getByRole('searchbox', { name: 'Search' }).inputValue(), 'zebra');
    assert.equal(await page.getByLabel('Status').inputValue(), 'on');
    await page.goBack();
    await page.getByRole('link', { name: 'Doc 17' }).waitFor();
    assert.equal(await page.getByLabel('Status').inputValue(), '');
    await page.getByRole('button', { name: 'Clear filters' }).waitFor({ state: 'detached' });
    await e.shot('finding-search');
  });

  test('selected objects are published, unpublished, moved to a folder and trashed together', async () => {
    const { page } = e;
    const folder = (await e.server.request('POST', '/folders', { token, body: { data: { type: 'folders', attributes: { title: 'Zoo' } } } })).body.data.id;
    const other = (await e.server.request('POST', '/folders', { token, body: { data: { type: 'folders', attributes: { title: 'Old place' } } } })).body.data.id;
    const ids = (await get('/documents?filter[query]=zebra')).data.map((d: { id: string }) => d.id);
    await e.server.request('POST', `/folders/${other}/relationships/children`, { token, body: { data: ids.map((id: string) => ({ type: 'documents', id })) } });

    await page.getByLabel('Select all on this page').check();
    const bar = page.getByRole('region', { name: 'Bulk actions' });
    await bar.getByText('2 objects selected').waitFor();
    await bar.getByRole('button', { name: 'Publish', exact: true }).click();
    await page.getByText('2 objects published.').waitFor();
    for (const id of ids) assert.equal((await get(`/documents/${id}`)).data.attributes.status, 'on');

    await page.getByLabel('Select Doc 07').check();
    await bar.getByRole('button', { name: 'Unpublish' }).click();
    await page.getByText('1 object unpublished.').waitFor();
    const statuses = await Promise.all(ids.map(async (id: string) => (await get(`/documents/${id}`)).data.attributes.status));
    assert.deepEqual(statuses.sort(), ['off', 'on']);

    await page.getByLabel('Select all on this page').check();
    await bar.getByRole('button', { name: 'Move to folder…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Move 2 objects to a folder' });
    await expectNoSeriousA11yViolations(page, 'bulk move dialog');
    await e.shot('finding-bulk-move');
    await dialog.getByRole('treeitem', { name: 'Zoo' }).click();
    await page.getByText('2 objects moved to “Zoo”.').waitFor();
    for (const id of ids) {
      const parents = (await get(`/documents/${id}/parents`)).data.map((p: { id: string }) => p.id);
      assert.deepEqual(parents, [String(folder)], 'moved out of the old folder into the new one');
    }

    await page.getByLabel('Select all on this page').check();
    await bar.getByRole('button', { name: 'Move to trash' }).click();
    await page.getByRole('dialog', { name: 'Move 2 objects to the trash?' }).getByRole('button', { name: 'Move to trash' }).click();
    await page.getByText('2 objects moved to the trash.').waitFor();
    await page.getByText('No object matches these filters.').waitFor();
    const trash = (await get('/trash')).data.map((t: { id: string }) => t.id).sort();
    assert.deepEqual(trash, [...ids].sort());
  });
});
