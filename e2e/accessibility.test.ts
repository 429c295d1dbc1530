// Admin UI, accessibility: every page, and the dialogs editors meet, passes
// axe-core with no serious or critical violation, in the light and in the dark theme.
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { createObject, expectNoSeriousA11yViolations, forgetSession, signInAsAdmin, startE2E, type E2E } from './helpers/browser.js';

describe('admin pages pass axe-core', () => {
  let e: E2E;
  const ids: Record<string, string> = {};
  before(async () => {
    e = await startE2E();
    const token = await e.server.adminToken();
    const png = await sharp({ create: { width: 200, height: 120, channels: 3, background: '#339966' } }).png().toBuffer();
    ids.image = (await e.server.request('POST', '/images/upload/green.png', { token, raw: png, headers: { 'Content-Type': 'image/png' } })).body.data.id;
    ids.doc = await createObject(e.server, 'documents', { title: 'Accessible article', body: '<h2>Heading</h2><p>Text with <a href="https://example.org">a link</a>.</p>' });
    ids.folder = (await e.server.request('POST', '/folders', { token, body: { data: { type: 'folders', attributes: { title: 'Root' } } } })).body.data.id;
    await e.server.request('POST', '/folders', { token, body: { data: { type: 'folders', attributes: { title: 'Child' }, relationships: { parent: { data: { type: 'folders', id: ids.folder } } } } } });
    await e.server.request('POST', `/folders/${ids.folder}/relationships/children`, { token, body: { data: [{ type: 'documents', id: ids.doc }] } });
    const trashed = await createObject(e.server, 'documents', { title: 'In the bin' });
    await e.server.request('DELETE', `/documents/${trashed}`, { token });
    ids.user = (await e.server.request('GET', '/users', { token })).body.data[0].id;
    ids.role = (await e.server.request('POST', '/roles', { token, body: { data: { type: 'roles', attributes: { name: 'editor' } } } })).body.data.id;
  });
  after(async () => {
    await e?.close();
  });

  /** Pages by hash, each with the text that says it has loaded. */
  const pages: Array<[string, string, () => string]> = [
    ['home', 'My drafts', () => '#/home'],
    ['objects', 'Accessible article', () => '#/objects'],
    ['object editor', 'Text with', () => `#/objects/documents/${ids.doc}`],
    ['image page', 'Dimensions', () => `#/objects/images/${ids.image}`],
    ['folders', 'Contents', () => `#/folders/${ids.folder}`],
    ['media', 'Upload files', () => '#/media'],
    ['trash', 'In the bin', () => '#/trash'],
    ['users', 'Last login', () => '#/users'],
    ['user', 'Roles', () => `#/users/${ids.user}`],
    ['roles', 'editor', () => '#/roles'],
    ['role', 'editor', () => `#/roles/${ids.role}`],
    ['relations', 'see_also', () => '#/relations'],
    ['object types', 'documents', () => '#/model'],
    ['history', 'Fields', () => '#/history'],
    ['API keys', 'Create key', () => '#/applications'],
  ];

  for (const scheme of ['light', 'dark'] as const) {
    test(`the login page (${scheme})`, async () => {
      await e.page.emulateMedia({ colorScheme: scheme });
      await e.page.goto('/admin/');
      await forgetSession(e.page);
      await e.page.reload();
      await e.page.getByRole('button', { name: 'Sign in' }).waitFor();
      await expectNoSeriousA11yViolations(e.page, `login (${scheme})`);
      if (scheme === 'dark') await e.shot('dark-login');
      await signInAsAdmin(e.page);
    });

    for (const [name, marker, hash] of pages) {
      test(`${name} (${scheme})`, async () => {
        const { page } = e;
        await page.emulateMedia({ colorScheme: scheme });
        await page.goto('/admin/' + hash());
        await page.getByText(marker, { exact: false }).first().waitFor();
        await page.waitForLoadState('networkidle');
        await expectNoSeriousA11yViolations(page, `${name} (${scheme})`);
        if (scheme === 'dark' && ['home', 'object editor', 'folders'].includes(name)) await e.shot(`dark-${name.replace(/ /g, '-')}`);
      });
    }

    test(`dialogs: create, unsaved changes, link, media library, folder picker (${scheme})`, async () => {
      const { page } = e;
      await page.emulateMedia({ colorScheme: scheme });
      await page.goto('/admin/#/objects/documents/new');
      await page.getByRole('dialog', { name: 'New document' }).waitFor();
      await expectNoSeriousA11yViolations(page, `create dialog (${scheme})`);
      await page.goto(`/admin/#/objects/documents/${ids.doc}`);
      await page.getByRole('toolbar', { name: 'Formatting' }).getByRole('button', { name: 'Image from the media library' }).click();
      await page.getByRole('dialog', { name: 'Insert an image' }).getByRole('button', { name: 'Insert green.png' }).waitFor();
      await expectNoSeriousA11yViolations(page, `media library (${scheme})`);
      await page.keyboard.press('Escape');
      await page.getByRole('textbox', { name: 'Body' }).click();
      await page.keyboard.press('Control+k');
      await page.getByRole('dialog', { name: 'Add a link' }).waitFor();
      await expectNoSeriousA11yViolations(page, `link dialog (${scheme})`);
      await page.keyboard.press('Escape');
      await page.getByRole('button', { name: 'Add to folder…' }).click();
      await page.getByRole('dialog', { name: /to a folder/ }).getByRole('treeitem').first().waitFor();
      await expectNoSeriousA11yViolations(page, `folder picker (${scheme})`);
      await page.keyboard.press('Escape');
      await page.getByRole('form', { name: 'Edit object' }).getByLabel('Title').fill('Changed');
      await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Home' }).click();
      await page.getByRole('dialog', { name: 'Unsaved changes' }).waitFor();
      await expectNoSeriousA11yViolations(page, `unsaved changes dialog (${scheme})`);
      await page.getByRole('button', { name: 'Discard changes' }).click();
    });
  }
});
