// Admin UI, lists that answer "whose?" and setting up (issue 46). A restricted editor's objects
// list names who created and who last changed each row, keeps "Mine" and a folder's objects with
// its filters, shows media rows' thumbnails, and the editor's uploads stay out of Home's "My
// drafts"; the Users list has a Roles column. A publisher publishing a folder is offered its
// sub-folders and the drafts in it (with counts), and told what their roles leave a draft. An admin
// creating a type goes straight on to the roles that may use it and the relations it is in, and
// edits, relabels and reorders its custom properties; an editor without the right to change
// folders sees "Add to folder…" disabled with the reason. Words and looks: webhook type boxes
// and status chips read as words; Home's "Scheduled" shows an editor's draft given a start, and the
// "Scheduled" filter leaves the status free; a reader's read-only window has truly disabled Clear
// buttons and a body reached with Tab; the tag input has the fields' font; the translation's body
// box is as tall as the original's; the selected language chip is the accent, not red, in the dark
// theme. Photographed at 1024×700 and 1366×850 in both
// themes, checked with axe.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { tinyPng } from '../server/test/helpers/fixtures.js';
import { contextAt, createObject, createRestrictedUser, shotsAtBothSizes, signInAs, signInAsAdmin, startE2E, untilEqual, type E2E } from './helpers/browser.js';

describe('lists and setting up', () => {
  let e: E2E;
  let lena: string;
  let folderId: string;

  before(async () => {
    e = await startE2E();
    const admin = await e.server.adminToken();
    lena = await createRestrictedUser(e.server, 'lena', 'lena-password-1', { documents: ['read', 'create', 'update'], images: ['read', 'create', 'update'], folders: ['read'] });
    const create = async (token: string, title: string) => {
      const r = await e.server.request('POST', '/documents', { token, body: { data: { type: 'documents', attributes: { title } } } });
      assert.equal(r.status, 201, r.text);
      return String(r.body.data.id);
    };
    const mine = await create(lena, 'Lena’s harbour story');
    await create(lena, 'Lena’s market notes');
    await createObject(e.server, 'documents', { title: 'Admin’s tide tables' });
    // The admin changes Lena's story last.
    const changed = await e.server.request('PATCH', `/documents/${mine}`, { token: admin, body: { data: { type: 'documents', id: mine, attributes: { description: 'Checked' } } } });
    assert.equal(changed.status, 200, changed.text);
    folderId = await createObject(e.server, 'folders', { title: 'Harbour' });
    const put = await e.server.request('POST', `/folders/${folderId}/relationships/children`, { token: admin, body: { data: [{ type: 'documents', id: mine }] } });
    assert.ok(put.status < 300, `the story goes into the folder: ${put.text}`);
    const up = await e.server.request('POST', '/images/upload/harbour.png', { token: lena, raw: await tinyPng(3), headers: { 'Content-Type': 'image/png' } });
    assert.equal(up.status, 201, up.text);
  });
  after(async () => {
    await e?.close();
  });

  test('an editor sees whose each object is, keeps hers with "Mine", a folder’s with its filter, and media thumbnails', async () => {
    const context = await contextAt(e, 1366, 850);
    const page = await context.newPage();
    await signInAs(page, 'lena', 'lena-password-1', '#/objects');
    const table = page.getByRole('main').getByRole('table');
    const row = (title: string) => table.getByRole('row').filter({ has: page.getByRole('link', { name: title, exact: true }) });
    await row('Lena’s harbour story').waitFor();
    const headers = await table.getByRole('columnheader').allInnerTexts();
    assert.ok(headers.some((h) => /created by/i.test(h)), `a "Created by" column: ${headers.join(', ')}`);
    assert.ok(headers.some((h) => /modified by/i.test(h)), `a "Modified by" column: ${headers.join(', ')}`);
    const cells = async (title: string) => {
      const texts = await row(title).getByRole('cell').allInnerTexts();
      const at = (name: RegExp) => texts[headers.findIndex((h) => name.test(h))];
      return { created: at(/created by/i), modified: at(/modified by/i) };
    };
    await untilEqual(() => cells('Lena’s harbour story'), { created: 'lena', modified: 'admin' }, 'who wrote and who last changed the story');
    assert.deepEqual(await cells('Admin’s tide tables'), { created: 'admin', modified: 'admin' }, 'the admin’s document is the admin’s');
    // The image's row shows its thumbnail before its title.
    await row('harbour.png').locator('.row-thumb img').waitFor();
    await shotsAtBothSizes(page, 'lists-objects-authors');

    const titles = () => table.getByRole('row').locator('td:nth-child(2) a').allInnerTexts();
    await page.getByRole('combobox', { name: 'Mine' }).selectOption({ label: 'Created by me' });
    await untilEqual(async () => (await titles()).sort(), ['Lena’s harbour story', 'Lena’s market notes', 'harbour.png'].sort(), 'what Lena created');
    await page.getByRole('combobox', { name: 'Mine' }).selectOption({ label: 'Last changed by me' });
    await untilEqual(async () => (await titles()).sort(), ['Lena’s market notes', 'harbour.png'].sort(), 'what Lena changed last');
    await page.getByRole('combobox', { name: 'Mine' }).selectOption({ label: 'Anyone’s' });
    await page.getByRole('combobox', { name: 'Folder' }).selectOption({ label: 'Harbour' });
    await untilEqual(titles, ['Lena’s harbour story'], 'the objects in the Harbour folder');
    assert.match(page.url(), new RegExp(`folder=${folderId}`), 'the folder filter is kept in the address');
    await shotsAtBothSizes(page, 'lists-objects-folder-filter');
    await context.close();
  });

  test("an editor's uploaded images stay out of Home's \"My drafts\"", async () => {
    const context = await contextAt(e, 1024, 700);
    const page = await context.newPage();
    await signInAs(page, 'lena', 'lena-password-1');
    const drafts = page.getByRole('region', { name: 'My drafts' });
    await drafts.getByRole('link', { name: 'Lena’s market notes' }).waitFor();
    await drafts.getByRole('link', { name: 'Lena’s harbour story' }).waitFor();
    assert.equal(await drafts.getByRole('link', { name: 'harbour.png' }).count(), 0, 'the upload is not among the drafts');
    await shotsAtBothSizes(page, 'lists-home-drafts');
    await context.close();
  });

  test('the Users list names each user’s roles', async () => {
    const { page } = e;
    await signInAsAdmin(page, '#/users');
    const row = (name: string) => page.getByRole('row').filter({ has: page.getByRole('link', { name, exact: true }) });
    await row('lena').getByText('lena_role', { exact: true }).waitFor();
    await row('admin').locator('.role-chips').getByText('admin', { exact: true }).waitFor();
    const headers = await page.getByRole('table', { name: 'Users' }).getByRole('columnheader').allInnerTexts();
    assert.ok(headers.some((h) => /^roles$/i.test(h.trim())), `a Roles column: ${headers.join(', ')}`);
    await shotsAtBothSizes(page, 'lists-users-roles');
  });

  test('a publisher publishing a folder is offered its sub-folders and contents, and told what stays a draft', async () => {
    const admin = await e.server.adminToken();
    await createRestrictedUser(e.server, 'pia', 'pia-password-1', { folders: ['read', 'update', 'publish'], documents: ['read', 'update', 'publish'], events: ['read'] });
    const summer = await createObject(e.server, 'folders', { title: 'Summer issue' });
    const sub = await e.server.request('POST', '/folders', { token: admin, body: { data: { type: 'folders', attributes: { title: 'Interviews' }, relationships: { parent: { data: { type: 'folders', id: summer } } } } } });
    assert.equal(sub.status, 201, sub.text);
    const interviews = String(sub.body.data.id);
    const editorial = await createObject(e.server, 'documents', { title: 'Editorial' });
    const party = await createObject(e.server, 'events', { title: 'Launch party' });
    const ana = await createObject(e.server, 'documents', { title: 'Interview with Ana' });
    const file = async (folder: string, type: string, id: string) => {
      const r = await e.server.request('POST', `/folders/${folder}/relationships/children`, { token: admin, body: { data: [{ type, id }] } });
      assert.ok(r.status < 300, `filed ${type} ${id}: ${r.text}`);
    };
    await file(summer, 'documents', editorial);
    await file(summer, 'events', party);
    await file(interviews, 'documents', ana);

    const context = await contextAt(e, 1366, 850);
    const page = await context.newPage();
    await signInAs(page, 'pia', 'pia-password-1', `#/folders/${summer}`);
    await page.getByRole('heading', { name: 'Summer issue' }).waitFor();
    await page.getByRole('button', { name: 'Publish', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Publish “Summer issue”' });
    await dialog.getByText('This folder holds 1 sub-folder and 3 objects that are still a draft').waitFor();
    assert.ok(await dialog.getByRole('checkbox', { name: 'Publish its 1 sub-folder' }).isChecked(), 'the sub-folder is offered, ticked');
    assert.ok(await dialog.getByRole('checkbox', { name: 'Publish the 3 objects in it and its sub-folders' }).isChecked(), 'the contents are offered, ticked');
    // Pia may not publish events: the dialog says so before anything is written.
    await dialog.getByRole('note').getByText('Launch party').waitFor();
    await shotsAtBothSizes(page, 'lists-publish-folder-dialog');
    await dialog.getByRole('button', { name: 'Publish 4 items' }).click();
    await page.getByText('Folder “Summer issue” published with 3 items it holds. 1 you may not publish stays a draft.').waitFor();
    const status = async (type: string, id: string) => (await e.server.request('GET', `/${type}/${id}`, { token: admin })).body.data.attributes.status;
    assert.deepEqual(
      { summer: await status('folders', summer), interviews: await status('folders', interviews), editorial: await status('documents', editorial), ana: await status('documents', ana), party: await status('events', party) },
      { summer: 'on', interviews: 'on', editorial: 'on', ana: 'on', party: 'draft' },
      'the folder, its sub-folder and the documents are published; the event stays a draft',
    );
    // The folder page after it (its tree open on the sub-folder), then the folder's objects.
    await page.getByRole('tree', { name: 'Folder tree' }).getByRole('treeitem', { name: 'Interviews', exact: true }).waitFor();
    await shotsAtBothSizes(page, 'lists-publish-folder-tree');
    await page.goto(`/admin/#/objects?folder=${summer}`);
    await page.getByRole('main').getByRole('row').filter({ has: page.getByRole('link', { name: 'Launch party' }) }).getByText('draft').waitFor();
    await shotsAtBothSizes(page, 'lists-publish-folder-done');
    await context.close();
  });

  test('an admin creating a type is offered roles and relations, and edits, relabels and reorders its properties', async () => {
    const admin = await e.server.adminToken();
    const cooks = await e.server.request('POST', '/roles', { token: admin, body: { data: { type: 'roles', attributes: { name: 'cooks', permissions: { documents: ['read'] } } } } });
    assert.equal(cooks.status, 201, cooks.text);
    const relation = await e.server.request('POST', '/model/relations', { token: admin, body: { data: { type: 'relations', attributes: { name: 'served_with', inverse_name: 'served_alongside', label: 'Served with', inverse_label: 'Served alongside' } } } });
    assert.equal(relation.status, 201, relation.text);
    const { page } = e;
    await page.setViewportSize({ width: 1366, height: 850 });
    await signInAsAdmin(page, '#/model');
    // Types read as words, their machine names beside.
    await page.getByRole('table', { name: 'Object types' }).getByRole('link', { name: 'News', exact: true }).waitFor();
    await shotsAtBothSizes(page, 'setup-type-list');
    const form = page.getByRole('form', { name: 'New object type' });
    await form.getByLabel('Name').fill('recipes');
    await form.getByLabel('Singular').fill('recipe');
    await form.getByRole('button', { name: 'Create type' }).click();
    const setup = page.getByRole('region', { name: 'Next: who may use Recipes, and what they relate to' });
    await setup.waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Next: who may use Recipes, and what they relate to', 'the setup heading has the focus');
    await setup.getByRole('note').getByText('No role may use Recipes yet').waitFor();
    await shotsAtBothSizes(page, 'setup-new-type');
    for (const action of ['Read', 'Create', 'Change']) await setup.getByRole('checkbox', { name: `${action} Recipes (cooks)` }).check();
    await setup.getByRole('button', { name: 'Save what roles may do' }).click();
    await page.getByText('What one role may do with Recipes is saved.').waitFor();
    await setup.getByRole('note').waitFor({ state: 'detached' });
    const role = await e.server.request('GET', `/roles/${cooks.body.data.id}`, { token: admin });
    assert.deepEqual(role.body.data.attributes.permissions, { documents: ['read'], recipes: ['read', 'create', 'update'] }, 'the role may now use recipes');
    await setup.getByRole('checkbox', { name: 'Recipes have “Served with”' }).check();
    await page.getByText('Recipes can have “Served with” now.').waitFor();
    const left = await e.server.request('GET', `/model/relations/${relation.body.data.id}/left_object_types`, { token: admin });
    assert.deepEqual(left.body.data.map((t: { attributes: { name: string } }) => t.attributes.name), ['recipes'], 'recipes are on the relation’s left');

    // Custom properties: edited, relabelled, reordered.
    for (const [name, type] of [['serves', 'integer'], ['cooking_time', 'integer']]) {
      const r = await e.server.request('POST', '/model/properties', { token: admin, body: { data: { type: 'properties', attributes: { name, property_type_name: type, object_type_name: 'recipes' } } } });
      assert.equal(r.status, 201, r.text);
    }
    await page.goto('/admin/#/model/recipes');
    await page.reload();
    const props = page.getByRole('table', { name: 'Custom properties' });
    await props.getByRole('cell', { name: 'cooking_time', exact: true }).waitFor();
    await props.getByRole('button', { name: 'Edit Cooking time' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit property cooking_time' });
    await edit.getByLabel('Label').fill('Cooking time (minutes)');
    await edit.getByLabel('Description').fill('From oven on to table');
    await edit.getByLabel('Required').check();
    await shotsAtBothSizes(page, 'setup-edit-property');
    await edit.getByRole('button', { name: 'Save property' }).click();
    await props.getByRole('cell', { name: 'Cooking time (minutes)', exact: true }).waitFor();
    await props.getByRole('button', { name: 'Move Cooking time (minutes) up' }).click();
    const names = () => props.locator('tbody tr td:first-child').allInnerTexts();
    await untilEqual(names, ['cooking_time', 'serves'], 'cooking time placed first');
    assert.ok(await props.getByRole('button', { name: 'Move Cooking time (minutes) up' }).isDisabled(), 'the first cannot move up');
    await shotsAtBothSizes(page, 'setup-properties');
    // The object form follows: the label, first, required.
    const created = await createObject(e.server, 'recipes', { title: 'Fish soup', cooking_time: 40 });
    await page.goto(`/admin/#/objects/recipes/${created}`);
    const objectForm = page.getByRole('form', { name: 'Edit object' });
    await objectForm.getByLabel('Cooking time (minutes) *').waitFor();
    const labels = await objectForm.locator('label').allInnerTexts();
    const at = (text: RegExp) => labels.findIndex((l) => text.test(l));
    assert.ok(at(/^Cooking time \(minutes\)/) >= 0 && at(/^Cooking time \(minutes\)/) < at(/^Serves/), `cooking time before serves: ${labels.join(' | ')}`);
  });

  test('an editor without the right to change folders sees "Add to folder…" disabled, and why', async () => {
    const list = await e.server.request('GET', '/documents?filter[title]=Lena’s market notes', { token: lena });
    const id = list.body.data[0].id;
    const context = await contextAt(e, 1024, 700);
    const page = await context.newPage();
    await signInAs(page, 'lena', 'lena-password-1', `#/objects/documents/${id}`);
    const folders = page.getByRole('region', { name: 'Folders' });
    await folders.getByText('Your roles do not let you change any folder').waitFor();
    const button = folders.getByRole('button', { name: 'Add to folder…' });
    assert.ok(await button.isDisabled(), 'Add to folder… is there, disabled');
    const described = await button.getAttribute('aria-describedby');
    assert.match(await page.locator(`[id="${described}"]`).innerText(), /update folders/, 'the button’s description is the reason');
    await folders.scrollIntoViewIfNeeded();
    await shotsAtBothSizes(page, 'setup-add-to-folder-disabled');
    await context.close();
  });

  test('words and looks: scheduled drafts, webhook types, read-only window and body, tag font, translation box and chip', async () => {
    const admin = await e.server.adminToken();
    // Lena schedules a draft: Home's Scheduled shows it, and the Scheduled filter keeps any status.
    const start = new Date(Date.now() + 30 * 86_400_000).toISOString();
    const planned = await e.server.request('POST', '/documents', { token: lena, body: { data: { type: 'documents', attributes: { title: 'Regatta preview', publish_start: start } } } });
    assert.equal(planned.status, 201, planned.text);
    const context = await contextAt(e, 1366, 850);
    const page = await context.newPage();
    await signInAs(page, 'lena', 'lena-password-1');
    const scheduled = page.getByRole('region', { name: 'Scheduled' });
    await scheduled.getByRole('link', { name: 'Regatta preview' }).waitFor();
    assert.match(await scheduled.getByRole('listitem').filter({ hasText: 'Regatta preview' }).innerText(), /Goes live once published/, 'the draft is scheduled once published');
    await shotsAtBothSizes(page, 'words-home-scheduled-draft');
    await page.goto('/admin/#/objects?schedule=scheduled');
    await page.getByRole('main').getByRole('link', { name: 'Regatta preview' }).waitFor();
    assert.equal(await page.getByRole('combobox', { name: 'Status' }).inputValue(), '', 'the status filter stays "Any status"');
    assert.ok(await page.getByRole('combobox', { name: 'Status' }).isEnabled(), 'the status filter can still be chosen');
    await context.close();

    // The admin's webhook form names types in words.
    const { page: adminPage } = e;
    await signInAsAdmin(adminPage, '#/webhooks');
    await adminPage.getByRole('button', { name: 'New webhook' }).click();
    const form = adminPage.getByRole('form', { name: 'New webhook' });
    await form.getByRole('checkbox', { name: 'Documents', exact: true }).waitFor();
    assert.equal(await form.getByRole('checkbox', { name: 'documents', exact: true }).count(), 0, 'no machine name among the type boxes');

    // A document with a window, tags, a body and an Italian translation.
    const documents = await e.server.request('GET', '/model/object_types/documents', { token: admin });
    const tagged = await e.server.request('PATCH', `/model/object_types/${documents.body.data.id}`, { token: admin, body: { data: { type: 'object_types', id: documents.body.data.id, attributes: { associations: ['Tags'] } } } });
    assert.equal(tagged.status, 200, tagged.text);
    const doc = await createObject(e.server, 'documents', {
      title: 'Ferry timetable',
      body: '<p>Boats leave every hour.</p><p>Last boat at ten.</p><p>Tickets on board.</p><p>Bikes travel free.</p>',
      publish_start: new Date(Date.now() + 86_400_000).toISOString(),
      publish_end: new Date(Date.now() + 10 * 86_400_000).toISOString(),
      tags: [{ name: 'ferry', label: 'ferry' }],
    });
    const it = await e.server.request('POST', '/translations', { token: admin, body: { data: { type: 'translations', attributes: { object_id: Number(doc), lang: 'it', status: 'draft', translated_fields: { title: 'Orario dei traghetti' } } } } });
    assert.equal(it.status, 201, it.text);
    await adminPage.goto(`/admin/#/objects/documents/${doc}`);
    const tagInput = adminPage.getByLabel('Add a tag');
    await tagInput.waitFor();
    const fontOf = (l: ReturnType<typeof adminPage.locator>) => l.evaluate((el) => { const c = getComputedStyle(el); return `${c.fontFamily} ${c.fontSize} ${c.fontWeight}`; });
    assert.equal(await fontOf(tagInput), await fontOf(adminPage.getByRole('form', { name: 'Edit object' }).getByRole('textbox', { name: /^Title/ }).first()), 'the tag input has the title field’s font');
    await adminPage.emulateMedia({ colorScheme: 'dark' });
    await adminPage.getByRole('list', { name: 'Languages' }).getByRole('button', { name: /^Italian/ }).click();
    const chip = adminPage.getByRole('list', { name: 'Languages' }).getByRole('button', { name: /^Italian/ });
    assert.equal(await chip.getAttribute('aria-pressed'), 'true');
    const [r, g, b] = (await chip.evaluate((el) => getComputedStyle(el).backgroundColor)).match(/\d+/g)!.map(Number);
    assert.ok(!(r > g + 40 && r > b + 40), `the selected chip is not red in the dark theme (rgb ${r}, ${g}, ${b})`);
    const boxes = adminPage.locator('.translation-grid');
    await boxes.waitFor();
    const original = await boxes.locator('.original-text.rich-preview').first().boundingBox();
    const translated = await boxes.locator('.translation-input .rte-content').first().boundingBox();
    assert.ok(original && translated && translated.height >= original.height - 2, `the translation's body box (${translated?.height}px) is as tall as the original's (${original?.height}px)`);
    await adminPage.emulateMedia({ colorScheme: 'light' });
    await shotsAtBothSizes(adminPage, 'words-translation-chip');

    // A reader: the window's Clear buttons truly disabled, the body reached with Tab.
    await createRestrictedUser(e.server, 'rita', 'rita-password-1', { documents: ['read'] });
    const readerContext = await contextAt(e, 1024, 700);
    const reader = await readerContext.newPage();
    await signInAs(reader, 'rita', 'rita-password-1', `#/objects/documents/${doc}`);
    const clear = reader.getByRole('button', { name: 'Clear “Publish from”' });
    await clear.waitFor();
    assert.notEqual(await clear.getAttribute('disabled'), null, 'Clear carries the disabled attribute');
    assert.ok(await clear.isDisabled(), 'Clear is disabled');
    await reader.getByRole('link', { name: /^‹/ }).first().focus();
    let reached = false;
    for (let i = 0; i < 40 && !reached; i++) {
      await reader.keyboard.press('Tab');
      reached = await reader.evaluate(() => document.activeElement?.getAttribute('aria-readonly') === 'true' && document.activeElement?.getAttribute('contenteditable') === 'false');
    }
    assert.ok(reached, 'Tab reaches the read-only body');
    await shotsAtBothSizes(reader, 'words-read-only-body-focused');
    await readerContext.close();
  });
});
