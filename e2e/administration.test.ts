// Admin UI, administration: a configuration entry and an endpoint permission
// made through their pages (a JSON mistake and a taken name refused in plain words), and an
// annotation added, edited and deleted on a document's page; each checked through the API. At
// 1024×700, with one screenshot per screen.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createObject, expectNoSeriousA11yViolations, signInAsAdmin, startE2E, type E2E } from './helpers/browser.js';

describe('admin administration and annotations', () => {
  let e: E2E;
  let admin: string;
  before(async () => {
    e = await startE2E();
    await e.page.setViewportSize({ width: 1024, height: 700 });
    admin = await e.server.adminToken();
    await signInAsAdmin(e.page, '#/config');
  });
  after(async () => {
    await e?.close();
  });

  test('a configuration entry is created and edited; bad JSON and a taken name are refused', async () => {
    const { page, server } = e;
    await page.getByRole('link', { name: 'Configuration' }).waitFor();
    await page.getByText('No configuration entries yet.').waitFor();
    await page.getByRole('button', { name: 'New entry' }).click();
    const form = page.getByRole('form', { name: 'New configuration entry' });
    await form.getByLabel('Name').fill('site_colors');
    await form.getByLabel('Content').fill('{"primary": "#0a5",}');
    await form.getByRole('button', { name: 'Create entry' }).click();
    assert.match(await form.getByRole('alert').innerText(), /looks like JSON but is not valid JSON/);
    await form.getByLabel('Content').fill('{"primary": "#0a5"}');
    await e.shot('config-dialog', { viewport: true });
    await form.getByRole('button', { name: 'Create entry' }).click();
    await page.getByRole('table', { name: 'Configuration entries' }).getByText('site_colors').waitFor();

    let list = await server.request('GET', '/config', { token: admin });
    assert.equal(list.body.data.length, 1);
    assert.deepEqual(list.body.data[0].attributes, { name: 'site_colors', context: 'app', content: '{"primary": "#0a5"}', application_id: null });

    // The same name and context again: the server's config_exists in plain words.
    await page.getByRole('button', { name: 'New entry' }).click();
    const again = page.getByRole('form', { name: 'New configuration entry' });
    await again.getByLabel('Name').fill('site_colors');
    await again.getByLabel('Content').fill('plain text');
    await again.getByRole('button', { name: 'Create entry' }).click();
    assert.match(await again.getByRole('alert').innerText(), /An entry with this name and context already exists/);
    await again.getByLabel('Context').fill('theme');
    await again.getByRole('button', { name: 'Create entry' }).click();
    await page.getByRole('table', { name: 'Configuration entries' }).getByText('theme').waitFor();

    await page.getByRole('button', { name: 'Edit site_colors (app)' }).click();
    const edit = page.getByRole('form', { name: 'Edit entry' });
    await edit.getByLabel('Content').fill('{"primary": "#123"}');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('table', { name: 'Configuration entries' }).getByText('{"primary": "#123"}').waitFor();
    await expectNoSeriousA11yViolations(page, 'configuration');
    await e.shot('config');
    list = await server.request('GET', '/config', { token: admin });
    const byName = (list.body.data as Array<{ attributes: { name: string; context: string; content: string } }>).map((d) => `${d.attributes.name}/${d.attributes.context}=${d.attributes.content}`).sort();
    assert.deepEqual(byName, ['site_colors/app={"primary": "#123"}', 'site_colors/theme=plain text']);
  });

  test('with no role besides the administrators\', a document\'s Permissions panel says so and links to Roles', async () => {
    const { page, server } = e;
    const roles = await server.request('GET', '/roles', { token: admin });
    assert.deepEqual(roles.body.data.map((r: { attributes: { name: string } }) => r.attributes.name), ['admin'], 'a new site has only the admin role');
    const id = await createObject(server, 'documents', { title: 'Nobody to restrict to' });
    await page.goto(`/admin/#/objects/documents/${id}`);
    const panel = page.getByRole('region', { name: 'Object permissions' });
    await panel.getByText('There is no role to choose yet').waitFor();
    assert.equal(await panel.getByRole('group', { name: 'Roles that may see it' }).count(), 0, 'no empty box of roles');
    assert.equal(await panel.getByRole('button', { name: 'Save permissions' }).isDisabled(), true);
    await e.shot('object-permissions-no-roles');
    await panel.getByRole('link', { name: 'Create a role' }).click();
    await page.getByRole('heading', { name: 'Roles' }).waitFor();
  });

  test('an endpoint permission is created through the page', async () => {
    const { page, server } = e;
    const role = await server.request('POST', '/roles', { token: admin, body: { data: { type: 'roles', attributes: { name: 'reviewer' } } } });
    assert.equal(role.status, 201);
    await page.getByRole('link', { name: 'Endpoint permissions' }).click();
    await page.getByText('No endpoint permissions').waitFor();
    await page.getByRole('button', { name: 'New permission' }).click();
    const form = page.getByRole('form', { name: 'New endpoint permission' });
    await form.getByLabel(/^Endpoint/).selectOption({ label: 'folders' });
    await form.getByLabel(/^Role/).selectOption({ label: 'reviewer' });
    await form.getByLabel(/^Read/).selectOption({ label: 'Own only' });
    await form.getByLabel(/^Write/).selectOption({ label: 'Blocked' });
    await e.shot('endpoint-permission-dialog', { viewport: true });
    await form.getByRole('button', { name: 'Create permission' }).click();
    const table = page.getByRole('table', { name: 'Endpoint permissions' });
    await table.getByText('Blocked').waitFor();
    assert.match(await table.getByRole('row').nth(1).innerText(), /folders\s+reviewer\s+Every application\s+Own only\s+Blocked/);
    await expectNoSeriousA11yViolations(page, 'endpoint permissions');
    await e.shot('endpoint-permissions');

    const endpoints = await server.request('GET', '/admin/endpoints?page_size=100', { token: admin });
    const folders = endpoints.body.data.find((d: { attributes: { name: string } }) => d.attributes.name === 'folders');
    const perms = await server.request('GET', '/admin/endpoint_permissions', { token: admin });
    assert.equal(perms.body.data.length, 1);
    assert.deepEqual(perms.body.data[0].attributes, { endpoint_id: Number(folders.id), application_id: null, role_id: Number(role.body.data.id), read: 'mine', write: 'block' });

    // The role names cannot be read (the server answers 503): the page says so and shows the
    // role's number instead of leaving a silent gap.
    const rolesList = (url: URL) => url.pathname === '/roles';
    await page.route(rolesList, (route) =>
      route.fulfill({ status: 503, contentType: 'application/vnd.api+json', body: JSON.stringify({ error: { status: '503', title: 'Service unavailable', code: 'unavailable' } }) }),
    );
    try {
      await page.reload();
      await page.getByText('The role names could not be read: numbers are shown instead.').waitFor();
      await page.getByRole('alert').filter({ hasText: 'Service unavailable' }).first().waitFor();
      assert.match(await table.getByRole('row').nth(1).innerText(), new RegExp(`folders\\s+#${role.body.data.id}\\s+Every application`));
      await e.shot('endpoint-permissions-names-unreadable');
    } finally {
      await page.unroute(rolesList);
    }
  });

  test('an annotation is added, edited and deleted on a document page', async () => {
    const { page, server } = e;
    const id = await createObject(server, 'documents', { title: 'Launch plan' });
    await page.goto(`/admin/#/objects/documents/${id}`);
    const panel = page.getByRole('region', { name: 'Annotations' });
    await panel.getByText('No annotations yet.').waitFor();
    await panel.getByRole('button', { name: 'Add annotation' }).click();
    const form = panel.getByRole('form', { name: 'New annotation' });
    await form.getByLabel(/^Annotation/).fill('Check the dates with marketing.');
    await form.getByLabel(/^Parameters/).fill('{"line": 3');
    await form.getByRole('button', { name: 'Add annotation' }).click();
    assert.match(await form.getByRole('alert').innerText(), /Parameters must be JSON/);
    await form.getByLabel(/^Parameters/).fill('{"line": 3}');
    await form.getByRole('button', { name: 'Add annotation' }).click();
    // The form closes once the server has answered; until then its textarea holds the same text.
    await form.waitFor({ state: 'detached' });
    await panel.locator('.annotation-text', { hasText: 'Check the dates with marketing.' }).waitFor();
    await panel.getByText('admin', { exact: true }).waitFor();

    let list = await server.request('GET', `/annotations?filter[object_id]=${id}`, { token: admin });
    assert.equal(list.body.data.length, 1);
    assert.deepEqual(list.body.data[0].attributes, { object_id: Number(id), description: 'Check the dates with marketing.', params: { line: 3 } });
    assert.equal(list.body.data[0].meta.username, 'admin');

    await panel.getByRole('button', { name: /^Edit annotation by admin/ }).click();
    const edit = panel.getByRole('form', { name: 'Edit annotation' });
    await edit.getByLabel(/^Annotation/).fill('Dates confirmed with marketing.');
    await edit.getByRole('button', { name: 'Save annotation' }).click();
    await edit.waitFor({ state: 'detached' });
    await panel.locator('.annotation-text', { hasText: 'Dates confirmed with marketing.' }).waitFor();
    list = await server.request('GET', `/annotations?filter[object_id]=${id}`, { token: admin });
    assert.equal(list.body.data[0].attributes.description, 'Dates confirmed with marketing.');
    await panel.scrollIntoViewIfNeeded();
    await expectNoSeriousA11yViolations(page, 'object page with annotations');
    await e.shot('object-annotations', { viewport: true });

    await panel.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await panel.getByText('No annotations yet.').waitFor();
    list = await server.request('GET', `/annotations?filter[object_id]=${id}`, { token: admin });
    assert.equal(list.body.data.length, 0);
  });
});
