// Admin UI, one session for the tabs of one browser (issue 46): an editor Ctrl+clicks an article in
// the list and the new tab opens it signed in; with both tabs open through several renewals of a
// 3-second access token, only one tab renews at a time — no refresh token is ever sent twice, which
// would end the session — and neither tab is asked to sign in again; signing out in one tab ends
// the session in the other. No token ever travels in a URL. The new tab is photographed at
// 1024×700 and 1366×850 in both themes and checked with axe.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Request } from 'playwright-core';
import { contextAt, createRestrictedUser, shotsAtBothSizes, signInAs, startE2E, type E2E } from './helpers/browser.js';

describe('the tabs of one browser share one session', () => {
  let e: E2E;
  let docId: string;

  before(async () => {
    e = await startE2E({ FOLIO_ACCESS_TOKEN_TTL: '3' });
    const editorToken = await createRestrictedUser(e.server, 'tabby', 'tabby-password-1', { documents: ['read', 'create', 'update'] });
    const doc = await e.server.request('POST', '/documents', { token: editorToken, body: { data: { type: 'documents', attributes: { title: 'Ferry strike', body: '<p>No boats on Monday.</p>' } } } });
    assert.equal(doc.status, 201, doc.text);
    docId = String(doc.body.data.id);
  });
  after(async () => {
    await e?.close();
  });

  test('a Ctrl+clicked article opens signed in, renewals never reuse a refresh token, and signing out ends every tab', async () => {
    const context = await contextAt(e, 1366, 850);
    const refreshTokens: string[] = [];
    const tokenInUrl: string[] = [];
    context.on('request', (request: Request) => {
      const url = request.url();
      if (/eyJ[\w-]+\.[\w-]+/.test(url) || /[?&](token|jwt|renew)=/.test(url)) tokenInUrl.push(url);
      if (request.method() === 'POST' && new URL(url).pathname === '/auth' && /refresh_token/.test(request.postData() ?? '')) {
        refreshTokens.push(request.headers().authorization ?? '');
      }
    });
    const first = await context.newPage();
    await signInAs(first, 'tabby', 'tabby-password-1', '#/objects/documents');
    const link = first.getByRole('link', { name: 'Ferry strike' });
    const [second] = await Promise.all([context.waitForEvent('page'), link.click({ modifiers: ['Control'] })]);
    await second.waitForLoadState();
    assert.match(second.url(), new RegExp(`#/objects/documents/${docId}$`));
    await second.getByRole('form', { name: 'Edit object' }).getByLabel('Title').waitFor();
    assert.equal(await second.getByRole('button', { name: 'Sign in' }).count(), 0, 'no sign-in form in the new tab');
    assert.equal(await second.locator('.whoami').innerText(), 'tabby');
    await shotsAtBothSizes(second, 'shared-session-new-tab');

    // Both tabs stay open past several token lifetimes: each renewal is made once, by one tab.
    const renewalsBefore = refreshTokens.length;
    await first.waitForTimeout(9_000);
    assert.ok(refreshTokens.length > renewalsBefore, 'the session was renewed meanwhile');
    assert.equal(new Set(refreshTokens).size, refreshTokens.length, `a refresh token was sent twice: ${refreshTokens.length} renewals`);
    for (const page of [first, second]) assert.equal(await page.getByRole('dialog', { name: 'Your session has expired' }).count(), 0);
    // Each tab still reads with the renewed session.
    await first.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Home' }).click();
    await first.getByRole('heading', { level: 1 }).first().waitFor();
    await second.reload();
    await second.getByRole('form', { name: 'Edit object' }).getByLabel('Title').waitFor();

    // Signing out in the new tab ends the first one too, without a reload.
    await second.getByRole('button', { name: 'Sign out' }).click();
    await second.getByRole('button', { name: 'Sign in' }).waitFor();
    await first.getByRole('button', { name: 'Sign in' }).waitFor();
    assert.equal(await first.evaluate(() => localStorage.getItem('folio.session')), null);
    assert.deepEqual(tokenInUrl, [], 'no token in any URL');
    await context.close();
  });
});
