// Admin UI, the model as a file: Export downloads the model; Import sends a file as a dry run and
// shows its differences (nothing applied yet); Apply applies them; a file that is not JSON, or that
// the server refuses, is explained in plain words.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { expectNoSeriousA11yViolations, focusReaches, signInAsAdmin, startE2E, type E2E } from './helpers/browser.js';

describe('admin model file', () => {
  let e: E2E;
  let token: string;
  let exported: any;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-model-file-'));
  const api = (p: string) => e.server.request('GET', p, { token });

  /** Pick `file` through the Import button's file chooser. */
  const importFile = async (file: string) => {
    const [chooser] = await Promise.all([e.page.waitForEvent('filechooser'), e.page.getByRole('button', { name: 'Import…' }).click()]);
    await chooser.setFiles(file);
  };

  before(async () => {
    e = await startE2E();
    token = await e.server.adminToken();
    const res = await e.server.request('POST', '/model/object_types', { token, body: { data: { type: 'object_types', attributes: { name: 'articles', singular: 'article' } } } });
    assert.equal(res.status, 201, res.text);
    await signInAsAdmin(e.page, '#/model');
  });
  after(async () => {
    await e?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('Export downloads the model as folio-model-<date>.json', async () => {
    const { page } = e;
    const panel = page.getByRole('region', { name: 'Model file' });
    const [download] = await Promise.all([page.waitForEvent('download'), panel.getByRole('button', { name: 'Export' }).click()]);
    assert.match(download.suggestedFilename(), /^folio-model-\d{4}-\d{2}-\d{2}\.json$/);
    const saved = await download.path();
    assert.ok(saved);
    exported = JSON.parse(fs.readFileSync(saved, 'utf8'));
    assert.ok(Array.isArray(exported.object_types));
    assert.ok(exported.object_types.some((t: any) => t.name === 'articles'));
    await panel.getByText(/^Model saved as folio-model-.+\.json\.$/).waitFor();
  });

  test('Import shows the differences of a changed copy, applies nothing until Apply, then applies them', async () => {
    const { page } = e;
    const doc = structuredClone(exported);
    doc.object_types.push({ name: 'recipes', singular: 'recipe', description: 'Dishes to cook' });
    doc.object_types.find((t: any) => t.name === 'articles').description = 'News and stories';
    const file = path.join(dir, 'changed-model.json');
    fs.writeFileSync(file, JSON.stringify(doc, null, 2));

    await importFile(file);
    const diff = page.getByRole('region', { name: 'Differences in changed-model.json' });
    await diff.waitFor();
    assert.equal(await focusReaches(diff), true, 'focus moves to the differences');
    const types = diff.getByRole('region', { name: 'Object types' });
    const text = await types.innerText();
    assert.match(text, /To create\s+\+\s*recipes — Dishes to cook/i);
    assert.match(text, /To change\s+~\s*articles\s+description: \(none\) → “News and stories”/i);
    assert.match(await diff.innerText(), /^1 item to create · 1 item to change$/m);
    assert.equal((await api('/model/object_types/recipes')).status, 404, 'a dry run applies nothing');
    assert.equal((await api('/model/object_types/articles')).body.data.attributes.description, null);

    await page.setViewportSize({ width: 1024, height: 700 });
    await diff.scrollIntoViewIfNeeded();
    await e.shot('model-file-differences', { viewport: true });
    await expectNoSeriousA11yViolations(page, 'model file differences');
    await page.emulateMedia({ colorScheme: 'dark' });
    await e.shot('model-file-differences-dark', { viewport: true });
    await expectNoSeriousA11yViolations(page, 'model file differences, dark theme');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1280, height: 800 });

    await diff.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('Applied changed-model.json: 1 item created, 1 item changed, 0 items removed.').waitFor();
    await page.getByRole('region', { name: 'Applied from changed-model.json' }).waitFor();
    const created = await api('/model/object_types/recipes');
    assert.equal(created.status, 200, created.text);
    assert.equal(created.body.data.attributes.description, 'Dishes to cook');
    assert.equal((await api('/model/object_types/articles')).body.data.attributes.description, 'News and stories');
    // The type list follows.
    await page.locator('tbody').getByRole('link', { name: 'recipes' }).waitFor();
    await page.getByRole('button', { name: 'Done' }).click();
  });

  test('with "also remove what the file lacks" the differences list removals, and Apply asks first; a removal losing content is refused', async () => {
    const { page } = e;
    const panel = page.getByRole('region', { name: 'Model file' });
    // The file exported before recipes existed: it lacks recipes, and articles had no description.
    const file = path.join(dir, 'older-model.json');
    fs.writeFileSync(file, JSON.stringify(exported));
    await importFile(file);
    let diff = page.getByRole('region', { name: 'Differences in older-model.json' });
    await diff.waitFor();
    await diff.getByText(/Kept as they are \(1\): not in the file/).click();
    assert.match(await diff.innerText(), /recipes — not in the file/);
    assert.equal(await diff.getByRole('region', { name: 'Object types' }).getByText('To remove', { exact: true }).count(), 0);

    await panel.getByLabel('Also remove what the file lacks').check();
    diff = page.getByRole('region', { name: 'Differences in older-model.json' });
    await diff.getByText('To remove', { exact: true }).waitFor();
    assert.match(await diff.innerText(), /To remove\s+−\s*recipes/i);
    assert.equal((await api('/model/object_types/recipes')).status, 200, 'still a dry run');
    await diff.getByRole('button', { name: 'Apply, removing 1 item' }).click();
    const dialog = page.getByRole('dialog', { name: 'Apply and remove?' });
    await dialog.getByText('object type recipes').waitFor();
    await e.shot('model-file-confirm', { viewport: true });
    await dialog.getByRole('button', { name: 'Apply and remove' }).click();
    await page.getByText('Applied older-model.json: 0 items created, 1 item changed, 1 item removed.').waitFor();
    assert.equal((await api('/model/object_types/recipes')).status, 404);
    await page.getByRole('button', { name: 'Done' }).click();

    // Removing articles would lose an article: refused, naming it, nothing changed.
    const res = await e.server.request('POST', '/articles', { token, body: { data: { type: 'articles', attributes: { title: 'Kept safe' } } } });
    assert.equal(res.status, 201, res.text);
    const lacking = structuredClone(exported);
    lacking.object_types = lacking.object_types.filter((t: any) => t.name !== 'articles');
    const lackingFile = path.join(dir, 'without-articles.json');
    fs.writeFileSync(lackingFile, JSON.stringify(lacking));
    await importFile(lackingFile);
    await panel.getByRole('alert').getByText('Nothing was changed').waitFor();
    assert.match(await panel.innerText(), /object type “articles” \(1 object, trashed ones included\)/);
    assert.equal(await panel.getByRole('button', { name: /^Apply/ }).count(), 0);
    assert.equal((await api('/model/object_types/articles')).status, 200);
    await panel.getByLabel('Also remove what the file lacks').uncheck();
  });

  test('a file that is not JSON, or that the server refuses, is explained and nothing is shown to apply', async () => {
    const { page } = e;
    const panel = page.getByRole('region', { name: 'Model file' });
    const bad = path.join(dir, 'notes.json');
    fs.writeFileSync(bad, '{ "object_types": [ oops');
    await importFile(bad);
    const alert = panel.getByRole('alert');
    await alert.getByText('“notes.json” is not a model file').waitFor();
    assert.match(await alert.innerText(), /not valid JSON/);
    assert.equal(await panel.getByRole('button', { name: 'Apply' }).count(), 0);

    const refused = path.join(dir, 'refused.json');
    fs.writeFileSync(refused, JSON.stringify({ object_types: [{ name: 'gadgets', singular: 'gadget', colour: 'red' }] }));
    await importFile(refused);
    await alert.getByText('The file cannot be applied; nothing was changed').waitFor();
    assert.match(await alert.innerText(), /gadgets.*unknown field "colour"/);
    assert.match(await panel.innerText(), /In the file: object type “gadgets”/);
    assert.equal(await panel.getByRole('button', { name: 'Apply' }).count(), 0);
    await e.shot('model-file-refused');
    assert.equal((await api('/model/object_types/gadgets')).status, 404);
  });
});
