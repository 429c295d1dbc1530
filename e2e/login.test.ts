// Admin UI, signing in and out: the login form, API errors shown as their title and detail,
// the session kept across reloads, logout revoking the refresh token, and an expired session
// resumed without losing what was typed.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ADMIN } from '../server/test/helpers/server.js';
import { signInAsAdmin, startE2E, type E2E } from './helpers/browser.js';

describe('admin sign-in', () => {
  let e: E2E;
  before(async () => {
    e = await startE2E();
  });
  after(async () => {
    await e?.close();
  });

  test('a wrong password shows the API error title and detail on the login form', async () => {
    const { page } = e;
    await page.goto('/admin/');
    await e.shot('login');
    await page.getByLabel('Username').fill(ADMIN.username);
    await page.getByLabel('Password').fill('wrong-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    assert.match(await alert.innerText(), /Unauthorized/);
    await e.shot('login-error');
  });

  test('signing in shows the shell with the areas and the user, and survives a reload', async () => {
    const { page } = e;
    await signInAsAdmin(page);
    await page.getByRole('navigation', { name: 'Areas' }).waitFor();
    assert.equal(await page.locator('.whoami').innerText(), ADMIN.username);
    await page.reload();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    await e.shot('shell');
  });

  test('an expired session asks to sign in again over the page and keeps what was typed', async () => {
    const { page } = e;
    await page.evaluate(() => {
      // Both tokens become invalid: the next call gets 401 and renewal fails.
      const s = JSON.parse(sessionStorage.getItem('folio.session')!);
      sessionStorage.setItem('folio.session', JSON.stringify({ ...s, jwt: 'x.y.z', renew: 'revoked', expires: Date.now() + 3_600_000 }));
    });
    await page.reload();
    const dialog = page.getByRole('dialog', { name: 'Your session has expired' });
    await dialog.waitFor();
    await e.shot('session-expired');
    await dialog.getByLabel('Password').fill(ADMIN.password);
    await dialog.getByRole('button', { name: 'Sign in' }).click();
    await dialog.waitFor({ state: 'detached' });
    assert.equal(await page.locator('.whoami').innerText(), ADMIN.username);
  });

  test('signing out revokes the refresh token and returns to the login form', async () => {
    const { page, server } = e;
    const renew = await page.evaluate(() => JSON.parse(sessionStorage.getItem('folio.session')!).renew as string);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await page.waitForFunction(() => sessionStorage.getItem('folio.session') === null);
    // The revocation request runs as the form appears: poll until the token is refused.
    let status = 0;
    for (let i = 0; i < 20 && status !== 401; i++) {
      const res = await server.request('POST', '/auth', { token: renew, body: { grant_type: 'refresh_token' }, headers: { 'Content-Type': 'application/json' } });
      status = res.status;
      if (status !== 401) await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(status, 401);
  });
});
