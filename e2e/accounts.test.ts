// Admin UI, accounts: create a role and a user, give the user the role, see the user in the
// role, edit and block the user, take the role back, delete the user; unchangeable roles.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { signInAsAdmin, startE2E, type E2E, untilEqual } from './helpers/browser.js';

describe('admin users and roles', () => {
  let e: E2E;
  before(async () => {
    e = await startE2E();
    await signInAsAdmin(e.page, '#/roles');
  });
  after(async () => {
    await e?.close();
  });

  test('a new role appears in the roles list; a duplicate name shows the API error', async () => {
    const { page } = e;
    const form = page.getByRole('form', { name: 'New role' });
    await form.getByLabel('Name').fill('editors');
    await form.getByLabel('Description').fill('People who edit');
    await form.getByRole('button', { name: 'Create role' }).click();
    await page.getByRole('link', { name: 'editors' }).waitFor();
    await form.getByLabel('Name').fill('editors');
    await form.getByRole('button', { name: 'Create role' }).click();
    const alert = form.getByRole('alert');
    await alert.waitFor();
    assert.match(await alert.innerText(), /^Already taken — A role with that name already exists\./);
    await e.shot('roles');
  });

  test('the admin role is shown as unchangeable and cannot be edited or deleted', async () => {
    const { page } = e;
    await page.getByRole('link', { name: 'admin', exact: true }).click();
    await page.getByText('This role is unchangeable').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Delete role' }).isDisabled(), true);
    assert.equal(await page.getByRole('button', { name: 'Save changes' }).isDisabled(), true);
  });

  test('a user is created, given a role and a new password, and then listed among the role’s users', async () => {
    const { page } = e;
    await page.goto('/admin/#/users');
    await page.getByRole('link', { name: 'New user' }).click();
    const form = page.getByRole('form', { name: 'New user' });
    await form.getByLabel('Username').fill('alice');
    await form.getByLabel('Password').fill('alice-password-1');
    await form.getByLabel('Name', { exact: true }).fill('Alice');
    await form.getByLabel('Email').fill('alice@example.com');
    await form.getByRole('button', { name: 'Create user' }).click();
    await page.getByRole('heading', { name: 'alice' }).waitFor();

    const roles = page.getByRole('region', { name: 'Roles' });
    await roles.getByText('No roles.').waitFor();
    await roles.getByLabel('Role to give').selectOption({ label: 'editors' });
    await roles.getByRole('button', { name: 'Give role' }).click();
    await roles.getByRole('button', { name: 'Take role editors' }).waitFor();
    await e.shot('user-detail');

    const password = page.getByRole('form', { name: 'Set password' });
    await password.getByLabel('New password').fill('alice-new-password-2');
    await password.getByRole('button', { name: 'Set password' }).click();
    await password.getByText('Password changed.').waitFor();
    assert.equal(typeof (await e.server.login('alice', 'alice-new-password-2')).jwt, 'string');

    await page.goto('/admin/#/roles');
    await page.getByRole('link', { name: 'editors' }).click();
    await page.getByRole('heading', { name: 'Users with this role' }).waitFor();
    await page.getByRole('link', { name: 'alice' }).waitFor();
  });

  test('the users list is searchable and paged', async () => {
    const { page } = e;
    await page.goto('/admin/#/users');
    await page.getByLabel('Search users').fill('alice');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('navigation', { name: 'User pages' }).getByText('1 item').waitFor();
    const users = page.getByRole('table', { name: 'Users' });
    await users.getByRole('link', { name: 'alice', exact: true }).waitFor();
    // Polled, not read once: on a loaded machine the answer's rows may land a frame after its pager.
    await untilEqual(() => users.getByRole('link', { name: 'admin', exact: true }).count(), 0, 'the search for alice to leave admin out');
    await page.getByLabel('Search users').fill('nobody-like-this');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('No user matches').waitFor();
  });

  test('a user is blocked, its role taken back, and deleted after confirming', async () => {
    const { page, server } = e;
    await page.getByLabel('Search users').fill('alice');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('link', { name: 'alice' }).click();
    const profile = page.getByRole('form', { name: 'Profile' });
    await profile.getByLabel('Surname').fill('Liddell');
    await profile.getByLabel('Blocked (cannot sign in)').check();
    await profile.getByRole('button', { name: 'Save changes' }).click();
    await profile.getByText('Changes saved.').waitFor();
    const res = await server.request('GET', '/users?filter[username]=alice', { token: await server.adminToken() });
    assert.equal(res.body.data[0].attributes.surname, 'Liddell');
    assert.equal(res.body.data[0].attributes.blocked, true);

    const roles = page.getByRole('region', { name: 'Roles' });
    await roles.getByRole('button', { name: 'Take role editors' }).click();
    await roles.getByText('No roles.').waitFor();

    await page.getByRole('button', { name: 'Delete user' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete this user?' });
    await dialog.getByRole('button', { name: 'Delete user' }).click();
    await page.getByRole('heading', { name: 'Users' }).waitFor();
    // The list shown may still be the one from before the delete until it is read again.
    await page.getByRole('link', { name: 'alice' }).waitFor({ state: 'detached' });
    const left = await server.request('GET', '/users?filter[username]=alice', { token: await server.adminToken() });
    assert.deepEqual(left.body.data, []);
  });
});
