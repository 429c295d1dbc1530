// The admin's data layer and its one table: an earlier search whose answer arrives after a later
// one's never replaces it (reads are keyed by path and query, and one no longer asked for is given
// up); a write marks the lists it changes as stale, so a list shown again is not the old one; the
// refactored lists at 1024×700 in the light and the dark theme (screenshots to look at).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Route } from 'playwright-core';
import { signInAsAdmin, startE2E, type E2E, untilEqual } from './helpers/browser.js';

describe('admin data layer', () => {
  let e: E2E;
  let admin: string;
  before(async () => {
    e = await startE2E();
    admin = await e.server.adminToken();
    for (const username of ['stale-alpha', 'stale-beta']) {
      const r = await e.server.request('POST', '/users', { token: admin, body: { data: { type: 'users', attributes: { username, password: 'a-long-password-1' } } } });
      assert.equal(r.status, 201, r.text);
    }
    await signInAsAdmin(e.page, '#/users');
  });
  after(async () => {
    await e?.close();
  });

  /** The usernames the users table lists now. */
  const listed = () => e.page.getByRole('table', { name: 'Users' }).locator('tbody tr td:first-child a').allInnerTexts();

  test('a slow answer to an earlier search, arriving after the later one, does not replace it', async (t) => {
    const { page } = e;
    await page.getByRole('table', { name: 'Users' }).waitFor();
    let held: Route | null = null;
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const heldSeen = new Promise<void>((seen) =>
      page.route(
        (url) => url.pathname === '/users' && url.searchParams.get('q') === 'stale-alpha',
        async (route) => {
          held = route;
          seen();
          await released;
          // The real answer, sent late (the page may have given the request up by then).
          try {
            await route.fulfill({ response: await route.fetch() });
          } catch {
            /* the request was cancelled by the page: it can land nowhere */
          }
        },
      ),
    );
    const lateAnswer = new Promise<'answered' | 'cancelled'>((resolve) => {
      page.on('requestfinished', (r) => r.url().includes('q=stale-alpha') && resolve('answered'));
      page.on('requestfailed', (r) => r.url().includes('q=stale-alpha') && resolve('cancelled'));
    });

    const search = page.getByRole('search');
    await search.getByLabel('Search users').fill('stale-alpha');
    await search.getByRole('button', { name: 'Search' }).click();
    await heldSeen;
    assert.ok(held, 'the first search is on its way');
    await search.getByLabel('Search users').fill('stale-beta');
    await search.getByRole('button', { name: 'Search' }).click();
    // The unfiltered list (stale-beta in it) stays shown until a search's answer lands: wait for it.
    await untilEqual(listed, ['stale-beta'], 'the later search’s answer');

    release();
    const outcome = await lateAnswer;
    // Whatever the late answer set off has run before the table is read again (two frames).
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 0)))));
    assert.deepEqual(await listed(), ['stale-beta'], `the late answer (${outcome}) replaced the newer one`);
    t.diagnostic(`the earlier search's request was ${outcome}`);
    assert.equal(await search.getByLabel('Search users').inputValue(), 'stale-beta');
    await page.unroute(() => true);
  });

  test('a list shown again after a write elsewhere is the new one, not the cached one', async () => {
    const { page } = e;
    // The list without a search (another page first: the same hash would keep the search).
    await page.goto('/admin/#/roles');
    await page.goto('/admin/#/users');
    await page.getByRole('link', { name: 'stale-alpha' }).waitFor();
    await page.getByRole('link', { name: 'stale-alpha' }).click();
    await page.getByRole('button', { name: 'Delete user' }).click();
    await page.getByRole('dialog', { name: 'Delete this user?' }).getByRole('button', { name: 'Delete user' }).click();
    // Back on the list (from the cache, then loaded again): the deleted user is gone.
    await page.getByRole('table', { name: 'Users' }).waitFor();
    await page.getByRole('link', { name: 'stale-alpha' }).waitFor({ state: 'detached' });
    assert.ok(!(await listed()).includes('stale-alpha'));
    assert.ok((await listed()).includes('stale-beta'));
  });

  test('the refactored lists at 1024×700, light and dark', async () => {
    const { page } = e;
    await page.setViewportSize({ width: 1024, height: 700 });
    // Something in the lists that start empty.
    await e.server.request('POST', '/config', { token: admin, body: { data: { type: 'config', attributes: { name: 'site_colors', context: 'app', content: '{"accent":"#336699"}' } } } });
    await e.server.request('POST', '/applications', { token: admin, body: { data: { type: 'applications', attributes: { name: 'Public website' } } } });
    const lists: Array<[string, string]> = [
      ['users', 'Users'],
      ['roles', 'Roles'],
      ['applications', 'API keys'],
      ['config', 'Configuration entries'],
      ['trash', 'Trash'],
      ['history', 'History'],
      ['model', 'Object types'],
      ['relations', 'Relations'],
      ['terms', 'No categories yet.'],
    ];
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const [area, name] of lists) {
        await page.goto(`/admin/#/${area}`);
        const table = page.getByRole('table', { name, exact: true }).first();
        await (area === 'trash' ? table.or(page.getByText('The trash is empty.')) : name.endsWith('.') ? page.getByText(name) : table).waitFor();
        await e.shot(`list-${area}-${scheme}-1024`, { viewport: true });
      }
    }
    await page.emulateMedia({ colorScheme: null });
    await page.setViewportSize({ width: 1280, height: 800 });
  });
});
