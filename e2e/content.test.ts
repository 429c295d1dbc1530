// Admin UI, content: a document created after asking its title and edited in the schema form, related to another, moved
// to the trash, restored, trashed again and deleted for good; a relation created with its
// left and right types; a custom property shown in the generated form.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { signInAsAdmin, startE2E, type E2E, untilNewToast } from './helpers/browser.js';

describe('admin objects, relations and trash', () => {
  let e: E2E;
  before(async () => {
    e = await startE2E();
    await signInAsAdmin(e.page, '#/model/documents');
  });
  after(async () => {
    await e?.close();
  });

  test('a custom property added to a type appears in that type’s object form', async () => {
    const { page } = e;
    const form = page.getByRole('form', { name: 'New property' });
    await form.getByLabel('Property name').fill('rating');
    await form.getByLabel('Property type').selectOption('integer');
    await form.getByRole('button', { name: 'Add property' }).click();
    await page.getByRole('cell', { name: 'rating', exact: true }).waitFor();
    await e.shot('object-type');
  });

  test('a document is created after asking its title, then edited in the form generated from its schema, with API validation errors shown', async () => {
    const { page, server } = e;
    await page.goto('/admin/#/objects/documents/new');
    const create = page.getByRole('dialog', { name: 'New document' });
    await create.getByLabel('Title').fill('First document');
    await create.getByRole('button', { name: 'Create document' }).click();
    await page.getByRole('heading', { name: 'First document' }).waitFor();
    await page.getByText('Document “First document” created as a draft.').waitFor();
    const form = page.getByRole('form', { name: 'Edit object' });
    await form.getByRole('textbox', { name: 'Body' }).click();
    await page.keyboard.type('Some body text');
    await form.getByLabel('Rating').fill('4');
    await form.getByText('Advanced').click();
    await form.getByLabel('Extra').fill('{not json');
    await form.getByRole('button', { name: 'Save changes' }).click();
    assert.match(await form.getByRole('alert').innerText(), /Extra.*not valid JSON/i);
    await form.getByLabel('Extra').fill('{"color": "blue"}');
    await untilNewToast(page, 'Changes saved.', () => form.getByRole('button', { name: 'Save changes' }).click());
    await e.shot('object-edit');
    const id = /#\/objects\/documents\/(\d+)/.exec(page.url())![1];
    const res = await server.request('GET', `/documents/${id}`, { token: await server.adminToken() });
    assert.equal(res.body.data.attributes.rating, 4);
    assert.deepEqual(res.body.data.attributes.extra, { color: 'blue' });
    assert.equal(res.body.data.attributes.body, '<p>Some body text</p>');
  });

  test('status is set from the edit form and the list filters by it', async () => {
    const { page } = e;
    const form = page.getByRole('form', { name: 'Edit object' });
    await form.getByLabel('Status').selectOption('on');
    await untilNewToast(page, 'Changes saved.', () => form.getByRole('button', { name: 'Save changes' }).click());
    await page.getByRole('heading', { name: 'First document' }).locator('..').getByText('on', { exact: true }).waitFor();
    await page.getByRole('link', { name: '‹ Documents' }).click();
    await page.getByLabel('Status').selectOption('draft');
    await page.getByText('No object matches these filters.').waitFor();
    await page.getByLabel('Status').selectOption('on');
    await page.getByRole('link', { name: 'First document' }).waitFor();
    await e.shot('objects');
  });

  test('a related object is added through search and removed again', async () => {
    const { page, server } = e;
    await server.request('POST', '/documents', { token: await server.adminToken(), body: { data: { type: 'documents', attributes: { title: 'Second document', status: 'on' } } } });
    await page.getByRole('link', { name: 'First document' }).click();
    const relation = page.getByRole('group', { name: 'See also', exact: true });
    await relation.getByRole('button', { name: /^See also/ }).click();
    await relation.getByRole('button', { name: 'Add to See also' }).click();
    await relation.getByLabel('Find objects to add to See also').fill('Second');
    await relation.getByRole('button', { name: 'Find' }).click();
    await relation.getByRole('button', { name: 'Add Second document' }).click();
    await relation.getByRole('link', { name: 'Second document' }).waitFor();
    await e.shot('object-relations');
    await relation.getByRole('button', { name: 'Remove Second document from See also' }).click();
    await relation.getByText('Nothing related yet.').waitFor();
  });

  test('a document goes to the trash, is restored, then trashed and deleted for good', async () => {
    const { page, server } = e;
    await page.getByRole('button', { name: 'Move to trash' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Move to trash' }).click();
    await page.getByRole('heading', { name: 'Documents' }).waitFor();
    await page.getByText('“First document” moved to the trash.').waitFor();

    await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Trash' }).click();
    await page.getByRole('cell', { name: 'First document', exact: true }).waitFor();
    await e.shot('trash');
    await page.getByRole('button', { name: 'Restore First document' }).click();
    await page.getByText('1 object restored.').waitFor();
    await page.getByText('The trash is empty.').waitFor();

    await page.goto('/admin/#/objects/documents');
    await page.getByRole('link', { name: 'First document' }).click();
    await page.getByRole('button', { name: 'Move to trash' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Move to trash' }).click();
    await page.getByRole('heading', { name: 'Documents' }).waitFor();
    await page.goto('/admin/#/trash');
    await page.getByLabel('Select First document').check();
    await page.getByRole('button', { name: 'Delete selected permanently' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete permanently' }).click();
    await page.getByText('1 object deleted permanently.').waitFor();
    const res = await server.request('GET', '/trash', { token: await server.adminToken() });
    assert.equal(res.body.data.length, 0);
  });

  test('a relation is created with its left and right object types in one save; unsaved sides are guarded', async () => {
    const { page, server } = e;
    await page.setViewportSize({ width: 1024, height: 700 });
    await page.goto('/admin/#/relations');
    await page.getByRole('link', { name: 'New relation' }).click();
    const form = page.getByRole('form', { name: 'Relation' });
    await form.getByLabel('Name', { exact: true }).fill('mentions');
    await form.getByLabel('Inverse name').fill('mentioned_in');
    await form.getByLabel('Label', { exact: true }).fill('Mentions');
    const left = form.getByRole('group', { name: 'Left object types' });
    const right = form.getByRole('group', { name: 'Right object types' });
    await left.getByLabel('documents').check();
    await left.getByLabel('news').check();
    await right.getByLabel('events').check();
    assert.equal(await form.getByRole('button', { name: /save|create/i }).count(), 1, 'one save button');
    await form.getByRole('button', { name: 'Create relation' }).click();
    await page.getByRole('heading', { name: 'mentions' }).waitFor();
    await page.getByText('Relation “mentions” created.').waitFor();
    await e.shot('relation', { viewport: true });

    const token = await server.adminToken();
    const names = async (side: string) =>
      ((await server.request('GET', `/model/relations/mentions/${side}`, { token })).body.data as Array<{ attributes: { name: string } }>).map((t) => t.attributes.name).sort();
    assert.deepEqual(await names('left_object_types'), ['documents', 'news']);
    assert.deepEqual(await names('right_object_types'), ['events']);

    // A side changed and not saved: leaving asks; "Save changes" in the question stores it.
    await right.getByLabel('documents').check();
    await page.getByText('Unsaved changes').waitFor();
    await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Relations' }).click();
    const ask = page.getByRole('dialog', { name: 'Unsaved changes' });
    await ask.getByRole('button', { name: 'Stay' }).click();
    assert.equal(await right.getByLabel('documents').isChecked(), true, 'the choice is still there');
    await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Relations' }).click();
    await ask.getByRole('button', { name: /^Save/ }).click();
    await page.getByRole('heading', { name: 'Relations' }).waitFor();
    assert.deepEqual(await names('right_object_types'), ['documents', 'events']);
  });
});
