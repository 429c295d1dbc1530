// Admin UI, history: an object page shows who changed what with the values before and after;
// "Restore this version" (confirmed) brings the first version back as a new change; a trashed
// object's history opens from the Trash page.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Locator } from 'playwright-core';
import { signInAsAdmin, startE2E, type E2E } from './helpers/browser.js';

/** The rows of a changes table as "field | before | after" (text as written, whatever the CSS case). */
const changeRows = (entry: Locator) =>
  entry
    .getByRole('table', { name: 'Changed fields' })
    .getByRole('row')
    .evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => (c.textContent ?? '').trim()).join(' | ')));

describe('admin history panel', () => {
  let e: E2E;
  let id: string;
  before(async () => {
    e = await startE2E();
    const token = await e.server.adminToken();
    const made = await e.server.request('POST', '/documents', { token, body: { data: { type: 'documents', attributes: { title: 'Version one', body: 'First body' } } } });
    id = made.body.data.id;
    await e.server.request('PATCH', `/documents/${id}`, { token, body: { data: { id, type: 'documents', attributes: { title: 'Version two', description: 'Added later' } } } });
    await signInAsAdmin(e.page, `#/objects/documents/${id}`);
  });
  after(async () => {
    await e?.close();
  });

  test('the object page lists changes with before and after, and restores a version', async () => {
    const { page, server } = e;
    const panel = page.getByRole('region', { name: 'History' });
    const entries = panel.getByRole('listitem');
    await entries.first().waitFor();
    assert.equal(await entries.count(), 2);
    const latest = entries.first();
    assert.match((await latest.getAttribute('aria-label')) ?? '', /^Changed by admin, /);
    assert.deepEqual(await changeRows(latest), ['Field | Before | After', 'title | Version one | Version two', 'description | not set | Added later']);
    // The newest entry is the current state: nothing to restore there.
    assert.equal(await latest.getByRole('button', { name: 'Restore this version' }).count(), 0);
    const created = entries.nth(1);
    assert.match((await created.getAttribute('aria-label')) ?? '', /^Created by admin, /);
    await e.shot('history-panel');

    await created.getByRole('button', { name: 'Restore this version' }).click();
    const dialog = page.getByRole('dialog', { name: 'Restore this version?' });
    await dialog.getByText('saved as a new change').waitFor();
    await e.shot('history-restore-confirm');
    await dialog.getByRole('button', { name: 'Restore this version' }).click();

    // The form shows the first version again, and the panel the restore as the newest change.
    await page.getByRole('heading', { name: 'Version one' }).waitFor();
    assert.equal(await page.getByRole('form', { name: 'Edit object' }).getByLabel('Title').inputValue(), 'Version one');
    await page.getByRole('region', { name: 'History' }).getByRole('listitem').nth(2).waitFor();
    const newest = page.getByRole('region', { name: 'History' }).getByRole('listitem').first();
    assert.deepEqual(await changeRows(newest), ['Field | Before | After', 'title | Version two | Version one', 'description | Added later | not set']);
    await e.shot('history-restored');

    const stored = await server.request('GET', `/documents/${id}`, { token: await server.adminToken() });
    assert.equal(stored.body.data.attributes.title, 'Version one');
    assert.equal(stored.body.data.attributes.description, null);
  });

  test('a trashed object keeps its history, opened from the Trash page', async () => {
    const { page } = e;
    await page.getByRole('button', { name: 'Move to trash' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Move to trash' }).click();
    // Trashing leaves the object's page for its type's list.
    await page.waitForFunction(() => !/\/\d+$/.test(location.hash));
    await page.goto('/admin/#/trash');
    await page.getByRole('button', { name: 'History of Version one' }).click();
    const dialog = page.getByRole('dialog', { name: 'History of “Version one”' });
    const entries = dialog.getByRole('listitem');
    await entries.nth(3).waitFor();
    assert.match((await entries.first().getAttribute('aria-label')) ?? '', /^Moved to trash by admin, /);
    assert.equal(await dialog.getByRole('button', { name: 'Restore this version' }).count(), 0, 'no versions of a trashed object');
    await e.shot('history-trash');
  });

  test('changes read as text and titles: a body without its markup, related objects by title', async () => {
    const { page, server } = e;
    const token = await server.adminToken();
    const post = async (title: string, body?: string) =>
      (await server.request('POST', '/documents', { token, body: { data: { type: 'documents', attributes: { title, ...(body ? { body } : {}) } } } })).body.data.id as string;
    const other = await post('The related guide');
    const doc = await post('Rich page', '<h2>Opening</h2><p>Open <strong>daily</strong> from nine.</p>');
    await server.request('POST', `/documents/${doc}/relationships/see_also`, { token, body: { data: [{ type: 'documents', id: other }] } });
    const translated = await server.request('POST', '/translations', { token, body: { data: { type: 'translations', attributes: { object_id: doc, lang: 'it', status: 'draft', translated_fields: { title: 'Pagina ricca', body: '<p>Aperto <em>ogni</em> giorno.</p>' } } } } });
    assert.equal(translated.status, 201, translated.text);
    await page.goto(`/admin/#/objects/documents/${doc}`);
    const entries = page.getByRole('region', { name: 'History' }).getByRole('listitem');
    await entries.nth(2).waitFor();
    // Related objects' titles come in a read of their own, after the entries: wait for it.
    await page.getByRole('region', { name: 'History' }).getByRole('cell', { name: 'The related guide' }).waitFor();
    const rows = (await Promise.all((await entries.all()).map(changeRows))).flat().join('\n');
    assert.match(rows, /body \| — \| Opening Open daily from nine\./);
    assert.doesNotMatch(rows, /<p>|<strong>/);
    assert.match(rows, /see also \| .* \| The related guide/);
    assert.match(rows, /translations \| .* \| it \(draft\): title “Pagina ricca”, body “Aperto ogni giorno\.”/);
    assert.doesNotMatch(rows, /translated_fields|\{"/);
    assert.doesNotMatch(rows, new RegExp(`\\| #?${other}$`, 'm'));
    await e.shot('history-text-titles');
  });
});
