// Drafts, review and preview (CONTRACT.md "Drafts, review and preview"): an editor without
// `publish` saves changes of a live object into its draft while every public read stays as it
// was; a publisher sees what differs and publishes it through the write kernel (history, webhooks,
// version, If-Match), now or at a set instant (once); review requests fire `drafts.submitted`;
// preview tokens open one draft only; drafts follow their object to the trash and back, go when it
// is purged, and come along in a backup. Through HTTP, on SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createServer } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { previewToken } from '../src/resources/drafts/preview.js';
import { runRestoreCli } from './helpers/child-server.js';
import { rawGet } from './helpers/raw-http.js';
import { ADMIN, expectError, sameData, startServer, type TestServer } from './helpers/server.js';
import { createRole, createUser } from './helpers/users.js';
import { letTimePass, waitUntil } from './helpers/wait.js';
import { startReceiver } from './helpers/webhook-receiver.js';

describe('drafts, review and preview', () => {
  let s: TestServer;
  let admin: string;
  let editor: string;
  let publisher: string;
  let reader: string;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const doc = (attributes: Record<string, unknown>, id?: string) => ({ data: { type: 'documents', ...(id ? { id } : {}), attributes } });

  async function liveDoc(title: string) {
    const r = await s.request('POST', '/documents', { token: admin, body: doc({ title, status: 'on', body: 'Live words' }) });
    assert.equal(r.status, 201, r.text);
    return String(r.body.data.id);
  }
  const saveDraft = (id: string, token: string, attributes: Record<string, unknown>, relationships?: Record<string, unknown>) =>
    s.request('PATCH', `/drafts/${id}`, { token, headers: { Prefer: 'handling=strict' }, body: { data: { type: 'documents', id, attributes, ...(relationships ? { relationships } : {}) } } });
  const draftRow = (id: string) => s.server.ctx.db.selectFrom('drafts').selectAll().where('object_id', '=', Number(id)).executeTakeFirst();
  const history = async (id: string) => (await s.request('GET', `/documents/${id}/history`, { token: admin })).body.data as Array<{ attributes: { changed: Record<string, unknown> } }>;

  before(async () => {
    s = await startServer({}, { webhookRetryDelaysMs: [200], jobPollMs: 200 });
    admin = await s.adminToken();
    const editors = await createRole(s, admin, 'editors', { documents: ['read', 'create', 'update'] });
    const publishers = await createRole(s, admin, 'publishers', { '*': ['read', 'create', 'update', 'delete', 'publish'] });
    const readers = await createRole(s, admin, 'readers', { documents: ['read'] });
    editor = (await createUser(s, admin, { username: 'edith', roles: [editors] })).jwt;
    publisher = (await createUser(s, admin, { username: 'paul', roles: [publishers] })).jwt;
    reader = (await createUser(s, admin, { username: 'rita', roles: [readers] })).jwt;
    receiver = await startReceiver();
    const hook = await s.request('POST', '/webhooks', { token: admin, body: { data: { type: 'webhooks', attributes: { name: 'Review', url: receiver.url, events: ['drafts.submitted', 'objects.update'] } } } });
    assert.equal(hook.status, 201, hook.text);
  });
  after(async () => {
    await s.close();
    await receiver.close();
  });

  test('an editor without publish saves a draft of a live document; the live one, lists and search stay as they were', async () => {
    const id = await liveDoc('Live title');
    expectError(await s.request('PATCH', `/documents/${id}`, { token: editor, body: doc({ title: 'Changed' }, id) }), 403, 'publish_required');
    const saved = await saveDraft(id, editor, { title: 'Draft title', body: 'Zanzibar draftword' });
    assert.equal(saved.status, 200, saved.text);
    assert.equal(saved.body.data.type, 'documents');
    assert.equal(saved.body.data.attributes.title, 'Draft title');
    assert.deepEqual(saved.body.data.meta.draft.changed.sort(), ['body', 'title']);
    assert.equal(saved.body.data.meta.draft.submitted, null);
    // Who changed it, by name too (publishers who may not read /users see who wrote it).
    assert.equal(saved.body.data.meta.draft.modified_by_name, 'edith');
    // A second PATCH merges into the same draft.
    const again = await saveDraft(id, editor, { description: 'Draft description' });
    assert.equal(again.body.data.attributes.title, 'Draft title');
    assert.equal(again.body.data.meta.draft.created, saved.body.data.meta.draft.created);
    for (const token of [undefined, reader, editor]) {
      const live = await s.request('GET', `/documents/${id}`, { token });
      assert.equal(live.body.data.attributes.title, 'Live title');
      assert.equal(live.body.data.attributes.description, null);
      const list = await s.request('GET', `/documents?filter[id]=${id}`, { token });
      assert.equal(list.body.data[0].attributes.title, 'Live title');
    }
    assert.equal((await s.request('GET', '/objects?q=Zanzibar')).body.data.length, 0);
    const legacy = await s.request('GET', `/objects/${id}`, { headers: { Accept: 'application/json, text/javascript' } });
    assert.ok(!legacy.text.includes('Draft title'), legacy.text);
  });

  test('readers without update never see a draft: 404 as for a missing one; lists hold only what the caller may update', async () => {
    const id = await liveDoc('Guarded');
    assert.equal((await saveDraft(id, editor, { title: 'Secret change' })).status, 200);
    expectError(await s.request('GET', `/drafts/${id}`, { token: reader }), 404);
    expectError(await s.request('GET', `/drafts/${id}`), 404);
    expectError(await saveDraft(id, reader, { title: 'Reader change' }), 404);
    expectError(await s.request('DELETE', `/drafts/${id}`, { token: reader }), 404);
    expectError(await s.request('POST', `/drafts/${id}/preview`, { token: reader }), 404);
    assert.equal((await s.request('GET', '/drafts', { token: reader })).body.data.length, 0);
    const mine = await s.request('GET', '/drafts?filter[type]=documents&sort=-id', { token: editor });
    assert.equal(mine.status, 200, mine.text);
    assert.equal(mine.body.data[0].id, id);
    assert.equal(mine.body.data[0].attributes.title, 'Secret change');
    const byEditor = await s.request('GET', `/drafts?filter[modified_by]=${mine.body.data[0].meta.draft.modified_by}`, { token: admin });
    assert.ok(byEditor.body.data.some((d: { id: string }) => d.id === id));
    expectError(await s.request('GET', '/drafts?filter[nonsense]=1', { token: admin }), 400);
    expectError(await s.request('GET', `/drafts/999999`, { token: admin }), 404);
    assert.equal((await s.request('DELETE', `/drafts/${id}`, { token: editor })).status, 204);
    expectError(await s.request('GET', `/drafts/${id}`, { token: editor }), 404);
  });

  test('a draft of an object the caller may not read answers exactly as a missing object: 404 on every draft endpoint; nothing changes', async () => {
    // Not published, so only users with `read` on documents see it: an outsider sees a missing one.
    const created = await s.request('POST', '/documents', { token: admin, body: doc({ title: 'Unpublished plans', status: 'draft' }) });
    assert.equal(created.status, 201, created.text);
    const id = String(created.body.data.id);
    assert.equal((await saveDraft(id, editor, { title: 'Unpublished plans, v2' })).status, 200);
    const outsiders = await createRole(s, admin, 'outsiders', { images: ['read', 'create', 'update', 'delete', 'publish'] });
    const outsider = (await createUser(s, admin, { username: 'otto', roles: [outsiders] })).jwt;
    const before = await draftRow(id);
    const tries = (key: string, token?: string) => [
      s.request('GET', `/drafts/${key}`, { token }),
      s.request('PATCH', `/drafts/${key}`, { token, body: doc({ title: 'Overridden' }, key) }),
      s.request('DELETE', `/drafts/${key}`, { token }),
      s.request('POST', `/drafts/${key}/submit`, { token }),
      s.request('POST', `/drafts/${key}/preview`, { token }),
      s.request('POST', `/drafts/${key}/publish`, { token }),
    ];
    const missing = await Promise.all(tries('999999', outsider));
    const hidden = await Promise.all(tries(id, outsider));
    hidden.forEach((r, i) => {
      const e = expectError(r, 404);
      assert.equal(e.code, expectError(missing[i], 404).code, `the same answer as for a missing object: ${r.text}`);
      assert.ok(!r.text.includes('Unpublished plans'), r.text);
    });
    expectError(await s.request('GET', `/drafts/${id}`), 404);
    assert.ok(!(await s.request('GET', '/drafts', { token: outsider })).body.data.some((d: { id: string }) => d.id === id));
    assert.deepEqual(await draftRow(id), before, 'the draft is as it was');
  });

  test('a draft of an object restricted by object permissions answers as a read of it: 401 anonymous, 403 without the role, on every draft endpoint; nothing changes', async () => {
    const id = await liveDoc('Board minutes');
    await saveDraft(id, editor, { title: 'Board minutes, amended' });
    // Every right on every type, but not the role the object is restricted to.
    const chiefs = await createRole(s, admin, 'chiefs', { '*': ['read', 'create', 'update', 'delete', 'publish'] });
    const chief = (await createUser(s, admin, { username: 'carla', roles: [chiefs] })).jwt;
    const restrict = await s.request('PATCH', `/documents/${id}`, { token: admin, body: { data: { type: 'documents', id, meta: { perms: { roles: ['publishers'] } } } } });
    assert.equal(restrict.status, 200, restrict.text);
    const before = await draftRow(id);
    const tries = (token?: string) => [
      s.request('GET', `/drafts/${id}`, { token }),
      saveDraft(id, token as string, { title: 'Overridden' }),
      s.request('DELETE', `/drafts/${id}`, { token }),
      s.request('POST', `/drafts/${id}/submit`, { token }),
      s.request('POST', `/drafts/${id}/preview`, { token }),
      s.request('POST', `/drafts/${id}/publish`, { token }),
      s.request('POST', `/drafts/${id}/publish`, { token, body: { publish_at: new Date(Date.now() + 3_600_000).toISOString() } }),
    ];
    for (const r of await Promise.all(tries(undefined))) {
      expectError(r, 401);
      assert.ok(!r.text.includes('Board minutes'), r.text);
    }
    for (const token of [chief, editor]) {
      for (const r of await Promise.all(tries(token))) {
        expectError(r, 403);
        assert.ok(!r.text.includes('Board minutes'), r.text);
      }
      const listed = await s.request('GET', '/drafts', { token });
      assert.ok(!listed.body.data.some((d: { id: string }) => d.id === id), 'not listed');
      const drafted = await s.request('GET', '/documents?filter[has_draft]=1', { token });
      assert.ok(!drafted.body.data.some((d: { id: string }) => d.id === id), 'not found by filter[has_draft]');
    }
    assert.deepEqual(await draftRow(id), before, 'the draft is as it was');
    assert.equal((await s.request('GET', `/documents/${id}`, { token: admin })).body.data.attributes.title, 'Board minutes');
    // Those the object is restricted to read its draft as before.
    const allowed = await s.request('GET', `/drafts/${id}`, { token: publisher });
    assert.equal(allowed.status, 200, allowed.text);
    assert.equal(allowed.body.data.attributes.title, 'Board minutes, amended');
  });

  test('bad input gives 400 and changes nothing: unknown field, unknown relation, bad value', async () => {
    const id = await liveDoc('Strict');
    const first = await saveDraft(id, editor, { title: 'Kept' });
    const before = await draftRow(id);
    expectError(await saveDraft(id, editor, { title: 'No', no_such_field: 1 }), 400, 'unknown_attribute');
    expectError(await saveDraft(id, editor, { status: 'maybe' }), 400);
    expectError(await saveDraft(id, editor, {}, { no_such_relation: { data: [] } }), 400);
    expectError(await s.request('PATCH', `/drafts/${id}`, { token: editor, body: { data: { type: 'events', id, attributes: {} } } }), 409);
    assert.deepEqual(await draftRow(id), before);
    assert.equal(first.body.data.attributes.title, 'Kept');
  });

  test('a publisher sees what changed and publishes: one kernel write (history, webhook, version); a stale If-Match is 412', async () => {
    const id = await liveDoc('Before publish');
    const other = await liveDoc('Related');
    assert.equal((await saveDraft(id, editor, { title: 'After publish' }, { see_also: { data: [{ type: 'documents', id: other }] } })).status, 200);
    const seen = await s.request('GET', `/drafts/${id}`, { token: publisher });
    assert.deepEqual(seen.body.data.meta.draft.changed.sort(), ['see_also', 'title']);
    expectError(await s.request('POST', `/drafts/${id}/publish`, { token: editor }), 403, 'publish_required');
    const live = await s.request('GET', `/documents/${id}`, { token: admin });
    const etag = live.headers.get('etag')!;
    const version = /^"v(\d+)-/.exec(etag)![1];
    const stale = await s.request('POST', `/drafts/${id}/publish`, { token: publisher, headers: { 'If-Match': `"v${Number(version) - 1 || 99}"` } });
    expectError(stale, 412, 'precondition_failed');
    assert.ok(await draftRow(id), 'the draft stays after a refused publish');
    const entries = (await history(id)).length;
    const delivered = receiver.received.length;
    const published = await s.request('POST', `/drafts/${id}/publish`, { token: publisher, headers: { 'If-Match': etag } });
    assert.equal(published.status, 200, published.text);
    assert.equal(published.body.data.attributes.title, 'After publish');
    assert.notEqual(published.headers.get('etag'), etag);
    assert.equal(await draftRow(id), undefined);
    expectError(await s.request('GET', `/drafts/${id}`, { token: publisher }), 404);
    const after = await history(id);
    assert.equal(after.length, entries + 1);
    assert.deepEqual(Object.keys(after.at(-1)!.attributes.changed).sort(), ['see_also', 'title']);
    const related = await s.request('GET', `/documents/${id}/see_also`);
    assert.deepEqual(related.body.data.map((o: { id: string }) => o.id), [other]);
    const hooks = await receiver.waitFor(delivered + 1);
    assert.ok(hooks.slice(delivered).some((h) => h.body.event === 'objects.update' && h.body.resource.id === id && h.body.data.attributes.title === 'After publish'));
  });

  test('submit asks for review: meta.draft.submitted, webhook drafts.submitted, filter[submitted]', async () => {
    const id = await liveDoc('For review');
    await saveDraft(id, editor, { title: 'Please review' });
    const delivered = receiver.received.length;
    const submitted = await s.request('POST', `/drafts/${id}/submit`, { token: editor });
    assert.equal(submitted.status, 200, submitted.text);
    assert.ok(submitted.body.data.meta.draft.submitted);
    const hooks = await receiver.waitFor(delivered + 1);
    const hook = hooks.slice(delivered).find((h) => h.body.event === 'drafts.submitted');
    assert.ok(hook, 'drafts.submitted delivered');
    assert.equal(hook.body.resource.id, id);
    // The payload is the live object: draft values reach no webhook before they are published.
    assert.equal(hook.body.data.attributes.title, 'For review');
    const pending = await s.request('GET', '/drafts?filter[submitted]=true', { token: publisher });
    assert.ok(pending.body.data.some((d: { id: string }) => d.id === id));
    const notYet = await s.request('GET', '/drafts?filter[submitted]=false', { token: publisher });
    assert.ok(!notYet.body.data.some((d: { id: string }) => d.id === id));
  });

  test('preview tokens open that draft only, read-only, not once expired, altered or for another draft', async () => {
    const id = await liveDoc('Preview me');
    const other = await liveDoc('Another');
    await saveDraft(id, editor, { title: 'Previewed title' });
    await saveDraft(other, editor, { title: 'Other draft' });
    const made = await s.request('POST', `/drafts/${id}/preview`, { token: editor });
    assert.equal(made.status, 200, made.text);
    const token = made.body.meta.preview_token as string;
    assert.equal(made.body.meta.preview_url, `${s.url}/admin/preview/${id}?token=${encodeURIComponent(token)}`);
    const read = await s.request('GET', `/drafts/${id}?preview_token=${encodeURIComponent(token)}`);
    assert.equal(read.status, 200, read.text);
    assert.equal(read.body.data.attributes.title, 'Previewed title');
    assert.equal(read.headers.get('cache-control'), 'no-store');
    expectError(await s.request('GET', `/drafts/${other}?preview_token=${encodeURIComponent(token)}`), 403, 'preview_token_mismatch');
    const tampered = token.slice(0, -3) + (token.endsWith('AAA') ? 'BBB' : 'AAA');
    expectError(await s.request('GET', `/drafts/${id}?preview_token=${encodeURIComponent(tampered)}`), 401, 'invalid_preview_token');
    // An access token is no preview token.
    expectError(await s.request('GET', `/drafts/${id}?preview_token=${encodeURIComponent(admin)}`), 401, 'invalid_preview_token');
    expectError(await s.request('PATCH', `/drafts/${id}?preview_token=${encodeURIComponent(token)}`, { body: doc({ title: 'x' }, id) }), 401);
    const draft = (await draftRow(id))!;
    const ctx = s.server.ctx;
    const shortLived = previewToken({ ...ctx, config: { ...ctx.config, previewTtl: 1 } } as typeof ctx, draft);
    await letTimePass(2100);
    expectError(await s.request('GET', `/drafts/${id}?preview_token=${encodeURIComponent(shortLived)}`), 401, 'expired_preview_token');
    // Discarded and made again: the old link no longer opens it.
    await s.request('DELETE', `/drafts/${id}`, { token: editor });
    await letTimePass(5);
    await saveDraft(id, editor, { title: 'Second draft' });
    expectError(await s.request('GET', `/drafts/${id}?preview_token=${encodeURIComponent(token)}`), 403, 'preview_token_mismatch');
  });

  test('a type\'s preview_url template builds meta.preview_url; a template that is no http(s) URL is 400', async () => {
    const id = await liveDoc('Site preview');
    await saveDraft(id, editor, { title: 'On the site' });
    const typeId = String((await s.request('GET', '/model/object_types/documents', { token: admin })).body.data.id);
    const setPreviewUrl = (preview_url: string | null) =>
      s.request('PATCH', `/model/object_types/${typeId}`, { token: admin, body: { data: { type: 'object_types', id: typeId, attributes: { preview_url } } } });
    expectError(await setPreviewUrl('ftp://site.example/{uname}'), 400);
    expectError(await setPreviewUrl('https://site.example/{nope}'), 400);
    const set = await setPreviewUrl('https://site.example/{type}/{uname}?preview={token}');
    assert.equal(set.status, 200, set.text);
    assert.equal(set.body.data.attributes.preview_url, 'https://site.example/{type}/{uname}?preview={token}');
    const project = await s.request('GET', '/model/project', { token: admin, headers: { Accept: 'application/json' } });
    assert.equal(project.body.object_types.find((t: { name: string }) => t.name === 'documents').preview_url, 'https://site.example/{type}/{uname}?preview={token}');
    const uname = (await s.request('GET', `/documents/${id}`, { token: admin })).body.data.attributes.uname;
    const made = await s.request('POST', `/drafts/${id}/preview`, { token: editor });
    assert.equal(made.body.meta.preview_url, `https://site.example/documents/${uname}?preview=${encodeURIComponent(made.body.meta.preview_token)}`);
    assert.equal((await setPreviewUrl(null)).status, 200);
  });

  test('publish_at schedules the draft: a past instant, no datetime or no such day is 400; it goes live once, at that instant', async () => {
    const id = await liveDoc('Scheduled');
    await saveDraft(id, editor, { title: 'Went live on time' });
    const before = await draftRow(id);
    expectError(await s.request('POST', `/drafts/${id}/publish`, { token: publisher, body: { publish_at: '2001-01-01T00:00:00Z' } }), 400);
    expectError(await s.request('POST', `/drafts/${id}/publish`, { token: publisher, body: { publish_at: 'tomorrow' } }), 400);
    expectError(await s.request('POST', `/drafts/${id}/publish`, { token: publisher, body: { publish_at: 1893456000 } }), 400);
    expectError(await s.request('POST', `/drafts/${id}/publish`, { token: publisher, body: { publish_at: '2031-02-30T10:00:00Z' } }), 400);
    expectError(await s.request('POST', `/drafts/${id}/publish`, { token: editor, body: { publish_at: new Date(Date.now() + 60_000).toISOString() } }), 403, 'publish_required');
    assert.deepEqual(await draftRow(id), before);
    const entries = (await history(id)).length;
    const at = new Date(Date.now() + 1500).toISOString();
    const scheduled = await s.request('POST', `/drafts/${id}/publish`, { token: publisher, body: { publish_at: at } });
    assert.equal(scheduled.status, 202, scheduled.text);
    assert.equal(scheduled.body.data.meta.draft.publish_at, at);
    assert.equal((await s.request('GET', `/documents/${id}`)).body.data.attributes.title, 'Scheduled');
    await waitUntil(async () => ((await s.request('GET', `/documents/${id}`)).body.data.attributes.title === 'Went live on time' ? true : undefined), 'the scheduled publication');
    assert.ok(Date.now() >= Date.parse(at));
    await s.server.ctx.jobs.idle(['drafts.publish']);
    assert.equal((await history(id)).length, entries + 1, 'applied once');
    assert.equal(await draftRow(id), undefined);
  });

  test('a draft holds translation changes: shown with lang=, never live, published in the same write; removal too', async () => {
    const id = await liveDoc('Translated');
    const it = await s.request('POST', '/translations', { token: admin, body: { data: { type: 'translations', attributes: { object_id: id, lang: 'it', status: 'on', translated_fields: { title: 'Titolo vivo', body: 'Parole vive' } } } } });
    assert.equal(it.status, 201, it.text);
    const itId = String(it.body.data.id);
    const saved = await s.request('PATCH', `/drafts/${id}`, {
      token: editor,
      body: { data: { type: 'documents', id, attributes: {}, meta: { translations: { it: { translated_fields: { title: 'Titolo bozza' } }, fr: { status: 'on', translated_fields: { title: 'Titre brouillon' } } } } } },
    });
    assert.equal(saved.status, 200, saved.text);
    assert.deepEqual(saved.body.data.meta.draft.changed, ['translations']);
    assert.deepEqual(Object.keys(saved.body.data.meta.draft.translations).sort(), ['fr', 'it']);
    const inItalian = await s.request('GET', `/drafts/${id}?lang=it`, { token: editor });
    assert.equal(inItalian.status, 200, inItalian.text);
    assert.deepEqual(inItalian.body.data.relationships.translations.data, [{ type: 'translations', id: itId }]);
    const itDraft = inItalian.body.included.find((r: { type: string }) => r.type === 'translations');
    assert.equal(itDraft.id, itId);
    assert.deepEqual(itDraft.attributes.translated_fields, { title: 'Titolo bozza', body: 'Parole vive' });
    assert.equal(itDraft.attributes.status, 'on');
    const inFrench = await s.request('GET', `/drafts/${id}?lang=fr`, { token: editor });
    assert.deepEqual(inFrench.body.data.relationships.translations.data, [{ type: 'translations', id: 'draft-fr' }]);
    assert.equal(inFrench.body.included[0].attributes.translated_fields.title, 'Titre brouillon');
    const preview = (await s.request('POST', `/drafts/${id}/preview`, { token: editor })).body.meta.preview_token as string;
    const previewed = await s.request('GET', `/drafts/${id}?preview_token=${encodeURIComponent(preview)}&lang=fr`);
    assert.equal(previewed.status, 200, previewed.text);
    assert.equal(previewed.body.included[0].attributes.translated_fields.title, 'Titre brouillon');
    // The live translations never show draft values.
    for (const token of [undefined, reader, editor]) {
      const live = await s.request('GET', `/documents/${id}?lang=it`, { token });
      assert.equal(live.body.included[0].attributes.translated_fields.title, 'Titolo vivo');
      const list = await s.request('GET', `/translations?filter[object_id]=${id}`, { token });
      assert.deepEqual(list.body.data.map((t: { attributes: { lang: string } }) => t.attributes.lang), ['it']);
    }
    // A translation that is or becomes `on` needs publish, as through /translations.
    expectError(await s.request('POST', `/drafts/${id}/publish`, { token: editor }), 403, 'publish_required');
    const entries = (await history(id)).length;
    const published = await s.request('POST', `/drafts/${id}/publish`, { token: publisher });
    assert.equal(published.status, 200, published.text);
    const after = await history(id);
    assert.equal(after.length, entries + 1, 'one write');
    assert.deepEqual(Object.keys(after.at(-1)!.attributes.changed), ['translations']);
    const now = await s.request('GET', `/translations?filter[object_id]=${id}&sort=lang`);
    assert.deepEqual(
      now.body.data.map((t: { attributes: { lang: string; status: string; translated_fields: Record<string, string> } }) => [t.attributes.lang, t.attributes.status, t.attributes.translated_fields.title]),
      [['fr', 'on', 'Titre brouillon'], ['it', 'on', 'Titolo bozza']],
    );
    // null removes a translation once published.
    const removal = await s.request('PATCH', `/drafts/${id}`, { token: editor, body: { data: { type: 'documents', id, meta: { translations: { fr: null } } } } });
    assert.equal(removal.status, 200, removal.text);
    assert.deepEqual(removal.body.data.meta.draft.changed, ['translations']);
    assert.deepEqual((await s.request('GET', `/drafts/${id}?lang=fr`, { token: editor })).body.data.relationships.translations.data, []);
    assert.equal((await s.request('POST', `/drafts/${id}/publish`, { token: publisher })).status, 200);
    const left = await s.request('GET', `/translations?filter[object_id]=${id}`);
    assert.deepEqual(left.body.data.map((t: { attributes: { lang: string } }) => t.attributes.lang), ['it']);
  });

  test('bad translations in a draft give 400 and change nothing: language tag, untranslated field, status, unknown member', async () => {
    const id = await liveDoc('Strict translations');
    await s.request('PATCH', `/drafts/${id}`, { token: editor, body: { data: { type: 'documents', id, meta: { translations: { de: { translated_fields: { title: 'Titel' } } } } } } });
    const before = await draftRow(id);
    const patch = (translations: unknown) => s.request('PATCH', `/drafts/${id}`, { token: editor, body: { data: { type: 'documents', id, attributes: { title: 'Not saved' }, meta: { translations } } } });
    expectError(await patch({ 'not a tag!': { translated_fields: { title: 'x' } } }), 400, 'invalid_data');
    expectError(await patch({ de: { translated_fields: { uname: 'x' } } }), 400, 'invalid_data');
    expectError(await patch({ de: { translated_fields: { title: 7 } } }), 400, 'invalid_data');
    expectError(await patch({ de: { status: 'maybe' } }), 400, 'invalid_data');
    expectError(await patch({ de: { lang: 'it' } }), 400, 'invalid_data');
    expectError(await patch({ de: 'Titel' }), 400);
    expectError(await patch(['de']), 400);
    assert.deepEqual(await draftRow(id), before);
  });

  test('GET /drafts/{id} has the draft\'s own ETag; a stale If-Match on PATCH or DELETE is 412 and changes nothing', async () => {
    const id = await liveDoc('Two editors');
    const first = await saveDraft(id, editor, { title: 'First editor' });
    const read = await s.request('GET', `/drafts/${id}`, { token: editor });
    const tag = read.headers.get('etag')!;
    assert.match(tag, /^"d\d+-[A-Za-z0-9_-]+"$/);
    assert.equal(first.headers.get('etag'), tag);
    assert.equal((await rawGet(s, `/drafts/${id}`, { Authorization: `Bearer ${editor}`, 'If-None-Match': tag })).status, 304);
    const liveTag = (await s.request('GET', `/documents/${id}`, { token: admin })).headers.get('etag')!;
    // Another editor saves meanwhile: the first one's If-Match is stale.
    const second = await s.request('PATCH', `/drafts/${id}`, { token: publisher, headers: { 'If-Match': tag }, body: doc({ description: 'Second editor' }, id) });
    assert.equal(second.status, 200, second.text);
    const newTag = second.headers.get('etag')!;
    assert.notEqual(newTag, tag);
    const before = await draftRow(id);
    expectError(await s.request('PATCH', `/drafts/${id}`, { token: editor, headers: { 'If-Match': tag }, body: doc({ title: 'Lost?' }, id) }), 412, 'precondition_failed');
    expectError(await s.request('PATCH', `/drafts/${id}`, { token: editor, headers: { 'If-Match': liveTag }, body: doc({ title: 'Lost?' }, id) }), 412, 'precondition_failed');
    expectError(await s.request('DELETE', `/drafts/${id}`, { token: editor, headers: { 'If-Match': tag } }), 412, 'precondition_failed');
    assert.deepEqual(await draftRow(id), before);
    // A write of the live object alone does not refuse saving the draft (it holds changes only).
    assert.equal((await s.request('PATCH', `/documents/${id}`, { token: admin, body: doc({ body: 'Live edit' }, id) })).status, 200);
    const moved = (await s.request('GET', `/drafts/${id}`, { token: editor })).headers.get('etag')!;
    assert.notEqual(moved, newTag, 'the live version is part of the draft\'s ETag');
    assert.equal((await s.request('PATCH', `/drafts/${id}`, { token: editor, headers: { 'If-Match': newTag }, body: doc({ title: 'Third' }, id) })).status, 200);
    const other = await liveDoc('No draft yet');
    expectError(await s.request('PATCH', `/drafts/${other}`, { token: editor, headers: { 'If-Match': tag }, body: doc({ title: 'x' }, other) }), 412, 'precondition_failed');
    assert.equal(await draftRow(other), undefined);
    const current = (await s.request('GET', `/drafts/${id}`, { token: editor })).headers.get('etag')!;
    // Publishing with the draft's ETag: the draft and the live version must both be as read.
    expectError(await s.request('POST', `/drafts/${id}/publish`, { token: publisher, headers: { 'If-Match': newTag } }), 412, 'precondition_failed');
    assert.ok(await draftRow(id));
    assert.equal((await s.request('DELETE', `/drafts/${id}`, { token: editor, headers: { 'If-Match': current } })).status, 204);
    await saveDraft(id, editor, { title: 'Published with its tag' });
    const readTag = (await s.request('GET', `/drafts/${id}`, { token: publisher })).headers.get('etag')!;
    const published = await s.request('POST', `/drafts/${id}/publish`, { token: publisher, headers: { 'If-Match': readTag } });
    assert.equal(published.status, 200, published.text);
    assert.equal(published.body.data.attributes.title, 'Published with its tag');
  });

  test('filter[has_draft] lists the objects with (or without) a draft the reader may see; others learn nothing; a bad value is 400', async () => {
    const drafted = await liveDoc('Has a draft');
    const plain = await liveDoc('Has none');
    await saveDraft(drafted, editor, { title: 'Pending' });
    const ids = async (url: string, token?: string) => {
      const r = await s.request('GET', url, { token });
      assert.equal(r.status, 200, r.text);
      return (r.body.data as Array<{ id: string }>).map((o) => o.id);
    };
    for (const url of [`/documents?filter[has_draft]=1&page_size=100&sort=-id`, `/objects?filter[has_draft]=true&page_size=100&sort=-id`]) {
      const found = await ids(url, editor);
      assert.ok(found.includes(drafted) && !found.includes(plain), url);
    }
    const without = await ids(`/documents?filter[has_draft]=0&page_size=100&sort=-id`, editor);
    assert.ok(!without.includes(drafted) && without.includes(plain));
    assert.ok(!(await ids(`/documents?filter[has_draft]=false&page_size=100&sort=-id`, admin)).includes(drafted));
    // Readers who may not update are told of no draft.
    for (const token of [undefined, reader]) {
      assert.deepEqual(await ids(`/documents?filter[has_draft]=1`, token), []);
      assert.ok((await ids(`/documents?filter[has_draft]=0&page_size=100&sort=-id`, token)).includes(drafted));
    }
    expectError(await s.request('GET', '/documents?filter[has_draft]=maybe', { token: editor }), 400, 'invalid_filter');
  });

  test('a draft follows its object to the trash and back, and goes when the object is purged', async () => {
    const id = await liveDoc('Trashable');
    await saveDraft(id, editor, { title: 'Trashed draft' });
    assert.equal((await s.request('DELETE', `/documents/${id}`, { token: admin })).status, 204);
    expectError(await s.request('GET', `/drafts/${id}`, { token: admin }), 404);
    assert.ok(!(await s.request('GET', '/drafts?page_size=100', { token: admin })).body.data.some((d: { id: string }) => d.id === id));
    assert.equal((await s.request('PATCH', `/trash/${id}`, { token: admin, body: { data: { id, type: 'documents' } } })).status, 204);
    assert.equal((await s.request('GET', `/drafts/${id}`, { token: admin })).body.data.attributes.title, 'Trashed draft');
    assert.equal((await s.request('DELETE', `/documents/${id}`, { token: admin })).status, 204);
    assert.equal((await s.request('DELETE', `/trash/${id}`, { token: admin })).status, 204);
    assert.equal(await draftRow(id), undefined);
  });

  test('a relation\'s list in a draft keeps each link\'s params: read back as sent (a client sends the list back whole), published with them', async () => {
    const id = await liveDoc('With params');
    const other = await liveDoc('Linked with params');
    const item = { type: 'documents', id: other, meta: { relation: { params: { note: 'see page 2' } } } };
    const saved = await saveDraft(id, editor, {}, { see_also: { data: [item] } });
    assert.equal(saved.status, 200, saved.text);
    assert.deepEqual(saved.body.data.relationships.see_also.data, [item]);
    const published = await s.request('POST', `/drafts/${id}/publish`, { token: publisher });
    assert.equal(published.status, 200, published.text);
    const related = await s.request('GET', `/documents/${id}/see_also`, { token: admin });
    assert.deepEqual(related.body.data.map((r: { id: string; meta: { relation: { params: unknown } } }) => [r.id, r.meta.relation.params]), [[other, { note: 'see page 2' }]]);
  });

  test('a hidden field is unknown to a draft; unchanged relations are not in `changed`; a place in folders is published', async () => {
    const made = await s.request('POST', '/model/object_types', { token: admin, body: { data: { type: 'object_types', attributes: { name: 'notes', singular: 'note', hidden: ['description'] } } } });
    assert.equal(made.status, 201, made.text);
    const note = await s.request('POST', '/notes', { token: admin, body: { data: { type: 'notes', attributes: { title: 'A note' } } } });
    const noteId = String(note.body.data.id);
    expectError(await s.request('PATCH', `/drafts/${noteId}`, { token: admin, headers: { Prefer: 'handling=strict' }, body: { data: { type: 'notes', id: noteId, attributes: { description: 'hidden' } } } }), 400, 'unknown_attribute');
    assert.equal(await draftRow(noteId), undefined);
    const id = await liveDoc('Placed');
    const other = await liveDoc('Already related');
    await s.request('POST', `/documents/${id}/relationships/see_also`, { token: admin, body: { data: [{ type: 'documents', id: other }] } });
    const folder = await s.request('POST', '/folders', { token: admin, body: { data: { type: 'folders', attributes: { title: 'Drafted folder', status: 'on' } } } });
    const folderId = String(folder.body.data.id);
    const saved = await saveDraft(id, admin, { title: 'Placed' }, { see_also: { data: [{ type: 'documents', id: other }] }, parents: { data: [{ type: 'folders', id: folderId }] } });
    assert.equal(saved.status, 200, saved.text);
    assert.deepEqual(saved.body.data.meta.draft.changed, ['parents']);
    assert.equal((await s.request('GET', `/folders/${folderId}/children`)).body.data.length, 0);
    assert.equal((await s.request('POST', `/drafts/${id}/publish`, { token: admin })).status, 200);
    assert.deepEqual((await s.request('GET', `/folders/${folderId}/children`)).body.data.map((o: { id: string }) => o.id), [id]);
  });

  test('a publication scheduled on an instance that stops is done by another, once', async () => {
    const id = await liveDoc('Two instances');
    await saveDraft(id, editor, { title: 'Published by the other instance' });
    const other = await createServer(loadConfig({ ...sameData(s), FOLIO_JWT_SECRET: s.server.ctx.jwtSecret, FOLIO_LOGIN_LIMIT: '0' }, { logRequests: false, jobPollMs: 200 }), { log: () => {} });
    const { port } = await other.listen(0, '127.0.0.1');
    const at = new Date(Date.now() + 2000).toISOString();
    const res = await fetch(`http://127.0.0.1:${port}/drafts/${id}/publish`, { method: 'POST', headers: { Authorization: `Bearer ${publisher}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ publish_at: at }) });
    assert.equal(res.status, 202, await res.text());
    await other.close();
    const entries = (await history(id)).length;
    await waitUntil(async () => ((await s.request('GET', `/documents/${id}`)).body.data.attributes.title === 'Published by the other instance' ? true : undefined), 'the publication by the instance left');
    await s.server.ctx.jobs.idle(['drafts.publish']);
    assert.equal((await history(id)).length, entries + 1);
  });

  test('a backup carries the drafts; restored, they read as before', async () => {
    const id = await liveDoc('Backed up');
    await saveDraft(id, editor, { title: 'Draft in the backup' });
    const made = await s.request('POST', '/backups', { token: admin });
    assert.equal(made.status, 201, made.text);
    assert.ok(made.body.data.meta.counts.tables.drafts >= 1, JSON.stringify(made.body.data.meta.counts));
    const file = path.join(s.dataDir, 'backups', made.body.data.attributes.file_name);
    const fresh = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-drafts-'));
    try {
      const run = await runRestoreCli(file, { FOLIO_DATA_DIR: fresh });
      assert.equal(run.code, 0, run.out);
      const server = await createServer(loadConfig({ FOLIO_DATA_DIR: fresh, FOLIO_LOGIN_LIMIT: '0' }, { logRequests: false }), { log: () => {} });
      try {
        const { port } = await server.listen(0, '127.0.0.1');
        const base = `http://127.0.0.1:${port}`;
        const login = await fetch(`${base}/auth`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(ADMIN) });
        const jwt = ((await login.json()) as { meta: { jwt: string } }).meta.jwt;
        const read = await fetch(`${base}/drafts/${id}`, { headers: { Authorization: `Bearer ${jwt}` } });
        assert.equal(read.status, 200);
        assert.equal(((await read.json()) as { data: { attributes: { title: string } } }).data.attributes.title, 'Draft in the backup');
      } finally {
        await server.close();
      }
    } finally {
      fs.rmSync(fresh, { recursive: true, force: true });
    }
  });
});
