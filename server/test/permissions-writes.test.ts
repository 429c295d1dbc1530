// Every part of a write checked on every object it touches (CONTRACT.md, Permissions): placing an
// object in a folder or taking it out needs `update` on both, by every path (folder children, the
// object's parents, a folder's parent, folder creation, the legacy layout, /operations); the
// answer to a write is read as the writer reads the object after it; errors never name or count
// an object the caller may not read. Each refused write is read back as an admin: nothing changed.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { tinyPng } from './helpers/fixtures.js';
import { expectError, startServer, type TestServer } from './helpers/server.js';
import { userWithPermissions } from './helpers/users.js';

const LEGACY = { Accept: 'application/json, text/javascript', 'Content-Type': 'application/json' };

describe('permissions on every object a write touches', () => {
  let s: TestServer;
  let admin: string;
  /** Folders: read, create, update; documents: read only. */
  let filer: string;
  /** Documents: read, create, update; folders: read only. */
  let writer: string;
  /** Folders: read, create, update of its own ones only; documents: read. */
  let ownFolders: string;
  /** The first root folder: the legacy layout's publication. */
  let pub: string;

  const body = (type: string, attributes: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ data: { type, attributes, ...extra } });
  async function make(token: string, type: string, attributes: Record<string, unknown>, extra: Record<string, unknown> = {}) {
    const r = await s.request('POST', `/${type}`, { token, body: body(type, { status: 'draft', ...attributes }, extra) });
    assert.equal(r.status, 201, r.text);
    return String(r.body.data.id);
  }
  const ids = (r: { status: number; text: string; body: { data: Array<{ id: string }> } }) => {
    assert.equal(r.status, 200, r.text);
    return r.body.data.map((d) => d.id).sort();
  };
  /** The children of a folder and the parents of an object, as an admin reads them. */
  const childrenOf = async (folder: string) => ids(await s.request('GET', `/folders/${folder}/children`, { token: admin }));
  const parentsOf = async (type: string, id: string) => ids(await s.request('GET', `/${type}/${id}/parents`, { token: admin }));
  const place = async (folder: string, type: string, id: string) => {
    const r = await s.request('POST', `/folders/${folder}/relationships/children`, { token: admin, body: { data: [{ type, id }] } });
    assert.equal(r.status, 200, r.text);
  };
  const ref = (type: string, id: string) => ({ data: [{ type, id }] });

  before(async () => {
    s = await startServer();
    admin = await s.adminToken();
    pub = await make(admin, 'folders', { title: 'Publication' });
    filer = await userWithPermissions(s, admin, 'filer', { folders: ['read', 'create', 'update'], documents: ['read'] });
    writer = await userWithPermissions(s, admin, 'writer', { documents: ['read', 'create', 'update'], folders: ['read'] });
    ownFolders = await userWithPermissions(s, admin, 'own-folders', { folders: ['read', 'create', 'update:own'], documents: ['read'] });
  });
  after(() => s.close());

  test('folder children: filing or taking out an object the actor may not update is refused; a folder it may update is fine', async () => {
    const folder = await make(admin, 'folders', { title: 'Shelf' }, { relationships: { parent: { data: { type: 'folders', id: pub } } } });
    const doc = await make(admin, 'documents', { title: 'Not yours to file' });
    const filed = await make(admin, 'documents', { title: 'Filed by the admin' });
    await place(folder, 'documents', filed);
    // The filer may update folders, not documents: the document's side refuses.
    expectError(await s.request('POST', `/folders/${folder}/relationships/children`, { token: filer, body: ref('documents', doc) }), 403);
    expectError(await s.request('DELETE', `/folders/${folder}/relationships/children`, { token: filer, body: ref('documents', filed) }), 403);
    // Moving a filed document to another position changes its place: refused too.
    expectError(await s.request('POST', `/folders/${folder}/relationships/children`, { token: filer, body: { data: [{ type: 'documents', id: filed, meta: { relation: { position: 'first' } } }] } }), 403);
    // No PATCH (replace) of a folder's children is a way round it either.
    const patch = await s.request('PATCH', `/folders/${folder}/relationships/children`, { token: filer, body: ref('documents', doc) });
    assert.ok(patch.status >= 400 && patch.status < 500, patch.text);
    assert.deepEqual(await childrenOf(folder), [filed]);
    assert.deepEqual(await parentsOf('documents', doc), []);
    assert.deepEqual(await parentsOf('documents', filed), [folder]);
    // Re-adding what is there already changes nothing, and needs nothing.
    assert.equal((await s.request('POST', `/folders/${folder}/relationships/children`, { token: filer, body: ref('documents', filed) })).status, 200);
    // The writer may update documents, not folders: the folder's side refuses.
    expectError(await s.request('POST', `/folders/${folder}/relationships/children`, { token: writer, body: ref('documents', doc) }), 403);
    assert.deepEqual(await childrenOf(folder), [filed]);
    // Folders the filer may update on both sides: a sub-folder moves in and out.
    const sub = await make(filer, 'folders', { title: 'Sub-shelf' });
    assert.equal((await s.request('POST', `/folders/${folder}/relationships/children`, { token: filer, body: ref('folders', sub) })).status, 200);
    assert.deepEqual(await childrenOf(folder), [filed, sub].sort());
    assert.equal((await s.request('DELETE', `/folders/${folder}/relationships/children`, { token: filer, body: ref('folders', sub) })).status, 204);
    assert.deepEqual(await childrenOf(folder), [filed]);
    // A document the filer may not read at all answers as a missing one.
    const hidden = await userWithPermissions(s, admin, 'blind-filer', { folders: ['read', 'create', 'update'] });
    expectError(await s.request('POST', `/folders/${folder}/relationships/children`, { token: hidden, body: ref('documents', doc) }), 404);
    // One restricted to other roles answers as its read does: 403 `restricted`, by either side.
    const restricted = await make(admin, 'documents', { title: 'Admins only' });
    const r = await s.request('PATCH', `/documents/${restricted}`, { token: admin, body: { data: { id: restricted, type: 'documents', meta: { perms: { roles: ['admin'] } } } } });
    assert.equal(r.status, 200, r.text);
    expectError(await s.request('POST', `/folders/${folder}/relationships/children`, { token: filer, body: ref('documents', restricted) }), 403, 'restricted');
    assert.deepEqual(await childrenOf(folder), [filed]);
  });

  test("an object's parents: the folder filed into or left must be updatable too", async () => {
    const folder = await make(admin, 'folders', { title: 'Parents shelf' });
    const other = await make(admin, 'folders', { title: 'Other shelf' });
    const doc = await make(writer, 'documents', { title: 'Mine to move' });
    const filed = await make(writer, 'documents', { title: 'Mine, filed' });
    await place(folder, 'documents', filed);
    for (const method of ['POST', 'PATCH']) {
      expectError(await s.request(method, `/documents/${doc}/relationships/parents`, { token: writer, body: ref('folders', folder) }), 403);
    }
    expectError(await s.request('DELETE', `/documents/${filed}/relationships/parents`, { token: writer, body: ref('folders', folder) }), 403);
    // Replacing the parents with none, or with another folder, takes it out of the first one.
    expectError(await s.request('PATCH', `/documents/${filed}/relationships/parents`, { token: writer, body: { data: [] } }), 403);
    expectError(await s.request('PATCH', `/documents/${filed}/relationships/parents`, { token: writer, body: ref('folders', other) }), 403);
    assert.deepEqual(await parentsOf('documents', doc), []);
    assert.deepEqual(await parentsOf('documents', filed), [folder]);
    assert.deepEqual(await childrenOf(folder), [filed]);
    assert.deepEqual(await childrenOf(other), []);
    // Writing the parents it has already changes nothing, and is allowed.
    assert.equal((await s.request('PATCH', `/documents/${filed}/relationships/parents`, { token: writer, body: ref('folders', folder) })).status, 200);
    assert.deepEqual(await parentsOf('documents', filed), [folder]);
  });

  test("a folder's parent and a new folder's parent: both folders must be updatable", async () => {
    const adminFolder = await make(admin, 'folders', { title: "The admin's" });
    // Creating under a folder the user may not update: refused, nothing created.
    expectError(await s.request('POST', '/folders', { token: ownFolders, body: body('folders', { title: 'Sneaked in', status: 'draft' }, { relationships: { parent: { data: { type: 'folders', id: adminFolder } } } }) }), 403);
    assert.equal(ids(await s.request('GET', '/folders?filter[title]=Sneaked in', { token: admin })).length, 0);
    assert.deepEqual(await childrenOf(adminFolder), []);
    // A folder of its own, moved under the admin's: refused.
    const mine = await make(ownFolders, 'folders', { title: 'Own root' });
    expectError(await s.request('PATCH', `/folders/${mine}/relationships/parent`, { token: ownFolders, body: { data: { type: 'folders', id: adminFolder } } }), 403);
    expectError(await s.request('POST', `/folders/${mine}/relationships/parents`, { token: ownFolders, body: ref('folders', adminFolder) }), 403);
    assert.deepEqual(await childrenOf(adminFolder), []);
    // Its own folder, placed by the admin under the admin's: taking it out (a root) is refused.
    await place(adminFolder, 'folders', mine);
    expectError(await s.request('PATCH', `/folders/${mine}/relationships/parent`, { token: ownFolders, body: { data: null } }), 403);
    expectError(await s.request('DELETE', `/folders/${mine}/relationships/parent`, { token: ownFolders, body: { data: { type: 'folders', id: adminFolder } } }), 403);
    // …and so is moving it under another folder of its own (it leaves the admin's).
    const mine2 = await make(ownFolders, 'folders', { title: 'Own root 2' });
    expectError(await s.request('PATCH', `/folders/${mine}/relationships/parent`, { token: ownFolders, body: { data: { type: 'folders', id: mine2 } } }), 403);
    assert.deepEqual(await childrenOf(adminFolder), [mine]);
    assert.deepEqual(await childrenOf(mine2), []);
    // Between its own folders, everything works: create under, move, make a root.
    const child = await make(ownFolders, 'folders', { title: 'Own child' }, { relationships: { parent: { data: { type: 'folders', id: mine2 } } } });
    assert.deepEqual(await childrenOf(mine2), [child]);
    const mine3 = await make(ownFolders, 'folders', { title: 'Own root 3' });
    assert.equal((await s.request('PATCH', `/folders/${child}/relationships/parent`, { token: ownFolders, body: { data: { type: 'folders', id: mine3 } } })).status, 200);
    assert.deepEqual(await childrenOf(mine3), [child]);
    assert.equal((await s.request('PATCH', `/folders/${child}/relationships/parent`, { token: ownFolders, body: { data: null } })).status, 200);
    assert.deepEqual(await childrenOf(mine3), []);
  });

  test('the legacy layout and /operations: the same checks', async () => {
    const section = await make(admin, 'folders', { title: 'Legacy section' }, { relationships: { parent: { data: { type: 'folders', id: pub } } } });
    const doc = await make(admin, 'documents', { title: 'Legacy doc' });
    const filed = await make(admin, 'documents', { title: 'Legacy filed' });
    const other = await make(admin, 'documents', { title: 'Legacy other' });
    await place(section, 'documents', filed);
    await place(section, 'documents', other);
    // The legacy layout reaches only what sits on the publication tree.
    await place(pub, 'documents', doc);
    const legacy = (method: string, path: string, token: string, data: unknown) => s.request(method, path, { token, body: { data }, headers: LEGACY });
    const legacyRefused = (r: { status: number; text: string }) => assert.equal(r.status, 403, r.text);
    // Filing a document the filer may not update, or moving one filed there.
    legacyRefused(await legacy('POST', `/objects/${section}/children`, filer, [{ child_id: Number(doc) }]));
    legacyRefused(await legacy('PUT', `/objects/${section}/children/${other}`, filer, { priority: 1 }));
    assert.deepEqual(await childrenOf(section), [filed, other].sort());
    const order = (await s.request('GET', `/folders/${section}/children`, { token: admin })).body.data.map((d: { id: string }) => d.id);
    assert.deepEqual(order, [filed, other]);
    // A legacy update of the writer's own document, filing it in a section it may not update.
    const mine = await make(writer, 'documents', { title: 'Legacy mine' });
    await place(pub, 'documents', mine);
    legacyRefused(await legacy('POST', '/objects', writer, { id: Number(mine), parents: [Number(section)] }));
    legacyRefused(await legacy('POST', '/objects', writer, { object_type: 'document', title: 'Legacy new', parents: [Number(section)] }));
    assert.deepEqual(await parentsOf('documents', mine), [pub]);
    assert.equal(ids(await s.request('GET', '/documents?filter[title]=Legacy new', { token: admin })).length, 0);
    // A new section under one the user may not update.
    legacyRefused(await legacy('POST', '/objects', ownFolders, { object_type: 'section', title: 'Legacy sub', parents: [Number(section)] }));
    assert.equal(ids(await s.request('GET', '/folders?filter[title]=Legacy sub', { token: admin })).length, 0);
    // Places in folders the writer may not read are kept, and need not be named.
    const shy = await userWithPermissions(s, admin, 'shy-writer', { documents: ['read', 'create', 'update'], folders: ['read:own'] });
    const setStatus = async (id: string, status: string) => assert.equal((await s.request('PATCH', `/folders/${id}`, { token: admin, body: { data: { id, type: 'folders', attributes: { status } } } })).status, 200);
    await setStatus(pub, 'on');
    const unseen = await make(admin, 'folders', { title: 'Unseen by shy' });
    const shyDoc = await make(shy, 'documents', { title: 'Shy doc' });
    await place(pub, 'documents', shyDoc);
    await place(unseen, 'documents', shyDoc);
    const kept = await legacy('POST', '/objects', shy, { id: Number(shyDoc), title: 'Shy doc, renamed', parents: [Number(pub)] });
    await setStatus(pub, 'draft');
    assert.equal(kept.status, 200, kept.text);
    assert.deepEqual(await parentsOf('documents', shyDoc), [pub, unseen].sort());
    // /operations writes no folder placement: a `parents` relationship is no relation there.
    const op = await s.request('POST', '/operations', {
      token: writer,
      body: { 'atomic:operations': [{ op: 'add', ref: { type: 'documents', id: mine, relationship: 'parents' }, data: [{ type: 'folders', id: section }] }] },
    });
    assert.ok(op.status >= 400 && op.status < 500, op.text);
    assert.deepEqual(await parentsOf('documents', mine), [pub]);
  });

  test('a refused folder delete says the folder holds objects the caller may not delete, never which nor how many', async () => {
    const deleter = await userWithPermissions(s, admin, 'deleter', { folders: ['read', 'create', 'update', 'delete'], documents: ['read'] });
    const blind = await userWithPermissions(s, admin, 'blind-deleter', { folders: ['read', 'create', 'update', 'delete'] });
    const refused = async (token: string, folder: string, secrets: string[]) => {
      const e = expectError(await s.request('DELETE', `/folders/${folder}`, { token }), 403);
      const said = JSON.stringify(e);
      assert.match(String(e.detail), /holds objects you may not delete/, said);
      for (const secret of secrets) assert.ok(!said.includes(secret), `the error names ${secret}: ${said}`);
      assert.doesNotMatch(String(e.detail), /\d/, 'no id, no count');
      assert.equal((await s.request('GET', `/folders/${folder}`, { token: admin })).status, 200, 'the folder is still there');
    };
    // A document it may read but not delete, two levels down.
    const top = await make(admin, 'folders', { title: 'Top to delete' });
    const middle = await make(admin, 'folders', { title: 'Middle' }, { relationships: { parent: { data: { type: 'folders', id: top } } } });
    const doc = await make(admin, 'documents', { title: 'Undeletable secret' });
    await place(middle, 'documents', doc);
    await refused(deleter, top, [doc, 'Undeletable secret']);
    // The same document, hidden from a user without `read`.
    await refused(blind, top, [doc, 'Undeletable secret']);
    assert.deepEqual(await childrenOf(top), [middle]);
    assert.deepEqual(await childrenOf(middle), [doc]);
    // A sub-folder restricted to the admins: hidden, never named.
    const open = await make(admin, 'folders', { title: 'Open folder' });
    const locked = await make(admin, 'folders', { title: 'Admins only' }, { relationships: { parent: { data: { type: 'folders', id: open } } } });
    const restrict = await s.request('PATCH', `/folders/${locked}`, { token: admin, body: { data: { id: locked, type: 'folders', meta: { perms: { roles: ['admin'] } } } } });
    assert.equal(restrict.status, 200, restrict.text);
    await refused(deleter, open, [locked, 'Admins only']);
    assert.equal((await s.request('GET', `/folders/${locked}`, { token: admin })).status, 200);
    // Only sub-folders it may delete: they go with it.
    const empty = await make(admin, 'folders', { title: 'Deletable' });
    const inner = await make(admin, 'folders', { title: 'Deletable inner' }, { relationships: { parent: { data: { type: 'folders', id: empty } } } });
    assert.equal((await s.request('DELETE', `/folders/${empty}`, { token: deleter })).status, 204);
    assert.equal((await s.request('GET', `/folders/${inner}`, { token: admin })).status, 404);
  });

  test('the answer to a write is read as the writer reads the object after it: {id, type} alone when it may not', async () => {
    const unpublisher = await userWithPermissions(s, admin, 'unpublisher', { documents: ['update', 'publish'], folders: ['update', 'publish'] });
    const creator = await userWithPermissions(s, admin, 'blind-creator', { documents: ['create'], folders: ['create'], images: ['create'] });
    const published = await make(admin, 'documents', { title: 'Published secret', status: 'on' });
    const minimal = (r: { status: number; text: string; body: { data: Record<string, unknown> } }, type: string, id: string, status = 200) => {
      assert.equal(r.status, status, r.text);
      assert.deepEqual(r.body.data, { id, type }, r.text);
    };
    // Unpublishing what it may not read as a draft: done, answered by its identifier.
    minimal(await s.request('PATCH', `/documents/${published}`, { token: unpublisher, body: { data: { id: published, type: 'documents', attributes: { status: 'draft' } } } }), 'documents', published);
    const back = await s.request('GET', `/documents/${published}`, { token: admin });
    assert.equal(back.body.data.attributes.status, 'draft');
    const folder = await make(admin, 'folders', { title: 'Published folder secret', status: 'on' });
    minimal(await s.request('PATCH', `/folders/${folder}`, { token: unpublisher, body: { data: { id: folder, type: 'folders', attributes: { status: 'draft' } } } }), 'folders', folder);
    // While it still reads it (published), the whole object.
    const still = await make(admin, 'documents', { title: 'Still on', status: 'on' });
    const full = await s.request('PATCH', `/documents/${still}`, { token: unpublisher, body: { data: { id: still, type: 'documents', attributes: { title: 'Still on, renamed' } } } });
    assert.equal(full.status, 200, full.text);
    assert.equal(full.body.data.attributes.title, 'Still on, renamed');
    // Restoring a version in which it was a draft.
    const restored = await make(admin, 'documents', { title: 'Restored secret' });
    const history = await s.request('GET', `/documents/${restored}/history`, { token: admin });
    const draftVersion = history.body.data[0].id;
    assert.equal((await s.request('PATCH', `/documents/${restored}`, { token: admin, body: { data: { id: restored, type: 'documents', attributes: { status: 'on' } } } })).status, 200);
    const restore = await s.request('POST', `/documents/${restored}/history/${draftVersion}/restore`, { token: unpublisher });
    minimal(restore, 'documents', restored);
    assert.equal((await s.request('GET', `/documents/${restored}`, { token: admin })).body.data.attributes.status, 'draft');
    // Creates of drafts it may not read: 201, Location, the identifier alone.
    for (const type of ['documents', 'folders']) {
      const r = await s.request('POST', `/${type}`, { token: creator, body: body(type, { title: 'A new secret' }) });
      assert.equal(r.status, 201, r.text);
      const id = String(r.body.data.id);
      minimal(r, type, id, 201);
      assert.equal(r.headers.get('location'), `${s.url}/${type}/${id}`);
      assert.equal((await s.request('GET', `/${type}/${id}`, { token: admin })).body.data.attributes.status, 'draft');
    }
    const up = await s.request('POST', '/images/upload/secret.png', { token: creator, raw: await tinyPng(3), headers: { 'Content-Type': 'image/png' } });
    assert.equal(up.status, 201, up.text);
    minimal(up, 'images', String(up.body.data.id), 201);
    assert.ok(!up.body.included, 'nothing of the stream either');
    // The legacy layout: the id and type alone (filing in the publication is an update of it).
    const legacyCreator = await userWithPermissions(s, admin, 'legacy-creator', { documents: ['create'], folders: ['read', 'update'] });
    const legacy = await s.request('POST', '/objects', { token: legacyCreator, body: { data: { object_type: 'document', title: 'Legacy secret', parents: [Number(pub)] } }, headers: LEGACY });
    assert.equal(legacy.status, 201, legacy.text);
    assert.deepEqual(Object.keys(legacy.body.data.object).sort(), ['id', 'object_type'], legacy.text);
  });
});
