// Admin UI at 1024×700: publishing an article whose body and relations use
// draft media and objects says so and publishes them too on one click (or publishes without them,
// told); required fields and a taken unique name are refused with the field marked and focused,
// the message gone once fixed; a published object's address change is asked about; a server rule
// (password length) reads in plain words under its field; a restricted editor (documents: read,
// create, update, delete own — no publish; folders: read) sees no Folders action, bulk action or
// folder target it cannot use, and a refusal that comes anyway names the object by its title.
// The new-user form gives roles with the account.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { expectNoSeriousA11yViolations, focusReaches, signInAsAdmin, startE2E, untilNewToast, type E2E } from './helpers/browser.js';

describe('safe publishing, validation before saving, actions that follow rights', () => {
  let e: E2E;
  let page: Page;
  let token: string;
  const post = async (path: string, type: string, attributes: Record<string, unknown>, more: Record<string, unknown> = {}) => {
    const res = await e.server.request('POST', path, { token, body: { data: { type, attributes, ...more } } });
    assert.equal(res.status, 201, res.text);
    return String(res.body.data.id);
  };
  const statusOf = async (type: string, id: string) => (await e.server.request('GET', `/${type}/${id}`, { token })).body.data.attributes.status;
  const shot = async (name: string) => {
    const dismiss = page.getByRole('button', { name: 'Dismiss notification' });
    while (await dismiss.count()) await dismiss.first().click();
    await e.shot(name);
  };
  const signInAs = async (username: string, password: string) => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
  };
  const editForm = () => page.getByRole('form', { name: 'Edit object' });

  before(async () => {
    e = await startE2E();
    page = e.page;
    token = await e.server.adminToken();
    await page.setViewportSize({ width: 1024, height: 700 });
    await signInAsAdmin(page);
  });
  after(async () => {
    await e?.close();
  });

  test('publishing an article that uses a draft image, a draft link and a draft relation offers to publish them too', async () => {
    const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#cc6633' } }).png().toBuffer();
    const upload = await e.server.request('POST', '/images/upload/harbour.png', { token, raw: png, headers: { 'Content-Type': 'image/png' } });
    assert.equal(upload.status, 201, upload.text);
    const imageId = String(upload.body.data.id);
    const uuid = String(upload.body.included.find((r: { type: string }) => r.type === 'streams').id);
    assert.equal(upload.body.data.attributes.status, 'draft');
    const background = await post('/documents', 'documents', { title: 'Harbour background', status: 'draft' });
    const related = await post('/documents', 'documents', { title: 'Ferry timetable', status: 'draft' });
    const body = `<p>The harbour at dawn.</p><img src="/streams/download/${uuid}" alt="Harbour"><p>See <a href="/documents/${background}">the background</a>.</p>`;
    const article = await post('/documents', 'documents', { title: 'Harbour story', status: 'draft', body });
    const rel = await e.server.request('POST', `/documents/${article}/relationships/see_also`, { token, body: { data: [{ type: 'documents', id: related }] } });
    assert.equal(rel.status, 200, rel.text);

    await page.goto(`/admin/#/objects/documents/${article}`);
    await page.getByRole('heading', { name: 'Harbour story' }).waitFor();
    await editForm().getByLabel('Status').selectOption('on');
    await page.getByRole('button', { name: 'Save changes' }).click();
    const dialog = page.getByRole('dialog', { name: 'Some of what it uses is not public' });
    await dialog.getByText('Ferry timetable').waitFor();
    const items = await dialog.getByRole('list', { name: 'Not public' }).getByRole('listitem').allInnerTexts();
    assert.equal(items.length, 3, items.join('\n'));
    assert.ok(items.some((t) => t.includes('harbour.png') && t.includes('Image in Body')), items.join('\n'));
    assert.ok(items.some((t) => t.includes('Harbour background') && t.includes('Link in Body')), items.join('\n'));
    assert.ok(items.some((t) => t.includes('Ferry timetable') && t.includes('See also')), items.join('\n'));
    // The question gets the focus, on its main answer.
    assert.equal(await focusReaches(dialog.getByRole('button', { name: 'Publish these 3 too' })), true);
    await expectNoSeriousA11yViolations(page, 'publish check dialog');
    await e.shot('safe-publish-dialog', { viewport: true });
    await page.emulateMedia({ colorScheme: 'dark' });
    await expectNoSeriousA11yViolations(page, 'publish check dialog, dark');
    await e.shot('safe-publish-dialog-dark', { viewport: true });
    await page.emulateMedia({ colorScheme: 'light' });

    // Back to editing: nothing was written.
    await dialog.getByRole('button', { name: 'Back to editing' }).click();
    assert.equal(await statusOf('documents', article), 'draft');

    await page.getByRole('button', { name: 'Save changes' }).click();
    await untilNewToast(page, 'Changes saved.', () => dialog.getByRole('button', { name: 'Publish these 3 too' }).click());
    for (const [type, id] of [['documents', article], ['images', imageId], ['documents', background], ['documents', related]]) assert.equal(await statusOf(type, id), 'on', `${type} ${id}`);
    // What the public reads: the article, its image bytes and the linked page.
    assert.equal((await e.server.request('GET', `/documents/${article}`)).status, 200);
    assert.equal((await e.server.request('GET', `/streams/download/${uuid}`)).status, 200);
    assert.equal((await e.server.request('GET', `/documents/${background}`)).status, 200);
    await shot('safe-publish-done');

    // Relating a draft to the published article is said at once, with the way to publish it.
    const extra = await post('/documents', 'documents', { title: 'Ferry prices', status: 'draft' });
    const group = page.getByRole('group', { name: 'See also', exact: true });
    await group.getByRole('button', { name: 'Add to See also' }).click();
    await group.getByLabel('Find objects to add to See also').fill('Ferry prices');
    await page.keyboard.press('Enter');
    await group.getByRole('button', { name: 'Add Ferry prices' }).click();
    await group.getByText('“Ferry prices” is a draft: the public sees “Harbour story” without it.').waitFor();
    await shot('safe-publish-relation');
    await group.getByRole('button', { name: 'Publish “Ferry prices”' }).click();
    await page.getByText('“Ferry prices” published.').waitFor();
    assert.equal(await statusOf('documents', extra), 'on');
  });

  test('publishing without them is a choice the editor is told about; bulk publish asks the same', async () => {
    const draftLink = await post('/documents', 'documents', { title: 'Unfinished note', status: 'draft' });
    const teaser = await post('/documents', 'documents', { title: 'Teaser', status: 'draft', body: `<p><a href="/objects/${draftLink}">more</a></p>` });
    await page.goto(`/admin/#/objects/documents/${teaser}`);
    await editForm().getByLabel('Status').selectOption('on');
    await page.getByRole('button', { name: 'Save changes' }).click();
    const dialog = page.getByRole('dialog', { name: 'Some of what it uses is not public' });
    await dialog.getByText('Unfinished note').waitFor();
    await untilNewToast(page, 'Changes saved.', () => dialog.getByRole('button', { name: 'Publish without them' }).click());
    assert.equal(await statusOf('documents', teaser), 'on');
    assert.equal(await statusOf('documents', draftLink), 'draft');

    // Bulk: two drafts, one linking to the other (no hole: published together) and one to a third draft.
    const third = await post('/documents', 'documents', { title: 'Third draft', status: 'draft' });
    const a = await post('/documents', 'documents', { title: 'Bulk A', status: 'draft', body: `<p><a href="/documents/${third}">x</a></p>` });
    const b = await post('/documents', 'documents', { title: 'Bulk B', status: 'draft', body: `<p><a href="/documents/${a}">a</a></p>` });
    await page.goto('/admin/#/objects/documents?q=Bulk');
    await page.getByLabel('Select Bulk A').check();
    await page.getByLabel('Select Bulk B').check();
    await page.getByRole('region', { name: 'Bulk actions' }).getByRole('button', { name: 'Publish', exact: true }).click();
    const bulk = page.getByRole('dialog', { name: 'Some of what it uses is not public' });
    await bulk.getByText('Third draft').waitFor();
    const listed = await bulk.getByRole('list', { name: 'Not public' }).getByRole('listitem').allInnerTexts();
    assert.deepEqual(listed.length, 1, listed.join('\n'));
    assert.match(listed[0], /Third draft/);
    await bulk.getByRole('button', { name: 'Publish it too' }).click();
    await page.getByText('2 objects published.').waitFor();
    for (const id of [a, b, third]) assert.equal(await statusOf('documents', id), 'on');
  });

  test('required fields and a taken unique name are refused before saving, marked, focused, and cleared once fixed', async () => {
    await post('/documents', 'documents', { title: 'Taken', uname: 'taken-slug', status: 'draft' });
    const id = await post('/documents', 'documents', { title: 'Checked article', uname: 'checked-article', status: 'on' });
    await page.goto(`/admin/#/objects/documents/${id}`);
    const form = editForm();
    const title = form.getByLabel('Title *', { exact: true });
    assert.equal(await title.getAttribute('aria-required'), 'true');
    await title.fill('');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await form.getByText('“Title” is required.').waitFor();
    assert.equal(await title.getAttribute('aria-invalid'), 'true');
    assert.equal(await focusReaches(title), true, 'focus moves to the field');
    await shot('validate-required');
    await title.fill('Checked article, again');
    assert.equal(await form.getByText('“Title” is required.').count(), 0, 'the message goes once the field is fixed');
    assert.equal(await title.getAttribute('aria-invalid'), null);

    // The unique name, under Advanced: a taken one is said while typing and refused.
    await form.getByText('Advanced').click();
    const uname = form.getByLabel('Unique name (uname)');
    await uname.fill('taken-slug');
    await form.getByText('“taken-slug” is already used by “Taken” (documents). Choose another unique name.').waitFor();
    await page.getByRole('button', { name: 'Save changes' }).click();
    assert.equal(await focusReaches(uname), true);
    assert.equal((await e.server.request('GET', `/documents/${id}`, { token })).body.data.attributes.uname, 'checked-article');
    await shot('validate-slug-taken');
    await uname.fill('checked-article-2026');
    await form.getByText('“checked-article-2026” is free.').waitFor();
    assert.equal(await form.getByText(/is already used by/).count(), 0);

    // A published object's address: asked first.
    await page.getByRole('button', { name: 'Save changes' }).click();
    const ask = page.getByRole('dialog', { name: 'Change the address of a published page?' });
    await ask.waitFor();
    await expectNoSeriousA11yViolations(page, 'slug change dialog');
    await e.shot('validate-slug-change', { viewport: true });
    await untilNewToast(page, 'Changes saved.', () => ask.getByRole('button', { name: 'Change the address' }).click());
    const stored = (await e.server.request('GET', `/documents/${id}`, { token })).body.data.attributes;
    assert.equal(stored.uname, 'checked-article-2026');
    assert.equal(stored.title, 'Checked article, again');
  });

  test('a server rule reads in plain words under its field: the password length', async () => {
    await page.goto('/admin/#/users/new');
    const form = page.getByRole('form', { name: 'New user' });
    await form.getByLabel('Username').fill('shorty');
    await form.getByLabel('Password').fill('short');
    await form.getByRole('button', { name: 'Create user' }).click();
    await form.getByText('The password must be at least 8 characters long.').waitFor();
    assert.equal(await form.getByText(/must NOT have/).count(), 0);
    await shot('validate-password-words');
    await form.getByLabel('Password').fill('long-enough-1');
    assert.equal(await form.getByText('The password must be at least 8 characters long.').count(), 0);
  });

  test('the new-user form gives roles with the account', async () => {
    const role = await post('/roles', 'roles', { name: 'reviewers', description: 'Read and comment', permissions: { '*': ['read'] } });
    await page.goto('/admin/#/users');
    await page.getByRole('link', { name: 'New user' }).click();
    const form = page.getByRole('form', { name: 'New user' });
    await form.getByLabel('Username').fill('rita');
    await form.getByLabel('Password').fill('rita-password-1');
    await form.getByRole('group', { name: 'Roles' }).getByLabel('reviewers').check();
    await expectNoSeriousA11yViolations(page, 'new user form');
    await shot('new-user-roles');
    await form.getByRole('button', { name: 'Create user' }).click();
    await page.getByText('User “rita” created with its role.').waitFor();
    await page.getByRole('region', { name: 'Roles' }).getByText('reviewers').waitFor();
    const users = await e.server.request('GET', '/users?filter[username]=rita', { token });
    const roles = await e.server.request('GET', `/users/${users.body.data[0].id}/roles`, { token });
    assert.deepEqual(roles.body.data.map((r: { id: string }) => r.id), [role]);
  });

  test('a restricted editor is offered only what its role allows, and a late refusal names the object', async () => {
    const role = await post('/roles', 'roles', { name: 'writers', permissions: { documents: ['read', 'create', 'update', 'delete:own'], folders: ['read'], '*': ['read'] } });
    const user = await post('/users', 'users', { username: 'wendy', password: 'wendy-password-1', name: 'Wendy' });
    const link = await e.server.request('POST', `/users/${user}/relationships/roles`, { token, body: { data: [{ type: 'roles', id: role }] } });
    assert.equal(link.status, 200, link.text);
    const folder = await post('/folders', 'folders', { title: 'Magazine' });
    const adminDoc = await post('/documents', 'documents', { title: 'Admin column', status: 'draft' });
    const wendyToken = (await e.server.request('POST', '/auth', { body: { username: 'wendy', password: 'wendy-password-1' } })).body.meta.jwt;
    const own = await e.server.request('POST', '/documents', { token: wendyToken, body: { data: { type: 'documents', attributes: { title: 'Wendy draft' } } } });
    assert.equal(own.status, 201, own.text);
    const ownId = String(own.body.data.id);

    await signInAs('wendy', 'wendy-password-1');
    // Folders: nothing to create, move, delete or fill.
    await page.goto(`/admin/#/folders/${folder}`);
    await page.getByText('Your roles let you see this folder, not change it.').waitFor();
    for (const name of ['Create', 'Create subfolder', 'Delete folder', 'Make root', 'Add existing objects', 'Rename']) {
      assert.equal(await page.getByRole('button', { name, exact: true }).count(), 0, `no ${name}`);
    }
    assert.equal(await page.getByRole('form', { name: 'New root folder' }).count(), 0);
    // Moving a folder and making a root one are where they would be, disabled, with the reason.
    for (const [name, why] of [
      ['Move…', 'Your roles do not let you move folders.'],
      ['New root folder', 'Your roles do not let you create folders.'],
    ]) {
      const button = page.getByRole('button', { name, exact: true });
      assert.ok(await button.isDisabled(), `${name} is shown disabled`);
      assert.equal(await button.getAttribute('aria-describedby').then((id) => page.locator(`[id="${id}"]`).innerText()), why, `${name} says why`);
    }
    await expectNoSeriousA11yViolations(page, 'folders, restricted');
    await shot('rights-folders-editor');

    // Bulk: no Publish (no publish right); trash only while every selected one is hers.
    await page.goto('/admin/#/objects/documents');
    await page.getByLabel('Select Wendy draft').check();
    const bar = page.getByRole('region', { name: 'Bulk actions' });
    assert.equal(await bar.getByRole('button', { name: 'Publish', exact: true }).count(), 0);
    assert.equal(await bar.getByRole('button', { name: 'Unpublish' }).count(), 0);
    await bar.getByRole('button', { name: 'Move to trash' }).waitFor();
    await page.getByLabel('Select Admin column').check();
    assert.equal(await bar.getByRole('button', { name: 'Move to trash' }).count(), 0);
    await bar.getByText('Your roles do not let you move “Admin column” to the trash; unselect it to move the others to the trash.').waitFor();
    await page.emulateMedia({ colorScheme: 'dark' });
    await expectNoSeriousA11yViolations(page, 'bulk bar with a note, dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await shot('rights-bulk-editor');

    // Move to folder: no folder may be changed, so none can be chosen.
    await bar.getByRole('button', { name: 'Move to folder…' }).click();
    const picker = page.getByRole('dialog', { name: 'Move 2 objects to a folder' });
    await picker.getByText('Your roles do not let you change any folder').waitFor();
    assert.equal(await picker.getByRole('treeitem', { name: /Magazine/ }).getAttribute('aria-disabled'), 'true');
    await picker.getByRole('treeitem', { name: /Magazine/ }).click({ force: true });
    assert.equal(await picker.isVisible(), true, 'a greyed folder is not chosen');
    await picker.getByRole('button', { name: 'Cancel' }).click();

    // The object page: "Add to folder…" disabled, saying why, when no folder may change.
    await page.goto(`/admin/#/objects/documents/${ownId}`);
    await page.getByRole('heading', { name: 'Wendy draft' }).waitFor();
    await page.getByText('Your roles do not let you change any folder').waitFor();
    assert.ok(await page.getByRole('button', { name: 'Add to folder…' }).isDisabled(), 'Add to folder… is disabled');

    // The role loses `delete` while the page is open: the refusal names the document and the right.
    const cut = await e.server.request('PATCH', `/roles/${role}`, { token, body: { data: { id: role, type: 'roles', attributes: { permissions: { documents: ['read', 'create', 'update'], folders: ['read'], '*': ['read'] } } } } });
    assert.equal(cut.status, 200, cut.text);
    await page.goto('/admin/#/objects/documents');
    await page.getByLabel('Select Wendy draft').check();
    await page.getByRole('region', { name: 'Bulk actions' }).getByRole('button', { name: 'Move to trash' }).click();
    await page.getByRole('dialog', { name: 'Move 1 object to the trash?' }).getByRole('button', { name: 'Move to trash' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Nothing was changed' });
    await alert.waitFor();
    const text = await alert.innerText();
    assert.match(text, /You may not move “Wendy draft” to the trash: your roles do not allow moving documents to the trash\./);
    assert.doesNotMatch(text, /Operation \d|object \d+/);
    await e.shot('rights-late-refusal', { viewport: true });
    await page.keyboard.press('Escape');
    assert.equal(await statusOf('documents', ownId), 'draft');
    assert.equal((await e.server.request('GET', `/documents/${ownId}`, { token })).status, 200);
    await signInAs('admin', 'admin-secret-1');
  });
});
