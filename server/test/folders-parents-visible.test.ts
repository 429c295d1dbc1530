// `relationships.parents` shows a reader only the folders it may read. The parents come with the
// object's row (a single read and every list page); a plainly published one (status on, no
// publication window) is shown without reading it again, the others are read through the read
// path: a draft folder, a folder whose window has not opened or has closed, and a folder moved to
// the trash are left out for readers who may not see them, in a single read, a list page and
// /objects alike, first read and cached; the same once an object permission exists elsewhere on
// the site (then every parent is read; a restriction on a folder covers what is placed below it,
// so the object itself would be restricted).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.js';
import { createRole, createUser } from './helpers/users.js';

describe('parents a reader may not see are left out', () => {
  let s: TestServer;
  let admin = '';
  let crew = '';
  let doc = '';
  const folders: Record<string, string> = {};

  const create = async (type: string, attributes: Record<string, unknown>) => {
    const r = await s.request('POST', `/${type}`, { token: admin, body: { data: { type, attributes } } });
    assert.equal(r.status, 201, r.text);
    return String(r.body.data.id);
  };
  const day = 24 * 3600 * 1000;
  const iso = (ms: number) => new Date(Date.now() + ms).toISOString();

  /** The parent folders' titles an answer shows for `doc`. */
  const titles = (ids: Array<{ id: string }>) => ids.map((p) => Object.keys(folders).find((k) => folders[k] === p.id) ?? p.id).sort();

  before(async () => {
    s = await startServer();
    admin = await s.adminToken();
    folders.open = await create('folders', { title: 'Open', status: 'on' });
    folders.draft = await create('folders', { title: 'Draft', status: 'draft' });
    folders.future = await create('folders', { title: 'Future', status: 'on', publish_start: iso(30 * day) });
    folders.past = await create('folders', { title: 'Past', status: 'on', publish_end: iso(-30 * day) });
    folders.window = await create('folders', { title: 'Window', status: 'on', publish_start: iso(-day), publish_end: iso(day) });
    folders.restricted = await create('folders', { title: 'Restricted', status: 'on' });
    folders.trashed = await create('folders', { title: 'Trashed', status: 'on' });
    doc = await create('documents', { title: 'Placed everywhere', status: 'on' });
    const placed = await s.request('POST', `/documents/${doc}/relationships/parents`, {
      token: admin,
      body: { data: Object.entries(folders).filter(([name]) => name !== 'restricted').map(([, id]) => ({ type: 'folders', id })) },
    });
    assert.equal(placed.status, 200, placed.text);
    const crewRole = await createRole(s, admin, 'crew', { documents: ['read'], folders: ['read'] });
    const trash = await s.request('DELETE', `/folders/${folders.trashed}`, { token: admin });
    assert.equal(trash.status, 204, trash.text);
    crew = (await createUser(s, admin, { username: 'crew-member', roles: [crewRole] })).jwt;
  });
  after(async () => {
    await s?.close();
  });

  test('anonymous readers see the published folders only, in a single read, a list and /objects', async () => {
    const expected = ['open', 'window'];
    // Asked three times: the first read, then the answers the response cache keeps.
    for (let i = 0; i < 3; i++) {
      const one = await s.request('GET', `/documents/${doc}`);
      assert.equal(one.status, 200, one.text);
      assert.deepEqual(titles(one.body.data.relationships.parents.data), expected, `single read, time ${i + 1}`);
    }
    const list = await s.request('GET', '/documents?filter[id]=' + doc);
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(titles(list.body.data[0].relationships.parents.data), expected, 'a list page');
    const objects = await s.request('GET', `/objects/${doc}`);
    assert.deepEqual(titles(objects.body.data.relationships.parents.data), expected, '/objects/{id}');
    const related = await s.request('GET', `/documents/${doc}/parents`);
    assert.deepEqual(related.body.data.map((f: { attributes: { title: string } }) => f.attributes.title).sort(), ['Open', 'Window']);
  });

  test('a role that reads folders in every status sees drafts and windows', async () => {
    const one = await s.request('GET', `/documents/${doc}`, { token: crew });
    assert.equal(one.status, 200, one.text);
    assert.deepEqual(titles(one.body.data.relationships.parents.data), ['draft', 'future', 'open', 'past', 'window']);
  });

  test('a user whose roles read published objects only sees the published folders', async () => {
    const other = await createUser(s, admin, { username: 'deckhand', roles: [] });
    const one = await s.request('GET', `/documents/${doc}`, { token: other.jwt });
    assert.equal(one.status, 200, one.text);
    assert.deepEqual(titles(one.body.data.relationships.parents.data), ['open', 'window']);
  });

  test('admins see every active parent; trashed ones are left out for everyone', async () => {
    const one = await s.request('GET', `/documents/${doc}`, { token: admin });
    assert.deepEqual(titles(one.body.data.relationships.parents.data), ['draft', 'future', 'open', 'past', 'window']);
  });

  test('with an object permission somewhere on the site, every reader still sees the same parents', async () => {
    const restrict = await s.request('PATCH', `/folders/${folders.restricted}`, {
      token: admin,
      body: { data: { id: folders.restricted, type: 'folders', meta: { perms: { roles: ['crew'] } } } },
    });
    assert.equal(restrict.status, 200, restrict.text);
    for (let i = 0; i < 3; i++) {
      const one = await s.request('GET', `/documents/${doc}`);
      assert.deepEqual(titles(one.body.data.relationships.parents.data), ['open', 'window'], `anonymous, time ${i + 1}`);
    }
    const list = await s.request('GET', '/documents?filter[id]=' + doc);
    assert.deepEqual(titles(list.body.data[0].relationships.parents.data), ['open', 'window']);
    const signed = await s.request('GET', `/documents/${doc}`, { token: crew });
    assert.deepEqual(titles(signed.body.data.relationships.parents.data), ['draft', 'future', 'open', 'past', 'window']);
  });

  test('a folder unpublished after being read is hidden at the next read', async () => {
    for (let i = 0; i < 2; i++) await s.request('GET', `/documents/${doc}`);
    const off = await s.request('PATCH', `/folders/${folders.open}`, { token: admin, body: { data: { id: folders.open, type: 'folders', attributes: { status: 'off' } } } });
    assert.equal(off.status, 200, off.text);
    const one = await s.request('GET', `/documents/${doc}`);
    assert.deepEqual(titles(one.body.data.relationships.parents.data), ['window']);
    const list = await s.request('GET', '/documents?filter[id]=' + doc);
    assert.deepEqual(titles(list.body.data[0].relationships.parents.data), ['window']);
  });
});
