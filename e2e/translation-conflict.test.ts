// Admin UI, translations and concurrent edits: the translation editor sends
// If-Match on every PATCH and DELETE of /translations/{id}; a 412 over someone else's save opens
// the conflict dialog (reload theirs / keep mine), never a silent overwrite; a 412 that only means
// the object itself was saved meanwhile (the page's own form) is retried without a question.
// Two pages, each signed in, on one document.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { createObject, expectNoSeriousA11yViolations, signInAs, signInAsAdmin, startE2E, type E2E, untilNewToast } from './helpers/browser.js';

describe('translation editor and concurrent saves', () => {
  let e: E2E;
  let other: Page;
  let token: string;
  let docId: string;
  let translationId: string;
  const stored = async () => (await e.server.request('GET', `/translations/${translationId}`, { token })).body.data.attributes;
  const openItalian = async (page: Page) => {
    await page.goto(`/admin/#/objects/documents/${docId}`);
    await page.getByRole('region', { name: 'Translations' }).getByRole('button', { name: /Italian \(it\)/ }).click();
    const form = page.getByRole('form', { name: 'Italian translation' });
    await form.getByLabel('Title (Italian)').waitFor();
    return form;
  };
  const ifMatchOf = (page: Page, method: string) =>
    page.waitForRequest((r) => r.method() === method && r.url().includes(`/translations/${translationId}`)).then((r) => r.headers()['if-match'] ?? null);

  before(async () => {
    e = await startE2E();
    token = await e.server.adminToken();
    docId = await createObject(e.server, 'documents', { title: 'Opening hours', description: 'When the library is open' });
    const res = await e.server.request('POST', '/translations', {
      token,
      body: { data: { type: 'translations', attributes: { object_id: docId, lang: 'it', status: 'draft', translated_fields: { title: 'Orari', description: 'Quando è aperta' } } } },
    });
    assert.equal(res.status, 201, res.text);
    translationId = res.body.data.id;
    // A second editor (an admin too) in a browser context of its own.
    await e.server.request('POST', '/users', { token, body: { data: { type: 'users', attributes: { username: 'bea', password: 'bea-password-1', name: 'Bea' } } } });
    const bea = (await e.server.request('GET', '/users?filter[username]=bea', { token })).body.data[0].id;
    const admins = (await e.server.request('GET', '/roles?filter[name]=admin', { token })).body.data[0].id;
    await e.server.request('POST', `/users/${bea}/relationships/roles`, { token, body: { data: [{ type: 'roles', id: admins }] } });
    await e.page.setViewportSize({ width: 1024, height: 700 });
    await signInAsAdmin(e.page);
    const context = await e.browser.newContext({ viewport: { width: 1024, height: 700 }, baseURL: e.server.url });
    context.setDefaultTimeout(30_000); // a hang net, as startE2E's
    other = await context.newPage();
    await signInAs(other, 'bea', 'bea-password-1');
  });
  after(async () => {
    await e?.close();
  });

  test('a save after the page saved its own object needs no question, and carries If-Match', async () => {
    const { page } = e;
    const it = await openItalian(page);
    // The object's own form saved: its version moves, the translation did not change.
    await page.getByRole('form', { name: 'Edit object' }).getByLabel('Title').fill('Opening hours (summer)');
    await untilNewToast(page, 'Changes saved.', () => page.keyboard.press('Control+s'));
    await it.getByLabel('Title (Italian)').fill('Orari estivi');
    const sent = ifMatchOf(page, 'PATCH');
    await it.getByRole('button', { name: 'Save translation' }).click();
    await page.getByText('Italian translation saved.').waitFor();
    assert.match((await sent) ?? '', /^"?.+"?$/, 'If-Match sent');
    assert.equal(await page.getByRole('dialog').count(), 0);
    assert.equal((await stored()).translated_fields.title, 'Orari estivi');
  });

  test('two editors: the second save meets the conflict dialog and keeps its own (overwrite)', async () => {
    const { page } = e;
    const mine = await openItalian(other);
    const theirs = page.getByRole('form', { name: 'Italian translation' });
    // Bea opened it before this save: the first page changes the description first.
    await theirs.getByLabel('Description (Italian)').fill('Quando la biblioteca è aperta');
    await theirs.getByRole('button', { name: 'Save translation' }).click();
    await page.getByText('Italian translation saved.').waitFor();

    await mine.getByLabel('Description (Italian)').fill('Orari della biblioteca');
    await mine.getByRole('button', { name: 'Save translation' }).click();
    const dialog = other.getByRole('dialog', { name: 'Someone else changed the Italian translation' });
    await dialog.waitFor();
    const rows = await dialog.getByRole('table', { name: 'Changed since you opened it' }).getByRole('row').allInnerTexts();
    assert.ok(rows.some((r) => r.includes('Quando la biblioteca è aperta') && r.includes('Orari della biblioteca')), rows.join('\n'));
    assert.equal((await stored()).translated_fields.description, 'Quando la biblioteca è aperta', 'nothing overwritten yet');
    await expectNoSeriousA11yViolations(other, 'translation conflict dialog');
    await other.screenshot({ path: 'test-artifacts/translation-conflict.png' });
    await dialog.getByRole('button', { name: 'Overwrite' }).click();
    await other.getByText('Italian translation saved.').waitFor();
    const now = await stored();
    assert.equal(now.translated_fields.description, 'Orari della biblioteca');
    assert.equal(now.translated_fields.title, 'Orari estivi', 'fields Bea did not touch keep the other save');
  });

  test('reload theirs: the form shows the stored translation and the next save goes through', async () => {
    const { page } = e;
    const it = page.getByRole('form', { name: 'Italian translation' });
    await it.getByLabel('Description (Italian)').fill('Una terza versione');
    await it.getByRole('button', { name: 'Save translation' }).click();
    const dialog = page.getByRole('dialog', { name: 'Someone else changed the Italian translation' });
    await dialog.getByText('Bea', { exact: false }).first().waitFor();
    await dialog.getByRole('button', { name: 'Reload' }).click();
    assert.equal(await it.getByLabel('Description (Italian)').inputValue(), 'Orari della biblioteca');
    assert.equal(await it.getByText('Unsaved translation').count(), 0);
    await it.getByLabel('Translation status').selectOption('on');
    await it.getByRole('button', { name: 'Save translation' }).click();
    await page.getByText('Italian translation saved.').waitFor();
    assert.equal((await stored()).status, 'on');
  });

  test('removing a translation someone changed meanwhile is refused in plain words; then it goes with If-Match', async () => {
    const mine = other.getByRole('form', { name: 'Italian translation' });
    await mine.getByRole('button', { name: 'Remove language' }).click();
    const confirm = other.getByRole('dialog', { name: 'Remove the Italian translation?' });
    await confirm.getByRole('button', { name: 'Remove translation' }).click();
    await confirm.getByText('saved the Italian translation while you had it open').waitFor();
    assert.equal((await e.server.request('GET', `/translations/${translationId}`, { token })).status, 200);
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    // Opened afresh: the remove names the version it read.
    await other.reload();
    const fresh = await openItalian(other);
    await fresh.getByRole('button', { name: 'Remove language' }).click();
    const sent = ifMatchOf(other, 'DELETE');
    await other.getByRole('dialog', { name: 'Remove the Italian translation?' }).getByRole('button', { name: 'Remove translation' }).click();
    await other.getByText('Italian translation removed.').waitFor();
    assert.ok(await sent, 'If-Match sent with the DELETE');
    assert.equal((await e.server.request('GET', `/translations/${translationId}`, { token })).status, 404);
  });
});
