// Admin UI, objects a user may read but not change look it (issue 46): a reader without `update`,
// and an editor whose `update:own` does not cover someone else's article, find a banner above the
// form saying why, fields that are disabled (announced so, and grey rather than white) and a body
// announced as read only; an editor opening the address of an article they trashed is told it is
// in the trash and restores it there. Photographed at 1024×700 and 1366×850 in both themes, axe.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { contextAt, createObject, createRestrictedUser, shotsAtBothSizes, signInAs, startE2E, untilNewToast, type E2E } from './helpers/browser.js';

describe('read-only objects look read-only', () => {
  let e: E2E;
  let adminsDoc: string;
  let ownDoc: string;

  before(async () => {
    e = await startE2E();
    adminsDoc = await createObject(e.server, 'documents', { title: 'Editorial line', body: '<p>We write for the island.</p>' });
    await createRestrictedUser(e.server, 'rita', 'rita-password-1', { documents: ['read'] });
    const owenToken = await createRestrictedUser(e.server, 'owen', 'owen-password-1', { documents: ['read', 'create', 'update:own', 'delete:own'] });
    const own = await e.server.request('POST', '/documents', { token: owenToken, body: { data: { type: 'documents', attributes: { title: 'Market day' } } } });
    assert.equal(own.status, 201, own.text);
    ownDoc = String(own.body.data.id);
    assert.equal((await e.server.request('DELETE', `/documents/${ownDoc}`, { token: owenToken })).status, 204);
  });
  after(async () => {
    await e?.close();
  });

  /** The banner sits above the form, the form is described by it, its fields are disabled and not white. */
  const expectReadOnly = async (page: Page, reason: RegExp) => {
    const banner = page.getByRole('note').filter({ hasText: reason });
    await banner.waitFor();
    const form = page.getByRole('form', { name: 'Edit object' });
    const title = form.getByLabel('Title');
    await title.waitFor();
    assert.ok((await banner.boundingBox())!.y < (await form.boundingBox())!.y, 'the banner is above the form');
    assert.match((await form.getAttribute('aria-describedby')) ?? '', /readonly/);
    assert.equal(await title.isDisabled(), true, 'the title is disabled');
    assert.notEqual(await title.evaluate((el) => getComputedStyle(el).backgroundColor), 'rgb(255, 255, 255)', 'not a white, editable-looking field');
    const body = page.getByRole('textbox', { name: 'Body' });
    assert.equal(await body.getAttribute('aria-readonly'), 'true');
    assert.equal(await page.getByRole('toolbar', { name: 'Formatting' }).count(), 0);
    assert.equal(await page.getByRole('button', { name: /^Save/ }).count(), 0);
  };

  test('a reader without update sees why the article is read only', async () => {
    const context = await contextAt(e, 1366, 850);
    const page = await context.newPage();
    await signInAs(page, 'rita', 'rita-password-1', `#/objects/documents/${adminsDoc}`);
    await expectReadOnly(page, /Read only: your roles let you read documents, not change them/);
    await shotsAtBothSizes(page, 'read-only-reader');
    await context.close();
  });

  test("an editor with update:own is told why someone else's article is read only", async () => {
    const context = await contextAt(e, 1024, 700);
    const page = await context.newPage();
    await signInAs(page, 'owen', 'owen-password-1', `#/objects/documents/${adminsDoc}`);
    await expectReadOnly(page, /change the documents you created, and someone else created this one/);
    await context.close();
  });

  test('an article in the trash says so at its address, and comes back from there', async () => {
    const context = await contextAt(e, 1024, 700);
    const page = await context.newPage();
    await signInAs(page, 'owen', 'owen-password-1', `#/objects/documents/${ownDoc}`);
    await page.getByRole('note').filter({ hasText: '“Market day” is in the trash' }).waitFor();
    await shotsAtBothSizes(page, 'read-only-trashed');
    await untilNewToast(page, '“Market day” restored.', () => page.getByRole('button', { name: 'Restore' }).click());
    const title = page.getByRole('form', { name: 'Edit object' }).getByLabel('Title');
    await title.waitFor();
    assert.equal(await title.isDisabled(), false, 'their own article is theirs to change');
    assert.equal(await page.getByRole('note').filter({ hasText: 'Read only' }).count(), 0);
    await context.close();
  });
});
