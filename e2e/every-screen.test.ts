// Admin UI, every screen finished: every route of the admin and every
// dialog each page has — new, edit, delete, confirmations, pickers, the image and link dialogs,
// unsaved changes, publish check, slug change, edit conflict, session expired — in the light and
// the dark theme (the header's switch) at 1024×700 and 1366×850: axe finds no serious or critical
// violation, a dialog takes focus on its first field (never Cancel) and gives it back to its opener,
// nothing is covered (no sticky bar over the first form control or the rich-text toolbar, no
// horizontal scrollbar, no word broken across lines in headings, buttons and labels). A restricted
// editor (read on documents, nothing else) is offered no button it cannot use.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import sharp from 'sharp';
import { createObject, createRestrictedUser, expectNoSeriousA11yViolations, focusReaches, signInAs, signInAsAdmin, startE2E, type E2E } from './helpers/browser.js';

type Theme = 'light' | 'dark';
const SIZES = [
  [1024, 700],
  [1366, 850],
] as const;

/** A dialog and how to reach it. `open` returns the opener to click (focus must come back to
 *  it), or opens the dialog itself and returns where focus may return (a selector), or nothing. */
interface DialogCase {
  name: string | RegExp;
  open: (page: Page) => Promise<Locator | { returnsTo: string } | void>;
  /** After Escape: put the page back as it was (discard an edit). */
  after?: (page: Page) => Promise<void>;
}

interface Screen {
  name: string;
  hash: () => string;
  /** What says the page has loaded. */
  ready: (page: Page) => Locator;
  dialogs?: DialogCase[];
}

const ids: Record<string, string> = {};
const ARTICLE = 'Spring festival in the old town square';

/** Problems of layout as the page is now: horizontal scrolling, words broken across lines, bars over controls. */
function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    const visible = (el: Element) => {
      const r = el.getBoundingClientRect();
      const s = getComputedStyle(el);
      return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && !el.closest('.visually-hidden, [hidden]');
    };
    const describe = (el: Element) => `<${el.tagName.toLowerCase()}${el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\s+/).join('.') : ''}> “${(el.textContent ?? (el as HTMLInputElement).name ?? '').trim().replace(/\s+/g, ' ').slice(0, 50)}”`;
    const scroller = document.scrollingElement!;
    if (scroller.scrollWidth > window.innerWidth) out.push(`the page scrolls sideways (${scroller.scrollWidth}px wide in ${window.innerWidth}px)`);
    // A word of a heading, button, label or badge split over two lines (letter-by-letter wrapping).
    const words = 'h1, h2, h3, h4, th, button, label, legend, summary, .badge, .button, .sidebar a, .recent a, .field-label, .dialog header';
    for (const el of document.querySelectorAll(words)) {
      if (!visible(el)) continue;
      const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      let broken: string | null = null;
      for (let n = walker.nextNode(); n && !broken; n = walker.nextNode()) {
        for (const m of (n.textContent ?? '').matchAll(/\S+/g)) {
          const range = document.createRange();
          range.setStart(n, m.index!);
          range.setEnd(n, m.index! + m[0].length);
          const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
          if (tops.size > 1) {
            broken = m[0];
            break;
          }
        }
      }
      if (broken) out.push(`“${broken}” is broken across lines in ${describe(el)}`);
    }
    // Sticky bars (top bar, the page's sticky head, the bulk bar) over the first form control and
    // the rich-text toolbar; and that control is what the eye sees at its centre (nothing over it).
    const bars = [...document.querySelectorAll('.topbar, .sticky-head, .bulk-bar')].filter(visible);
    const inBar = (el: Element) => bars.some((b) => b.contains(el));
    const dialog = document.querySelector('[role=dialog]');
    const scope = dialog ?? document.querySelector('main');
    const first = [...(scope?.querySelectorAll('input:not([type=hidden]):not([type=file]), select, textarea, [contenteditable=true]') ?? [])].find((el) => visible(el) && !inBar(el));
    const targets = [first, dialog ? null : document.querySelector('.rte-toolbar')].filter((el): el is Element => Boolean(el && visible(el)));
    for (const el of targets) {
      const r = el.getBoundingClientRect();
      if (!dialog) {
        for (const bar of bars) {
          if (bar.contains(el) || el.contains(bar)) continue;
          const b = bar.getBoundingClientRect();
          if (r.top < b.bottom - 1 && r.bottom > b.top + 1 && r.left < b.right && r.right > b.left) out.push(`${describe(bar)} (bottom ${Math.round(b.bottom)}) covers ${describe(el)} (top ${Math.round(r.top)})`);
        }
      }
      const x = Math.min(r.left + Math.min(r.width / 2, 40), window.innerWidth - 1);
      const y = r.top + Math.min(r.height / 2, 12);
      if (y < 0 || y > window.innerHeight) continue;
      const hit = document.elementFromPoint(x, y);
      if (hit && !el.contains(hit) && !hit.contains(el) && !(hit as HTMLLabelElement).control?.isSameNode(el)) out.push(`${describe(hit)} lies over ${describe(el)}`);
    }
    return out;
  });
}

/** Where focus is, for messages. */
const focusInfo = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (!el || el === document.body) return { where: 'body', inDialog: false, field: false, cancel: false };
    const name = (el.getAttribute('aria-label') ?? (el as HTMLInputElement).labels?.[0]?.textContent ?? el.textContent ?? '').trim().replace(/\s+/g, ' ');
    return {
      where: `${el.tagName.toLowerCase()}:${name.slice(0, 40)}`,
      inDialog: el.closest('[role=dialog]') !== null,
      field: el.matches('input, select, textarea, [contenteditable=true], [data-autofocus], .dialog-body'),
      cancel: /^(Cancel|Close|Keep editing)$/.test(name),
    };
  });

describe('every screen and dialog of the admin', () => {
  let e: E2E;
  let token = '';
  const post = async (path: string, type: string, attributes: Record<string, unknown>) => {
    const res = await e.server.request('POST', path, { token, body: { data: { type, attributes } } });
    if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${res.text}`);
    return String(res.body.data.id);
  };

  before(async () => {
    e = await startE2E();
    // tsx names the helper functions of page.evaluate bodies with __name(): give the page one.
    await e.page.context().addInitScript('window.__name = (f) => f');
    token = await e.server.adminToken();
    const png = await sharp({ create: { width: 240, height: 160, channels: 3, background: '#3a7d5c' } }).png().toBuffer();
    const upload = await e.server.request('POST', '/images/upload/green-hill.png', { token, raw: png, headers: { 'Content-Type': 'image/png' } });
    ids.image = String(upload.body.data.id);
    const uuid = String(upload.body.included.find((r: { type: string }) => r.type === 'streams').id);
    ids.article = await createObject(e.server, 'documents', {
      title: ARTICLE,
      description: 'Music, food and stalls',
      body: `<h2>Programme</h2><p>Bands from noon.</p><img src="/streams/download/${uuid}" alt="The green hill"><p>${'Stalls and food. '.repeat(40)}</p>`,
    });
    await e.server.request('PATCH', `/documents/${ids.article}`, { token, body: { data: { type: 'documents', id: ids.article, attributes: { description: 'Music, food, stalls and a parade' } } } });
    ids.published = await createObject(e.server, 'documents', { title: 'Opening hours', status: 'on', uname: 'opening-hours' });
    ids.related = await createObject(e.server, 'documents', { title: 'Map of the square' });
    await e.server.request('POST', `/documents/${ids.article}/relationships/see_also`, { token, body: { data: [{ type: 'documents', id: ids.related }] } });
    await post('/translations', 'translations', { object_id: Number(ids.article), lang: 'it', status: 'draft', translated_fields: { title: 'Festa di primavera' } });
    await post('/annotations', 'annotations', { object_id: Number(ids.article), description: 'Check the parade time.' });
    ids.folder = await post('/folders', 'folders', { title: 'Events' });
    await e.server.request('POST', '/folders', { token, body: { data: { type: 'folders', attributes: { title: 'Past events' }, relationships: { parent: { data: { type: 'folders', id: ids.folder } } } } } });
    await e.server.request('POST', `/folders/${ids.folder}/relationships/children`, { token, body: { data: [{ type: 'documents', id: ids.article }] } });
    const trashed = await createObject(e.server, 'documents', { title: 'Old flyer' });
    await e.server.request('DELETE', `/documents/${trashed}`, { token });
    ids.user = await post('/users', 'users', { username: 'marta', password: 'marta-password-1', name: 'Marta' });
    ids.role = await post('/roles', 'roles', { name: 'reviewers', description: 'Read and comment' });
    ids.relation = await post('/model/relations', 'relations', { name: 'mentions', inverse_name: 'mentioned_in', label: 'Mentions', inverse_label: 'Mentioned in' });
    ids.type = await post('/model/object_types', 'object_types', { name: 'recipes', singular: 'recipe' });
    await post('/model/property_types', 'property_types', { name: 'mood', params: { type: 'string', enum: ['calm', 'happy'] } });
    await post('/model/properties', 'properties', { name: 'servings', property_type_name: 'integer', object_type_name: 'recipes' });
    await post('/model/categories', 'categories', { name: 'festivals', label: 'Festivals', type: 'documents' });
    await post('/model/tags', 'tags', { name: 'music', label: 'Music' });
    // Disabled, and to a closed local port: nothing is ever sent anywhere.
    ids.webhook = await post('/webhooks', 'webhooks', { name: 'Site builder', url: 'http://127.0.0.1:9/hook', enabled: false });
    const app = await post('/applications', 'applications', { name: 'website', description: 'The public site' });
    await post('/config', 'config', { name: 'Theme', context: 'app', content: '{"dark":true}' });
    const endpoints = (await e.server.request('GET', '/admin/endpoints', { token })).body.data;
    await post('/admin/endpoint_permissions', 'endpoint_permissions', { endpoint_id: Number(endpoints[0].id), application_id: Number(app), read: true, write: 'mine' });
    const backup = await e.server.request('POST', '/backups', { token });
    assert.equal(backup.status, 201, backup.text);
    await createRestrictedUser(e.server, 'reader', 'reader-password-1', { documents: ['read'] });
  });
  after(async () => {
    await e?.close();
  });

  const editForm = (page: Page) => page.getByRole('form', { name: 'Edit object' });
  const editTitle = (page: Page) => editForm(page).getByRole('textbox', { name: /^Title/ });
  /** Change the editor's title to `text` (an unsaved change), or back. */
  const setTitle = async (page: Page, text: string) => {
    await editTitle(page).fill(text);
  };
  const restoreTitle = async (page: Page) => {
    await setTitle(page, ARTICLE);
    await page.getByText('Unsaved changes').waitFor({ state: 'detached' });
  };

  const screens: Screen[] = [
    { name: 'home', hash: () => '#/home', ready: (p) => p.getByRole('heading', { name: 'Content by type' }) },
    {
      name: 'objects',
      hash: () => '#/objects',
      ready: (p) => p.getByRole('link', { name: ARTICLE }),
      dialogs: [{ name: 'New object', open: async (p) => p.getByRole('button', { name: 'New object' }) }],
    },
    {
      name: 'documents',
      hash: () => '#/objects/documents',
      ready: (p) => p.getByRole('link', { name: ARTICLE }),
      dialogs: [
        { name: 'New document', open: async (p) => p.getByRole('main').getByRole('button', { name: 'New document' }).first() },
        {
          name: /^Move 1 object to a folder$/,
          open: async (p) => {
            await p.getByRole('checkbox', { name: `Select ${ARTICLE}` }).check();
            return p.getByRole('region', { name: 'Bulk actions' }).getByRole('button', { name: 'Move to folder…' });
          },
        },
        { name: 'Move 1 object to the trash?', open: async (p) => p.getByRole('region', { name: 'Bulk actions' }).getByRole('button', { name: 'Move to trash' }) },
        {
          name: 'Some of what it uses is not public',
          open: async (p) => p.getByRole('region', { name: 'Bulk actions' }).getByRole('button', { name: 'Publish', exact: true }),
          after: async (p) => p.getByRole('button', { name: 'Clear selection' }).click(),
        },
      ],
    },
    {
      name: 'new document',
      hash: () => '#/objects/documents/new',
      ready: (p) => p.getByRole('dialog', { name: 'New document' }),
    },
    {
      name: 'editor',
      hash: () => `#/objects/documents/${ids.article}`,
      ready: (p) => p.getByRole('toolbar', { name: 'Formatting' }),
      dialogs: [
        { name: 'Move this object to the trash?', open: async (p) => p.getByRole('button', { name: 'Move to trash' }) },
        { name: /^Add “.*” to a folder$/, open: async (p) => p.getByRole('button', { name: 'Add to folder…' }) },
        { name: 'Add a language', open: async (p) => p.getByRole('button', { name: 'Add language' }) },
        {
          name: 'Remove the Italian translation?',
          open: async (p) => {
            await p.getByRole('list', { name: 'Languages' }).getByRole('button', { name: /^Italian/ }).click();
            return p.getByRole('button', { name: 'Remove language' });
          },
          after: async (p) => p.getByRole('form', { name: 'Italian translation' }).getByRole('button', { name: 'Close', exact: true }).click(),
        },
        { name: 'Delete this annotation?', open: async (p) => p.getByRole('list', { name: 'Annotations' }).getByRole('button', { name: 'Delete' }) },
        { name: 'Restore this version?', open: async (p) => p.getByRole('button', { name: 'Restore this version' }).first() },
        {
          name: 'Add a link',
          open: async (p) => {
            await p.getByRole('textbox', { name: 'Body' }).getByText('Bands from noon.').click();
            await p.keyboard.press('Control+k');
            return { returnsTo: '.rte-content' };
          },
        },
        // The image dialogs give focus back to the text, where typing goes on.
        {
          name: 'Insert an image',
          open: async (p) => {
            await p.getByRole('toolbar', { name: 'Formatting' }).getByRole('button', { name: 'Image from the media library' }).click();
            return { returnsTo: '.rte' };
          },
        },
        {
          name: 'Insert an image',
          open: async (p) => {
            await p.getByRole('toolbar', { name: 'Formatting' }).getByRole('button', { name: 'Image from the media library' }).click();
            await p.getByRole('dialog', { name: 'Insert an image' }).getByRole('button', { name: /^Insert green-hill/ }).click();
            await p.getByRole('dialog', { name: 'Insert an image' }).getByLabel(/Alt text/).waitFor();
            return { returnsTo: '.rte' };
          },
        },
        {
          name: 'Image in the text',
          open: async (p) => {
            await p.getByRole('textbox', { name: 'Body' }).locator('img').click();
            await p.getByRole('toolbar', { name: 'Formatting' }).getByRole('button', { name: 'Alt text, caption, size and alignment of this image' }).click();
            return { returnsTo: '.rte' };
          },
        },
        {
          name: 'Unsaved changes',
          open: async (p) => {
            await setTitle(p, `${ARTICLE} (edited)`);
            return p.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Home' });
          },
          after: restoreTitle,
        },
        {
          name: 'Some of what it uses is not public',
          open: async (p) => {
            await editForm(p).getByLabel('Status').selectOption('on');
            return p.getByRole('button', { name: 'Save changes' });
          },
          after: async (p) => {
            await editForm(p).getByLabel('Status').selectOption('draft');
            await p.getByText('Unsaved changes').waitFor({ state: 'detached' });
          },
        },
        {
          name: /^Someone else changed/,
          open: async (p) => {
            await setTitle(p, `${ARTICLE} (mine)`);
            const res = await e.server.request('PATCH', `/documents/${ids.article}`, { token, body: { data: { type: 'documents', id: ids.article, attributes: { title: `${ARTICLE} (theirs)` } } } });
            assert.equal(res.status, 200, res.text);
            return p.getByRole('button', { name: 'Save changes' });
          },
          after: async (p) => {
            await e.server.request('PATCH', `/documents/${ids.article}`, { token, body: { data: { type: 'documents', id: ids.article, attributes: { title: ARTICLE } } } });
            await restoreTitle(p);
          },
        },
      ],
    },
    {
      name: 'published page',
      hash: () => `#/objects/documents/${ids.published}`,
      ready: (p) => p.getByRole('heading', { name: 'Opening hours' }),
      dialogs: [
        {
          name: 'Change the address of a published page?',
          open: async (p) => {
            await p.getByText('Advanced', { exact: true }).click();
            await editForm(p).getByLabel(/Unique name/).fill('hours');
            return p.getByRole('button', { name: 'Save changes' });
          },
          after: async (p) => {
            await editForm(p).getByLabel(/Unique name/).fill('opening-hours');
            await p.getByText('Unsaved changes').waitFor({ state: 'detached' });
          },
        },
      ],
    },
    { name: 'image page', hash: () => `#/objects/images/${ids.image}`, ready: (p) => p.getByText('Dimensions') },
    {
      name: 'folders',
      hash: () => '#/folders',
      ready: (p) => p.getByRole('tree', { name: 'Folder tree' }).getByText('Events'),
    },
    {
      name: 'folder',
      hash: () => `#/folders/${ids.folder}`,
      ready: (p) => p.getByRole('region', { name: 'Contents' }).getByText(ARTICLE),
      dialogs: [
        { name: 'Move “Events”', open: async (p) => p.getByRole('button', { name: 'Move…' }) },
        { name: 'Delete this folder?', open: async (p) => p.getByRole('button', { name: 'Delete folder' }) },
      ],
    },
    { name: 'media', hash: () => '#/media', ready: (p) => p.getByRole('heading', { name: 'Upload files' }) },
    {
      name: 'trash',
      hash: () => '#/trash',
      ready: (p) => p.getByText('Old flyer'),
      dialogs: [
        { name: 'History of “Old flyer”', open: async (p) => p.getByRole('button', { name: 'History of Old flyer' }) },
        { name: 'Delete permanently?', open: async (p) => p.getByRole('row', { name: /Old flyer/ }).getByRole('button', { name: 'Delete permanently' }) },
        {
          name: 'Delete permanently?',
          open: async (p) => {
            await p.getByRole('checkbox', { name: 'Select Old flyer' }).check();
            return p.getByRole('button', { name: 'Delete selected permanently' });
          },
          after: async (p) => p.getByRole('checkbox', { name: 'Select Old flyer' }).uncheck(),
        },
      ],
    },
    { name: 'users', hash: () => '#/users', ready: (p) => p.getByRole('link', { name: 'marta' }) },
    { name: 'new user', hash: () => '#/users/new', ready: (p) => p.getByRole('form', { name: 'New user' }) },
    {
      name: 'user',
      hash: () => `#/users/${ids.user}`,
      ready: (p) => p.getByRole('heading', { name: 'marta' }),
      dialogs: [{ name: 'Delete this user?', open: async (p) => p.getByRole('button', { name: 'Delete user' }) }],
    },
    { name: 'roles', hash: () => '#/roles', ready: (p) => p.getByRole('link', { name: 'reviewers' }) },
    {
      name: 'role',
      hash: () => `#/roles/${ids.role}`,
      ready: (p) => p.getByRole('heading', { name: 'reviewers' }),
      dialogs: [{ name: 'Delete this role?', open: async (p) => p.getByRole('button', { name: 'Delete role' }) }],
    },
    { name: 'relations', hash: () => '#/relations', ready: (p) => p.getByRole('link', { name: 'mentions' }) },
    { name: 'new relation', hash: () => '#/relations/new', ready: (p) => p.getByRole('form', { name: 'Relation' }) },
    {
      name: 'relation',
      hash: () => `#/relations/${ids.relation}`,
      ready: (p) => p.getByRole('heading', { name: 'mentions' }),
      dialogs: [{ name: 'Delete this relation?', open: async (p) => p.getByRole('button', { name: 'Delete relation' }) }],
    },
    {
      name: 'object types',
      hash: () => '#/model',
      ready: (p) => p.getByRole('link', { name: 'recipes' }),
      dialogs: [
        { name: 'Edit mood', open: async (p) => p.getByRole('button', { name: 'Edit mood' }) },
        { name: 'Delete this property type?', open: async (p) => p.getByRole('row', { name: /mood/ }).getByRole('button', { name: 'Delete' }) },
      ],
    },
    {
      name: 'object type',
      hash: () => '#/model/recipes',
      ready: (p) => p.getByRole('heading', { name: 'recipes' }),
      dialogs: [
        { name: 'Delete this object type?', open: async (p) => p.getByRole('button', { name: 'Delete type' }) },
        { name: 'Delete this property?', open: async (p) => p.getByRole('row', { name: /servings/ }).getByRole('button', { name: 'Delete' }) },
      ],
    },
    {
      name: 'categories and tags',
      hash: () => '#/terms',
      ready: (p) => p.getByText('Festivals').first(),
      dialogs: [
        { name: 'New category', open: async (p) => p.getByRole('button', { name: 'New category' }) },
        { name: 'Edit category', open: async (p) => p.getByRole('button', { name: 'Edit Festivals' }) },
        { name: 'Delete this category?', open: async (p) => p.getByRole('row', { name: /Festivals/ }).getByRole('button', { name: 'Delete' }) },
        { name: 'New tag', open: async (p) => p.getByRole('button', { name: 'New tag' }) },
      ],
    },
    { name: 'history', hash: () => '#/history', ready: (p) => p.getByRole('table', { name: 'History' }) },
    { name: 'webhooks', hash: () => '#/webhooks', ready: (p) => p.getByRole('link', { name: 'Site builder' }) },
    {
      name: 'webhook',
      hash: () => `#/webhooks/${ids.webhook}`,
      ready: (p) => p.getByRole('heading', { name: 'Deliveries' }),
      dialogs: [
        { name: 'Delete this webhook?', open: async (p) => p.getByRole('button', { name: 'Delete webhook' }) },
        { name: 'Make a new secret?', open: async (p) => p.getByRole('button', { name: 'New secret' }) },
      ],
    },
    {
      name: 'API keys',
      hash: () => '#/applications',
      ready: (p) => p.getByRole('table', { name: 'API keys' }).getByText('website'),
      dialogs: [
        { name: 'Delete the key of “website”?', open: async (p) => p.getByRole('row', { name: /website/ }).getByRole('button', { name: 'Delete' }) },
        {
          name: /^Key for “.*” created$/,
          open: async (p) => {
            const form = p.getByRole('form', { name: 'New API key' });
            await form.getByLabel(/Application name/).fill(`app ${Date.now()}`);
            await form.getByRole('button', { name: /Create/ }).click();
            // The form emptied itself for the next key: focus comes back to its first field.
            return { returnsTo: 'form[aria-label="New API key"] input' };
          },
        },
      ],
    },
    {
      name: 'configuration',
      hash: () => '#/config',
      ready: (p) => p.getByRole('table', { name: 'Configuration entries' }),
      dialogs: [
        { name: 'New configuration entry', open: async (p) => p.getByRole('button', { name: 'New entry' }) },
        { name: 'Edit entry', open: async (p) => p.getByRole('button', { name: /^Edit Theme/ }) },
        { name: 'Delete this entry?', open: async (p) => p.getByRole('table', { name: 'Configuration entries' }).getByRole('button', { name: 'Delete' }).first() },
      ],
    },
    {
      name: 'endpoint permissions',
      hash: () => '#/endpoint-permissions',
      ready: (p) => p.getByRole('table', { name: 'Endpoint permissions' }),
      dialogs: [
        { name: 'New endpoint permission', open: async (p) => p.getByRole('button', { name: 'New permission' }) },
        { name: 'Edit permission', open: async (p) => p.getByRole('button', { name: /^Edit permission/ }).first() },
        { name: 'Delete this permission?', open: async (p) => p.getByRole('table', { name: 'Endpoint permissions' }).getByRole('button', { name: 'Delete' }).first() },
      ],
    },
    {
      name: 'backups',
      hash: () => '#/backups',
      ready: (p) => p.getByRole('button', { name: 'Delete' }).first(),
      dialogs: [{ name: 'Delete this backup?', open: async (p) => p.getByRole('button', { name: 'Delete' }).first() }],
    },
    { name: 'my account', hash: () => '#/profile', ready: (p) => p.getByRole('heading', { name: 'My account' }) },
  ];

  /** Show a route (through the home page when it is already shown, so it mounts afresh). */
  async function visit(page: Page, hash: string) {
    if (await page.evaluate((h) => location.hash === h, hash)) await page.evaluate(() => (location.hash = '#/home'));
    await page.evaluate((h) => (location.hash = h), hash);
  }

  async function chooseTheme(page: Page, theme: Theme) {
    await page.getByRole('combobox', { name: 'Colour theme' }).selectOption(theme);
    assert.equal(await page.evaluate(() => getComputedStyle(document.documentElement).colorScheme), theme);
  }

  /** Open one dialog, check it, close it with Escape; problems are added to `problems`. */
  async function checkDialog(page: Page, where: string, d: DialogCase, problems: string[], shot?: string) {
    // The step under way, named in the message of a step that fails (a timed-out wait says no more).
    let step = 'opening';
    try {
      await checkDialogSteps(page, where, d, problems, shot, (s) => (step = s));
    } catch (err) {
      throw new Error(`${step}: ${(err as Error).message}`);
    }
  }

  async function checkDialogSteps(page: Page, where: string, d: DialogCase, problems: string[], shot: string | undefined, at: (step: string) => void) {
    const opened = await d.open(page);
    at('waiting for the dialog');
    let opener: Locator | null = null;
    let returnsTo: string | null = null;
    if (opened && 'click' in opened) {
      opener = opened;
      await opener.click();
    } else if (opened) returnsTo = opened.returnsTo;
    const dialog = page.getByRole('dialog', { name: d.name }).last();
    await dialog.waitFor();
    await page.waitForLoadState('networkidle');
    const label = `${where}, dialog “${d.name}”`;
    const focus = await focusInfo(page);
    if (!focus.inDialog) problems.push(`${label}: focus is outside the dialog (${focus.where})`);
    else if (focus.cancel) problems.push(`${label}: focus starts on ${focus.where}`);
    const hasField = await dialog.locator('input:not([type=checkbox]):not([type=radio]):not([type=file]):not(:disabled), select:not(:disabled), textarea:not(:disabled)').count();
    if (hasField && !focus.field) problems.push(`${label}: the dialog has fields but focus starts on ${focus.where}`);
    try {
      await expectNoSeriousA11yViolations(page, label);
    } catch (err) {
      problems.push((err as Error).message);
    }
    for (const p of await layoutProblems(page)) problems.push(`${label}: ${p}`);
    if (shot) await e.shot(shot, { viewport: true });
    at('closing it with Escape');
    await page.keyboard.press('Escape');
    await page.getByRole('dialog', { name: d.name }).waitFor({ state: 'detached' });
    if (opener) {
      if (!(await focusReaches(opener))) problems.push(`${label}: focus did not return to the opener (${(await focusInfo(page)).where})`);
    } else if (returnsTo) {
      if (!(await page.evaluate((sel) => Boolean(document.activeElement?.closest(sel)), returnsTo))) problems.push(`${label}: focus did not return to ${returnsTo} (${(await focusInfo(page)).where})`);
    }
    at('putting the page back (after)');
    await d.after?.(page);
  }

  for (const [width, height] of SIZES) {
    for (const theme of ['light', 'dark'] as const) {
      test(`at ${width}×${height} in the ${theme} theme: every page and dialog is accessible and uncovered`, async () => {
        const { page } = e;
        const problems: string[] = [];
        await page.setViewportSize({ width, height });
        await page.emulateMedia({ colorScheme: theme === 'light' ? 'dark' : 'light' }); // the switch, not the system, decides
        await signInAsAdmin(page);
        await chooseTheme(page, theme);
        const small = width === 1024;
        for (const s of screens) {
          await visit(page, s.hash());
          await s.ready(page).first().waitFor();
          await page.waitForLoadState('networkidle');
          const where = `${s.name} (${width}×${height}, ${theme})`;
          try {
            await expectNoSeriousA11yViolations(page, where);
          } catch (err) {
            problems.push((err as Error).message);
          }
          for (const p of await layoutProblems(page)) problems.push(`${where}: ${p}`);
          // Scrolled to the end and back by focus: the first field is not under a sticky bar.
          await page.evaluate(() => window.scrollTo(0, document.scrollingElement!.scrollHeight));
          await page.evaluate(() => {
            const bars = [...document.querySelectorAll('.topbar, .sticky-head')];
            const main = document.querySelector('[role=dialog]') ?? document.querySelector('main');
            const first = [...(main?.querySelectorAll<HTMLElement>('input:not([type=hidden]):not([type=file]), select, textarea, [contenteditable=true]') ?? [])].find((el) => el.getClientRects().length && !bars.some((b) => b.contains(el)));
            first?.focus();
          });
          for (const p of await layoutProblems(page)) problems.push(`${where}, first field focused from the page's end: ${p}`);
          if (await page.locator('.rte').count()) {
            // Scrolled into the body: the toolbar sticks below the page's head.
            await page.evaluate(() => window.scrollBy(0, document.querySelector('.rte')!.getBoundingClientRect().top - 10));
            for (const p of await layoutProblems(page)) problems.push(`${where}, scrolled into the body: ${p}`);
          }
          if (small) await e.shot(`every-${s.name.replace(/\W+/g, '-')}-${theme}`);
          await page.evaluate(() => window.scrollTo(0, 0));
          if (s.name === 'new document') {
            await checkDialog(page, where, { name: 'New document', open: async () => undefined }, problems);
            continue;
          }
          for (const [i, d] of (s.dialogs ?? []).entries()) {
            // One dialog that cannot be reached is reported; the sweep goes on with a fresh page.
            await checkDialog(page, where, d, problems, small && theme === 'dark' ? `every-${s.name.replace(/\W+/g, '-')}-dialog-${i + 1}` : undefined).catch(async (err) => {
              problems.push(`${where}, dialog “${d.name}”: ${(err as Error).message.split('\n')[0]}`);
              await page.reload();
              await page.getByRole('button', { name: 'Sign out' }).waitFor();
            });
          }
        }
        // The session ends under the user's feet: the sign-in dialog over the page.
        await checkSessionExpired(page, `${width}×${height}, ${theme}`, problems);
        assert.deepEqual(problems, []);
      });
    }
  }

  /** A second admin signs in, is blocked by the first: its page asks to sign in again. */
  async function checkSessionExpired(page: Page, where: string, problems: string[]) {
    const username = `stand-in-${Date.now()}`;
    const id = await post('/users', 'users', { username, password: 'stand-in-password-1', name: 'Stand-in' });
    const admins = (await e.server.request('GET', '/roles?filter[name]=admin', { token })).body.data;
    await e.server.request('POST', `/users/${id}/relationships/roles`, { token, body: { data: [{ type: 'roles', id: admins[0].id }] } });
    await signInAs(page, username, 'stand-in-password-1');
    await visit(page, '#/users/new');
    await page.getByRole('form', { name: 'New user' }).getByLabel('Username').fill('typed');
    await e.server.request('PATCH', `/users/${id}`, { token, body: { data: { type: 'users', id, attributes: { blocked: true } } } });
    // The next request finds out (the page may already have, reading the user again on focus).
    await visit(page, '#/users');
    await checkDialog(
      page,
      `session expired (${where})`,
      { name: 'Your session has expired', open: async () => undefined },
      problems,
    ).catch((err) => problems.push(`session expired (${where}): ${(err as Error).message.split('\n')[0]}`));
  }

  test('a restricted editor (read on documents only) is offered no button it cannot use', async () => {
    const { page } = e;
    const problems: string[] = [];
    await page.setViewportSize({ width: 1024, height: 700 });
    await signInAs(page, 'reader', 'reader-password-1');
    await chooseTheme(page, 'dark');
    const areas = await page.getByRole('navigation', { name: 'Areas' }).getByRole('link').allInnerTexts();
    assert.deepEqual(areas.map((a) => a.trim()), ['Home', 'Objects', 'Folders', 'Media']);
    const refused = /^(New\b|Create|Delete|Move to trash|Move…|Move to folder|Add to folder|Add language|Add to |Remove|Restore|Publish|Unpublish|Save|Upload|Make)/;
    // Their own account they may change.
    const own = /^(Save profile|Change email|Change password)$/;
    const reachable: Array<[string, string, (p: Page) => Locator]> = [
      ['home', '#/home', (p) => p.getByRole('heading', { name: /^Welcome/ })],
      ['objects', '#/objects', (p) => p.getByRole('link', { name: ARTICLE })],
      ['documents', '#/objects/documents', (p) => p.getByRole('link', { name: ARTICLE })],
      ['editor', `#/objects/documents/${ids.article}`, (p) => p.getByText(/Read only: your roles let you read documents, not change them/)],
      ['folders', '#/folders', (p) => p.getByRole('heading', { name: 'Folders' })],
      ['media', '#/media', (p) => p.getByRole('heading', { name: 'Media' })],
      ['my account', '#/profile', (p) => p.getByRole('heading', { name: 'My account' })],
    ];
    for (const [name, hash, ready] of reachable) {
      await visit(page, hash);
      await ready(page).first().waitFor();
      await page.waitForLoadState('networkidle');
      const offered = (await page.getByRole('main').getByRole('button').evaluateAll((bs) => bs.filter((b) => (b as HTMLButtonElement).getClientRects().length && !(b as HTMLButtonElement).disabled).map((b) => (b.getAttribute('aria-label') ?? b.textContent ?? '').trim())))
        .filter((label) => refused.test(label) && !own.test(label));
      if (offered.length) problems.push(`${name}: offers ${offered.map((l) => `“${l}”`).join(', ')}`);
      if (name === 'editor') {
        // Read only: no formatting toolbar, and the text takes no typing that could not be saved.
        if (await page.getByRole('toolbar', { name: 'Formatting' }).count()) problems.push('editor: offers the formatting toolbar');
        if ((await page.getByRole('textbox', { name: 'Body' }).getAttribute('contenteditable')) !== 'false') problems.push('editor: the body can be typed in');
      }
      if (name === 'documents') {
        await page.getByRole('checkbox', { name: `Select ${ARTICLE}` }).check();
        const bulk = await page.getByRole('region', { name: 'Bulk actions' }).getByRole('button').allInnerTexts();
        const bad = bulk.map((b) => b.trim()).filter((b) => refused.test(b));
        if (bad.length) problems.push(`documents, bulk bar: offers ${bad.join(', ')}`);
      }
      try {
        await expectNoSeriousA11yViolations(page, `${name} (restricted, dark)`);
      } catch (err) {
        problems.push((err as Error).message);
      }
      for (const p of await layoutProblems(page)) problems.push(`${name} (restricted): ${p}`);
      await e.shot(`every-restricted-${name.replace(/\W+/g, '-')}`);
    }
    assert.deepEqual(problems, []);
  });
});
