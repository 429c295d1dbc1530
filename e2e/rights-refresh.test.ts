// Admin UI, rights that follow without a reload and the permissions matrix's
// unsaved-changes guard (point 4), at 1024×700 in the dark theme: the admin changes a role in the
// matrix (leaving asks first: stay, save and leave) and the signed-in user is read again after the
// save; an editor whose rights were cut elsewhere has a refused write (403) take the button away,
// and one whose rights grew sees the new button when the window comes back into focus.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { png } from '../server/test/helpers/media-files.js';
import { createRestrictedUser, expectNoSeriousA11yViolations, signInAs, signInAsAdmin, startE2E, type E2E } from './helpers/browser.js';

describe('rights that follow, and the permissions matrix guard', () => {
  let e: E2E;
  let token: string;
  let roleId: string;
  let image: string;
  let editor: Page;
  const permissions = async () => (await e.server.request('GET', `/roles/${roleId}`, { token })).body.data.attributes.permissions;
  const setPermissions = async (p: Record<string, string[]>) => {
    const res = await e.server.request('PATCH', `/roles/${roleId}`, { token, body: { data: { id: roleId, type: 'roles', attributes: { permissions: p } } } });
    assert.equal(res.status, 200, res.text);
  };

  before(async () => {
    e = await startE2E();
    token = await e.server.adminToken();
    await createRestrictedUser(e.server, 'nina', 'nina-password-1', { media: ['read', 'update', 'delete'], folders: ['read'] });
    const roles = await e.server.request('GET', '/roles', { token });
    roleId = String(roles.body.data.find((r: any) => r.attributes.name === 'nina_role').id);
    const up = await e.server.request('POST', '/images/upload/gull.png', { token, raw: await png(40, 40), headers: { 'Content-Type': 'image/png' } });
    image = String(up.body.data.id);
    for (const page of [e.page]) {
      await page.setViewportSize({ width: 1024, height: 700 });
      await page.emulateMedia({ colorScheme: 'dark' });
    }
    const context = await e.browser.newContext({ viewport: { width: 1024, height: 700 }, baseURL: e.server.url, colorScheme: 'dark' });
    context.setDefaultTimeout(30_000); // a hang net, as startE2E's
    editor = await context.newPage();
    await signInAsAdmin(e.page, '#/roles');
  });
  after(async () => {
    await e?.close();
  });

  test('the matrix marks unsaved changes and guards leaving: stay, then save and leave; the user is read again after the save', async () => {
    const { page } = e;
    // In the app from the roles list, so Back stays in the app.
    await page.evaluate((id) => (window.location.hash = `#/roles/${id}`), roleId);
    const panel = page.getByRole('form', { name: 'Permissions' });
    await panel.getByLabel('media: create').selectOption('all');
    await panel.getByText('Unsaved changes').waitFor();
    await e.shot('matrix-unsaved', { viewport: true });
    await expectNoSeriousA11yViolations(page, 'permissions matrix with unsaved changes, dark');
    await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Media' }).click();
    const ask = page.getByRole('dialog', { name: 'Unsaved changes' });
    await ask.getByRole('button', { name: 'Stay on this page' }).click();
    assert.match(page.url(), new RegExp(`#/roles/${roleId}$`));
    assert.equal(await panel.getByLabel('media: create').inputValue(), 'all', 'the change is kept');
    assert.deepEqual((await permissions()).media, ['read', 'update', 'delete'], 'nothing saved yet');
    // Back is asked about too.
    await page.goBack();
    await ask.waitFor();
    await ask.getByRole('button', { name: 'Stay on this page' }).click();
    assert.match(page.url(), new RegExp(`#/roles/${roleId}$`));

    await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Media' }).click();
    const reread = page.waitForRequest((r) => r.url().includes('/auth/user') && r.method() === 'GET');
    await ask.getByRole('button', { name: 'Save and leave' }).click();
    await page.getByRole('heading', { name: 'Media', exact: true }).waitFor();
    await reread;
    assert.deepEqual((await permissions()).media, ['read', 'create', 'update', 'delete']);

    // A saved matrix is not dirty: leaving asks nothing.
    await page.goto(`/admin/#/roles/${roleId}`);
    await panel.getByLabel('media: create').selectOption('none');
    await panel.getByRole('button', { name: 'Save permissions' }).click();
    await panel.getByText('Permissions saved.').waitFor();
    assert.equal(await panel.getByText('Unsaved changes').count(), 0);
    await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Media' }).click();
    await page.getByRole('heading', { name: 'Media', exact: true }).waitFor();
    assert.equal(await ask.count(), 0);
  });

  test('a refused write (403) reads the rights again: the button the editor lost goes, without a reload', async () => {
    await signInAs(editor, 'nina', 'nina-password-1', `#/objects/images/${image}`);
    await editor.getByRole('heading', { name: 'gull.png' }).waitFor();
    await editor.evaluate(() => ((window as unknown as { marker: number }).marker = 1));
    // The page's own button (the dialog's confirm bears the same name).
    const trash = editor.locator('#main').getByRole('button', { name: 'Move to trash' });
    await trash.waitFor();
    // Elsewhere, the admin takes the delete right away.
    await setPermissions({ media: ['read', 'update'], folders: ['read'] });
    await trash.click();
    await editor.getByRole('dialog', { name: 'Move this object to the trash?' }).getByRole('button', { name: 'Move to trash' }).click();
    // The refusal is said in words (it stays, as a toast, once its dialog has gone with the button).
    await editor.getByRole('alert').filter({ hasText: /may not/ }).first().waitFor();
    await trash.waitFor({ state: 'detached' });
    await editor.getByRole('dialog', { name: 'Move this object to the trash?' }).waitFor({ state: 'detached' });
    assert.equal(await editor.evaluate(() => (window as unknown as { marker?: number }).marker), 1, 'no reload');
    assert.equal((await e.server.request('GET', `/images/${image}`, { token })).status, 200, 'still there');
    await editor.screenshot({ path: 'test-artifacts/rights-refused.png' });
    await expectNoSeriousA11yViolations(editor, 'image page after a refusal, dark');
  });

  test('rights that grew elsewhere show when the window comes back into focus', async () => {
    await editor.goto(`/admin/#/media`);
    await editor.getByRole('heading', { name: 'Media', exact: true }).waitFor();
    await editor.getByRole('list', { name: 'Media' }).getByRole('link', { name: 'gull.png' }).waitFor();
    assert.equal(await editor.getByRole('region', { name: 'Upload' }).count(), 0, 'no upload without create');
    await setPermissions({ media: ['read', 'create', 'update'], folders: ['read'] });
    // The editor comes back to the window (headless pages always count as focused: the event is sent).
    await editor.evaluate(() => window.dispatchEvent(new Event('focus')));
    await editor.getByRole('region', { name: 'Upload' }).waitFor();
    await editor.screenshot({ path: 'test-artifacts/rights-grew.png' });
  });
});
