// Trees and relations as BEdita 5 answers them: `meta.relation` of children and parents
// (position, menu, canonical, depth_level, params), PATCH of a folder's children (replace),
// `priority` and `inv_priority` of relations, relation params checked against the relation's JSON
// Schema, a uname as a relationship's `data.id`, and relations whose sides name users.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { listIds } from './helpers/lists.js';
import { expectError, startServer, type TestServer } from './helpers/server.js';
import { createUser } from './helpers/users.js';

describe('trees and relations in the BEdita layout', () => {
  let s: TestServer;
  let admin: string;
  const created = async (type: string, attributes: Record<string, unknown>, relationships?: Record<string, unknown>) => {
    const res = await s.request('POST', `/${type}`, { token: admin, body: { data: { type, attributes, ...(relationships ? { relationships } : {}) } } });
    assert.equal(res.status, 201, res.text);
    return res.body.data as { id: string; attributes: Record<string, unknown> };
  };
  const send = (method: string, path: string, data: unknown, token = admin) => s.request(method, path, { token, body: { data } });
  const ok = async (res: Promise<{ status: number; text: string; body: any }>) => {
    const r = await res;
    assert.ok(r.status < 300, r.text);
    return r;
  };
  const ids = (path: string) => listIds(s, admin, path);
  const relationOf = async (path: string) => Object.fromEntries((await ok(s.request('GET', path, { token: admin }))).body.data.map((d: any) => [d.id, d.meta.relation]));

  before(async () => {
    s = await startServer();
    admin = await s.adminToken();
  });
  after(() => s.close());

  test('children and parents carry meta.relation with position, menu, canonical, depth_level and params', async () => {
    const root = await created('folders', { title: 'Tree root', status: 'on' });
    const sub = await created('folders', { title: 'Tree sub', status: 'on' }, { parent: { data: { type: 'folders', id: root.id } } });
    const doc = await created('documents', { title: 'Placed twice', status: 'on' });
    await ok(send('POST', `/folders/${sub.id}/relationships/children`, [{ type: 'documents', id: doc.id, meta: { relation: { menu: false, params: { color: 'red' } } } }]));
    await ok(send('POST', `/folders/${root.id}/relationships/children`, [{ type: 'documents', id: doc.id, meta: { relation: { menu: 1 } } }]));
    const inSub = (await relationOf(`/folders/${sub.id}/children`))[doc.id];
    assert.deepEqual(inSub, { position: 1, menu: false, canonical: true, depth_level: 2, params: { color: 'red' } });
    const inRoot = await relationOf(`/folders/${root.id}/children`);
    assert.deepEqual(inRoot[sub.id], { position: 1, menu: true, canonical: true, depth_level: 1, params: null });
    assert.deepEqual(inRoot[doc.id], { position: 2, menu: true, canonical: false, depth_level: 1, params: null });
    // An object's parents show its placement in each.
    const parents = await relationOf(`/documents/${doc.id}/parents`);
    assert.deepEqual(parents[sub.id], inSub);
    assert.deepEqual(parents[root.id], inRoot[doc.id]);
    // A folder's parent shows the folder's own placement.
    const parent = await ok(s.request('GET', `/folders/${sub.id}/parent`, { token: admin }));
    assert.equal(parent.body.data.id, root.id);
    assert.equal(parent.body.data.meta.relation.canonical, true);
    assert.equal(parent.body.data.meta.relation.depth_level, 1);
    assert.equal(parent.body.data.meta.relation.params, null);
    // Params change with a later write (null clears them); anything but an object is 400 and changes nothing.
    await ok(send('POST', `/folders/${root.id}/relationships/children`, [{ type: 'documents', id: doc.id, meta: { relation: { params: { size: 2 } } } }]));
    assert.deepEqual((await relationOf(`/folders/${root.id}/children`))[doc.id].params, { size: 2 });
    for (const bad of ['text', [1], 3]) {
      const res = await send('POST', `/folders/${root.id}/relationships/children`, [{ type: 'documents', id: doc.id, meta: { relation: { params: bad } } }]);
      expectError(res, 400);
      assert.deepEqual(res.body.error.meta.fields, ['params']);
    }
    await ok(send('PATCH', `/documents/${doc.id}/relationships/parents`, [{ type: 'folders', id: root.id, meta: { relation: { params: null } } }, { type: 'folders', id: sub.id }]));
    assert.deepEqual((await relationOf(`/folders/${root.id}/children`))[doc.id].params, null);
    // canonical is the client's: true moves it from the object's other placement, false clears it.
    await ok(send('POST', `/folders/${root.id}/relationships/children`, [{ type: 'documents', id: doc.id, meta: { relation: { canonical: true, menu: false } } }]));
    assert.deepEqual([(await relationOf(`/documents/${doc.id}/parents`))[root.id].canonical, (await relationOf(`/documents/${doc.id}/parents`))[sub.id].canonical], [true, false]);
    await ok(send('PATCH', `/documents/${doc.id}/relationships/parents`, [{ type: 'folders', id: root.id }, { type: 'folders', id: sub.id, meta: { relation: { canonical: true } } }]));
    assert.deepEqual([(await relationOf(`/documents/${doc.id}/parents`))[root.id].canonical, (await relationOf(`/documents/${doc.id}/parents`))[sub.id].canonical], [false, true]);
    await ok(send('PATCH', `/folders/${sub.id}/relationships/parent`, { type: 'folders', id: root.id, meta: { relation: { menu: false, canonical: false } } }));
    assert.equal((await ok(s.request('GET', `/folders/${sub.id}/parent`, { token: admin }))).body.data.meta.relation.canonical, false);
    expectError(await send('POST', `/folders/${root.id}/relationships/children`, [{ type: 'documents', id: doc.id, meta: { relation: { canonical: 'yes' } } }]), 400);
  });

  test('PATCH /folders/{id}/relationships/children replaces the children: named ones stay or come in order, others leave', async () => {
    const folder = await created('folders', { title: 'Replace me', status: 'on' });
    const [a, b, c] = [await created('documents', { title: 'A' }), await created('documents', { title: 'B' }), await created('documents', { title: 'C' })];
    const sub = await created('folders', { title: 'Leaving sub' }, { parent: { data: { type: 'folders', id: folder.id } } });
    await ok(send('POST', `/folders/${folder.id}/relationships/children`, [a, b].map((d) => ({ type: 'documents', id: d.id }))));
    assert.deepEqual(await ids(`/folders/${folder.id}/children`), [sub.id, a.id, b.id]);
    const res = await send('PATCH', `/folders/${folder.id}/relationships/children`, [{ type: 'documents', id: c.id }, { type: 'documents', id: a.id, meta: { relation: { position: 1 } } }]);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.data, [{ type: 'documents', id: c.id }, { type: 'documents', id: a.id }]);
    assert.deepEqual(await ids(`/folders/${folder.id}/children`), [a.id, c.id]);
    assert.deepEqual(await ids(`/documents/${b.id}/parents`), []);
    // The sub-folder taken out becomes a root folder.
    assert.equal((await s.request('GET', `/folders/${sub.id}/parent`, { token: admin })).body.data, null);
    // An empty list empties the folder; a refused one changes nothing.
    expectError(await send('PATCH', `/folders/${folder.id}/relationships/children`, [{ type: 'documents', id: '999999' }]), 404);
    assert.deepEqual(await ids(`/folders/${folder.id}/children`), [a.id, c.id]);
    await ok(send('PATCH', `/folders/${folder.id}/relationships/children`, []));
    assert.deepEqual(await ids(`/folders/${folder.id}/children`), []);
    // An editor without update on the folder gets 403.
    const role = await ok(send('POST', '/roles', { type: 'roles', attributes: { name: 'doc_readers', permissions: { objects: ['read'] } } }));
    const reader = await createUser(s, admin, { username: 'tree_reader', roles: [role.body.data.id] });
    expectError(await send('PATCH', `/folders/${folder.id}/relationships/children`, [{ type: 'documents', id: a.id }], reader.jwt), 403);
    assert.deepEqual(await ids(`/folders/${folder.id}/children`), []);
  });

  test('relations: meta.relation has priority and inv_priority, each settable from either side', async () => {
    const hub = await created('documents', { title: 'Hub' });
    const [x, y] = [await created('documents', { title: 'X' }), await created('documents', { title: 'Y' })];
    await ok(send('POST', `/documents/${hub.id}/relationships/see_also`, [{ type: 'documents', id: x.id }, { type: 'documents', id: y.id, meta: { relation: { priority: 5, inv_priority: 7 } } }]));
    assert.deepEqual(await relationOf(`/documents/${hub.id}/see_also`), {
      [x.id]: { priority: 1, inv_priority: 1, params: null },
      [y.id]: { priority: 5, inv_priority: 7, params: null },
    });
    // From the right side the same link reads the same columns; `priority` is still the left's order.
    const z = await created('documents', { title: 'Z' });
    await ok(send('POST', `/documents/${z.id}/relationships/seen_also_by`, [{ type: 'documents', id: hub.id, meta: { relation: { priority: 3 } } }]));
    assert.deepEqual((await relationOf(`/documents/${z.id}/seen_also_by`))[hub.id], { priority: 3, inv_priority: 1, params: null });
    assert.deepEqual(await ids(`/documents/${hub.id}/see_also`), [x.id, z.id, y.id]);
    expectError(await send('POST', `/documents/${hub.id}/relationships/see_also`, [{ type: 'documents', id: x.id, meta: { relation: { inv_priority: 'last' } } }]), 400);
  });

  test('relation params are checked against the relation\'s params JSON Schema: 400, nothing changed', async () => {
    await ok(send('POST', '/model/relations', { type: 'relations', attributes: { name: 'another_test', inverse_name: 'inverse_another_test', params: { type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer', minimum: 0 } }, required: ['name'] } } }));
    // A relation's params must be a JSON Schema.
    const bad = await send('POST', '/model/relations', { type: 'relations', attributes: { name: 'bad_params', inverse_name: 'bad_params_of', params: { type: 'no-such-type' } } });
    expectError(bad, 400);
    assert.deepEqual(bad.body.error.meta.fields, ['params']);
    expectError(await send('PATCH', '/model/relations/another_test', { id: 'another_test', type: 'relations', attributes: { params: { required: 'name' } } }), 400);
    await ok(send('PATCH', '/model/relations/another_test/relationships/left_object_types', [{ type: 'object_types', id: 'users' }]));
    await ok(send('PATCH', '/model/relations/another_test/relationships/right_object_types', [{ type: 'object_types', id: 'locations' }]));
    const user = await createUser(s, admin, { username: 'gustavo' });
    const place = await created('locations', { title: 'Another location' });
    for (const params of ['this is an invalid parameter data', { age: 42 }, { name: true }]) {
      for (const method of ['POST', 'PATCH']) {
        const res = await send(method, `/users/${user.id}/relationships/another_test`, [{ id: place.id, type: 'locations', meta: { relation: { params } } }]);
        expectError(res, 400);
        assert.deepEqual(res.body.error.meta.fields, ['params'], JSON.stringify(params));
      }
    }
    assert.deepEqual(await ids(`/users/${user.id}/another_test`), []);
    const good = await send('POST', `/users/${user.id}/relationships/another_test`, [{ id: place.id, type: 'locations', meta: { relation: { params: { name: 'Gustavo', age: 42 } } } }]);
    assert.equal(good.status, 200, good.text);
    assert.deepEqual((await relationOf(`/users/${user.id}/another_test`))[place.id], { priority: 1, inv_priority: 1, params: { name: 'Gustavo', age: 42 } });
    // The other side reads the user too (admins read every user).
    assert.deepEqual(await ids(`/locations/${place.id}/inverse_another_test`), [user.id]);
    const read = await ok(s.request('GET', `/users/${user.id}`, { token: admin }));
    assert.ok(read.body.data.relationships.another_test.links.related.endsWith(`/users/${user.id}/another_test`));
    // include=<relation> on users, one or many, as on any object.
    const withPlace = await ok(s.request('GET', `/users/${user.id}?include=another_test,roles`, { token: admin }));
    assert.deepEqual(withPlace.body.data.relationships.another_test.data, [{ id: place.id, type: 'locations' }]);
    assert.deepEqual(withPlace.body.included.map((r: { id: string; type: string }) => [r.type, r.id]), [['locations', place.id]]);
    const listed = await ok(s.request('GET', `/users?filter[id]=${user.id}&include=another_test`, { token: admin }));
    assert.equal(listed.body.included[0].attributes.title, 'Another location');
    expectError(await s.request('GET', `/users/${user.id}?include=see_also`, { token: admin }), 400);
    // The user reads its own relations; another user may not.
    const other = await createUser(s, admin, { username: 'someone' });
    expectError(await s.request('GET', `/users/${user.id}/another_test`, { token: other.jwt }), 403);
    expectError(await send('DELETE', `/users/${user.id}/relationships/another_test`, [{ id: place.id, type: 'locations' }], other.jwt), 403);
    await ok(send('DELETE', `/users/${user.id}/relationships/another_test`, [{ id: place.id, type: 'locations' }]));
    assert.deepEqual(await ids(`/users/${user.id}/another_test`), []);
    expectError(await s.request('GET', `/users/${user.id}/no_such_relation`, { token: admin }), 404);
  });

  test('a uname is a relationship data.id (relations, children, parents); an unknown one is 404', async () => {
    const hub = await created('documents', { title: 'Uname hub', uname: 'uname-hub' });
    const target = await created('documents', { title: 'Uname target', uname: 'uname-target' });
    const res = await send('POST', `/documents/${hub.id}/relationships/see_also`, [{ type: 'documents', id: 'uname-target' }]);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.data, [{ type: 'documents', id: target.id }]);
    assert.deepEqual(await ids(`/documents/${hub.id}/see_also`), [target.id]);
    const folder = await created('folders', { title: 'Uname folder', uname: 'uname-folder' });
    await ok(send('POST', `/folders/${folder.id}/relationships/children`, [{ type: 'documents', id: 'uname-hub' }]));
    await ok(send('POST', `/documents/${target.id}/relationships/parents`, [{ type: 'folders', id: 'uname-folder' }]));
    assert.deepEqual(await ids(`/folders/${folder.id}/children`), [hub.id, target.id]);
    expectError(await send('POST', `/documents/${hub.id}/relationships/see_also`, [{ type: 'documents', id: 'no-such-uname' }]), 404);
    expectError(await send('POST', `/documents/${hub.id}/relationships/see_also`, [{ type: 'documents', id: 'x'.repeat(300) }]), 400);
  });
});
