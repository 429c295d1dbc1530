// Admin UI, home, media and look (and the first-load budget): the home page
// with the user's drafts, recent changes and counts; several files dropped at once, each with its
// own progress bar; the favicon; the sticky sidebar; the first load under 250 kB of gzipped JS.
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { entrySize, BUDGET_BYTES } from '../scripts/ui-entry-size.mjs';
import { createObject, signInAsAdmin, startE2E, type E2E } from './helpers/browser.js';

describe('admin home, media upload and look', () => {
  let e: E2E;
  let token: string;
  const firstLoadScripts = new Map<string, number>();
  const failures: string[] = [];
  before(async () => {
    e = await startE2E();
    token = await e.server.adminToken();
    await createObject(e.server, 'documents', { title: 'My own draft' });
    await createObject(e.server, 'documents', { title: 'Published piece', status: 'on' });
    await createObject(e.server, 'events', { title: 'Summer fair', status: 'on' });
    // Another writer's draft is not "mine".
    const user = await e.server.request('POST', '/users', { token, body: { data: { type: 'users', attributes: { username: 'writer', password: 'writer-secret-1', uname: 'writer' } } } });
    const adminRole = (await e.server.request('GET', '/roles?filter[name]=admin', { token })).body.data[0].id;
    await e.server.request('POST', `/users/${user.body.data.id}/relationships/roles`, { token, body: { data: { type: 'roles', id: adminRole } } });
    const writer = (await e.server.login('writer', 'writer-secret-1')).jwt;
    await e.server.request('POST', '/documents', { token: writer, body: { data: { type: 'documents', attributes: { title: 'Someone else’s draft' } } } });
    e.page.on('response', async (r) => {
      if (r.status() >= 400) failures.push(`${r.status()} ${r.url()}`);
      if (r.request().resourceType() === 'script' && !firstLoadScripts.has(r.url())) firstLoadScripts.set(r.url(), zlib.gzipSync(await r.body()).length);
    });
    await signInAsAdmin(e.page);
  });
  after(async () => {
    await e?.close();
  });

  test('the first load of /admin fetches less than 250 kB of gzipped JavaScript, and nothing fails (favicon included)', async () => {
    const { page } = e;
    await page.getByRole('heading', { name: 'My drafts' }).waitFor();
    await page.waitForLoadState('networkidle');
    const total = [...firstLoadScripts.values()].reduce((a, b) => a + b, 0);
    const built = entrySize();
    console.log(`first load: ${firstLoadScripts.size} script(s), ${(total / 1000).toFixed(1)} kB gzip; entry chunk(s) in ui/dist: ${(built.total / 1000).toFixed(1)} kB gzip`);
    assert.ok(total > 10_000 && total < BUDGET_BYTES, `first-load JS ${total} bytes gzip`);
    assert.ok(built.total < BUDGET_BYTES);
    assert.ok(![...firstLoadScripts.keys()].some((u) => /RichTextEditor/.test(u)));
    assert.deepEqual(failures, []);
    const icon = await e.server.request('GET', '/favicon.ico');
    assert.equal(icon.status, 200);
    assert.match(icon.headers.get('content-type') ?? '', /icon/);
    assert.equal(await page.locator('link[rel="icon"]').getAttribute('href'), '/admin/favicon.svg');
    assert.equal((await e.server.request('GET', '/admin/favicon.svg')).status, 200);
  });

  test('home shows my drafts (not other people’s), recent changes and counts per type', async () => {
    const { page } = e;
    const drafts = page.getByRole('region', { name: 'My drafts' });
    await drafts.getByRole('link', { name: 'My own draft' }).waitFor();
    assert.equal(await drafts.getByRole('link', { name: 'Someone else’s draft' }).count(), 0);
    assert.equal(await drafts.getByRole('link', { name: 'Published piece' }).count(), 0);
    const recent = page.getByRole('region', { name: 'Recently changed' });
    for (const t of ['My own draft', 'Published piece', 'Summer fair', 'Someone else’s draft']) await recent.getByRole('link', { name: t }).waitFor();
    const counts = page.getByRole('region', { name: 'Content by type' });
    await counts.getByRole('link', { name: '3 documents' }).waitFor();
    await counts.getByRole('link', { name: '1 events' }).waitFor();
    await e.shot('home');
    await counts.getByRole('link', { name: '3 documents' }).click();
    await page.getByRole('heading', { name: 'Documents' }).waitFor();
  });

  test('several files dropped at once upload one by one, each with its own progress bar', async () => {
    const { page } = e;
    await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Media' }).click();
    await page.getByText('No media yet.').waitFor();
    const files = await Promise.all(
      ['#aa3344', '#33aa44', '#3344aa'].map(async (c, i) => ({
        name: `colour-${i + 1}.png`,
        // Base64, decoded in the page: a plain array of 5.8 million numbers took minutes through CDP.
        base64: (await sharp({ create: { width: 1600, height: 1200, channels: 3, background: c } }).png({ compressionLevel: 0 }).toBuffer()).toString('base64'),
      })),
    );
    const transfer = await page.evaluateHandle((list) => {
      const dt = new DataTransfer();
      for (const f of list) dt.items.add(new File([Uint8Array.from(atob(f.base64), (ch) => ch.charCodeAt(0))], f.name, { type: 'image/png' }));
      return dt;
    }, files);
    await page.locator('.dropzone').dispatchEvent('dragover', { dataTransfer: transfer });
    await page.locator('.dropzone').dispatchEvent('drop', { dataTransfer: transfer });
    const uploads = page.getByRole('list', { name: 'Uploads' });
    for (const f of files) {
      await uploads.getByRole('progressbar', { name: `Upload progress of ${f.name}` }).waitFor();
    }
    for (const f of files) await uploads.getByRole('link', { name: `Open ${f.name}` }).waitFor({ timeout: 120_000 });
    for (const f of files) assert.equal(await uploads.getByRole('progressbar', { name: `Upload progress of ${f.name}` }).getAttribute('value'), '1');
    await page.getByRole('list', { name: 'Media' }).getByRole('listitem').nth(2).waitFor();
    const images = (await e.server.request('GET', '/images', { token })).body.data.map((i: { attributes: { title: string } }) => i.attributes.title).sort();
    assert.deepEqual(images, files.map((f) => f.name));
    await e.shot('media-dropped');
  });

  test('the sidebar stays in view while a long page scrolls', async () => {
    const { page } = e;
    await page.getByRole('list', { name: 'Media' }).getByRole('link', { name: 'colour-1.png' }).click();
    await page.getByRole('region', { name: 'Preview' }).waitFor();
    await page.mouse.wheel(0, 2000);
    await page.waitForFunction(() => window.scrollY > 200);
    const box = await page.getByRole('navigation', { name: 'Areas' }).boundingBox();
    assert.ok(box && box.y >= 0 && box.y < 80, `sidebar top at ${box?.y}`);
    assert.ok(await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Home' }).isVisible());
  });
});
