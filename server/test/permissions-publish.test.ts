// The `publish` right (CONTRACT.md, Permissions): it covers every change of what anonymous
// clients see of an object — creating it `on`, changing its status to or from `on`, changing
// anything of an `on` object (attributes, publication window, relations, folders, stream, trash),
// setting a translation's status to or from `on` or changing an `on` translation. Without it a
// create with no status is a draft and such a change is 403 `publish_required`, changing nothing
// (read back as an admin). Through HTTP, on SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { tinyPng } from './helpers/fixtures.js';
import { expectError, startServer, type TestServer } from './helpers/server.js';
import { userWithPermissions } from './helpers/users.js';

const EDITING = ['read', 'create', 'update', 'delete'];

describe('publish: every change of what anonymous clients see', () => {
  let s: TestServer;
  let admin: string;
  let editor: string;
  let publisher: string;
  const body = (type: string, attributes: Record<string, unknown>) => ({ data: { type, attributes } });

  async function make(type: string, attributes: Record<string, unknown>, token = admin) {
    const r = await s.request('POST', `/${type}`, { token, body: body(type, attributes) });
    assert.equal(r.status, 201, r.text);
    return String(r.body.data.id);
  }
  const patch = (token: string, type: string, id: string, attributes: Record<string, unknown>) =>
    s.request('PATCH', `/${type}/${id}`, { token, body: { data: { id, type, attributes } } });
  const asAdmin = async (path: string) => {
    const r = await s.request('GET', path, { token: admin });
    assert.equal(r.status, 200, r.text);
    return r.body;
  };
  const ids = (list: { data: Array<{ id: string }> }) => list.data.map((d) => d.id);

  before(async () => {
    s = await startServer();
    admin = await s.adminToken();
    const rights = { documents: EDITING, folders: EDITING, images: EDITING };
    editor = await userWithPermissions(s, admin, 'editor', rights);
    publisher = await userWithPermissions(s, admin, 'publisher', Object.fromEntries(Object.entries(rights).map(([k, v]) => [k, [...v, 'publish']])));
  });
  after(() => s.close());

  test('creating: no status makes a draft; status on needs publish', async () => {
    const draft = await make('documents', { title: 'Editor draft' }, editor);
    assert.equal((await asAdmin(`/documents/${draft}`)).data.attributes.status, 'draft');
    expectError(await s.request('POST', '/documents', { token: editor, body: body('documents', { title: 'Editor live', status: 'on' }) }), 403, 'publish_required');
    assert.deepEqual(ids(await asAdmin('/documents?filter[status]=on&q=editor')), []);
    const ops = await s.request('POST', '/operations', {
      token: editor,
      headers: { 'Content-Type': 'application/vnd.api+json' },
      body: { 'atomic:operations': [{ op: 'add', data: body('documents', { title: 'Operation live', status: 'on' }).data }] },
    });
    expectError(ops, 403, 'publish_required');
    assert.deepEqual(ids(await asAdmin('/documents?q=operation')), []);
    const live = await make('documents', { title: 'Publisher live', status: 'on' }, publisher);
    assert.equal((await s.request('GET', `/documents/${live}`)).status, 200);
  });

  test('an on object: attributes, status, window, relations, parents, folder children and trash need publish; nothing changes', async () => {
    const live = await make('documents', { title: 'Live page', status: 'on' });
    const other = await make('documents', { title: 'Other page', status: 'draft' }, editor);
    const liveFolder = await make('folders', { title: 'Live folder', status: 'on' });
    const draftFolder = await make('folders', { title: 'Draft folder', status: 'draft' });
    const before = await asAdmin(`/documents/${live}`);
    const refused = [
      await patch(editor, 'documents', live, { title: 'Defaced' }),
      await patch(editor, 'documents', live, { status: 'draft' }),
      await patch(editor, 'documents', live, { status: 'off' }),
      // Moving the window unpublishes (or publishes) it as surely as its status does.
      await patch(editor, 'documents', live, { publish_end: '2001-01-01T00:00:00Z' }),
      await patch(editor, 'documents', live, { publish_start: '2999-01-01T00:00:00Z' }),
      await s.request('POST', `/documents/${live}/relationships/see_also`, { token: editor, body: { data: [{ type: 'documents', id: other }] } }),
      await s.request('POST', `/documents/${live}/relationships/parents`, { token: editor, body: { data: [{ type: 'folders', id: draftFolder }] } }),
      await s.request('POST', `/folders/${liveFolder}/relationships/children`, { token: editor, body: { data: [{ type: 'documents', id: other }] } }),
      await s.request('DELETE', `/documents/${live}`, { token: editor }),
      await s.request('POST', '/operations', {
        token: editor,
        headers: { 'Content-Type': 'application/vnd.api+json' },
        body: { 'atomic:operations': [{ op: 'update', data: { type: 'documents', id: live, attributes: { description: 'via operations' } } }] },
      }),
    ];
    for (const r of refused) expectError(r, 403, 'publish_required');
    const now = await asAdmin(`/documents/${live}`);
    assert.deepEqual(now.data.attributes, before.data.attributes);
    assert.equal(now.data.meta.modified, before.data.meta.modified);
    assert.deepEqual(ids(await asAdmin(`/documents/${live}/see_also`)), []);
    assert.deepEqual(ids(await asAdmin(`/documents/${live}/parents`)), []);
    assert.deepEqual(ids(await asAdmin(`/folders/${liveFolder}/children`)), []);
    assert.equal((await s.request('GET', `/documents/${live}`)).status, 200, 'still public');
    // A draft's window, attributes and place are the editor's to change.
    assert.equal((await patch(editor, 'documents', other, { publish_end: '2999-01-01T00:00:00Z', title: 'Other, edited' })).status, 200);
    assert.equal((await s.request('POST', `/folders/${draftFolder}/relationships/children`, { token: editor, body: { data: [{ type: 'documents', id: other }] } })).status, 200);
    // Going live needs publish too.
    expectError(await patch(editor, 'documents', other, { status: 'on' }), 403, 'publish_required');
    assert.equal((await asAdmin(`/documents/${other}`)).data.attributes.status, 'draft');
    // A publisher does all of it.
    assert.equal((await patch(publisher, 'documents', live, { title: 'Live page, edited' })).status, 200);
    assert.equal((await s.request('POST', `/documents/${live}/relationships/see_also`, { token: publisher, body: { data: [{ type: 'documents', id: other }] } })).status, 200);
    assert.equal((await s.request('POST', `/folders/${liveFolder}/relationships/children`, { token: publisher, body: { data: [{ type: 'documents', id: other }] } })).status, 200);
    assert.equal((await patch(publisher, 'documents', live, { publish_end: '2001-01-01T00:00:00Z' })).status, 200);
    expectError(await s.request('GET', `/documents/${live}`), 404);
    assert.equal((await patch(publisher, 'documents', other, { status: 'on' })).status, 200);
    assert.equal((await s.request('DELETE', `/documents/${live}`, { token: publisher })).status, 204);
  });

  test("an on media object's stream: unlinking it needs publish", async () => {
    const up = await s.request('POST', '/images/upload/live.png', { token: admin, raw: await tinyPng(11), headers: { 'Content-Type': 'image/png' } });
    assert.equal(up.status, 201, up.text);
    const id = String(up.body.data.id);
    const uuid = String(up.body.included[0].id);
    assert.equal((await patch(admin, 'images', id, { status: 'on' })).status, 200);
    expectError(await s.request('PATCH', `/streams/${uuid}/relationships/object`, { token: editor, body: { data: null } }), 403, 'publish_required');
    expectError(await s.request('DELETE', `/streams/${uuid}`, { token: editor }), 403, 'publish_required');
    assert.equal((await asAdmin(`/streams/${uuid}`)).data.relationships?.object?.data?.id ?? id, id);
    assert.equal((await s.request('GET', `/streams/download/${uuid}`)).status, 200, 'the file is still served');
  });

  test("translations: a status to or from on, an on translation and a live object's translations need publish", async () => {
    const draftDoc = await make('documents', { title: 'Draft with translations' }, editor);
    const liveDoc = await make('documents', { title: 'Live with translations', status: 'on' });
    const translation = (attributes: Record<string, unknown>) => ({ data: { type: 'translations', attributes } });
    const post = (token: string, attributes: Record<string, unknown>) => s.request('POST', '/translations', { token, body: translation(attributes) });
    const patchT = (token: string, id: string, attributes: Record<string, unknown>) => s.request('PATCH', `/translations/${id}`, { token, body: { data: { id, type: 'translations', attributes } } });
    const languages = async (id: string) => (await asAdmin(`/documents/${id}/translations`)).data.map((t: { attributes: { lang: string; status: string; translated_fields: unknown } }) => t.attributes);

    expectError(await post(editor, { object_id: draftDoc, lang: 'it', status: 'on', translated_fields: { title: 'Bozza' } }), 403, 'publish_required');
    expectError(await post(editor, { object_id: liveDoc, lang: 'it', status: 'draft', translated_fields: { title: 'Dal vivo' } }), 403, 'publish_required');
    assert.deepEqual(await languages(draftDoc), []);
    assert.deepEqual(await languages(liveDoc), []);
    // A draft translation of a draft object is the editor's.
    const created = await post(editor, { object_id: draftDoc, lang: 'it', translated_fields: { title: 'Bozza' } });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.data.attributes.status, 'draft');
    const tid = String(created.body.data.id);
    assert.equal((await patchT(editor, tid, { translated_fields: { title: 'Bozza 2' } })).status, 200);
    expectError(await patchT(editor, tid, { status: 'on' }), 403, 'publish_required');
    assert.equal((await patchT(publisher, tid, { status: 'on' })).status, 200);
    // Now on: changing it, taking it off or deleting it needs publish.
    expectError(await patchT(editor, tid, { translated_fields: { title: 'Cambiato' } }), 403, 'publish_required');
    expectError(await patchT(editor, tid, { status: 'draft' }), 403, 'publish_required');
    expectError(await s.request('DELETE', `/translations/${tid}`, { token: editor }), 403, 'publish_required');
    assert.deepEqual(await languages(draftDoc), [{ object_id: Number(draftDoc), lang: 'it', status: 'on', translated_fields: { title: 'Bozza 2' } }]);
    // A publisher translates the live object.
    const live = await post(publisher, { object_id: liveDoc, lang: 'de', status: 'on', translated_fields: { title: 'Live' } });
    assert.equal(live.status, 201, live.text);
    expectError(await patchT(editor, String(live.body.data.id), { translated_fields: { title: 'Verändert' } }), 403, 'publish_required');
    assert.equal((await languages(liveDoc))[0].translated_fields.title, 'Live');
  });
});
