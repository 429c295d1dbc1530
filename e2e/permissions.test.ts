// Admin UI, permissions: an admin sets a role's permissions with the matrix (the "done when"
// editor role), restricts an object to roles; an editor signs in and sees only what it may use —
// no admin areas, no Publish, no trash button on others' documents — and changes its password
// from its own account page (asked for the current one).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { expectNoSeriousA11yViolations, signInAsAdmin, startE2E, type E2E } from './helpers/browser.js';

/** Relative luminance of a CSS rgb() colour (WCAG 2). */
function luminance(colour: string): number {
  const [r, g, b] = (colour.match(/[\d.]+/g) ?? []).slice(0, 3).map((v) => Number(v) / 255).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

describe('permissions in the admin UI', () => {
  let e: E2E;
  let adminDoc = '';
  before(async () => {
    e = await startE2E();
    const admin = await e.server.adminToken();
    const doc = await e.server.request('POST', '/documents', { token: admin, body: { data: { type: 'documents', attributes: { title: 'The admin’s page', status: 'on' } } } });
    adminDoc = doc.body.data.id;
    await signInAsAdmin(e.page, '#/roles');
  });
  after(async () => {
    await e?.close();
  });

  test('the matrix sets a role to documents: read, create, update own, delete own', async () => {
    const { page } = e;
    await page.setViewportSize({ width: 1024, height: 700 });
    const form = page.getByRole('form', { name: 'New role' });
    await form.getByLabel('Name').fill('editors');
    await form.getByRole('button', { name: 'Create role' }).click();
    await page.getByRole('link', { name: 'editors' }).click();
    const matrix = page.getByRole('form', { name: 'Permissions' });
    await matrix.getByRole('table', { name: 'Permissions' }).waitFor();
    // Usable at once: a type without a rule of its own shows what it follows (here nothing: "not
    // set"), editable; the first change gives it its own rule.
    assert.equal(await matrix.getByLabel('documents: read').isDisabled(), false);
    assert.equal(await matrix.getByLabel('documents: own rule').count(), 0, 'no "own rule" box');
    const documentsRow = matrix.getByRole('row', { name: /^documents/ });
    await documentsRow.getByText('not set').waitFor();
    await matrix.getByLabel('documents: read').selectOption('all');
    await documentsRow.getByRole('button', { name: 'documents: clear' }).waitFor();
    await matrix.getByLabel('documents: create').selectOption('all');
    await matrix.getByLabel('documents: update').selectOption('own');
    await matrix.getByLabel('documents: delete').selectOption('own');
    await matrix.getByRole('button', { name: 'Save permissions' }).click();
    await matrix.getByText('Permissions saved.').waitFor();
    await e.shot('role-permissions-matrix');
    const roles = await e.server.request('GET', '/roles?filter[name]=editors', { token: await e.server.adminToken() });
    assert.deepEqual(roles.body.data[0].attributes.permissions, { documents: ['read', 'create', 'update:own', 'delete:own'] });
    // Readable in the dark theme too: every value at least 4.5:1 against its background.
    await page.getByRole('combobox', { name: 'Colour theme' }).selectOption('dark');
    const colours = await matrix.locator('select.reach').evaluateAll((selects) => selects.map((el) => [getComputedStyle(el).color, getComputedStyle(el).backgroundColor]));
    const ratios = colours.map((pair) => {
      const [a, b] = pair.map(luminance).sort((x, y) => y - x);
      return (a + 0.05) / (b + 0.05);
    });
    assert.ok(ratios.length > 10 && Math.min(...ratios) >= 4.5, `lowest contrast ${Math.min(...ratios).toFixed(2)}:1`);
    await e.shot('role-permissions-matrix-dark');
    await expectNoSeriousA11yViolations(page, 'permissions matrix, dark');
    // A rule for every type: the types without their own follow it ("as *"); documents can go back to it.
    await matrix.getByLabel('Every type (*): read').selectOption('all');
    await matrix.getByRole('row', { name: /^events/ }).getByText('as *').waitFor();
    assert.equal(await matrix.getByLabel('events: read').inputValue(), 'all');
    await matrix.getByRole('button', { name: 'documents: follow *' }).click();
    await documentsRow.getByText('as *').waitFor();
    await page.getByRole('combobox', { name: 'Colour theme' }).selectOption('system');
    await page.reload();
  });

  test('an admin restricts an object to roles on its page', async () => {
    const { page } = e;
    await page.goto(`/admin/#/objects/documents/${adminDoc}`);
    const panel = page.getByRole('region', { name: 'Object permissions' });
    await panel.getByLabel('editors').check();
    await panel.getByRole('button', { name: 'Save permissions' }).click();
    await panel.getByText('The object is restricted to the chosen roles.').waitFor();
    await e.shot('object-permissions');
    assert.equal((await e.server.request('GET', `/documents/${adminDoc}`)).status, 401);
    await panel.getByLabel('editors').uncheck();
    await panel.getByRole('button', { name: 'Save permissions' }).click();
    await panel.getByText('Everyone who may read this type may read it.').waitFor();
    assert.equal((await e.server.request('GET', `/documents/${adminDoc}`)).status, 200);
  });

  test('an editor sees only its areas and buttons, and changes its password with the current one', async () => {
    const { page, server } = e;
    const admin = await server.adminToken();
    const user = await server.request('POST', '/users', { token: admin, body: { data: { type: 'users', attributes: { username: 'edna', password: 'edna-password-1', name: 'Edna' } } } });
    const roles = await server.request('GET', '/roles?filter[name]=editors', { token: admin });
    await server.request('POST', `/users/${user.body.data.id}/relationships/roles`, { token: admin, body: { data: [{ type: 'roles', id: roles.body.data[0].id }] } });
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Username').fill('edna');
    await page.getByLabel('Password').fill('edna-password-1');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'My account: Edna' }).waitFor();

    const sidebar = page.getByRole('navigation', { name: 'Areas' });
    const areas = await sidebar.getByRole('link').allInnerTexts();
    // The Trash: with `delete:own` she restores what she moved there.
    assert.deepEqual(areas, ['Home', 'Objects', 'Folders', 'Media', 'Trash']);

    // Documents: New is there; events: greyed, saying why (no create).
    await page.goto('/admin/#/objects/events');
    await page.getByRole('heading', { name: 'Events' }).waitFor();
    await page.getByText('Your roles let you read events, not create them.').waitFor();
    assert.equal(await page.getByRole('button', { name: /^New / }).count(), 1, 'one New button, for the reason');
    assert.ok(await page.getByRole('button', { name: /^New / }).isDisabled(), 'New event is disabled');
    await page.goto('/admin/#/objects/documents');
    await page.getByRole('button', { name: 'New document' }).first().click();
    const create = page.getByRole('form', { name: 'Create object' });
    await create.getByLabel('Title').fill('Edna’s draft');
    await create.getByRole('button', { name: 'Create document' }).click();
    await page.getByRole('heading', { name: 'Edna’s draft' }).waitFor();
    const statuses = await page.getByRole('form', { name: 'Edit object' }).getByLabel('Status').locator('option').allInnerTexts();
    assert.ok(!statuses.some((st) => /^On/.test(st)), `no Publish without publish: ${statuses}`);
    assert.equal(await page.getByRole('button', { name: 'Move to trash' }).count(), 1, 'its own document may go to the trash');
    assert.equal(await page.getByRole('region', { name: 'Object permissions' }).count(), 0);
    await e.shot('editor-own-document');

    // Someone else's document: readable, not changeable, no trash.
    await page.goto(`/admin/#/objects/documents/${adminDoc}`);
    await page.getByText(/Read only: your roles let you change the documents you created, and someone else created this one/).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Move to trash' }).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Save changes' }).count(), 0);
    assert.equal(await page.getByRole('button', { name: /^Add to / }).count(), 0, 'no relationship writes on it either');
    await e.shot('editor-other-document');

    // An admin area by URL: not offered.
    await page.goto('/admin/#/users');
    await page.getByText('This area is for administrators.').waitFor();
    await e.shot('editor-restricted-ui');

    // My account: the password changes only with the current password.
    await page.getByRole('link', { name: 'My account: Edna' }).click();
    const pw = page.getByRole('form', { name: 'Password' });
    await pw.getByLabel('Current password').fill('not-my-password');
    await pw.getByLabel('New password', { exact: true }).fill('edna-password-2');
    await pw.getByLabel('Repeat the new password').fill('edna-password-2');
    await pw.getByRole('button', { name: 'Change password' }).click();
    await pw.getByRole('alert').waitFor();
    assert.match(await pw.getByRole('alert').innerText(), /current password/);
    await pw.getByLabel('Current password').fill('edna-password-1');
    await pw.getByRole('button', { name: 'Change password' }).click();
    await pw.getByText('Password changed.').waitFor();
    await e.shot('profile-password');
    // Still signed in (with the new password's session), and the old password is gone.
    await page.goto('/admin/#/objects/documents');
    await page.getByRole('button', { name: 'New document' }).first().waitFor();
    assert.equal((await server.request('POST', '/auth', { body: { username: 'edna', password: 'edna-password-1' } })).status, 401);
    assert.equal((await server.request('POST', '/auth', { body: { username: 'edna', password: 'edna-password-2' } })).status, 200);
  });
});
