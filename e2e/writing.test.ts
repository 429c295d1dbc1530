// Admin UI, never losing work and writing: the unsaved-changes guard
// (in-app links, Back, closing the tab), Ctrl+S, toasts, a title asked before creating; the
// rich-text editor (loaded only when first needed) storing clean HTML with headings, lists,
// links and an image from the media library; technical fields under "Advanced"; relations titled
// with the model's labels, collapsed while empty, the picker without the object itself or what
// is already related.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { createObject, signInAsAdmin, startE2E, type E2E, typeInEditor, untilEditorSelection, untilNewToast } from './helpers/browser.js';

describe('admin writing without losing work', () => {
  let e: E2E;
  let token: string;
  let docId: string;
  const body = async () => (await e.server.request('GET', `/documents/${docId}`, { token })).body.data.attributes;
  const beforeUnloadBlocks = () =>
    e.page.evaluate(() => {
      const ev = new Event('beforeunload', { cancelable: true });
      window.dispatchEvent(ev);
      return ev.defaultPrevented;
    });
  before(async () => {
    e = await startE2E();
    token = await e.server.adminToken();
    const png = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#cc3366' } }).png().toBuffer();
    const up = await e.server.request('POST', '/images/upload/red-square.png', { token, raw: png, headers: { 'Content-Type': 'image/png' } });
    assert.equal(up.status, 201);
    await createObject(e.server, 'documents', { title: 'Neighbour', status: 'on' });
  });
  after(async () => {
    await e?.close();
  });

  test('the first load does not fetch the editor; "New document" asks for a title, creates a draft and says so', async () => {
    const { page } = e;
    const scripts: string[] = [];
    page.on('request', (r) => {
      if (r.resourceType() === 'script') scripts.push(r.url());
    });
    await signInAsAdmin(page, '#/objects/documents');
    assert.ok(!scripts.some((u) => /RichTextEditor/.test(u)), 'the editor is not part of the first load');
    await page.getByRole('button', { name: 'New document' }).click();
    const dialog = page.getByRole('dialog', { name: 'New document' });
    assert.equal(await dialog.getByRole('button', { name: 'Create document' }).isDisabled(), true, 'no title, no create');
    await dialog.getByLabel('Title').fill('Spring notes');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Spring notes' }).waitFor();
    await page.getByRole('status').filter({ hasText: 'Document “Spring notes” created as a draft.' }).waitFor();
    docId = /#\/objects\/documents\/(\d+)/.exec(page.url())![1];
    assert.equal((await body()).status, 'draft');
    await page.getByRole('toolbar', { name: 'Formatting' }).waitFor();
    assert.ok(scripts.some((u) => /RichTextEditor/.test(u)), 'the editor is loaded when a form needs it');
  });

  test('technical fields wait under "Advanced"', async () => {
    const { page } = e;
    const form = page.getByRole('form', { name: 'Edit object' });
    for (const label of ['Unique name (uname)', 'Lang', 'Extra']) assert.equal(await form.getByLabel(label).isVisible(), false, label);
    await form.getByText('Advanced').click();
    for (const label of ['Unique name (uname)', 'Lang', 'Extra']) await form.getByLabel(label).waitFor();
    await form.getByText('Advanced').click();
  });

  test('headings, bold, italic, lists, a link and a library image become clean HTML, saved with Ctrl+S', async () => {
    const { page } = e;
    const editor = page.getByRole('textbox', { name: 'Body' });
    const tools = page.getByRole('toolbar', { name: 'Formatting' });
    await editor.click();
    await tools.getByRole('button', { name: 'Heading', exact: true }).click();
    await page.keyboard.type('A season of change');
    await page.keyboard.press('Enter');
    // Marks put on selected words, as an editor often works (the typed-through way, with the mark
    // toggled between words, is editor-journey's).
    const line = 'Some bold and leaning words. Read ';
    await typeInEditor(page, line);
    const markWord = async (word: string, shortcut: string) => {
      await page.keyboard.press('Home');
      for (let i = 0; i < line.indexOf(word); i++) await page.keyboard.press('ArrowRight');
      for (let i = 0; i < word.length; i++) await page.keyboard.press('Shift+ArrowRight');
      await untilEditorSelection(page, { text: word });
      await page.keyboard.press(shortcut);
    };
    await markWord('bold', 'Control+b');
    await markWord('leaning', 'Control+i');
    await page.keyboard.press('End');
    await untilEditorSelection(page, { atLineEnd: true });
    await page.keyboard.press('Control+k');
    const link = page.getByRole('dialog', { name: 'Add a link' });
    await link.getByLabel('Link address').fill('example.org/spring');
    await page.keyboard.press('Enter');
    await link.waitFor({ state: 'detached' });
    await page.keyboard.press('End');
    await page.keyboard.press('Enter');
    await tools.getByRole('button', { name: 'Bulleted list' }).click();
    await page.keyboard.type('first');
    await page.keyboard.press('Enter');
    // A no-break space typed on purpose (as a keyboard's shortcut inserts it) is kept.
    await page.keyboard.insertText('second\u00a0item');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Enter');
    await tools.getByRole('button', { name: 'Image from the media library' }).click();
    const library = page.getByRole('dialog', { name: 'Insert an image' });
    await library.getByRole('button', { name: 'Insert red-square.png' }).click();
    await library.getByLabel('Alt text').fill('A red square');
    await library.getByRole('button', { name: 'Insert image' }).click();
    await page.locator('.rte-content img[alt="A red square"]').waitFor();
    await page.getByText('Unsaved changes', { exact: true }).waitFor();
    await e.shot('writing-editor');
    await untilNewToast(page, 'Changes saved.', () => page.keyboard.press('Control+s'));
    const html = String((await body()).body);
    assert.match(html, /^<h2>A season of change<\/h2><p>Some <strong>bold<\/strong> and <em>leaning<\/em> words\. Read <a href="https:\/\/example\.org\/spring">example\.org\/spring<\/a><\/p><ul><li><p>first<\/p><\/li><li><p>second&nbsp;item<\/p><\/li><\/ul>/);
    assert.match(html, /<img src="\/streams\/download\/[0-9a-f-]{36}" alt="A red square">/);
    assert.doesNotMatch(html, /class=|style=|target=|rel=/, 'no editor residue in the stored HTML');
    // The library image shows in the editor although it is a draft (fetched with the session).
    await page.waitForFunction(() => {
      const img = document.querySelector<HTMLImageElement>('.rte-content img');
      return Boolean(img && img.complete && img.naturalWidth > 0);
    });
    assert.equal(await page.getByText('Unsaved changes', { exact: true }).count(), 0);
  });

  test('leaving with unsaved changes asks first: stay keeps the text, "save and leave" saves it', async () => {
    const { page } = e;
    await page.getByRole('form', { name: 'Edit object' }).getByLabel('Title').fill('Spring notes, revised');
    assert.equal(await beforeUnloadBlocks(), true, 'closing the tab would ask');
    await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Folders' }).click();
    const ask = page.getByRole('dialog', { name: 'Unsaved changes' });
    await ask.waitFor();
    await e.shot('writing-unsaved');
    await ask.getByRole('button', { name: 'Stay on this page' }).click();
    assert.match(page.url(), /#\/objects\/documents\/\d+$/);
    assert.equal(await page.getByRole('form', { name: 'Edit object' }).getByLabel('Title').inputValue(), 'Spring notes, revised');
    await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Folders' }).click();
    await ask.getByRole('button', { name: 'Save and leave' }).click();
    await page.getByRole('heading', { name: 'Folders', exact: true }).waitFor();
    assert.equal((await body()).title, 'Spring notes, revised');
  });

  test('Back with unsaved changes asks too; discarding leaves the object as saved', async () => {
    const { page } = e;
    await page.goBack();
    await page.getByRole('heading', { name: 'Spring notes, revised' }).waitFor();
    assert.equal(await beforeUnloadBlocks(), false, 'nothing to lose, nothing asked');
    await page.getByRole('form', { name: 'Edit object' }).getByLabel('Title').fill('Throw-away title');
    await page.goBack();
    const ask = page.getByRole('dialog', { name: 'Unsaved changes' });
    await ask.waitFor();
    assert.match(page.url(), /#\/objects\/documents\/\d+$/, 'the edited page stays until the user decides');
    await ask.getByRole('button', { name: 'Discard changes' }).click();
    await page.getByRole('heading', { name: 'Documents' }).waitFor();
    assert.equal((await body()).title, 'Spring notes, revised');
  });

  test('a failed save says why in a toast and keeps the edit', async () => {
    const { page } = e;
    await page.goto(`/admin/#/objects/documents/${docId}`);
    const form = page.getByRole('form', { name: 'Edit object' });
    await form.getByLabel('Status').waitFor();
    // Someone locks the object meanwhile: publishing it is refused.
    const lock = (locked: boolean) => e.server.request('PATCH', `/documents/${docId}`, { token, body: { data: { id: docId, type: 'documents', meta: { locked } } } });
    assert.equal((await lock(true)).status, 200);
    await form.getByLabel('Status').selectOption('on');
    await page.keyboard.press('Control+s');
    // Its body shows a draft library image: publishing asks first; the editor goes on without it.
    const check = page.getByRole('dialog', { name: 'Some of what it uses is not public' });
    await check.getByText('red-square.png').waitFor();
    await check.getByRole('button', { name: 'Publish without them' }).click();
    const alert = page.locator('.toasts').getByRole('alert');
    await alert.waitFor();
    assert.match(await alert.innerText(), /^The changes were not saved: \S.* — \S/);
    await e.shot('writing-save-failed');
    assert.equal(await form.getByLabel('Status').inputValue(), 'on', 'the edit is still there');
    assert.equal((await body()).status, 'draft');
    assert.equal((await lock(false)).status, 200);
    // The (un)locks moved the version: the save is refused once (412), found to clash with no
    // field of the form, and sent again; wait for that, not for an earlier test's toast.
    const saved = page.waitForResponse((r) => r.request().method() === 'PATCH' && r.status() === 200);
    await form.getByRole('button', { name: 'Save changes' }).click();
    await untilNewToast(page, 'Changes saved.', () => check.getByRole('button', { name: 'Publish without them' }).click());
    await saved;
    assert.equal((await body()).status, 'on');
  });

  test('relations carry the model’s labels, stay collapsed while empty, and the picker offers neither the object nor what is related', async () => {
    const { page } = e;
    const panel = page.getByRole('region', { name: 'Relations' });
    const seeAlso = panel.getByRole('group', { name: 'See also', exact: true });
    await seeAlso.waitFor();
    for (const label of ['Poster', 'Attachments', 'Seen also by']) await panel.getByRole('group', { name: label, exact: true }).waitFor();
    assert.equal(await panel.getByText('see_also').count(), 0, 'no technical names');
    const toggle = seeAlso.getByRole('button', { name: /^See also/ });
    assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
    await toggle.click();
    await seeAlso.getByRole('button', { name: 'Add to See also' }).click();
    await seeAlso.getByRole('button', { name: 'Find' }).click();
    await seeAlso.getByRole('button', { name: 'Add Neighbour' }).waitFor();
    assert.equal(await seeAlso.getByRole('button', { name: 'Add Spring notes, revised' }).count(), 0, 'not itself');
    await seeAlso.getByRole('button', { name: 'Add Neighbour' }).click();
    await seeAlso.getByRole('link', { name: 'Neighbour' }).waitFor();
    await page.getByRole('status').filter({ hasText: '“Neighbour” added to See also.' }).waitFor();
    await seeAlso.getByRole('button', { name: 'Add Neighbour' }).waitFor({ state: 'detached' });
    await e.shot('writing-relations');
    // Seen from the other side, with the inverse label.
    const neighbour = (await e.server.request('GET', '/documents?filter[title]=Neighbour', { token })).body.data[0].id;
    await page.goto(`/admin/#/objects/documents/${neighbour}`);
    const inverse = page.getByRole('group', { name: 'Seen also by', exact: true });
    await inverse.getByRole('link', { name: 'Spring notes, revised' }).waitFor();
    assert.equal(await inverse.getByRole('button', { name: /^Seen also by/ }).getAttribute('aria-expanded'), 'true');
  });

  test('spaces typed at the end of a paragraph stay, whatever became of the editor library’s own style tag', async () => {
    const { page } = e;
    const id = await createObject(e.server, 'documents', { title: 'Ferry notes', body: '<p>Timetable.</p><p>Boats leave at nine.</p>' });
    await page.goto(`/admin/#/objects/documents/${id}`);
    const text = page.getByRole('textbox', { name: 'Body' });
    await text.getByText('Boats leave at nine.').waitFor();
    // The library shares one <style> among the page's editors and takes it out when one goes while
    // no other is in the page yet (as happens when an editor mounts twice): the editor keeps its
    // layout of spaces without it, because its rules come with the editor's own stylesheet.
    const whiteSpace = await page.evaluate(() => {
      for (const s of document.querySelectorAll('style[data-tiptap-style]')) s.remove();
      return getComputedStyle(document.querySelector('.ProseMirror')!).whiteSpace;
    });
    assert.equal(whiteSpace, 'break-spaces');
    await text.getByText('Boats leave at nine.').click();
    await page.keyboard.press('End');
    await typeInEditor(page, ' Tickets on board.');
    const html = await page.evaluate(() => (document.querySelector('.ProseMirror') as Element & { editor: { getHTML(): string } }).editor.getHTML());
    assert.match(html, /^<p>Timetable\.<\/p><p>Boats leave at nine\. Tickets on board\.<\/p>$/);
    // Where spaces do collapse (a browser whose editor lost its stylesheet), the browser types a
    // no-break space at the end and rebalances it at the next letter: the editor leaves the one
    // before the caret to it (changing it under the browser lost it), and stores plain spaces.
    await page.evaluate(() => ((document.querySelector('.ProseMirror') as HTMLElement).style.whiteSpace = 'normal'));
    await typeInEditor(page, ' Pay on the quay ');
    await untilNewToast(page, 'Changes saved.', () => page.keyboard.press('Control+s'));
    const saved = await e.server.request('GET', `/documents/${id}`, { token });
    assert.equal(saved.body.data.attributes.body, '<p>Timetable.</p><p>Boats leave at nine. Tickets on board. Pay on the quay </p>');
  });
});
