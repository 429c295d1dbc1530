// Admin UI, edit conflicts (Concurrent edits): every save names the version the
// page loaded (If-Match); when another user saved meanwhile, a dialog says who and shows each
// field they changed beside the unsaved value, and the editor chooses: Overwrite (their version
// replaced by the browser's), Reload (the edits dropped, nothing sent) or Cancel. At 1024×700.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Request } from 'playwright-core';
import { createObject, expectNoSeriousA11yViolations, focusReaches, signInAsAdmin, startE2E, untilNewToast, type E2E } from './helpers/browser.js';

describe('admin edit conflicts', () => {
  let e: E2E;
  let admin: string;
  let other: string;
  let docId: string;
  const stored = async () => (await e.server.request('GET', `/documents/${docId}`, { token: admin })).body.data.attributes;
  /** Another user's save through the API, while the page is open. */
  const theyPatch = async (attributes: Record<string, unknown>) => {
    const res = await e.server.request('PATCH', `/documents/${docId}`, { token: other, body: { data: { id: docId, type: 'documents', attributes } } });
    assert.equal(res.status, 200, res.text);
  };
  /** The writes the page sends (anything but GET) from now on. */
  const watchWrites = () => {
    const writes: Request[] = [];
    e.page.on('request', (r) => {
      if (r.method() !== 'GET' && r.url().includes(`/documents/${docId}`)) writes.push(r);
    });
    return writes;
  };
  const form = () => e.page.getByRole('form', { name: 'Edit object' });
  const dialog = () => e.page.getByRole('dialog', { name: 'Someone else changed this object' });
  const rows = () =>
    dialog()
      .getByRole('table', { name: 'Changed since you opened it' })
      .getByRole('row')
      .evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => (c.textContent ?? '').trim()).join(' | ')));
  const openEditor = async () => {
    await e.page.goto(`/admin/#/objects/documents/${docId}`);
    await e.page.reload();
    await form().getByLabel('Title').waitFor();
  };

  before(async () => {
    e = await startE2E();
    await e.page.setViewportSize({ width: 1024, height: 700 });
    admin = await e.server.adminToken();
    const user = await e.server.request('POST', '/users', { token: admin, body: { data: { type: 'users', attributes: { username: 'bea', password: 'bea-password-1', name: 'Bea' } } } });
    const roles = await e.server.request('GET', '/roles?filter[name]=admin', { token: admin });
    await e.server.request('POST', `/users/${user.body.data.id}/relationships/roles`, { token: admin, body: { data: [{ type: 'roles', id: roles.body.data[0].id }] } });
    other = (await e.server.request('POST', '/auth', { body: { username: 'bea', password: 'bea-password-1' } })).body.meta.jwt;
    docId = await createObject(e.server, 'documents', { title: 'Opening hours', body: '<p>Open <strong>daily</strong> from nine.</p>' });
    await signInAsAdmin(e.page, `#/objects/documents/${docId}`);
    await form().getByLabel('Title').waitFor();
  });
  after(async () => {
    await e?.close();
  });

  test('a save without a concurrent change sends If-Match with the loaded ETag, then with the saved one', async () => {
    const { page } = e;
    const loadedTag = page.waitForResponse((r) => r.request().method() === 'GET' && r.url().endsWith(`/documents/${docId}`));
    await openEditor();
    const etag = await (await loadedTag).headerValue('etag');
    assert.match(etag ?? '', /^"v\d+-[\w-]+"$/);
    const writes = watchWrites();

    await form().getByLabel('Title').fill('Opening hours (summer)');
    const firstSave = page.waitForResponse((r) => r.request().method() === 'PATCH');
    await page.getByRole('button', { name: 'Save changes' }).click();
    const first = await firstSave;
    assert.equal(first.status(), 200);
    await page.getByRole('status').filter({ hasText: 'Changes saved.' }).first().waitFor();
    assert.equal(writes.length, 1);
    assert.equal(await writes[0].headerValue('if-match'), etag);

    await form().getByLabel('Title').fill('Opening hours');
    const secondSave = page.waitForResponse((r) => r.request().method() === 'PATCH');
    await page.getByRole('button', { name: 'Save changes' }).click();
    assert.equal((await secondSave).status(), 200);
    assert.equal(writes.length, 2);
    assert.equal(await writes[1].headerValue('if-match'), await first.headerValue('etag'), 'the second save names the first save’s version');
    assert.equal((await stored()).title, 'Opening hours');
  });

  test('another user’s save meanwhile opens the dialog: who, their title vs mine; Overwrite saves the browser’s value', async () => {
    const { page } = e;
    await openEditor();
    await theyPatch({ title: 'Opening hours (closed Mondays)', body: '<p>Open <em>Tuesday to Sunday</em>.</p>' });
    await form().getByLabel('Title').fill('Opening hours for the holidays');
    const writes = watchWrites();
    await page.getByRole('button', { name: 'Save changes' }).click();

    await dialog().waitFor();
    assert.equal(await focusReaches(dialog(), { within: true }), true, 'focus moves into the dialog');
    await dialog().getByText('bea', { exact: true }).waitFor();
    assert.match(await dialog().innerText(), /bea saved changes on .+ while you were editing/);
    assert.deepEqual(await rows(), [
      'Field | Their version | Your version',
      'Title | Opening hours (closed Mondays) | Opening hours for the holidays',
      'Body | Open Tuesday to Sunday. | you did not change it: theirs is kept',
    ]);
    await e.shot('conflict-dialog', { viewport: true });
    await expectNoSeriousA11yViolations(page, 'conflict dialog (light)');
    await page.emulateMedia({ colorScheme: 'dark' });
    await e.shot('conflict-dialog-dark', { viewport: true });
    await expectNoSeriousA11yViolations(page, 'conflict dialog (dark)');
    await page.emulateMedia({ colorScheme: 'light' });

    // Esc (Cancel) goes back to the form with the edits; the next save asks again.
    await page.keyboard.press('Escape');
    await dialog().waitFor({ state: 'detached' });
    assert.equal(await form().getByLabel('Title').inputValue(), 'Opening hours for the holidays');
    assert.equal((await stored()).title, 'Opening hours (closed Mondays)');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await dialog().waitFor();
    assert.equal(writes.length, 2, 'two refused saves, nothing else');

    await untilNewToast(page, 'Changes saved.', () => dialog().getByRole('button', { name: 'Overwrite' }).click());
    await dialog().waitFor({ state: 'detached' });
    assert.equal(writes.length, 3);
    assert.deepEqual(
      writes.map((w) => w.method()),
      ['PATCH', 'PATCH', 'PATCH'],
    );
    const now = await stored();
    assert.equal(now.title, 'Opening hours for the holidays', 'the browser’s title won');
    assert.equal(now.body, '<p>Open <em>Tuesday to Sunday</em>.</p>', 'their body, which the browser did not touch, stays');
    await page.getByRole('heading', { name: 'Opening hours for the holidays' }).waitFor();
    assert.equal(await page.getByText('Unsaved changes').count(), 0);
  });

  test('Reload drops the edits and shows the server’s version, sending nothing', async () => {
    const { page } = e;
    await openEditor();
    await theyPatch({ title: 'Opening hours (bea’s final)' });
    await form().getByLabel('Title').fill('My final opening hours');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await dialog().waitFor();
    assert.deepEqual(await rows(), ['Field | Their version | Your version', 'Title | Opening hours (bea’s final) | My final opening hours']);

    const writes = watchWrites();
    await dialog().getByRole('button', { name: 'Reload' }).click();
    await dialog().waitFor({ state: 'detached' });
    await page.getByRole('heading', { name: 'Opening hours (bea’s final)' }).waitFor();
    assert.equal(await form().getByLabel('Title').inputValue(), 'Opening hours (bea’s final)');
    assert.equal(await page.getByText('Unsaved changes').count(), 0);
    assert.equal(writes.length, 0, 'nothing sent');
    assert.equal((await stored()).title, 'Opening hours (bea’s final)');
    await e.shot('conflict-reloaded');
  });
});
