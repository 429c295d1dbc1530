// Admin UI, folders' status: a folder shows its status (in the tree, a mark
// for folders the public cannot see; on its page, the badge) and is published or unpublished
// there by users who may publish folders; an editor without that right gets no such button.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { waitUntil } from '../server/test/helpers/wait.js';
import { createRestrictedUser, expectNoSeriousA11yViolations, signInAs, signInAsAdmin, startE2E, type E2E } from './helpers/browser.js';

describe('folder status and publishing', () => {
  let e: E2E;
  let token: string;
  let folder: string;
  const status = async () => (await e.server.request('GET', `/folders/${folder}`, { token })).body.data.attributes.status;
  before(async () => {
    e = await startE2E();
    token = await e.server.adminToken();
    folder = (await e.server.request('POST', '/folders', { token, body: { data: { type: 'folders', attributes: { title: 'Spring issue', status: 'draft' } } } })).body.data.id;
    await createRestrictedUser(e.server, 'fred', 'fred-password-1', { folders: ['read', 'create', 'update'], documents: ['read'] });
    await e.page.setViewportSize({ width: 1024, height: 700 });
    await signInAsAdmin(e.page, `#/folders/${folder}`);
  });
  after(async () => {
    await e?.close();
  });

  test('an admin publishes a draft folder and takes it back to draft', async () => {
    const { page } = e;
    const tree = page.getByRole('tree', { name: 'Folder tree' });
    const item = tree.getByRole('treeitem', { name: 'Spring issue', exact: true });
    assert.equal(await item.getAttribute('aria-describedby') !== null, true, 'the tree tells it is not public');
    const head = page.locator('.page-head', { has: page.getByRole('heading', { name: 'Spring issue' }) });
    await head.getByText('draft').waitFor();
    await page.getByRole('button', { name: 'Publish' }).click();
    await page.getByText('Folder “Spring issue” published.').waitFor();
    await head.getByText('on', { exact: true }).waitFor();
    assert.equal(await status(), 'on');
    // The tree reads its folders again after the write, apart from the folder's page (which
    // already shows `on`): wait for its answer. It times out if the mark stays.
    await waitUntil(async () => ((await item.getAttribute('aria-describedby')) === null ? true : undefined), 'a public folder to lose its mark in the tree');
    await e.shot('folder-published', { viewport: true });
    await expectNoSeriousA11yViolations(page, 'folder published');
    await page.getByRole('button', { name: 'Unpublish' }).click();
    await page.getByText('is a draft again').waitFor();
    assert.equal(await status(), 'draft');
  });

  test('an editor without the publish right sees the status, not the buttons', async () => {
    const { page } = e;
    await signInAs(page, 'fred', 'fred-password-1', `#/folders/${folder}`);
    await page.getByRole('heading', { name: 'Spring issue' }).waitFor();
    await page.getByRole('form', { name: 'Rename folder' }).waitFor();
    // Publish is where it would be, disabled, with the reason as its description.
    assert.ok(await page.getByRole('button', { name: 'Publish' }).isDisabled(), 'Publish is disabled');
    assert.equal(await page.getByRole('button', { name: 'Publish' }).getAttribute('aria-describedby') !== null, true, 'Publish says why not');
    await page.getByText('Your roles do not let you publish folders.').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Unpublish' }).count(), 0);
    await e.shot('folder-editor-no-publish', { viewport: true });
  });
});
