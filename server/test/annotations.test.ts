// /annotations: users annotate objects they may read; only authors (and
// admins) change or delete theirs; annotations follow their object to the trash and back, and go
// when it is purged. Through HTTP with good and bad input.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createUser } from './helpers/fixtures.js';
import { expectError, startServer, type TestServer } from './helpers/server.js';

describe('annotations', () => {
  let s: TestServer;
  let admin: string;
  /** Role `readers` may read every object; `alice` and `bob` have it, `carol` has no role. */
  let alice: { id: string; jwt: string };
  let bob: { id: string; jwt: string };
  let carol: { id: string; jwt: string };
  let published: string;
  let draft: string;

  const note = (token: string, attributes: Record<string, unknown>) => s.request('POST', '/annotations', { token, body: { data: { type: 'annotations', attributes } } });
  const doc = async (attributes: Record<string, unknown>) => {
    const r = await s.request('POST', '/documents', { token: admin, body: { data: { type: 'documents', attributes } } });
    assert.equal(r.status, 201, r.text);
    return String(r.body.data.id);
  };

  before(async () => {
    s = await startServer();
    admin = await s.adminToken();
    const role = await s.request('POST', '/roles', { token: admin, body: { data: { type: 'roles', attributes: { name: 'readers', permissions: { '*': ['read'] } } } } });
    assert.equal(role.status, 201, role.text);
    alice = await createUser(s, admin, { username: 'alice', password: 'alice-secret-1' });
    bob = await createUser(s, admin, { username: 'bob', password: 'bob-secret-1' });
    carol = await createUser(s, admin, { username: 'carol', password: 'carol-secret-1' });
    for (const u of [alice, bob]) {
      const r = await s.request('POST', `/users/${u.id}/relationships/roles`, { token: admin, body: { data: [{ type: 'roles', id: role.body.data.id }] } });
      assert.equal(r.status, 200, r.text);
    }
    // New roles end nothing: log in again to carry them.
    alice.jwt = (await s.login('alice', 'alice-secret-1')).jwt;
    bob.jwt = (await s.login('bob', 'bob-secret-1')).jwt;
    published = await doc({ title: 'Public', status: 'on' });
    draft = await doc({ title: 'Draft', status: 'draft' });
  });
  after(() => s.close());

  test('a user annotates an object it may read; the annotation reads back as BEdita shows it', async () => {
    const res = await note(alice.jwt, { object_id: Number(draft), description: 'Check the title', params: { line: 3, tags: ['x'] } });
    assert.equal(res.status, 201, res.text);
    const a = res.body.data;
    assert.equal(a.type, 'annotations');
    assert.equal(res.headers.get('location'), `${s.url}/annotations/${a.id}`);
    assert.deepEqual(a.attributes, { object_id: Number(draft), description: 'Check the title', params: { line: 3, tags: ['x'] } });
    assert.equal(a.meta.user_id, Number(alice.id));
    assert.ok(a.meta.created && a.meta.modified);
    const read = await s.request('GET', `/annotations/${a.id}`, { token: bob.jwt });
    assert.equal(read.status, 200);
    assert.deepEqual(read.body.data.attributes, a.attributes);
    // An object id as a string is taken too; an annotation needs no description.
    const other = await note(carol.jwt, { object_id: published });
    assert.equal(other.status, 201, other.text);
    assert.equal(other.body.data.attributes.description, null);
    assert.equal(other.body.data.attributes.params, null);
  });

  test('an object the user may not read cannot be annotated, and its annotations are hidden', async () => {
    expectError(await note(carol.jwt, { object_id: Number(draft), description: 'peek' }), 404);
    const a = await note(alice.jwt, { object_id: Number(draft), description: 'hidden from carol' });
    expectError(await s.request('GET', `/annotations/${a.body.data.id}`, { token: carol.jwt }), 404);
    expectError(await s.request('PATCH', `/annotations/${a.body.data.id}`, { token: carol.jwt, body: { data: { id: a.body.data.id, type: 'annotations', attributes: { description: 'x' } } } }), 404);
    const list = await s.request('GET', `/annotations?filter[object_id]=${draft}`, { token: carol.jwt });
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.data, []);
    const mine = await s.request('GET', `/annotations?filter[object_id]=${draft}`, { token: alice.jwt });
    assert.ok(mine.body.data.some((x: { id: string }) => x.id === a.body.data.id));
    assert.ok(mine.body.data.every((x: { attributes: { object_id: number } }) => x.attributes.object_id === Number(draft)));
  });

  test('the annotated object at /annotations/{id}/object and /relationships/object, as its reader reads it', async () => {
    const a = (await note(alice.jwt, { object_id: Number(draft), description: 'about the object' })).body.data;
    const object = await s.request('GET', `/annotations/${a.id}/object`, { token: bob.jwt });
    assert.equal(object.status, 200, object.text);
    assert.equal(object.body.data.id, draft);
    assert.equal(object.body.data.type, 'documents');
    assert.equal(object.body.data.attributes.title, 'Draft');
    const rel = await s.request('GET', `/annotations/${a.id}/relationships/object`, { token: bob.jwt });
    assert.equal(rel.status, 200, rel.text);
    assert.deepEqual(rel.body.data, { id: draft, type: 'documents' });
    // Carol may not read the draft: neither the annotation nor its object is there for her.
    expectError(await s.request('GET', `/annotations/${a.id}/object`, { token: carol.jwt }), 404);
    expectError(await s.request('GET', `/annotations/${a.id}/relationships/object`, { token: carol.jwt }), 404);
    expectError(await s.request('GET', `/annotations/${a.id}/relationships/object`), 401);
    expectError(await s.request('GET', '/annotations/999999/object', { token: alice.jwt }), 404);
    expectError(await s.request('GET', '/annotations/abc/relationships/object', { token: alice.jwt }), 404);
  });

  test('only the author or an admin changes or deletes an annotation', async () => {
    const a = (await note(alice.jwt, { object_id: published, description: 'mine' })).body.data;
    const patch = (token: string, attributes: Record<string, unknown>) => s.request('PATCH', `/annotations/${a.id}`, { token, body: { data: { id: a.id, type: 'annotations', attributes } } });
    expectError(await patch(bob.jwt, { description: 'not yours' }), 403);
    expectError(await s.request('DELETE', `/annotations/${a.id}`, { token: bob.jwt }), 403);
    const changed = await patch(alice.jwt, { description: 'edited', params: [1, 2] });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.body.data.attributes.description, 'edited');
    assert.deepEqual(changed.body.data.attributes.params, [1, 2]);
    expectError(await patch(alice.jwt, { object_id: Number(draft) }), 403);
    const byAdmin = await patch(admin, { description: 'moderated' });
    assert.equal(byAdmin.status, 200);
    assert.equal(byAdmin.body.data.meta.user_id, Number(alice.id), 'the author stays');
    assert.equal((await s.request('DELETE', `/annotations/${a.id}`, { token: alice.jwt })).status, 204);
    expectError(await s.request('GET', `/annotations/${a.id}`, { token: alice.jwt }), 404);
    const b = (await note(bob.jwt, { object_id: published, description: 'spam' })).body.data;
    assert.equal((await s.request('DELETE', `/annotations/${b.id}`, { token: admin })).status, 204);
  });

  test('bad input gives a JSON API error and writes nothing', async () => {
    const count = async () => (await s.request('GET', '/annotations?page_size=100', { token: admin })).body.meta.pagination.count;
    const before = await count();
    expectError(await note(alice.jwt, { description: 'no object' }), 400, 'invalid_data');
    expectError(await note(alice.jwt, { object_id: 'abc' }), 400, 'invalid_data');
    expectError(await note(alice.jwt, { object_id: 999999 }), 404);
    expectError(await note(alice.jwt, { object_id: published, colour: 'red' }), 400, 'unknown_attribute');
    expectError(await note(alice.jwt, { object_id: published, description: 42 }), 400, 'invalid_data');
    expectError(await s.request('POST', '/annotations', { token: alice.jwt, body: { data: { type: 'documents', attributes: { object_id: published } } } }), 409);
    expectError(await s.request('POST', '/annotations', { token: alice.jwt, body: { nothing: true } }), 400);
    expectError(await note('', { object_id: published }), 401);
    expectError(await s.request('GET', '/annotations'), 401);
    expectError(await s.request('GET', '/annotations?filter[colour]=red', { token: alice.jwt }), 400);
    expectError(await s.request('GET', '/annotations?sort=colour', { token: alice.jwt }), 400);
    expectError(await s.request('GET', '/annotations/abc', { token: alice.jwt }), 404);
    expectError(await s.request('GET', '/annotations/999999', { token: alice.jwt }), 404);
    assert.equal(await count(), before);
  });

  test('annotations follow their object to the trash and back, and go when it is purged', async () => {
    const id = await doc({ title: 'Short-lived', status: 'on' });
    const a = (await note(bob.jwt, { object_id: id, description: 'follows' })).body.data;
    const listed = async () => (await s.request('GET', `/annotations?filter[object_id]=${id}`, { token: admin })).body.data.map((x: { id: string }) => x.id);
    assert.deepEqual(await listed(), [a.id]);
    assert.equal((await s.request('DELETE', `/documents/${id}`, { token: admin })).status, 204);
    assert.deepEqual(await listed(), []);
    expectError(await s.request('GET', `/annotations/${a.id}`, { token: bob.jwt }), 404);
    expectError(await s.request('GET', `/annotations/${a.id}`, { token: admin }), 404);
    expectError(await note(bob.jwt, { object_id: id }), 404);
    assert.equal((await s.request('PATCH', `/trash/${id}`, { token: admin, body: { data: { id, type: 'documents' } } })).status, 204);
    assert.deepEqual(await listed(), [a.id]);
    assert.equal((await s.request('GET', `/annotations/${a.id}`, { token: bob.jwt })).body.data.attributes.description, 'follows');
    assert.equal((await s.request('DELETE', `/documents/${id}`, { token: admin })).status, 204);
    assert.equal((await s.request('DELETE', `/trash/${id}`, { token: admin })).status, 204);
    const left = await s.server.ctx.db.selectFrom('annotations').select('id').where('object_id', '=', Number(id)).execute();
    assert.deepEqual(left, []);
  });

  test('lists page and sort, and filter by user', async () => {
    const on = await doc({ title: 'Paged', status: 'on' });
    for (let i = 0; i < 3; i++) await note(alice.jwt, { object_id: on, description: `n${i}` });
    const page = await s.request('GET', `/annotations?filter[object_id]=${on}&page_size=2&sort=-id`, { token: alice.jwt });
    assert.equal(page.status, 200);
    assert.equal(page.body.meta.pagination.count, 3);
    assert.deepEqual(page.body.data.map((x: { attributes: { description: string } }) => x.attributes.description), ['n2', 'n1']);
    const byUser = await s.request('GET', `/annotations?filter[user_id]=${alice.id}&filter[object_id]=${on}`, { token: bob.jwt });
    assert.equal(byUser.body.data.length, 3);
  });
});
