// Folders: building, reshaping and trashing a folder tree through the API, with the nested set
// checked after every step and the API's view of the tree compared with the expected one.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { checkTree } from '../src/resources/folders/check.js';
import { expectError, startServer, type TestServer } from './helpers/server.js';

/** A tree as the API shows it: folders as [title, children], contents as their title. */
type Shown = string | [string, Shown[]];

describe('folders', () => {
  let s: TestServer;
  let admin: string;
  const ids = new Map<string, string>();
  const titles = new Map<string, string>();

  const remember = (data: { id: string; attributes: { title: string } }) => {
    ids.set(data.attributes.title, data.id);
    titles.set(data.id, data.attributes.title);
    return data.id;
  };
  async function folder(title: string, parent?: string, status = 'on') {
    const relationships = parent ? { parent: { data: { type: 'folders', id: ids.get(parent) } } } : undefined;
    const res = await s.request('POST', '/folders', { token: admin, body: { data: { type: 'folders', attributes: { title, status }, relationships } } });
    assert.equal(res.status, 201, res.text);
    return remember(res.body.data);
  }
  async function doc(title: string) {
    const res = await s.request('POST', '/documents', { token: admin, body: { data: { type: 'documents', attributes: { title, status: 'on' } } } });
    assert.equal(res.status, 201, res.text);
    return remember(res.body.data);
  }
  const id = (title: string) => {
    const v = ids.get(title);
    if (!v) throw new Error(`no object titled ${title}`);
    return v;
  };
  const get = async (path: string, token: string | null = admin) => {
    const res = await s.request('GET', path, { token: token ?? undefined });
    assert.equal(res.status, 200, `${path}: ${res.text}`);
    return res.body;
  };
  const addChildren = (folderTitle: string, data: unknown) =>
    s.request('POST', `/folders/${id(folderTitle)}/relationships/children`, { token: admin, body: { data } });
  const moveTo = (folderTitle: string, parentTitle: string) =>
    s.request('PATCH', `/folders/${id(folderTitle)}/relationships/parent`, { token: admin, body: { data: { type: 'folders', id: id(parentTitle) } } });

  /** The nested set is valid, and the API shows exactly `expected` (roots in id order). */
  async function expectTree(expected: Shown[]) {
    assert.deepEqual(await checkTree(s.server.ctx.db), []);
    const walk = async (folderId: string, path: string): Promise<Shown[]> => {
      const list = await get(`/folders/${folderId}/children?page_size=100`);
      const out: Shown[] = [];
      list.data.forEach((child: any, i: number) => assert.equal(child.meta.relation.position, i + 1));
      for (const child of list.data) {
        const title = titles.get(child.id)!;
        assert.ok(child.relationships.parents.data.some((p: any) => p.id === folderId), `${title} lists its parent`);
        if (child.type !== 'folders') {
          out.push(title);
          continue;
        }
        assert.equal(child.meta.path, `${path}/${child.id}`, `path of ${title}`);
        assert.deepEqual(child.relationships.parent.data, { id: folderId, type: 'folders' });
        out.push([title, await walk(child.id, child.meta.path)]);
      }
      return out;
    };
    const roots = await get('/folders?filter[roots]&page_size=100');
    const shown: Shown[] = [];
    for (const root of roots.data) {
      assert.equal(root.meta.path, `/${root.id}`);
      assert.equal(root.relationships.parent.data, null);
      shown.push([titles.get(root.id)!, await walk(root.id, root.meta.path)]);
    }
    assert.deepEqual(shown, expected);
  }

  before(async () => {
    s = await startServer();
    admin = await s.adminToken();
  });
  after(() => s.close());

  test('a 3-level tree is built with relationships.parent on create and children added with positions', async () => {
    await folder('Site');
    await folder('News', 'Site');
    await folder('Archive', 'News');
    await folder('About', 'Site');
    await folder('Other');
    for (const t of ['d1', 'd2', 'd3', 'd4']) await doc(t);
    let res = await addChildren('News', [
      { type: 'documents', id: id('d1') },
      { type: 'documents', id: Number(id('d2')), meta: { relation: { position: 2 } } },
    ]);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.data, [
      { id: id('d1'), type: 'documents' },
      { id: id('d2'), type: 'documents' },
    ]);
    assert.ok(res.body.links.self);
    res = await addChildren('Archive', [{ type: 'documents', id: id('d3') }]);
    assert.equal(res.status, 200);
    // d1 sits in two folders.
    res = await addChildren('About', { type: 'documents', id: id('d1') });
    assert.equal(res.status, 200);
    await expectTree([
      ['Site', [['News', [['Archive', ['d3']], 'd2', 'd1']], ['About', ['d1']]]],
      ['Other', []],
    ]);
  });

  test('positions: first, last, a number and counting from the end; re-adding moves an existing child', async () => {
    await addChildren('Other', [
      { type: 'documents', id: id('d1') },
      { type: 'documents', id: id('d2'), meta: { relation: { position: 'last' } } },
      { type: 'documents', id: id('d3'), meta: { relation: { position: 2 } } },
      { type: 'documents', id: id('d4'), meta: { relation: { position: -2 } } },
    ]);
    await expectTree([
      ['Site', [['News', [['Archive', ['d3']], 'd2', 'd1']], ['About', ['d1']]]],
      ['Other', ['d1', 'd3', 'd4', 'd2']],
    ]);
    const res = await addChildren('Other', [{ type: 'documents', id: id('d2'), meta: { relation: { position: 1, menu: false } } }]);
    assert.equal(res.status, 200);
    const list = await get(`/folders/${id('Other')}/children`);
    assert.deepEqual(list.data.map((d: any) => titles.get(d.id)), ['d2', 'd1', 'd3', 'd4']);
    // d2 was placed in Site/News first: that placement is its canonical one.
    assert.deepEqual(list.data[0].meta.relation, { position: 1, menu: false, canonical: false, depth_level: 1, params: null });
    assert.equal(list.links.available, `${s.url}/objects`);
    const sorted = await get(`/folders/${id('Other')}/children?sort=-position`);
    assert.deepEqual(sorted.data.map((d: any) => titles.get(d.id)), ['d4', 'd3', 'd1', 'd2']);
    const filtered = await get(`/folders/${id('Other')}/children?filter[title]=d3`);
    assert.deepEqual(filtered.data.map((d: any) => titles.get(d.id)), ['d3']);
    assert.equal(filtered.meta.pagination.count, 1);
    const removed = await s.request('DELETE', `/folders/${id('Other')}/relationships/children`, {
      token: admin,
      body: { data: [{ type: 'documents', id: id('d2') }, { type: 'documents', id: id('d4') }] },
    });
    assert.equal(removed.status, 204);
    await expectTree([
      ['Site', [['News', [['Archive', ['d3']], 'd2', 'd1']], ['About', ['d1']]]],
      ['Other', ['d1', 'd3']],
    ]);
  });

  test('GET /folders/{id}/parent shows the parent with meta.relation and links.available; a root has none', async () => {
    const body = await get(`/folders/${id('Archive')}/parent`);
    assert.equal(body.data.id, id('News'));
    assert.equal(body.data.type, 'folders');
    const r = body.data.meta.relation;
    assert.deepEqual(Object.keys(r).sort(), ['canonical', 'depth_level', 'id', 'menu', 'object_id', 'params', 'parent_id', 'parent_node_id', 'root_id', 'tree_left', 'tree_right']);
    assert.equal(r.object_id, Number(id('Archive')));
    assert.equal(r.parent_id, Number(id('News')));
    assert.equal(r.root_id, Number(id('Site')));
    assert.equal(r.depth_level, 2);
    assert.equal(r.menu, true);
    assert.equal(r.tree_right - r.tree_left, 3);
    assert.equal(body.links.available, `${s.url}/folders`);
    const root = await get(`/folders/${id('Site')}/parent`);
    assert.equal(root.data, null);
    const folder = await get(`/folders/${id('Archive')}`);
    assert.equal(folder.data.meta.path, `/${id('Site')}/${id('News')}/${id('Archive')}`);
    assert.equal(folder.data.relationships.children.links.related, `${s.url}/folders/${id('Archive')}/children`);
    assert.equal(folder.data.relationships.parent.links.self, `${s.url}/folders/${id('Archive')}/relationships/parent`);
  });

  test('moving a branch to another folder, and to another root, takes its subtree along', async () => {
    let res = await moveTo('News', 'About');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data, undefined);
    assert.ok(res.body.links.self);
    await expectTree([
      ['Site', [['About', ['d1', ['News', [['Archive', ['d3']], 'd2', 'd1']]]]]],
      ['Other', ['d1', 'd3']],
    ]);
    res = await moveTo('Archive', 'Other');
    assert.equal(res.status, 200, res.text);
    await expectTree([
      ['Site', [['About', ['d1', ['News', ['d2', 'd1']]]]]],
      ['Other', ['d1', 'd3', ['Archive', ['d3']]]],
    ]);
    // A position in meta.relation places the moved folder; the same parent again changes nothing.
    res = await s.request('PATCH', `/folders/${id('Archive')}/relationships/parent`, {
      token: admin,
      body: { data: { type: 'folders', id: id('Other'), meta: { relation: { position: 'first', menu: false } } } },
    });
    assert.equal(res.status, 200, res.text);
    res = await moveTo('Archive', 'Other');
    assert.equal(res.status, 200, res.text);
    await expectTree([
      ['Site', [['About', ['d1', ['News', ['d2', 'd1']]]]]],
      ['Other', [['Archive', ['d3']], 'd1', 'd3']],
    ]);
    assert.equal((await get(`/folders/${id('Other')}/children`)).data[0].meta.relation.menu, false);
    res = await addChildren('Other', [{ type: 'folders', id: id('Archive'), meta: { relation: { position: 'last', menu: true } } }]);
    assert.equal(res.status, 200, res.text);
    const archive = await get(`/folders/${id('Archive')}/parent`);
    assert.equal(archive.data.meta.relation.root_id, Number(id('Other')));
    assert.equal(archive.data.meta.relation.depth_level, 1);
  });

  test('moving a folder under itself or its own subtree gives 400 and leaves the tree unchanged', async () => {
    const before = await s.server.ctx.db.selectFrom('trees').selectAll().orderBy('id').execute();
    expectError(await moveTo('About', 'News'), 400, 'tree_cycle');
    expectError(await moveTo('Site', 'About'), 400, 'tree_cycle');
    expectError(await moveTo('About', 'About'), 400, 'tree_cycle');
    expectError(await addChildren('News', [{ type: 'folders', id: id('About') }]), 400, 'tree_cycle');
    expectError(await addChildren('News', [{ type: 'folders', id: id('News') }]), 400, 'tree_cycle');
    assert.deepEqual(await s.server.ctx.db.selectFrom('trees').selectAll().orderBy('id').execute(), before);
  });

  test('making roots: DELETE on the parent relationship, PATCH with null, removing a sub-folder from children', async () => {
    let res = await s.request('DELETE', `/folders/${id('News')}/relationships/parent`, { token: admin, body: { data: { type: 'folders', id: id('About') } } });
    assert.equal(res.status, 204);
    assert.equal(res.text, '');
    await expectTree([
      ['Site', [['About', ['d1']]]],
      ['News', ['d2', 'd1']],
      ['Other', ['d1', 'd3', ['Archive', ['d3']]]],
    ]);
    // Adding a root folder as a child moves it back in.
    res = await addChildren('Site', [{ type: 'folders', id: id('News'), meta: { relation: { position: 'first' } } }]);
    assert.equal(res.status, 200, res.text);
    res = await s.request('PATCH', `/folders/${id('Archive')}/relationships/parent`, { token: admin, body: { data: null } });
    assert.equal(res.status, 200, res.text);
    res = await s.request('DELETE', `/folders/${id('Site')}/relationships/children`, { token: admin, body: { data: [{ type: 'folders', id: id('About') }] } });
    assert.equal(res.status, 204);
    await expectTree([
      ['Site', [['News', ['d2', 'd1']]]],
      ['Archive', ['d3']],
      ['About', ['d1']],
      ['Other', ['d1', 'd3']],
    ]);
    // A parent that is not the folder's parent leaves it where it is (nothing to remove).
    res = await s.request('DELETE', `/folders/${id('News')}/relationships/parent`, { token: admin, body: { data: { type: 'folders', id: id('Other') } } });
    assert.equal(res.status, 204);
    res = await moveTo('About', 'Site');
    assert.equal(res.status, 200);
    res = await moveTo('Archive', 'News');
    assert.equal(res.status, 200);
    await expectTree([
      ['Site', [['News', ['d2', 'd1', ['Archive', ['d3']]]], ['About', ['d1']]]],
      ['Other', ['d1', 'd3']],
    ]);
  });

  test('filter[parent], filter[ancestor] (id or uname) and filter[roots] work on /objects, /folders and type lists', async () => {
    const titlesOf = (body: any) => body.data.map((d: any) => titles.get(d.id)).sort();
    assert.deepEqual(titlesOf(await get(`/objects?filter[parent]=${id('News')}`)), ['Archive', 'd1', 'd2']);
    assert.deepEqual(titlesOf(await get(`/documents?filter[parent]=${id('News')}`)), ['d1', 'd2']);
    assert.deepEqual(titlesOf(await get(`/folders?filter[parent]=${id('Site')}`)), ['About', 'News']);
    assert.deepEqual(titlesOf(await get(`/objects?filter[ancestor]=site`)), ['About', 'Archive', 'News', 'd1', 'd2', 'd3']);
    assert.deepEqual(titlesOf(await get(`/documents?filter[ancestor]=${id('Site')}&filter[title]=d3`)), ['d3']);
    const roots = await get(`/folders?filter[roots]=true&page_size=1`);
    assert.equal(roots.meta.pagination.count, 2);
    assert.equal(roots.meta.pagination.page_count, 2);
    assert.equal(roots.meta.schema.folders.$id, `${s.url}/model/schema/folders`);
    assert.deepEqual(titlesOf(await get(`/folders?filter[roots]=true`)), ['Other', 'Site']);
    assert.deepEqual(titlesOf(await get(`/folders?filter[parent]=site&q=news`)), ['News']);
    assert.deepEqual(titlesOf(await get(`/folders?filter[roots]=false&filter[ancestor]=site`)), ['About', 'Archive', 'News']);
    assert.deepEqual(titlesOf(await get(`/objects?filter[parent][0]=other&filter[parent][1]=${id('About')}`)), ['d1', 'd3']);
    assert.deepEqual((await get('/objects?filter[parent]=no-such-folder')).data, []);
    expectError(await s.request('GET', '/folders?filter[roots]=maybe'), 400, 'invalid_filter');
    expectError(await s.request('GET', '/objects?filter[parent]='), 400, 'invalid_filter');
  });

  test('every object lists its folders in relationships.parents, readable at /{type}/{id}/parents', async () => {
    const d1 = await get(`/documents/${id('d1')}`);
    assert.deepEqual(
      d1.data.relationships.parents.data.map((p: any) => titles.get(p.id)),
      ['News', 'About', 'Other'],
    );
    assert.equal(d1.data.relationships.parents.links.related, `${s.url}/documents/${id('d1')}/parents`);
    const viaObjects = await get(`/objects/${id('d1')}`);
    assert.equal(viaObjects.data.relationships.parents.data.length, 3);
    // A list page reads them with its rows: the same, in the same order, none where none.
    for (const path of ['/documents?page_size=100', '/objects?page_size=100&sort=-title']) {
      const listed = new Map((await get(path)).data.map((d: any) => [d.id, d.relationships.parents.data.map((p: any) => titles.get(p.id))]));
      assert.deepEqual(listed.get(id('d1')), ['News', 'About', 'Other'], path);
      assert.deepEqual(listed.get(id('d4')), [], path);
    }
    const list = await get(`/documents/${id('d1')}/parents`);
    assert.deepEqual(list.data.map((p: any) => titles.get(p.id)).sort(), ['About', 'News', 'Other']);
    assert.equal(list.meta.pagination.count, 3);
    assert.equal((await get(`/objects/${id('d4')}/parents`)).data.length, 0);
  });

  test('trashing a folder takes its sub-folders (contents stay); restoring brings back exactly what it took', async () => {
    // Archive goes to the trash first on its own; then News, which takes nothing else.
    await folder('Deep', 'Archive');
    let res = await s.request('DELETE', `/folders/${id('Archive')}`, { token: admin });
    assert.equal(res.status, 204);
    await expectTree([
      ['Site', [['News', ['d2', 'd1']], ['About', ['d1']]]],
      ['Other', ['d1', 'd3']],
    ]);
    await folder('Sub', 'News');
    res = await s.request('DELETE', `/folders/${id('Site')}`, { token: admin });
    assert.equal(res.status, 204);
    await expectTree([['Other', ['d1', 'd3']]]);
    const trash = await get('/trash?page_size=100');
    assert.deepEqual(trash.data.map((d: any) => titles.get(d.id)).sort(), ['About', 'Archive', 'Deep', 'News', 'Site', 'Sub']);
    // Contents are not trashed: d2 sat only in News and is still there, with no active parent.
    const d2 = await get(`/documents/${id('d2')}`);
    assert.deepEqual(d2.data.relationships.parents.data, []);
    const listed = (await get('/documents?page_size=100')).data.find((d: any) => d.id === id('d2'));
    assert.deepEqual(listed.relationships.parents.data, [], 'a list leaves trashed parents out too');
    assert.deepEqual((await get(`/objects?filter[ancestor]=${id('Other')}`)).data.length, 2);
    // A trashed folder is gone from the folder endpoints.
    expectError(await s.request('GET', `/folders/${id('News')}`), 404);
    expectError(await addChildren('News', [{ type: 'documents', id: id('d4') }]), 404);
    expectError(await moveTo('Other', 'News'), 404);
    // Its sub-folder cannot come back before it: 409.
    expectError(await s.request('PATCH', `/trash/${id('News')}`, { token: admin, body: { data: { type: 'objects', id: id('News') } } }), 400, 'parent_in_trash');
    res = await s.request('PATCH', `/trash/${id('Site')}`, { token: admin, body: { data: { type: 'objects', id: id('Site') } } });
    assert.equal(res.status, 204, res.text);
    await expectTree([
      ['Site', [['News', ['d2', 'd1', ['Sub', []]]], ['About', ['d1']]]],
      ['Other', ['d1', 'd3']],
    ]);
    // Archive (trashed on its own before) is still in the trash, and comes back with Deep.
    expectError(await s.request('GET', `/folders/${id('Archive')}`), 404);
    res = await s.request('PATCH', `/trash/${id('Archive')}`, { token: admin, body: { data: { type: 'objects', id: id('Archive') } } });
    assert.equal(res.status, 204, res.text);
    await expectTree([
      ['Site', [['News', ['d2', 'd1', ['Archive', ['d3', ['Deep', []]]], ['Sub', []]]], ['About', ['d1']]]],
      ['Other', ['d1', 'd3']],
    ]);
  });

  test('a trashed content keeps its places for restore; deleting for good removes them', async () => {
    let res = await s.request('DELETE', `/documents/${id('d1')}`, { token: admin });
    assert.equal(res.status, 204);
    await expectTree([
      ['Site', [['News', ['d2', ['Archive', ['d3', ['Deep', []]]], ['Sub', []]]], ['About', []]]],
      ['Other', ['d3']],
    ]);
    res = await s.request('PATCH', `/trash/${id('d1')}`, { token: admin, body: { data: { type: 'objects', id: id('d1') } } });
    assert.equal(res.status, 204);
    await expectTree([
      ['Site', [['News', ['d2', 'd1', ['Archive', ['d3', ['Deep', []]]], ['Sub', []]]], ['About', ['d1']]]],
      ['Other', ['d1', 'd3']],
    ]);
    await s.request('DELETE', `/documents/${id('d1')}`, { token: admin });
    res = await s.request('DELETE', `/trash/${id('d1')}`, { token: admin });
    assert.equal(res.status, 204);
    await expectTree([
      ['Site', [['News', ['d2', ['Archive', ['d3', ['Deep', []]]], ['Sub', []]]], ['About', []]]],
      ['Other', ['d3']],
    ]);
  });

  test('deleting a folder for good leaves its trashed sub-folders in the trash as roots of their own', async () => {
    let res = await s.request('DELETE', `/folders/${id('Archive')}`, { token: admin });
    assert.equal(res.status, 204);
    res = await s.request('DELETE', `/trash/${id('Archive')}`, { token: admin });
    assert.equal(res.status, 204, res.text);
    assert.deepEqual(await checkTree(s.server.ctx.db), []);
    res = await s.request('PATCH', `/trash/${id('Deep')}`, { token: admin, body: { data: { type: 'objects', id: id('Deep') } } });
    assert.equal(res.status, 204, res.text);
    await expectTree([
      ['Site', [['News', ['d2', ['Sub', []]]], ['About', []]]],
      ['Other', ['d3']],
      ['Deep', []],
    ]);
  });

  test('folder CRUD: 201 with Location and uname, PATCH needs attributes, anonymous writes 401, bad input 400/404/409', async () => {
    const created = await s.request('POST', '/folders', { token: admin, body: { data: { type: 'folders', attributes: { title: 'Fresh Folder' } } } });
    assert.equal(created.status, 201);
    const fid = created.body.data.id;
    assert.equal(created.headers.get('location'), `${s.url}/folders/${fid}`);
    assert.equal(created.body.data.attributes.uname, 'fresh-folder');
    assert.equal(created.body.data.meta.path, `/${fid}`);
    const patched = await s.request('PATCH', `/folders/${fid}`, { token: admin, body: { data: { id: fid, type: 'folders', attributes: { title: 'Renamed' } } } });
    assert.equal(patched.status, 200);
    assert.equal(patched.body.data.attributes.title, 'Renamed');
    expectError(await s.request('PATCH', `/folders/${fid}`, { token: admin, body: { data: { id: fid, type: 'folders', attributes: {} } } }), 400);
    expectError(await s.request('PATCH', `/folders/${fid}`, { token: admin, body: { data: { id: fid, type: 'folders' } } }), 400);
    expectError(await s.request('POST', '/folders', { body: { data: { type: 'folders', attributes: { title: 'x' } } } }), 401);
    expectError(await s.request('DELETE', `/folders/${fid}`), 401);
    expectError(await s.request('PATCH', `/folders/${fid}/relationships/parent`, { body: { data: { type: 'folders', id: id('Site') } } }), 401);
    expectError(await s.request('POST', '/folders', { token: admin, body: { data: { type: 'folders', attributes: { title: 'x' }, relationships: { parent: { data: { type: 'folders', id: '999999' } } } } } }), 404);
    expectError(await s.request('POST', '/folders', { token: admin, body: { data: { type: 'folders', attributes: { title: 'x' }, relationships: { parent: { data: { type: 'documents', id: id('d2') } } } } } }), 409);
    expectError(await s.request('PATCH', `/folders/${fid}/relationships/parent`, { token: admin, body: { data: { type: 'documents', id: id('d2') } } }), 409);
    expectError(await s.request('PATCH', `/folders/${fid}/relationships/parent`, { token: admin, body: { data: { type: 'folders', id: id('d2') } } }), 404);
    expectError(await s.request('PATCH', `/folders/${fid}/relationships/parent`, { token: admin, body: {} }), 400);
    expectError(await addChildren('Other', [{ type: 'documents', id: id('d2'), meta: { relation: { position: 0 } } }]), 400, 'invalid_position');
    expectError(await addChildren('Other', [{ type: 'documents', id: id('d2'), meta: { relation: { menu: 'yes' } } }]), 400);
    expectError(await addChildren('Other', [{ type: 'images', id: id('d2') }]), 404);
    expectError(await addChildren('Other', [{ type: 'users', id: '1' }]), 400);
    expectError(await s.request('GET', '/folders/999999/children'), 404);
    expectError(await s.request('GET', `/folders/${id('d2')}`), 404);
    // None of the failures above left a trace in the tree.
    const children = await get(`/folders/${id('Other')}/children`);
    assert.deepEqual(children.data.map((d: any) => titles.get(d.id)), ['d3']);
    assert.deepEqual(await checkTree(s.server.ctx.db), []);
  });

  test('anonymous clients see only published folders and children', async () => {
    await folder('Hidden', 'Other', 'draft');
    const anon = await get(`/folders/${id('Other')}/children`, null);
    assert.deepEqual(anon.data.map((d: any) => titles.get(d.id)), ['d3']);
    expectError(await s.request('GET', `/folders/${id('Hidden')}`), 404);
    const hiddenParent = await get(`/folders/${id('Hidden')}`);
    assert.equal(hiddenParent.data.attributes.status, 'draft');
  });

  test('the parents relationship is writable from the object side: add with a position, replace, remove', async () => {
    await doc('d5');
    await folder('X');
    await folder('Y');
    await addChildren('Y', [{ type: 'documents', id: id('d3') }]);
    const write = (method: string, path: string, data: unknown) => s.request(method, path, { token: admin, body: { data } });
    const parentsOf = async (path: string) => (await get(path)).data.relationships.parents.data.map((p: any) => titles.get(p.id));
    let res = await write('POST', `/documents/${id('d5')}/relationships/parents`, [
      { type: 'folders', id: id('X') },
      { type: 'folders', id: id('Y'), meta: { relation: { position: 'first' } } },
    ]);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(await parentsOf(`/documents/${id('d5')}`), ['X', 'Y']);
    assert.deepEqual((await get(`/folders/${id('Y')}/children`)).data.map((d: any) => titles.get(d.id)), ['d5', 'd3']);
    res = await write('PATCH', `/documents/${id('d5')}/relationships/parents`, [{ type: 'folders', id: id('Y') }]);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(await parentsOf(`/documents/${id('d5')}`), ['Y']);
    assert.deepEqual((await get(`/folders/${id('X')}/children`)).data, []);
    res = await write('DELETE', `/documents/${id('d5')}/relationships/parents`, [{ type: 'folders', id: id('Y') }]);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(await parentsOf(`/documents/${id('d5')}`), []);
    await folder('Z');
    expectError(await write('PATCH', `/folders/${id('Z')}/relationships/parents`, [{ type: 'folders', id: id('X') }, { type: 'folders', id: id('Y') }]), 400, 'invalid_parents');
    expectError(await write('POST', `/documents/${id('d5')}/relationships/parents`, [{ type: 'documents', id: id('d3') }]), 409);
    expectError(await write('POST', `/documents/${id('d5')}/relationships/parents`, [{ type: 'folders', id: '999999' }]), 404);
    res = await write('POST', `/folders/${id('Z')}/relationships/parents`, [{ type: 'folders', id: id('X') }]);
    assert.equal(res.status, 200, res.text);
    assert.equal((await get(`/folders/${id('Z')}`)).data.meta.path, `/${id('X')}/${id('Z')}`);
    assert.deepEqual(await checkTree(s.server.ctx.db), []);
  });

  test('a locked sub-folder stops the delete of its ancestor with 403, leaving everything in place', async () => {
    const locked = await s.request('PATCH', `/folders/${id('Z')}`, { token: admin, body: { data: { id: id('Z'), type: 'folders', meta: { locked: true } } } });
    assert.equal(locked.status, 200, locked.text);
    expectError(await s.request('DELETE', `/folders/${id('X')}`, { token: admin }), 403);
    assert.equal((await get(`/folders/${id('Z')}/parent`)).data.id, id('X'));
    assert.deepEqual(await s.server.ctx.db.selectFrom('tree_trash').selectAll().execute(), []);
    assert.deepEqual(await checkTree(s.server.ctx.db), []);
  });

  test('parallel moves keep the tree valid', async () => {
    const names = ['P1', 'P2', 'P3', 'P4', 'P5', 'P6'];
    for (const n of names) await folder(n, 'Other');
    const moves = [];
    for (let i = 0; i < 24; i++) moves.push(moveTo(names[i % 6], names[(i * 5 + 1) % 6]));
    const results = await Promise.all(moves);
    for (const r of results) assert.ok([200, 400].includes(r.status), r.text);
    assert.ok(results.some((r) => r.status === 200));
    assert.deepEqual(await checkTree(s.server.ctx.db), []);
  });
  test('many children added and removed in one request keep their order, positions and menus, and the tree valid', async () => {
    // Placed together (one tree update for a run of new contents): appends, a folder with its
    // content, an explicit position, a repeat and a menu change in one request, in a tree with
    // folders after it, so every renumbering is checked.
    const ATOMIC = 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"';
    const ops = Array.from({ length: 101 }, (_, i) => ({ op: 'add', data: { type: 'documents', attributes: { title: `b${i}`, status: 'on' } } }));
    const created = await s.request('POST', '/operations', { token: admin, headers: { 'Content-Type': ATOMIC, Accept: ATOMIC }, body: { 'atomic:operations': ops } });
    assert.equal(created.status, 200, created.text);
    created.body['atomic:results'].forEach((r: { data: { id: string; attributes: { title: string } } }) => remember(r.data));
    await folder('Bulk', 'News');
    await folder('Sub');
    await addChildren('Sub', [{ type: 'documents', id: id('b0') }]);
    const b = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `b${from + i}`);
    const ref = (title: string, relation?: object) => ({ type: title === 'Sub' ? 'folders' : 'documents', id: id(title), ...(relation ? { meta: { relation } } : {}) });
    const res = await addChildren('Bulk', [
      ...b(1, 50).map((t) => ref(t)),
      ref('Sub'),
      ref('b51', { position: 1 }),
      ref('b2'),
      ...b(52, 100).map((t) => ref(t)),
      ref('b3', { menu: false }),
    ]);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(await checkTree(s.server.ctx.db), []);
    const children = async () => {
      const out: Array<{ title: string; relation: { position: number; menu: boolean } }> = [];
      for (let page = 1; ; page++) {
        const list = await get(`/folders/${id('Bulk')}/children?page_size=100&page=${page}`);
        out.push(...list.data.map((c: any) => ({ title: titles.get(c.id)!, relation: c.meta.relation })));
        if (page >= list.meta.pagination.page_count) return out;
      }
    };
    let shown = await children();
    const placed = ['b51', ...b(1, 50), 'Sub', ...b(52, 100)];
    assert.deepEqual(shown.map((c) => c.title), placed);
    shown.forEach((c, i) => assert.equal(c.relation.position, i + 1));
    assert.deepEqual(shown.filter((c) => !c.relation.menu).map((c) => c.title), ['b3']);
    assert.equal((await get(`/folders/${id('Sub')}`)).data.meta.path, `/${id('Site')}/${id('News')}/${id('Bulk')}/${id('Sub')}`);
    assert.deepEqual((await get(`/documents/${id('b60')}`)).data.relationships.parents.data, [{ type: 'folders', id: id('Bulk') }]);

    // Taken out together: every other one of a stretch, a whole stretch, the folder (a root again,
    // with its content), one that is not in the folder, and one named twice.
    const removed = [...b(1, 50).filter((_, i) => i % 2 === 0), ...b(60, 100), 'Sub', 'd4', 'b51', 'b51'];
    const out = await s.request('DELETE', `/folders/${id('Bulk')}/relationships/children`, { token: admin, body: { data: removed.map((t) => ref(t)) } });
    assert.equal(out.status, 204, out.text);
    assert.deepEqual(await checkTree(s.server.ctx.db), []);
    shown = await children();
    assert.deepEqual(shown.map((c) => c.title), placed.filter((t) => !removed.includes(t)));
    shown.forEach((c, i) => assert.equal(c.relation.position, i + 1));
    assert.deepEqual((await get(`/documents/${id('b60')}`)).data.relationships.parents.data, []);
    assert.equal((await get(`/folders/${id('Sub')}`)).data.meta.path, `/${id('Sub')}`);
    assert.deepEqual((await get(`/folders/${id('Sub')}/children`)).data.map((c: any) => titles.get(c.id)), ['b0']);
    assert.deepEqual((await get(`/folders/${id('News')}/children`)).data.map((c: any) => titles.get(c.id)).slice(-1), ['Bulk']);
  });
});
