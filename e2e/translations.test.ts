// Admin UI, translations and choice lists: a document
// translated into Italian and French in the side-by-side editor (original beside translation,
// rich text for the body), checked before saving, guarded when left unsaved, edited, one language
// removed after a confirm; the list shows each object's languages; an anonymous reader gets the
// translation with ?lang. On the model page, a choice-list property type and a property using it,
// shown as a select in the object editor.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createObject, expectNoSeriousA11yViolations, focusReaches, signInAsAdmin, startE2E, typeInEditor, untilNewToast, type E2E } from './helpers/browser.js';

describe('admin translations and choice lists', () => {
  let e: E2E;
  let token: string;
  let docId: string;
  const translationsOf = async () => {
    const res = await e.server.request('GET', `/translations?filter[object_id]=${docId}&sort=lang`, { token });
    assert.equal(res.status, 200);
    return res.body.data.map((t: { attributes: Record<string, unknown> }) => ({ lang: t.attributes.lang, status: t.attributes.status, fields: t.attributes.translated_fields }));
  };
  const panel = () => e.page.getByRole('region', { name: 'Translations' });
  const editor = (language: string) => e.page.getByRole('form', { name: `${language} translation` });
  const addLanguage = () => e.page.getByRole('dialog', { name: 'Add a language' });

  before(async () => {
    e = await startE2E();
    await e.page.setViewportSize({ width: 1024, height: 700 });
    token = await e.server.adminToken();
    docId = await createObject(e.server, 'documents', {
      title: 'Opening hours',
      description: 'When the library is open',
      body: '<h2>Every day</h2><p>Open <strong>daily</strong> from nine to <em>six</em>.</p><ul><li>Closed on holidays</li></ul>',
      status: 'on',
    });
    await signInAsAdmin(e.page, `#/objects/documents/${docId}`);
    await panel().waitFor();
  });
  after(async () => {
    await e?.close();
  });

  test('"Add language" refuses a bad tag, then opens the side-by-side editor with the original beside each field', async () => {
    const { page } = e;
    await panel().getByText('Only in its original language.').waitFor();
    await panel().getByRole('button', { name: 'Add language' }).click();
    await addLanguage().getByLabel('Language').fill('not a tag!');
    await addLanguage().getByRole('button', { name: 'Add language' }).click();
    assert.match(await addLanguage().getByRole('alert').innerText(), /is not a language tag\. Use a tag such as it, fr or pt-BR\./);
    assert.equal(await addLanguage().getByLabel('Language').getAttribute('aria-invalid'), 'true');
    await addLanguage().getByLabel('Language').fill('it');
    await addLanguage().getByText('Italian (it)').waitFor();
    await addLanguage().getByRole('button', { name: 'Add language' }).click();
    await addLanguage().waitFor({ state: 'detached' });

    const it = editor('Italian');
    await it.waitFor();
    assert.equal(await focusReaches(it.getByLabel('Title (Italian)')), true, 'the cursor waits in the first field');
    // The originals, read-only, beside their inputs; the body as formatted text.
    assert.equal(await it.locator('.translation-original .original-text').first().innerText(), 'Opening hours');
    await it.locator('.rich-preview h2', { hasText: 'Every day' }).waitFor();
    await it.locator('.rich-preview strong', { hasText: 'daily' }).waitFor();
    assert.equal(await page.getByRole('textbox', { name: 'Body (Italian)' }).count(), 1, 'the body is translated in the rich-text editor');

    // Nothing written yet: nothing to save.
    await it.getByRole('button', { name: 'Save translation' }).click();
    assert.match(await it.getByRole('alert').innerText(), /Nothing to save — Write the Italian text of at least one field first\./);
  });

  test('the Italian translation is written side by side and saved published; the API holds its fields and status', async () => {
    const { page } = e;
    const it = editor('Italian');
    await it.getByLabel('Title (Italian)').fill('Orari di apertura');
    await it.getByLabel('Description (Italian)').fill('Quando la biblioteca è aperta');
    await page.getByRole('textbox', { name: 'Body (Italian)' }).click();
    await typeInEditor(page, 'Aperto ');
    await page.keyboard.press('Control+b');
    await typeInEditor(page, 'tutti i giorni');
    await page.keyboard.press('Control+b');
    await it.getByLabel('Translation status').selectOption('on');
    await it.getByText('Unsaved translation').waitFor();
    await it.getByRole('button', { name: 'Save translation' }).click();
    await page.getByRole('status').filter({ hasText: 'Italian translation saved.' }).waitFor();
    await panel().getByRole('button', { name: /Italian \(it\) on/i }).waitFor();
    assert.deepEqual(await translationsOf(), [
      { lang: 'it', status: 'on', fields: { title: 'Orari di apertura', description: 'Quando la biblioteca è aperta', body: '<p>Aperto <strong>tutti i giorni</strong></p>' } },
    ]);
  });

  test('the side-by-side editor at 1024×700, light and dark', async () => {
    const { page } = e;
    // The panel's top (its languages) just under the sticky bars; no toast over the form.
    for (const close of await page.getByRole('button', { name: 'Dismiss notification' }).all()) await close.click();
    await panel().evaluate((el) => window.scrollTo(0, el.getBoundingClientRect().top + window.scrollY - 118));
    await e.shot('translations-editor', { viewport: true });
    await expectNoSeriousA11yViolations(page, 'translation editor (light)');
    await page.emulateMedia({ colorScheme: 'dark' });
    await e.shot('translations-editor-dark', { viewport: true });
    await expectNoSeriousA11yViolations(page, 'translation editor (dark)');
    await page.emulateMedia({ colorScheme: 'light' });
  });

  test('the object’s own save after a translation write needs no conflict dialog (the page took the new version)', async () => {
    const { page } = e;
    const form = page.getByRole('form', { name: 'Edit object' });
    await form.getByLabel('Title *', { exact: true }).fill('Opening hours and holidays');
    await untilNewToast(page, 'Changes saved.', () => form.getByRole('button', { name: 'Save changes' }).click());
    assert.equal(await page.getByRole('dialog', { name: 'Someone else changed this object' }).count(), 0);
    const res = await e.server.request('GET', `/documents/${docId}`, { token });
    assert.equal(res.body.data.attributes.title, 'Opening hours and holidays');
  });

  test('a second language: the one it has is refused, a name is understood, and a draft French translation is saved', async () => {
    const { page } = e;
    await panel().getByRole('button', { name: 'Add language' }).click();
    await addLanguage().getByLabel('Language').fill('it');
    await addLanguage().getByRole('button', { name: 'Add language' }).click();
    assert.match(await addLanguage().getByRole('alert').innerText(), /This object already has a translation in Italian\./);
    await addLanguage().getByLabel('Language').fill('French');
    await addLanguage().getByRole('button', { name: 'Add language' }).click();
    const fr = editor('French');
    await fr.getByLabel('Title (French)').fill('Heures d’ouverture');
    await fr.getByRole('button', { name: 'Save translation' }).click();
    await page.getByRole('status').filter({ hasText: 'French translation saved.' }).waitFor();
    assert.deepEqual(await translationsOf(), [
      { lang: 'fr', status: 'draft', fields: { title: 'Heures d’ouverture' } },
      { lang: 'it', status: 'on', fields: { title: 'Orari di apertura', description: 'Quando la biblioteca è aperta', body: '<p>Aperto <strong>tutti i giorni</strong></p>' } },
    ]);
  });

  test('leaving with an unsaved translation asks first; an edit saves only what changed', async () => {
    const { page } = e;
    await panel().getByRole('button', { name: /Italian \(it\)/ }).click();
    const it = editor('Italian');
    await it.getByLabel('Title (Italian)').fill('Orari di apertura e festività');
    await page.getByRole('link', { name: 'Home' }).first().click();
    const leave = page.getByRole('dialog', { name: 'Unsaved changes' });
    await leave.waitFor();
    await leave.getByRole('button', { name: 'Stay on this page' }).click();
    // Switching language asks too.
    await panel().getByRole('button', { name: /French \(fr\)/ }).click();
    await leave.waitFor();
    await leave.getByRole('button', { name: 'Stay on this page' }).click();
    const patch = page.waitForResponse((r) => r.request().method() === 'PATCH' && r.url().includes('/translations/'));
    await it.getByRole('button', { name: 'Save translation' }).click();
    assert.deepEqual((await patch).request().postDataJSON().data.attributes, { translated_fields: { title: 'Orari di apertura e festività' } });
    await page.getByRole('status').filter({ hasText: 'Italian translation saved.' }).last().waitFor();
    const [, italian] = await translationsOf();
    assert.equal(italian.fields.title, 'Orari di apertura e festività');
    assert.equal(italian.fields.description, 'Quando la biblioteca è aperta', 'other fields are kept');
  });

  test('removing a language asks for confirmation; the list shows the languages left', async () => {
    const { page } = e;
    await panel().getByRole('button', { name: /French \(fr\)/ }).click();
    await editor('French').getByRole('button', { name: 'Remove language' }).click();
    const confirm = page.getByRole('dialog', { name: 'Remove the French translation?' });
    await confirm.getByRole('button', { name: 'Remove translation' }).click();
    await page.getByRole('status').filter({ hasText: 'French translation removed.' }).waitFor();
    assert.deepEqual((await translationsOf()).map((t: { lang: string }) => t.lang), ['it']);
    assert.equal(await panel().getByRole('button', { name: /French/ }).count(), 0);

    await page.goto('/admin/#/objects/documents');
    const row = page.getByRole('row', { name: /Opening hours and holidays/ });
    const languages = row.locator('.languages-cell');
    await languages.getByText('it').waitFor();
    assert.equal(await languages.textContent(), 'it (Italian, published)');
  });

  test('an anonymous reader gets the Italian translation with ?lang=it', async () => {
    const res = await e.server.request('GET', `/documents/${docId}?lang=it`);
    assert.equal(res.status, 200);
    const included = res.body.included.find((r: { type: string }) => r.type === 'translations');
    assert.equal(included.attributes.lang, 'it');
    assert.equal(included.attributes.translated_fields.title, 'Orari di apertura e festività');
    assert.deepEqual(res.body.data.relationships.translations.data, [{ type: 'translations', id: included.id }]);
  });

  test('the model page makes a choice-list property type and a property using it; the object editor shows a select that saves', async () => {
    const { page } = e;
    await page.goto('/admin/#/model');
    await page.getByRole('cell', { name: 'string', exact: true }).waitFor();
    const form = page.getByRole('form', { name: 'New choice list' });
    await form.getByLabel('Name').fill('Colour choice');
    await form.getByRole('button', { name: 'Create choice list' }).click();
    assert.match(await form.getByRole('alert').innerText(), /lower-case letters/);
    await form.getByLabel('Name').fill('colour_choice');
    await form.getByRole('button', { name: 'Create choice list' }).click();
    assert.match(await form.getByRole('alert').innerText(), /at least one choice/);
    await form.getByLabel('Choices').fill('red\ngreen\nred');
    await form.getByRole('button', { name: 'Create choice list' }).click();
    assert.match(await form.getByRole('alert').innerText(), /“red” is listed twice/);
    await form.getByLabel('Choices').fill('red\ngreen\nblue');
    await form.getByRole('button', { name: 'Create choice list' }).click();
    await page.getByRole('cell', { name: 'red, green, blue' }).waitFor();
    const created = await e.server.request('GET', '/model/property_types/colour_choice', { token });
    assert.deepEqual(created.body.data.attributes.params, { type: 'string', enum: ['red', 'green', 'blue'] });
    await e.shot('model-property-types');

    await page.goto('/admin/#/model/documents');
    const prop = page.getByRole('form', { name: 'New property' });
    await prop.getByLabel('Property name').fill('colour');
    await prop.getByLabel('Property type').selectOption('colour_choice');
    await prop.getByRole('button', { name: 'Add property' }).click();
    await page.getByRole('cell', { name: 'colour', exact: true }).waitFor();

    await page.goto('/admin/#/model');
    await page.getByRole('button', { name: 'Edit colour_choice' }).click();
    const editDialog = page.getByRole('dialog', { name: 'Edit colour_choice' });
    await editDialog.getByLabel('Choices').fill('red\ngreen\nblue\nyellow');
    await editDialog.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('cell', { name: 'red, green, blue, yellow' }).waitFor();
    await page.getByRole('button', { name: 'Delete' }).last().click();
    const del = page.getByRole('dialog', { name: 'Delete this property type?' });
    await del.getByRole('button', { name: 'Delete' }).click();
    assert.match(await del.getByRole('alert').innerText(), /Some properties use this property type/);
    await del.getByRole('button', { name: 'Cancel' }).click();

    await page.goto(`/admin/#/objects/documents/${docId}`);
    const edit = page.getByRole('form', { name: 'Edit object' });
    const select = edit.getByRole('combobox', { name: 'Colour' });
    await select.waitFor();
    assert.deepEqual(await select.locator('option').allInnerTexts(), ['—', 'red', 'green', 'blue', 'yellow']);
    await select.selectOption('green');
    await untilNewToast(page, 'Changes saved.', () => edit.getByRole('button', { name: 'Save changes' }).click());
    const res = await e.server.request('GET', `/documents/${docId}`, { token });
    assert.equal(res.body.data.attributes.colour, 'green');
    // The type's text fields are translatable; a choice is not.
    await panel().getByRole('button', { name: /Italian \(it\)/ }).click();
    assert.equal(await editor('Italian').getByLabel('Colour (Italian)').count(), 0);
  });
});
