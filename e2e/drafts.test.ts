// Admin UI, drafts of published objects (issue 45): an editor without `publish` changes a published
// document — its title and body, a relation, its folder and an Italian translation — each saved into
// its draft (and they are told so), the live document stays, reopening shows the draft's values —
// submits it for review and finds it on Home and in the list filtered by "Has a draft"; a publisher
// finds it on Home, sees what it changes field by field (relations, folders and translations too),
// opens the preview (no sign-in), publishes it — someone changed the live document meanwhile, so the
// edit-conflict dialog asks first — and schedules another draft, which goes live at that instant,
// and discards a third. Both days are photographed in both themes at 1024×700 and 1366×850, and
// checked with axe. (Browser tests run on SQLite only: scripts/run-tests.mjs sends server tests
// alone to PostgreSQL; server/test/drafts.test.ts covers the API on both.)
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import sharp from 'sharp';
import { createObject, createRestrictedUser, expectNoSeriousA11yViolations, signInAs, startE2E, typeInEditor, untilEqual, untilNewToast, type E2E } from './helpers/browser.js';

describe('admin drafts, review and preview', () => {
  let e: E2E;
  let token: string;
  let docId: string;
  let laterId: string;
  let editorToken: string;
  let editorId: string;
  let ferryId: string;
  let folderId: string;
  const live = async (id: string) => {
    const res = await e.server.request('GET', `/documents/${id}`, { token });
    assert.equal(res.status, 200, res.text);
    return res.body.data.attributes as Record<string, any>;
  };
  const draftOf = async (id: string) => e.server.request('GET', `/drafts/${id}`, { token });
  const shot = async (page: Page, name: string) => {
    const dismiss = page.getByRole('button', { name: 'Dismiss notification' });
    while (await dismiss.count()) await dismiss.first().click();
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: `test-artifacts/${name}.png`, fullPage: true });
  };
  /** The same page at both widths and in both themes. */
  const shots = async (page: Page, name: string) => {
    for (const [w, h] of [[1024, 700], [1366, 850]] as const) {
      await page.setViewportSize({ width: w, height: h });
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        await shot(page, `drafts-${name}-${w}-${scheme}`);
        await expectNoSeriousA11yViolations(page, `${name} at ${w} in the ${scheme} theme`);
      }
    }
    await page.emulateMedia({ colorScheme: 'light' });
  };
  const contextAt = async (width: number, height: number): Promise<BrowserContext> => {
    const context = await e.browser.newContext({ viewport: { width, height }, baseURL: e.server.url });
    context.setDefaultTimeout(30_000);
    return context;
  };

  before(async () => {
    e = await startE2E();
    token = await e.server.adminToken();
    // A published picture, the document's poster and an image in its body.
    const png = await sharp({ create: { width: 800, height: 360, channels: 3, background: '#2f6db5' } }).png().toBuffer();
    const up = await e.server.request('POST', '/images/upload/harbour.png', { token, raw: png, headers: { 'Content-Type': 'image/png' } });
    assert.equal(up.status, 201, up.text);
    const imageId = String(up.body.data.id);
    const on = await e.server.request('PATCH', `/images/${imageId}`, { token, body: { data: { id: imageId, type: 'images', attributes: { status: 'on', title: 'Harbour' } } } });
    assert.equal(on.status, 200, on.text);
    const src = String(on.body.data.meta.media_url);
    docId = await createObject(e.server, 'documents', {
      title: 'Harbour opening',
      description: 'The new harbour opens in spring.',
      body: `<p>The harbour opens on 1 April.</p><p><img src="${src}" alt="The new quay"></p>`,
      status: 'on',
    });
    const poster = await e.server.request('POST', `/documents/${docId}/relationships/poster`, { token, body: { data: [{ type: 'images', id: imageId }] } });
    assert.ok(poster.status < 300, poster.text);
    laterId = await createObject(e.server, 'documents', { title: 'Summer timetable', body: '<p>Ferries every hour.</p>', status: 'on' });
    ferryId = await createObject(e.server, 'documents', { title: 'Ferry prices', body: '<p>Two euros a crossing.</p>', status: 'on' });
    folderId = await createObject(e.server, 'folders', { title: 'Magazine', status: 'on' });
    // Filing is a change of the folder too: both may change folders; only the publisher publishes.
    editorToken = await createRestrictedUser(e.server, 'eddie', 'eddie-password-1', { documents: ['read', 'create', 'update'], images: ['read'], folders: ['read', 'update'] });
    editorId = String((await e.server.request('GET', '/auth', { token: editorToken })).body.data.id);
    await createRestrictedUser(e.server, 'pia', 'pia-password-1', { documents: ['read', 'create', 'update', 'delete', 'publish'], images: ['read'], folders: ['read', 'update', 'publish'] });
  });
  after(async () => {
    await e?.close();
  });

  test('an editor without publish saves a published document, its relation, folder and translation into its draft, is told so, and submits it', async () => {
    const context = await contextAt(1024, 700);
    const page = await context.newPage();
    await signInAs(page, 'eddie', 'eddie-password-1', `#/objects/documents/${docId}`);
    await page.getByText('your changes are saved as a draft for a publisher to review').waitFor();
    // The title and the body.
    const form = page.getByRole('form', { name: 'Edit object' });
    await form.getByLabel('Title').fill('Harbour opening day');
    await page.getByRole('textbox', { name: 'Body' }).getByText('The harbour opens on 1 April.').click();
    await page.keyboard.press('End');
    await typeInEditor(page, ' Boats dock from noon.');
    await untilNewToast(page, 'Changes saved to the draft: a publisher will review them.', () => page.getByRole('button', { name: 'Save changes' }).click());
    assert.equal((await live(docId)).title, 'Harbour opening', 'the live document is unchanged');
    const saved = await draftOf(docId);
    assert.equal(saved.status, 200, saved.text);
    assert.equal(saved.body.data.attributes.title, 'Harbour opening day');
    assert.match(saved.body.data.attributes.body, /The harbour opens on 1 April\. Boats dock from noon\./);
    assert.equal(String(saved.body.data.meta.draft.modified_by), editorId);

    // A relation: the panel is open to the editor, and the change goes into the draft.
    const relation = page.getByRole('group', { name: 'See also', exact: true });
    await relation.getByRole('button', { name: /^See also/ }).click();
    await relation.getByRole('button', { name: 'Add to See also' }).click();
    await relation.getByLabel('Find objects to add to See also').fill('Ferry');
    await relation.getByRole('button', { name: 'Find' }).click();
    await untilNewToast(page, '“Ferry prices” added to See also: saved to the draft.', () => relation.getByRole('button', { name: 'Add Ferry prices' }).click());
    await relation.getByRole('link', { name: 'Ferry prices' }).waitFor();
    await relation.getByText('Changed in the draft').waitFor();
    await relation.getByRole('button', { name: 'Done' }).click();

    // A folder.
    const folders = page.getByRole('region', { name: 'Folders' });
    await folders.getByRole('button', { name: 'Add to folder…' }).click();
    const picker = page.getByRole('dialog', { name: 'Add “Harbour opening” to a folder' });
    await picker.getByRole('treeitem').first().focus();
    await untilNewToast(page, 'added to “Magazine”: saved to the draft.', () => page.keyboard.press('Enter'));
    await folders.getByRole('link', { name: 'Magazine' }).waitFor();

    // An Italian translation.
    const translationsPanel = page.getByRole('region', { name: 'Translations' });
    await translationsPanel.getByRole('button', { name: 'Add language' }).click();
    const addLanguage = page.getByRole('dialog', { name: 'Add a language' });
    await addLanguage.getByLabel('Language').fill('it');
    await addLanguage.getByRole('button', { name: 'Add language' }).click();
    const italian = page.getByRole('form', { name: 'Italian translation' });
    await italian.getByLabel('Title (Italian)').fill('Apertura del porto');
    await untilNewToast(page, 'Italian translation saved to the draft.', () => italian.getByRole('button', { name: 'Save translation' }).click());
    await translationsPanel.getByRole('button', { name: /Italian \(it\).*unpublished/ }).waitFor();

    // All of it in the draft; none of it live.
    const held = (await draftOf(docId)).body.data;
    assert.deepEqual([...held.meta.draft.changed].sort(), ['body', 'parents', 'see_also', 'title', 'translations']);
    assert.deepEqual(held.relationships.see_also.data, [{ type: 'documents', id: ferryId }]);
    assert.deepEqual(held.relationships.parents.data, [{ type: 'folders', id: folderId }]);
    assert.deepEqual(held.meta.draft.translations, { it: { status: 'draft', translated_fields: { title: 'Apertura del porto' } } });
    const seeAlso = await e.server.request('GET', `/documents/${docId}/see_also`, { token });
    assert.equal(seeAlso.body.data.length, 0, 'no live relation');
    const parents = await e.server.request('GET', `/documents/${docId}/parents`, { token });
    assert.equal(parents.body.data.length, 0, 'in no folder yet');
    const liveTranslations = await e.server.request('GET', `/documents/${docId}/translations`, { token });
    assert.equal(liveTranslations.body.data.length, 0, 'no live translation');

    const banner = page.getByRole('heading', { name: /This document has unpublished changes by you/ });
    await banner.waitFor();
    await untilNewToast(page, 'Submitted for review', () => page.getByRole('button', { name: 'Submit for review' }).click());
    await page.getByText(/Submitted for review on/).waitFor();
    assert.ok((await draftOf(docId)).body.data.meta.draft.submitted, 'the draft is submitted');
    assert.equal(await page.getByRole('button', { name: 'Publish changes' }).count(), 0, 'no publishing without publish');
    await shots(page, 'editor-saved');

    // Reopened: the form and the panels show the draft's values, not the live ones.
    await page.reload();
    await banner.waitFor();
    assert.equal(await page.getByRole('form', { name: 'Edit object' }).getByLabel('Title').inputValue(), 'Harbour opening day');
    await page.getByRole('group', { name: 'See also', exact: true }).getByRole('link', { name: 'Ferry prices' }).waitFor();
    await page.getByRole('region', { name: 'Folders' }).getByRole('link', { name: 'Magazine' }).waitFor();
    await page.getByRole('region', { name: 'Translations' }).getByRole('button', { name: /Italian \(it\)/ }).waitFor();
    await shots(page, 'editor-reopened');

    // Home: the editor's own unpublished changes.
    await page.goto('/admin/#/home');
    const mine = page.getByRole('region', { name: 'My unpublished changes' });
    await mine.getByRole('link', { name: 'Harbour opening day' }).waitFor();
    await mine.getByText('In review').waitFor();
    assert.equal(await page.getByRole('region', { name: 'Waiting for review' }).count(), 0, 'no review queue without publish');
    await shots(page, 'editor-home');

    // The Drafts view: every draft the editor may change, filtered by review state.
    await mine.getByRole('link', { name: 'All drafts' }).click();
    await page.getByRole('heading', { name: 'Drafts', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Harbour opening day' }).waitFor();
    await page.getByLabel('Review').selectOption('not-submitted');
    await page.getByRole('link', { name: 'Harbour opening day' }).waitFor({ state: 'detached' });
    await page.getByText('No published object has unpublished changes here.').waitFor();
    await page.getByLabel('Review').selectOption('submitted');
    await page.getByLabel('Only my changes').check();
    await page.getByRole('link', { name: 'Harbour opening day' }).waitFor();
    await shots(page, 'editor-drafts-view');

    // The documents' list: marked, and found by "Has a draft" (the live title: lists show the live object).
    await page.goto('/admin/#/objects/documents');
    const row = page.getByRole('row', { name: /Harbour opening/ });
    await row.getByText('Draft in review').waitFor();
    await page.getByLabel(/^Draft/).selectOption('1');
    await page.getByRole('link', { name: 'Ferry prices' }).waitFor({ state: 'detached' });
    await row.waitFor();
    assert.equal(await page.getByRole('link', { name: 'Summer timetable' }).count(), 0);
    await shots(page, 'editor-list-has-draft');
    await page.getByLabel(/^Draft/).selectOption('0');
    await page.getByRole('link', { name: 'Ferry prices' }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'Harbour opening' }).count(), 0);
    await context.close();
  });

  test('a publisher finds it on Home, sees the differences, previews and publishes it', async () => {
    const context = await contextAt(1366, 850);
    const page = await context.newPage();
    await signInAs(page, 'pia', 'pia-password-1', '#/home');
    const review = page.getByRole('region', { name: 'Waiting for review' });
    await review.getByRole('link', { name: 'Harbour opening day' }).waitFor();
    await shots(page, 'publisher-home');
    await review.getByRole('link', { name: 'Harbour opening day' }).click();

    const changes = page.getByRole('table', { name: 'Changes in the draft' });
    await changes.waitFor();
    // The relations', folders' and translation's rows follow the fields' once their titles are read.
    const rows = async () => (await changes.locator('tbody tr').allInnerTexts()).map((r) => r.split('\t').map((c) => c.trim()));
    const quay = 'The harbour opens on 1 April.';
    await untilEqual(
      rows,
      [
        ['Title', 'Harbour opening', 'Harbour opening day'],
        ['Body', quay, `${quay} Boats dock from noon.`],
        ['See also', 'none', 'Ferry prices'],
        ['Folders', 'none', 'Magazine'],
        ['Italian translation', 'none', 'Draft (new)'],
        ['Title (Italian)', 'not set', 'Apertura del porto'],
      ],
      'the rows of the changes table',
    );
    // The publisher's form edits the live document.
    assert.equal(await page.getByRole('form', { name: 'Edit object' }).getByLabel('Title').inputValue(), 'Harbour opening');
    await shots(page, 'publisher-review');

    // Preview: a new tab, read with the token alone.
    const [popup] = await Promise.all([context.waitForEvent('page'), page.getByRole('button', { name: 'Preview' }).click()]);
    await popup.waitForLoadState();
    assert.match(popup.url(), new RegExp(`/admin/preview/${docId}\\?token=`));
    await popup.getByRole('heading', { name: 'Harbour opening day' }).waitFor();
    await popup.getByText('The harbour opens on 1 April.').waitFor();
    // The body's image and the poster are shown (loaded, not broken).
    await popup.waitForFunction(() => [...document.querySelectorAll('img')].filter((i) => i.complete && i.naturalWidth > 0).length === 2);
    assert.equal(await popup.getByRole('img', { name: 'The new quay' }).count(), 1);
    assert.equal(await popup.locator('img.preview-poster').count(), 1);
    assert.equal(await popup.getByRole('button', { name: 'Sign out' }).count(), 0, 'the preview tab is not the admin');
    for (const [w, h] of [[1024, 700], [1366, 850]] as const) {
      await popup.setViewportSize({ width: w, height: h });
      for (const scheme of ['light', 'dark'] as const) {
        await popup.emulateMedia({ colorScheme: scheme });
        await popup.screenshot({ path: `test-artifacts/drafts-preview-${w}-${scheme}.png`, fullPage: true });
        await expectNoSeriousA11yViolations(popup, `preview at ${w} in the ${scheme} theme`);
      }
    }
    // The hash form of the same page works too, in a fresh context (no one signed in).
    const stranger = await contextAt(1024, 700);
    const anon = await stranger.newPage();
    const url = new URL(popup.url());
    await anon.goto(`/admin/#/preview/${docId}?token=${encodeURIComponent(url.searchParams.get('token')!)}`);
    await anon.getByRole('heading', { name: 'Harbour opening day' }).waitFor();
    await stranger.close();
    await popup.close();
    assert.equal((await live(docId)).title, 'Harbour opening', 'still unchanged after the preview');

    // Someone changes the live document meanwhile: publishing asks first, in the edit-conflict dialog.
    const meanwhile = await e.server.request('PATCH', `/documents/${docId}`, { token, body: { data: { id: docId, type: 'documents', attributes: { description: 'Opens in April.' } } } });
    assert.equal(meanwhile.status, 200, meanwhile.text);
    await page.getByRole('button', { name: 'Publish changes' }).click();
    const conflict = page.getByRole('dialog', { name: 'Someone else changed this document' });
    await conflict.getByText(/while you were reviewing the draft\. Nothing is published yet\./).waitFor();
    const theirs = await conflict.getByRole('table', { name: 'Changed since you opened it' }).locator('tbody tr').allInnerTexts();
    assert.deepEqual(
      theirs.map((r) => r.split('\t').map((c) => c.trim())),
      [['Description', 'Opens in April.', 'the draft does not change it: theirs is kept']],
    );
    assert.equal((await live(docId)).title, 'Harbour opening', 'nothing published before the choice');
    await shots(page, 'publisher-conflict');
    await untilNewToast(page, 'Changes published.', () => conflict.getByRole('button', { name: 'Overwrite' }).click());
    await untilEqual(async () => (await live(docId)).title, 'Harbour opening day', 'the live title');
    const now = await live(docId);
    assert.equal(now.description, 'Opens in April.', 'their change is kept');
    assert.match(now.body, /Boats dock from noon\./);
    assert.deepEqual((await e.server.request('GET', `/documents/${docId}/see_also`, { token })).body.data.map((r: { id: string }) => r.id), [ferryId]);
    assert.deepEqual((await e.server.request('GET', `/documents/${docId}/parents`, { token })).body.data.map((r: { id: string }) => r.id), [folderId]);
    const published = (await e.server.request('GET', `/documents/${docId}/translations`, { token })).body.data;
    assert.deepEqual(published.map((t: { attributes: { lang: string; translated_fields: { title: string } } }) => [t.attributes.lang, t.attributes.translated_fields.title]), [['it', 'Apertura del porto']]);
    assert.equal((await draftOf(docId)).status, 404, 'the draft is gone');
    await page.getByRole('heading', { name: /unpublished changes/ }).waitFor({ state: 'detached' });
    assert.equal(await page.getByRole('form', { name: 'Edit object' }).getByLabel('Title').inputValue(), 'Harbour opening day');
    await context.close();
  });

  test('a publisher schedules a draft, which goes live at that instant; a draft changed meanwhile is shown again first; a discarded draft changes nothing', async () => {
    const saved = await e.server.request('PATCH', `/drafts/${laterId}`, { token: editorToken, body: { data: { id: laterId, type: 'documents', attributes: { title: 'Summer timetable 2026' } } } });
    assert.equal(saved.status, 200, saved.text);
    const context = await contextAt(1024, 700);
    const page = await context.newPage();
    await signInAs(page, 'pia', 'pia-password-1', `#/objects/documents/${laterId}`);
    // The publisher may not read /users: the draft names its writer.
    await page.getByRole('heading', { name: /This document has unpublished changes by eddie/ }).waitFor();
    const changes = page.getByRole('table', { name: 'Changes in the draft' });
    await changes.getByText('Summer timetable 2026').waitFor();
    // The editor changes the draft while the publisher reads it: it does not go live unseen.
    const changed = await e.server.request('PATCH', `/drafts/${laterId}`, { token: editorToken, body: { data: { id: laterId, type: 'documents', attributes: { title: 'Summer timetable 2027' } } } });
    assert.equal(changed.status, 200, changed.text);
    await untilNewToast(page, 'eddie changed it since you opened it: check its changes again.', () => page.getByRole('button', { name: 'Publish changes' }).click());
    await changes.getByText('Summer timetable 2027').waitFor();
    assert.equal((await live(laterId)).title, 'Summer timetable', 'not published');
    // A few seconds from now, in the local time zone (the browser's, on this machine).
    const d = new Date(Date.now() + 30_000);
    const p = (n: number) => String(n).padStart(2, '0');
    const local = `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
    await page.getByLabel('Go live on').fill(local);
    await untilNewToast(page, 'The changes go live on', () => page.getByRole('button', { name: 'Schedule', exact: true }).click());
    await page.getByText(/They go live on/).waitFor();
    assert.ok((await draftOf(laterId)).body.data.meta.draft.publish_at, 'publish_at is stored');
    assert.equal((await live(laterId)).title, 'Summer timetable', 'not yet live');
    await shots(page, 'publisher-scheduled');
    // Home's Scheduled list names the change to come.
    await page.goto('/admin/#/home');
    const scheduled = page.getByRole('region', { name: 'Scheduled' });
    await scheduled.getByRole('link', { name: 'Summer timetable 2027' }).waitFor();
    await scheduled.getByText('Changes go live').waitFor();
    assert.equal((await live(laterId)).title, 'Summer timetable', 'still not live');
    await untilEqual(async () => (await live(laterId)).title, 'Summer timetable 2027', 'the live title after the scheduled instant');

    // Discard: asked first, the live document stays.
    const again = await e.server.request('PATCH', `/drafts/${laterId}`, { token: editorToken, body: { data: { id: laterId, type: 'documents', attributes: { title: 'Winter timetable' } } } });
    assert.equal(again.status, 200, again.text);
    await page.goto(`/admin/#/objects/documents/${laterId}`);
    await page.getByRole('button', { name: 'Discard draft' }).click();
    const dialog = page.getByRole('dialog', { name: 'Discard this draft?' });
    await dialog.getByRole('button', { name: 'Discard draft' }).click();
    await page.getByRole('heading', { name: /unpublished changes/ }).waitFor({ state: 'detached' });
    assert.equal((await draftOf(laterId)).status, 404);
    assert.equal((await live(laterId)).title, 'Summer timetable 2027');
    await context.close();
  });
});
