// Admin UI, scheduled publishing and terms, in the Rome
// time zone at 1024×700: a publication window set in the object editor (checked before saving,
// stored as UTC); the scheduled chip, the "Scheduled" filter and the home page's Scheduled list;
// the webhook events; an event given two date ranges; a document type associated with Categories
// and Tags given a category and two tags (one new); categories and tags managed on their page.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { createObject, expectNoSeriousA11yViolations, focusReaches, signInAsAdmin, startE2E, untilNewToast, type E2E } from './helpers/browser.js';

describe('admin scheduled publishing, categories, tags and date ranges', () => {
  let e: E2E;
  let page: Page;
  let token: string;
  let docId: string;
  const read = async (path: string) => {
    const res = await e.server.request('GET', path, { token });
    assert.equal(res.status, 200, res.text);
    return res.body.data.attributes as Record<string, any>;
  };
  const post = async (path: string, type: string, attributes: Record<string, unknown>) => {
    const res = await e.server.request('POST', path, { token, body: { data: { type, attributes } } });
    assert.equal(res.status, 201, res.text);
    return String(res.body.data.id);
  };
  const shot = async (name: string) => {
    // Earlier saves' notifications are dismissed, so the picture shows the form.
    const dismiss = page.getByRole('button', { name: 'Dismiss notification' });
    while (await dismiss.count()) await dismiss.first().click();
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: `test-artifacts/${name}.png`, fullPage: true });
  };
  const saveAndWait = async () => {
    await untilNewToast(page, 'Changes saved.', () => page.getByRole('button', { name: 'Save changes' }).click());
  };

  before(async () => {
    e = await startE2E();
    token = await e.server.adminToken();
    // As a BEdita project does: documents get Categories and Tags (events have DateRanges already).
    const { id } = (await e.server.request('GET', '/model/object_types/documents', { token })).body.data;
    const patched = await e.server.request('PATCH', '/model/object_types/documents', { token, body: { data: { id, type: 'object_types', attributes: { associations: ['Categories', 'Tags'] } } } });
    assert.equal(patched.status, 200, patched.text);
    await post('/model/categories', 'categories', { name: 'news', label: 'News', type: 'documents' });
    await post('/model/categories', 'categories', { name: 'sport', label: 'Sport', type: 'documents' });
    await post('/model/tags', 'tags', { name: 'summer', label: 'Summer' });
    docId = await createObject(e.server, 'documents', { title: 'Launch note', status: 'on' });
    await createObject(e.server, 'documents', { title: 'Always on', status: 'on' });
    await createObject(e.server, 'documents', { title: 'Last season', status: 'on', publish_start: '2020-01-01T00:00:00Z', publish_end: '2021-01-01T00:00:00Z' });
    // The editor's own browser context: Rome time, a small laptop screen.
    const context = await e.browser.newContext({ viewport: { width: 1024, height: 700 }, baseURL: e.server.url, timezoneId: 'Europe/Rome' });
    context.setDefaultTimeout(30_000); // a hang net, as startE2E's
    page = await context.newPage();
    await signInAsAdmin(page, `#/objects/documents/${docId}`);
  });
  after(async () => {
    await e?.close();
  });

  test('the window is set in the user’s time zone, checked before saving, and stored as UTC', async () => {
    const group = page.getByRole('group', { name: 'Publication window' });
    await group.getByText('Europe/Rome (UTC+01:00)').waitFor();
    await group.getByLabel('Publish from', { exact: true }).fill('2030-01-15T09:00');
    await group.getByLabel('Publish until', { exact: true }).fill('2030-01-10T09:00');
    await page.getByRole('button', { name: 'Save changes' }).click();
    assert.equal(await group.getByRole('alert').innerText(), '“Publish until” must be later than “Publish from”.');
    assert.equal(await focusReaches(group.getByLabel('Publish until', { exact: true })), true, 'the cursor goes to the field to fix');
    assert.equal((await read(`/documents/${docId}`)).publish_start, null, 'nothing was sent');
    await group.getByLabel('Publish until', { exact: true }).fill('2030-01-20T18:30');
    assert.equal(await group.getByRole('alert').count(), 0, 'the message goes once the field is right');
    await saveAndWait();
    const stored = await read(`/documents/${docId}`);
    assert.match(stored.publish_start, /\+00:00$/);
    assert.equal(new Date(stored.publish_start).toISOString(), '2030-01-15T08:00:00.000Z');
    assert.equal(new Date(stored.publish_end).toISOString(), '2030-01-20T17:30:00.000Z');
    await page.locator('.page-head .badge.scheduled').waitFor();

    // Cleared, saved, and set again: a bound can be removed.
    await group.getByRole('button', { name: 'Clear “Publish until”' }).click();
    await saveAndWait();
    assert.equal((await read(`/documents/${docId}`)).publish_end, null);
  });

  test('a scheduled object shows its chip in the list, the filters find scheduled and expired ones, the home page lists it', async () => {
    await page.goto(`/admin/#/objects/documents`);
    const row = (title: string) => page.getByRole('row').filter({ has: page.getByRole('link', { name: title, exact: true }) });
    await row('Launch note').getByText('scheduled').waitFor();
    await row('Last season').getByText('expired').waitFor();
    assert.equal(await row('Always on').locator('.badge.scheduled, .badge.expired').count(), 0);

    await page.getByLabel('Schedule').selectOption('scheduled');
    await page.getByRole('link', { name: 'Launch note' }).waitFor();
    await page.getByRole('link', { name: 'Always on' }).waitFor({ state: 'detached' });
    assert.deepEqual(await page.locator('tbody tr td:nth-child(2)').allInnerTexts(), ['Launch note']);
    await page.getByLabel('Schedule').selectOption('expired');
    await page.getByRole('link', { name: 'Last season' }).waitFor();
    assert.deepEqual(await page.locator('tbody tr td:nth-child(2)').allInnerTexts(), ['Last season']);
    await shot('publishing-list-expired');

    await page.goto('/admin/#/home');
    const scheduled = page.getByRole('region', { name: 'Scheduled' });
    await scheduled.getByRole('link', { name: 'Launch note' }).waitFor();
    assert.match(await scheduled.getByRole('listitem').first().innerText(), /Launch note.*Document.*Goes live.*2030/s);
    await expectNoSeriousA11yViolations(page, 'home with the Scheduled section');
  });

  test('webhooks can listen to objects going live and offline', async () => {
    await page.goto('/admin/#/webhooks');
    await page.getByRole('button', { name: 'New webhook' }).click();
    const form = page.getByRole('form', { name: 'New webhook' });
    await form.getByLabel('Name').fill('CDN purge');
    await form.getByLabel('URL').fill('https://example.com/purge');
    await form.getByLabel('All events').uncheck();
    await form.getByLabel('Went live (published, or its window opened)').check();
    await form.getByLabel('Went offline (unpublished, or its window closed)').check();
    await form.getByRole('button', { name: 'Create webhook' }).click();
    await page.getByRole('heading', { name: 'CDN purge' }).waitFor();
    const list = await e.server.request('GET', '/webhooks', { token });
    assert.deepEqual([...list.body.data[0].attributes.events].sort(), ['objects.publish', 'objects.unpublish']);
  });

  test('an event gets two date ranges, checked before saving', async () => {
    const eventId = await createObject(e.server, 'events', { title: 'Summer concerts', status: 'draft' });
    await page.goto(`/admin/#/objects/events/${eventId}`);
    const dates = page.getByRole('group', { name: 'Dates' });
    await dates.getByText('No dates yet.').waitFor();
    await dates.getByRole('button', { name: 'Add date range' }).click();
    assert.equal(await focusReaches(dates.getByLabel('Starts (range 1)')), true, 'the new range’s start has the cursor');
    await dates.getByLabel('Starts (range 1)').fill('2030-07-01T21:00');
    await dates.getByLabel('Ends (range 1)').fill('2030-07-01T20:00');
    await dates.getByRole('button', { name: 'Add date range' }).click();
    await dates.getByLabel('Starts (range 2)').fill('2030-07-08T21:00');
    await dates.getByLabel('Ends (range 2)').fill('2030-07-08T23:30');
    await page.getByRole('button', { name: 'Save changes' }).click();
    assert.equal(await dates.getByRole('alert').innerText(), 'The end must be later than the start.');
    assert.deepEqual((await read(`/events/${eventId}`)).date_ranges, [], 'nothing was sent');
    await dates.getByLabel('Ends (range 1)').fill('2030-07-01T23:00');
    await saveAndWait();
    const ranges = (await read(`/events/${eventId}`)).date_ranges as Array<{ start_date: string; end_date: string }>;
    assert.deepEqual(
      ranges.map((r) => [new Date(r.start_date).toISOString(), new Date(r.end_date).toISOString()]),
      [
        ['2030-07-01T19:00:00.000Z', '2030-07-01T21:00:00.000Z'],
        ['2030-07-08T19:00:00.000Z', '2030-07-08T21:30:00.000Z'],
      ],
    );
    await page.emulateMedia({ colorScheme: 'light' });
    await shot('publishing-event-ranges-light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await shot('publishing-event-ranges-dark');
    await expectNoSeriousA11yViolations(page, 'event editor with date ranges, dark');
    await page.emulateMedia({ colorScheme: 'light' });
  });

  test('a document gets a category and two tags (one new) in the editor', async () => {
    await page.goto(`/admin/#/objects/documents/${docId}`);
    const cats = page.getByRole('group', { name: 'Categories' });
    await cats.getByLabel('News').check();
    const tagGroup = page.getByRole('group', { name: 'Tags' });
    await tagGroup.getByLabel('Add a tag').fill('summer');
    await tagGroup.getByLabel('Add a tag').press('Enter');
    await tagGroup.getByLabel('Add a tag').fill('Night Market');
    await tagGroup.getByRole('button', { name: 'Add tag' }).click();
    await tagGroup.getByRole('button', { name: 'Remove tag Night Market' }).waitFor();
    await page.getByLabel('Publish until', { exact: true }).fill('2030-02-01T12:00');
    await saveAndWait();
    const stored = await read(`/documents/${docId}`);
    assert.deepEqual(stored.categories.map((c: { name: string }) => c.name), ['news']);
    assert.deepEqual(stored.tags.map((t: { name: string; label: string }) => [t.name, t.label]).sort(), [
      ['night-market', 'Night Market'],
      ['summer', 'Summer'],
    ]);
    await page.emulateMedia({ colorScheme: 'light' });
    await shot('publishing-document-editor-light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await shot('publishing-document-editor-dark');
    await expectNoSeriousA11yViolations(page, 'document editor with window and terms, dark');
    await page.emulateMedia({ colorScheme: 'light' });
  });

  test('categories and tags are created, disabled and listed on their page', async () => {
    await page.goto('/admin/#/terms');
    const section = page.getByRole('region', { name: 'Categories' });
    await section.getByRole('cell', { name: 'Sport', exact: true }).waitFor();
    await section.getByRole('button', { name: 'New category' }).click();
    const dialog = page.getByRole('dialog', { name: 'New category' });
    await dialog.getByRole('button', { name: 'Create category' }).click();
    assert.equal(await dialog.getByRole('alert').innerText(), 'Give it a label: the words editors see.');
    await dialog.getByLabel('Label', { exact: true }).fill('Local news');
    assert.equal(await dialog.getByLabel('Name', { exact: true }).inputValue(), 'local-news');
    await dialog.getByLabel('Object type').selectOption('documents');
    await dialog.getByLabel('Parent category').selectOption({ label: 'News' });
    // A label in Italian: a bad language code is refused in words, then fixed.
    await dialog.getByRole('button', { name: 'Add a language' }).click();
    await page.keyboard.type('Italian');
    await dialog.getByLabel('Label in Italian').fill('Notizie locali');
    await dialog.getByRole('button', { name: 'Create category' }).click();
    assert.equal(await dialog.getByRole('alert').innerText(), '“Italian” is not a language code: use one like en, it or pt-BR.');
    await dialog.getByLabel('Language', { exact: true }).fill('it');
    await shot('publishing-category-labels-dialog');
    await dialog.getByRole('button', { name: 'Create category' }).click();
    await dialog.waitFor({ state: 'detached' });
    await section.getByRole('cell', { name: 'Local news', exact: true }).waitFor();
    await section.getByRole('button', { name: 'Disable Sport' }).click();
    await section.getByRole('button', { name: 'Enable Sport' }).waitFor();
    const all = await e.server.request('GET', '/model/categories?filter[type]=documents', { token });
    const byName = Object.fromEntries(all.body.data.map((c: { id: string; attributes: Record<string, unknown> }) => [c.attributes.name, c]));
    assert.equal(String(byName['local-news'].attributes.parent_id), String(byName.news.id));
    assert.deepEqual(byName['local-news'].attributes.labels, { default: 'Local news', it: 'Notizie locali' });
    assert.equal(byName.sport.attributes.enabled, false);
    await page.getByRole('region', { name: 'Tags' }).getByRole('cell', { name: 'Night Market', exact: true }).waitFor();
    await shot('publishing-terms-page-light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await expectNoSeriousA11yViolations(page, 'categories and tags page, dark');
    await shot('publishing-terms-page-dark');
  });

  test('an object type gets associations and becomes translatable on its model page', async () => {
    await page.goto('/admin/#/model/events');
    const form = page.getByRole('form', { name: 'Object type' });
    const associations = form.getByRole('group', { name: 'Associations' });
    assert.equal(await associations.getByRole('checkbox', { name: /Date ranges/ }).isChecked(), true, 'events have DateRanges already');
    await associations.getByRole('checkbox', { name: /Tags/ }).check();
    await associations.getByRole('checkbox', { name: /Categories/ }).uncheck();
    await form.getByRole('checkbox', { name: 'Translatable' }).check();
    await form.getByRole('button', { name: 'Save changes' }).click();
    await form.getByText('Changes saved.').waitFor();
    const events = await read('/model/object_types/events');
    assert.deepEqual([...events.associations].sort(), ['DateRanges', 'Tags']);
    assert.equal(events.is_translatable, true);
    await shot('publishing-type-associations');
  });
});
