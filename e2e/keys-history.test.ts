// Admin UI: the API keys screen — create a key, its client secret shown
// once (and it signs in), its last use, revoke it (requests with it get 403), turn it on again, delete it — and
// the admin-wide history, filtered by user, action, object and date, at 1024×700.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { expectNoSeriousA11yViolations, signInAsAdmin, startE2E, type E2E, untilEqual } from './helpers/browser.js';

describe('API keys and the admin history', () => {
  let e: E2E;
  let token: string;
  before(async () => {
    e = await startE2E();
    token = await e.server.adminToken();
    await e.page.setViewportSize({ width: 1024, height: 700 });
    await signInAsAdmin(e.page);
  });
  after(async () => {
    await e?.close();
  });

  test('a key is created with its secret shown once, revoked, turned on again and deleted', async () => {
    const { page, server } = e;
    await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'API keys' }).click();
    const form = page.getByRole('form', { name: 'New API key' });
    await form.getByLabel('Application name').fill('Public website');
    await form.getByLabel('Description').fill('The site’s front end');
    await form.getByRole('button', { name: 'Create key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Key for “Public website” created' });
    await dialog.getByText('it is shown only this once').waitFor();
    const secret = await dialog.getByTestId('client-secret').innerText();
    const apps = await server.request('GET', '/applications?filter[name]=Public website', { token });
    const key = String(apps.body.data[0].meta.api_key);
    assert.equal(await dialog.getByText(key).count(), 1);
    // The secret works, with the key, for an application token.
    const login = await server.request('POST', '/auth', { body: { grant_type: 'client_credentials', client_id: key, client_secret: secret } });
    assert.equal(login.status, 200, login.text);
    await expectNoSeriousA11yViolations(page, 'secret dialog');
    await e.shot('api-key-secret', { viewport: true });
    await dialog.getByRole('button', { name: 'I have copied it' }).click();
    // Shown once: the list has the key, never the secret.
    const table = page.getByRole('table', { name: 'API keys' });
    await table.getByText(key).waitFor();
    assert.equal(await page.getByText(secret).count(), 0);
    // Last used: never, until a client sends the key.
    const row = table.getByRole('row', { name: /Public website/ });
    await row.getByRole('cell', { name: 'never' }).waitFor();
    assert.equal((await server.request('GET', '/home', { headers: { 'X-Api-Key': key } })).status, 200);
    await page.reload();
    await table.getByText(key).waitFor();
    assert.equal(await row.getByRole('cell', { name: 'never' }).count(), 0);
    assert.equal((await row.innerText()).match(/\b20\d\d\b/g)?.length, 2, 'created and last used are dates');

    await table.getByRole('button', { name: 'Revoke Public website' }).click();
    await page.getByText('“Public website” is revoked').waitFor();
    assert.equal((await server.request('GET', '/home', { headers: { 'X-Api-Key': key } })).status, 403);
    await e.shot('api-keys');
    await table.getByRole('button', { name: 'Turn on Public website' }).click();
    await page.getByText('“Public website” works again.').waitFor();
    assert.equal((await server.request('GET', '/home', { headers: { 'X-Api-Key': key } })).status, 200);

    await table.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog', { name: 'Delete the key of “Public website”?' }).getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No API keys yet.').waitFor();
    assert.equal((await server.request('GET', '/home', { headers: { 'X-Api-Key': key } })).status, 403);
  });

  test('the history lists every change, filtered by user, action, object and date', async () => {
    const { page, server } = e;
    const post = async (t: string, attributes: Record<string, unknown>, as = token) => {
      const res = await server.request('POST', `/${t}`, { token: as, body: { data: { type: t, attributes } } });
      assert.equal(res.status, 201, res.text);
      return String(res.body.data.id);
    };
    const role = await post('roles', { name: 'authors', permissions: { documents: ['read', 'create', 'update'] } });
    const user = await post('users', { username: 'ada', password: 'ada-password-1' });
    await server.request('POST', `/users/${user}/relationships/roles`, { token, body: { data: [{ type: 'roles', id: role }] } });
    const ada = (await server.request('POST', '/auth', { body: { username: 'ada', password: 'ada-password-1' } })).body.meta.jwt;
    const mine = await post('documents', { title: 'Ada’s notes' }, ada);
    await server.request('PATCH', `/documents/${mine}`, { token: ada, body: { data: { id: mine, type: 'documents', attributes: { title: 'Ada’s notes, edited' } } } });
    const other = await post('documents', { title: 'Admin memo' });
    await server.request('DELETE', `/documents/${other}`, { token });

    await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'History' }).click();
    const table = page.getByRole('table', { name: 'History' });
    await table.getByRole('link', { name: 'Ada’s notes, edited' }).first().waitFor();
    const search = page.getByRole('search', { name: 'Filter the history' });

    await search.getByLabel('User').selectOption({ label: 'ada' });
    await page.waitForFunction(() => location.hash.includes('user='));
    await table.getByRole('cell', { name: 'Changed' }).first().waitFor();
    const rows = async () => (await table.locator('tbody tr').allInnerTexts()).map((t) => t.replace(/\s+/g, ' '));
    // The unfiltered rows (ada's change among them) stay shown until the filter's answer lands.
    await untilEqual(async () => (await rows()).length, 2, 'the history filtered by ada to list two rows');
    let now = await rows();
    assert.equal(now.length, 2, now.join('\n'));
    assert.ok(now.every((r) => r.includes('ada') && r.includes('Ada’s notes, edited')), now.join('\n'));

    await search.getByLabel('Action').selectOption('update');
    await page.waitForFunction(() => location.hash.includes('action=update'));
    await page.waitForFunction(() => document.querySelectorAll('table[aria-label="History"] tbody tr').length === 1);
    now = await rows();
    assert.match(now[0], /ada Changed Ada’s notes, edited documents title/);
    await e.shot('admin-history-filtered');

    // Another user's trash, by object id; then a day with nothing in it.
    await search.getByRole('button', { name: 'Clear filters' }).click();
    await search.getByLabel('Object id').fill(other);
    await search.getByRole('button', { name: 'Filter' }).click();
    await page.waitForFunction(() => document.querySelectorAll('table[aria-label="History"] tbody tr').length === 2);
    now = await rows();
    assert.ok(now[0].includes('Moved to the trash') && now[0].includes('admin'), now.join('\n'));
    await search.getByLabel('To', { exact: true }).fill('2001-01-01');
    await page.getByText('Nothing in the history matches.').waitFor();
    // The filters live in the URL: a reload keeps them.
    await page.reload();
    await page.getByText('Nothing in the history matches.').waitFor();
    assert.equal(await search.getByLabel('To', { exact: true }).inputValue(), '2001-01-01');
    await expectNoSeriousA11yViolations(page, 'history, filtered');
  });
});
