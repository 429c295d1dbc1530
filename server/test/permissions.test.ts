// Permissions through HTTP (CONTRACT.md, Permissions): role permissions on every read and write
// path, with users of several roles; object permissions (meta.perms) and their inheritance below
// folders; the own account; /home; and the response cache never answering a signed-in reader
// with what an anonymous one saw.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { tinyPng } from './helpers/fixtures.js';
import { expectError, startServer, type TestServer } from './helpers/server.js';
import { createRole, createUser } from './helpers/users.js';

const EDITOR_RULES = { documents: ['read', 'create', 'update:own', 'delete:own'] };

describe('permissions', () => {
  let s: TestServer;
  let admin: string;
  const roles: Record<string, string> = {};
  const tokens: Record<string, string> = {};
  const userIds: Record<string, string> = {};

  const body = (type: string, attributes: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ data: { type, attributes, ...extra } });
  async function makeRole(name: string, permissions: unknown) {
    roles[name] = await createRole(s, admin, name, permissions);
    return roles[name];
  }
  async function makeUser(username: string, roleNames: string[]) {
    const u = await createUser(s, admin, { username, roles: roleNames.map((n) => roles[n]) });
    userIds[username] = u.id;
    tokens[username] = u.jwt;
  }
  async function make(token: string, type: string, attributes: Record<string, unknown>) {
    const r = await s.request('POST', `/${type}`, { token, body: body(type, attributes) });
    assert.equal(r.status, 201, r.text);
    return r.body.data as { id: string; attributes: Record<string, unknown> };
  }
  const ids = (r: { body: { data: Array<{ id: string }> } }) => r.body.data.map((d) => d.id);

  before(async () => {
    s = await startServer();
    admin = await s.adminToken();
    await makeRole('editors', EDITOR_RULES);
    await makeRole('readers', { '*': ['read'] });
    await makeRole('own_readers', { documents: ['read:own', 'create'] });
    await makeRole('publishers', { documents: ['read', 'create', 'update', 'publish'] });
    await makeRole('media_readers', { media: ['read', 'create'], files: ['read'] });
    await makeUser('ed', ['editors']);
    await makeUser('ed2', ['editors']);
    await makeUser('reader', ['readers']);
    await makeUser('owner', ['own_readers']);
    await makeUser('pub', ['publishers']);
    await makeUser('both', ['editors', 'media_readers']);
    await makeUser('nobody', []);
  });
  after(() => s.close());

  test('permissions are validated, shown on roles and in /model/schema/roles; a new role has none', async () => {
    const bad = [
      { nothing: ['read'] },
      { documents: ['read', 'fly'] },
      { documents: ['create:own'] },
      { documents: 'read' },
      { documents: ['read:mine'] },
      ['read'],
      { '*': [1] },
    ];
    for (const permissions of bad) {
      expectError(await s.request('POST', '/roles', { token: admin, body: body('roles', { name: 'bad', permissions }) }), 400);
      expectError(await s.request('PATCH', `/roles/${roles.editors}`, { token: admin, body: { data: { id: roles.editors, type: 'roles', attributes: { permissions } } } }), 400);
    }
    const plain = await s.request('POST', '/roles', { token: admin, body: body('roles', { name: 'plain' }) });
    assert.deepEqual(plain.body.data.attributes.permissions, {});
    const abstract = await s.request('PATCH', `/roles/${plain.body.data.id}`, {
      token: admin,
      body: { data: { id: plain.body.data.id, type: 'roles', attributes: { permissions: { objects: ['read'], media: ['read', 'update:own'], '*': ['read'] } } } },
    });
    assert.equal(abstract.status, 200, abstract.text);
    assert.deepEqual(abstract.body.data.attributes.permissions, { objects: ['read'], media: ['read', 'update:own'], '*': ['read'] });
    const read = await s.request('GET', `/roles/${roles.editors}`, { token: admin });
    assert.deepEqual(read.body.data.attributes.permissions, EDITOR_RULES);
    const schema = await s.request('GET', '/model/schema/roles');
    assert.equal(schema.status, 200);
    assert.equal(schema.body.properties.permissions.type, 'object');
    // The admin role keeps every right (and stays unchangeable).
    const adminRole = await s.request('GET', '/roles/1', { token: admin });
    assert.deepEqual(adminRole.body.data.attributes.permissions, { '*': ['read', 'create', 'update', 'delete', 'publish'] });
    assert.equal((await s.request('DELETE', `/roles/${plain.body.data.id}`, { token: admin })).status, 204);
  });

  test('done when: an editor role {"documents": ["read", "create", "update:own", "delete:own"]} can do exactly that', async () => {
    const theirs = await make(admin, 'documents', { title: 'Admin draft', status: 'draft' });
    const published = await make(admin, 'documents', { title: 'Admin page', status: 'on' });
    const event = await make(admin, 'events', { title: 'Admin event draft', status: 'draft' });
    // create: a document without status is a draft; publishing needs `publish`.
    const mine = await make(tokens.ed, 'documents', { title: 'Mine' });
    assert.equal(mine.attributes.status, 'draft');
    expectError(await s.request('POST', '/documents', { token: tokens.ed, body: body('documents', { title: 'Live', status: 'on' }) }), 403);
    expectError(await s.request('POST', '/events', { token: tokens.ed, body: body('events', { title: 'No' }) }), 403);
    // read: every document in every status; other types as anonymous clients see them.
    assert.equal((await s.request('GET', `/documents/${theirs.id}`, { token: tokens.ed })).status, 200);
    expectError(await s.request('GET', `/events/${event.id}`, { token: tokens.ed }), 404);
    const list = await s.request('GET', '/documents?page_size=100', { token: tokens.ed });
    assert.ok(ids(list).includes(theirs.id) && ids(list).includes(mine.id));
    assert.ok(!ids(await s.request('GET', '/objects?page_size=100', { token: tokens.ed })).includes(event.id));
    // update:own
    const patch = (token: string, id: string, attributes: Record<string, unknown>) =>
      s.request('PATCH', `/documents/${id}`, { token, body: { data: { id, type: 'documents', attributes } } });
    assert.equal((await patch(tokens.ed, mine.id, { title: 'Mine, edited' })).status, 200);
    expectError(await patch(tokens.ed, theirs.id, { title: 'Hacked' }), 403);
    expectError(await patch(tokens.ed2, mine.id, { title: 'Hacked' }), 403);
    expectError(await patch(tokens.ed, mine.id, { status: 'on' }), 403);
    expectError(await patch(tokens.ed, published.id, { status: 'draft' }), 403);
    assert.equal((await s.request('GET', `/documents/${theirs.id}`, { token: admin })).body.data.attributes.title, 'Admin draft');
    // delete:own
    expectError(await s.request('DELETE', `/documents/${theirs.id}`, { token: tokens.ed }), 403);
    expectError(await s.request('DELETE', `/objects/${theirs.id}`, { token: tokens.ed }), 403);
    expectError(await s.request('DELETE', `/documents/${mine.id}`, { token: tokens.ed2 }), 403);
    assert.equal((await s.request('DELETE', `/documents/${mine.id}`, { token: tokens.ed })).status, 204);
    assert.equal((await s.request('GET', `/documents/${theirs.id}`, { token: admin })).status, 200);
    // …and nothing of the admin areas.
    for (const p of ['/users', '/roles', '/model/object_types?page_size=1', '/webhooks', '/backups', '/applications']) {
      const r = await s.request(p.startsWith('/model') ? 'POST' : 'GET', p.startsWith('/model') ? '/model/object_types' : p, { token: tokens.ed, body: p.startsWith('/model') ? body('object_types', { name: 'sneaky', singular: 'sneaky' }) : undefined });
      expectError(r, 403);
    }
  });

  test('without `read` a user sees what anonymous clients see: drafts 404 and left out of lists, search and include', async () => {
    const draft = await make(admin, 'documents', { title: 'Zanzibar secret draft', status: 'draft' });
    const page = await make(admin, 'documents', { title: 'Zanzibar public page', status: 'on' });
    await s.request('POST', `/documents/${page.id}/relationships/see_also`, { token: admin, body: { data: [{ type: 'documents', id: draft.id }] } });
    for (const token of [tokens.nobody, undefined]) {
      expectError(await s.request('GET', `/documents/${draft.id}`, { token }), 404);
      expectError(await s.request('GET', `/objects/${draft.id}`, { token }), 404);
      assert.deepEqual(ids(await s.request('GET', '/documents?q=zanzibar', { token })), [page.id]);
      const inc = await s.request('GET', `/documents/${page.id}?include=see_also`, { token });
      assert.deepEqual(inc.body.data.relationships.see_also.data, []);
      assert.equal(inc.body.included, undefined);
      assert.deepEqual(ids(await s.request('GET', `/documents/${page.id}/see_also`, { token })), []);
    }
    assert.deepEqual(ids(await s.request('GET', '/documents?q=zanzibar&sort=id', { token: tokens.reader })), [draft.id, page.id]);
    const inc = await s.request('GET', `/documents/${page.id}?include=see_also`, { token: tokens.reader });
    assert.deepEqual(inc.body.included.map((r: { id: string }) => r.id), [draft.id]);
  });

  test('read:own sees its own drafts only; abstract keys cover sub-types; rights add up over roles', async () => {
    const own = await make(tokens.owner, 'documents', { title: 'Own draft' });
    const other = await make(admin, 'documents', { title: 'Other draft' });
    assert.equal((await s.request('GET', `/documents/${own.id}`, { token: tokens.owner })).status, 200);
    expectError(await s.request('GET', `/documents/${other.id}`, { token: tokens.owner }), 404);
    const listed = ids(await s.request('GET', '/documents?page_size=100', { token: tokens.owner }));
    assert.ok(listed.includes(own.id) && !listed.includes(other.id));
    // `media` covers images; the `files` key replaces it for files (no create there); documents
    // come from the other role.
    const up = await s.request('POST', '/images/upload/a.png', { token: tokens.both, raw: await tinyPng(3), headers: { 'Content-Type': 'image/png' } });
    assert.equal(up.status, 201, up.text);
    const image = await s.request('POST', '/images/upload/b.png', { token: admin, raw: await tinyPng(4), headers: { 'Content-Type': 'image/png' } });
    assert.equal(image.body.data.attributes.status, 'draft');
    assert.equal((await s.request('GET', `/images/${image.body.data.id}`, { token: tokens.both })).status, 200);
    expectError(await s.request('GET', `/images/${image.body.data.id}`, { token: tokens.ed }), 404);
    expectError(await s.request('GET', `/streams/${image.body.included[0].id}`, { token: tokens.ed }), 404);
    expectError(await s.request('POST', '/files/upload/a.txt', { token: tokens.both, raw: 'text', headers: { 'Content-Type': 'text/plain' } }), 403);
    expectError(await s.request('POST', '/images/upload/c.png', { token: tokens.ed, raw: await tinyPng(5), headers: { 'Content-Type': 'image/png' } }), 403);
    assert.equal((await s.request('POST', '/documents', { token: tokens.both, body: body('documents', { title: 'From the editor role' }) })).status, 201);
  });

  test('publish: creating with status on and changing status to or from on', async () => {
    const doc = await make(tokens.pub, 'documents', { title: 'Published by pub', status: 'on' });
    const other = await make(admin, 'documents', { title: 'Admin on', status: 'on' });
    const patch = (id: string, status: string) => s.request('PATCH', `/documents/${id}`, { token: tokens.pub, body: { data: { id, type: 'documents', attributes: { status } } } });
    assert.equal((await patch(doc.id, 'draft')).status, 200);
    assert.equal((await patch(other.id, 'off')).status, 200);
    expectError(await s.request('DELETE', `/documents/${other.id}`, { token: tokens.pub }), 403);
  });

  test('every write path asks the same guard: /objects, relationships, folders, parents, streams, /operations, legacy', async () => {
    const doc = await make(admin, 'documents', { title: 'Guarded', status: 'on' });
    const target = await make(admin, 'documents', { title: 'Target', status: 'on' });
    const folder = await make(admin, 'folders', { title: 'Guarded folder', status: 'on' });
    const nobody = tokens.nobody;
    const ed = tokens.ed;
    expectError(await s.request('POST', '/documents', { token: nobody, body: body('documents', { title: 'x' }) }), 403);
    expectError(await s.request('DELETE', `/objects/${doc.id}`, { token: nobody }), 403);
    for (const method of ['POST', 'PATCH', 'DELETE']) {
      expectError(await s.request(method, `/documents/${doc.id}/relationships/see_also`, { token: ed, body: { data: [{ type: 'documents', id: target.id }] } }), 403);
    }
    // Relating the editor's own document to someone else's is an update of its own document only.
    const mine = await make(ed, 'documents', { title: 'Ed links' });
    assert.equal((await s.request('POST', `/documents/${mine.id}/relationships/see_also`, { token: ed, body: { data: [{ type: 'documents', id: target.id }] } })).status, 200);
    // A folder's children are an update of the folder; parents written from the object's side an update of the object.
    expectError(await s.request('POST', `/folders/${folder.id}/relationships/children`, { token: ed, body: { data: [{ type: 'documents', id: mine.id }] } }), 403);
    expectError(await s.request('POST', `/documents/${doc.id}/relationships/parents`, { token: ed, body: { data: [{ type: 'folders', id: folder.id }] } }), 403);
    expectError(await s.request('POST', '/folders', { token: ed, body: body('folders', { title: 'No' }) }), 403);
    // /operations: add is a create, update an update, remove a delete; nothing is written.
    const ops = (operations: unknown[]) =>
      s.request('POST', '/operations', { token: ed, body: { 'atomic:operations': operations }, headers: { 'Content-Type': 'application/vnd.api+json' } });
    expectError(await ops([{ op: 'add', data: body('events', { title: 'op event' }).data }]), 403);
    expectError(await ops([{ op: 'add', data: body('documents', { title: 'fine' }).data }, { op: 'update', data: { type: 'documents', id: doc.id, attributes: { title: 'x' } } }]), 403);
    expectError(await ops([{ op: 'remove', ref: { type: 'documents', id: doc.id } }]), 403);
    assert.ok(!ids(await s.request('GET', '/documents?filter[title]=fine', { token: admin })).length, 'the failed operations wrote nothing');
    // Creates written together (one insert) are still each authorised: an editor may create
    // documents but not publish them, so the second of three adds is refused, named, and none kept.
    const three = (status: string) => [0, 1, 2].map((i) => ({ op: 'add', data: body('documents', { title: `batched ${i}`, status: i === 1 ? status : 'draft' }).data }));
    const refused = expectError(await ops(three('on')), 403);
    assert.equal(refused.source?.pointer, '/atomic:operations/1', JSON.stringify(refused));
    assert.ok(!ids(await s.request('GET', '/documents?q=batched', { token: admin })).length, 'none of the three was kept');
    const drafts = await ops(three('draft'));
    assert.equal(drafts.status, 200, drafts.text);
    assert.deepEqual(drafts.body['atomic:results'].map((r: { data: { attributes: { status: string } } }) => r.data.attributes.status), ['draft', 'draft', 'draft']);
    assert.equal(ids(await s.request('GET', '/documents?q=batched&filter[status]=draft', { token: admin })).length, 3, 'the same filter finds them once written');
    // Stream links and a locked image's file.
    const up = await s.request('POST', '/images/upload/locked.png', { token: admin, raw: await tinyPng(7), headers: { 'Content-Type': 'image/png' } });
    const imageId = up.body.data.id;
    const uuid = up.body.included[0].id;
    await s.request('PATCH', `/images/${imageId}`, { token: admin, body: { data: { id: imageId, type: 'images', attributes: { status: 'on' }, meta: { locked: true } } } });
    // Publishers: the image is published, and the lock refuses them all the same.
    const mediaEditor = await makeRole('image_editors', { images: ['read', 'create', 'update', 'delete', 'publish'] });
    assert.ok(mediaEditor);
    await makeUser('imager', ['image_editors']);
    expectError(await s.request('DELETE', `/streams/${uuid}`, { token: tokens.imager }), 403, 'object_locked');
    expectError(await s.request('PATCH', `/streams/${uuid}/relationships/object`, { token: tokens.imager, body: { data: null } }), 403, 'object_locked');
    expectError(await s.request('DELETE', `/streams/${uuid}`, { token: tokens.ed }), 403);
    assert.equal((await s.request('GET', `/streams/download/${uuid}`)).status, 200, 'the file is still there');
    // Legacy create and update (the folder is the publication: the first root folder).
    await s.request('POST', `/folders/${folder.id}/relationships/children`, { token: admin, body: { data: [{ type: 'documents', id: doc.id }] } });
    const legacy = (token: string, data: unknown) =>
      s.request('POST', '/objects', { token, body: { data }, headers: { Accept: 'application/json, text/javascript', 'Content-Type': 'application/json' } });
    assert.equal((await legacy(nobody, { object_type: 'document', title: 'legacy', parents: [Number(folder.id)] })).status, 403);
    assert.equal((await legacy(ed, { id: Number(doc.id), title: 'legacy edit' })).status, 403);
    assert.equal((await s.request('GET', `/documents/${doc.id}`, { token: admin })).body.data.attributes.title, 'Guarded');
  });

  test('object permissions: admins restrict to roles; 401 anonymous and application tokens, 403 others, left out of lists; inherited below folders', async () => {
    const folder = await make(admin, 'folders', { title: 'Staff area', status: 'on' });
    const sub = await s.request('POST', '/folders', { token: admin, body: { data: { type: 'folders', attributes: { title: 'Staff sub', status: 'on' }, relationships: { parent: { data: { type: 'folders', id: folder.id } } } } } });
    assert.equal(sub.status, 201, sub.text);
    const inner = await make(admin, 'documents', { title: 'Quokka staff memo', status: 'on' });
    const outside = await make(admin, 'documents', { title: 'Quokka public memo', status: 'on' });
    const alone = await make(admin, 'documents', { title: 'Quokka restricted alone', status: 'on' });
    await s.request('POST', `/folders/${sub.body.data.id}/relationships/children`, { token: admin, body: { data: [{ type: 'documents', id: inner.id }] } });
    const restrict = (type: string, id: string, roleNames: string[] | null, token = admin) =>
      s.request('PATCH', `/${type}/${id}`, { token, body: { data: { id, type, meta: { perms: roleNames === null ? null : { roles: roleNames } } } } });
    // Only admins, only known roles.
    expectError(await restrict('documents', alone.id, ['editors'], tokens.pub), 403);
    expectError(await restrict('documents', alone.id, ['no-such-role']), 400);
    const set = await restrict('documents', alone.id, ['editors']);
    assert.equal(set.status, 200, set.text);
    assert.deepEqual(set.body.data.meta.perms, { roles: ['editors'], inherited: false });
    assert.equal((await restrict('folders', folder.id, ['editors', 'publishers'])).status, 200);
    // Reading one object.
    const app = await s.request('POST', '/applications', { token: admin, body: body('applications', { name: 'site' }) });
    const appLogin = await s.request('POST', '/auth', { body: { grant_type: 'client_credentials', client_id: app.body.data.meta.api_key, client_secret: app.body.data.meta.client_secret } });
    const appToken = appLogin.body.meta.jwt;
    for (const id of [alone.id, inner.id]) {
      expectError(await s.request('GET', `/documents/${id}`), 401, 'restricted');
      expectError(await s.request('GET', `/objects/${id}`), 401, 'restricted');
      expectError(await s.request('GET', `/documents/${id}`, { token: appToken }), 401, 'restricted');
      expectError(await s.request('GET', `/documents/${id}`, { token: tokens.reader }), 403, 'restricted');
      expectError(await s.request('GET', `/documents/${id}`, { token: tokens.nobody }), 403, 'restricted');
      assert.equal((await s.request('GET', `/documents/${id}`, { token: tokens.ed })).status, 200);
      assert.equal((await s.request('GET', `/documents/${id}`, { token: admin })).status, 200);
    }
    const innerRead = await s.request('GET', `/documents/${inner.id}`, { token: tokens.ed });
    assert.deepEqual(innerRead.body.data.meta.perms, { roles: ['editors', 'publishers'], inherited: true });
    assert.deepEqual((await s.request('GET', `/folders/${sub.body.data.id}`, { token: admin })).body.data.meta.perms, { roles: ['editors', 'publishers'], inherited: true });
    assert.equal((await s.request('GET', `/documents/${outside.id}`)).body.data.meta.perms, undefined);
    // Lists, search, children, parents.
    for (const token of [undefined, appToken, tokens.reader, tokens.nobody]) {
      const found = ids(await s.request('GET', '/documents?q=quokka&sort=id', { token }));
      assert.deepEqual(found, [outside.id], `search as ${token ? 'a user' : 'anonymous'}`);
      assert.deepEqual(ids(await s.request('GET', '/objects?filter[title]=Quokka staff memo', { token })), []);
      assert.deepEqual(ids(await s.request('GET', `/folders?filter[roots]`, { token })).filter((i) => i === folder.id), []);
    }
    assert.deepEqual(ids(await s.request('GET', '/documents?q=quokka&sort=id', { token: tokens.ed })), [inner.id, outside.id, alone.id]);
    assert.deepEqual(ids(await s.request('GET', `/folders/${sub.body.data.id}/children`, { token: tokens.pub })), [inner.id]);
    expectError(await s.request('GET', `/folders/${sub.body.data.id}/children`, { token: tokens.reader }), 403);
    // A restricted object is still subject to role permissions: `editors` may not change the admin's memo.
    expectError(await s.request('PATCH', `/documents/${alone.id}`, { token: tokens.ed, body: { data: { id: alone.id, type: 'documents', attributes: { title: 'x' } } } }), 403);
    // Writes by users without the roles are refused too.
    expectError(await s.request('PATCH', `/documents/${inner.id}`, { token: tokens.reader, body: { data: { id: inner.id, type: 'documents', attributes: { title: 'x' } } } }), 403);
    // An empty list lifts it.
    assert.equal((await restrict('documents', alone.id, [])).status, 200);
    assert.equal((await s.request('GET', `/documents/${alone.id}`)).status, 200);
    assert.equal((await restrict('folders', folder.id, null)).status, 200);
    assert.equal((await s.request('GET', `/documents/${inner.id}`)).status, 200);
  });

  test('bytes anonymous clients may not read are Cache-Control: private: restricted (own or from a folder), draft, trashed, unlinked', async () => {
    const image = async (seed: number, status: string) => {
      const up = await s.request('POST', `/images/upload/cache-${seed}.png`, { token: admin, raw: await tinyPng(100 + seed), headers: { 'Content-Type': 'image/png' } });
      assert.equal(up.status, 201, up.text);
      const id = up.body.data.id as string;
      const patched = await s.request('PATCH', `/images/${id}`, { token: admin, body: { data: { id, type: 'images', attributes: { status } } } });
      assert.equal(patched.status, 200, patched.text);
      return { id, uuid: up.body.included[0].id as string };
    };
    /** Cache-Control of the download and of a thumbnail file, as `token` reads them. */
    const cacheOf = async (img: { id: string; uuid: string }, token: string) => {
      const download = await s.request('GET', `/streams/download/${img.uuid}`, { token });
      assert.equal(download.status, 200, download.text);
      const entries = await s.request('GET', `/media/thumbs/${img.id}?preset=small`, { token });
      assert.equal(entries.status, 200, entries.text);
      const thumb = await s.request('GET', new URL(entries.body.meta.thumbnails[0].url).pathname, { token });
      assert.equal(thumb.status, 200, thumb.text);
      return [download.headers.get('cache-control'), thumb.headers.get('cache-control')];
    };
    const isPrivate = (values: Array<string | null>, what: string) => {
      for (const v of values) {
        assert.match(v ?? '', /^(private|no-store)\b/, what);
        assert.doesNotMatch(v ?? '', /public|immutable/, what);
      }
    };

    const open = await image(1, 'on');
    assert.deepEqual(await cacheOf(open, admin), ['public, max-age=3600', 'public, max-age=31536000, immutable']);

    const restricted = await image(2, 'on');
    const perms = await s.request('PATCH', `/images/${restricted.id}`, { token: admin, body: { data: { id: restricted.id, type: 'images', meta: { perms: { roles: ['media_readers'] } } } } });
    assert.equal(perms.status, 200, perms.text);
    isPrivate(await cacheOf(restricted, admin), 'restricted, read by an admin');
    isPrivate(await cacheOf(restricted, tokens.both), 'restricted, read by a user of the role');

    const folder = await make(admin, 'folders', { title: 'Cache staff', status: 'on' });
    const below = await image(3, 'on');
    assert.equal((await s.request('POST', `/folders/${folder.id}/relationships/children`, { token: admin, body: { data: [{ type: 'images', id: below.id }] } })).status, 200);
    assert.equal((await s.request('PATCH', `/folders/${folder.id}`, { token: admin, body: { data: { id: folder.id, type: 'folders', meta: { perms: { roles: ['media_readers'] } } } } })).status, 200);
    isPrivate(await cacheOf(below, admin), 'restricted by its folder');

    isPrivate(await cacheOf(await image(4, 'draft'), admin), 'draft');

    const trashed = await image(5, 'on');
    assert.equal((await s.request('DELETE', `/images/${trashed.id}`, { token: admin })).status, 204);
    const trashedDownload = await s.request('GET', `/streams/download/${trashed.uuid}`, { token: admin });
    assert.equal(trashedDownload.status, 200, trashedDownload.text);
    isPrivate([trashedDownload.headers.get('cache-control')], 'trashed');

    const unlinked = await s.request('POST', '/streams/upload/loose.png', { token: admin, raw: await tinyPng(106), headers: { 'Content-Type': 'image/png' } });
    assert.equal(unlinked.status, 201, unlinked.text);
    const looseDownload = await s.request('GET', `/streams/download/${unlinked.body.data.id}`, { token: admin });
    assert.equal(looseDownload.status, 200, looseDownload.text);
    isPrivate([looseDownload.headers.get('cache-control')], 'linked to no object');

    // Lifting the restriction makes the bytes public again.
    assert.equal((await s.request('PATCH', `/images/${restricted.id}`, { token: admin, body: { data: { id: restricted.id, type: 'images', meta: { perms: null } } } })).status, 200);
    assert.deepEqual(await cacheOf(restricted, admin), ['public, max-age=3600', 'public, max-age=31536000, immutable']);
  });

  test('a page of restricted objects is filtered by one condition, not one tree walk per object', async () => {
    const folder = await make(admin, 'folders', { title: 'Big staff folder', status: 'on' });
    const children = [];
    for (let i = 0; i < 20; i++) children.push(await make(admin, 'documents', { title: `Wombat ${i}`, status: 'on' }));
    await s.request('POST', `/folders/${folder.id}/relationships/children`, { token: admin, body: { data: children.map((c) => ({ type: 'documents', id: c.id })) } });
    await s.request('PATCH', `/folders/${folder.id}`, { token: admin, body: { data: { id: folder.id, type: 'folders', meta: { perms: { roles: ['editors'] } } } } });
    // Count the statements a signed-in list runs.
    const raw = s.server.ctx.db;
    let statements = 0;
    const exec = raw.getExecutor();
    const original = exec.executeQuery.bind(exec);
    (exec as unknown as { executeQuery: typeof exec.executeQuery }).executeQuery = ((...args: Parameters<typeof original>) => {
      statements++;
      return original(...args);
    }) as typeof exec.executeQuery;
    try {
      const list = await s.request('GET', '/documents?filter[title]=Wombat 3', { token: tokens.reader });
      assert.deepEqual(ids(list), []);
      statements = 0;
      const mine = await s.request('GET', '/documents?q=wombat&page_size=20', { token: tokens.ed });
      assert.equal(mine.body.data.length, 20);
      assert.ok(mine.body.data.every((d: { meta: { perms?: unknown } }) => JSON.stringify(d.meta.perms) === JSON.stringify({ roles: ['editors'], inherited: true })));
      assert.ok(statements > 0 && statements < 20, `a page of 20 ran ${statements} statements`);
    } finally {
      (exec as unknown as { executeQuery: typeof exec.executeQuery }).executeQuery = original;
    }
  });

  test('/home lists only what the caller may use; the admin areas are not there for an editor', async () => {
    const home = await s.request('GET', '/home', { token: tokens.ed });
    const resources = home.body.meta.resources as Record<string, { hints: { allow: string[] } }>;
    for (const area of ['/users', '/roles', '/applications', '/backups', '/webhooks']) assert.equal(resources[area], undefined, area);
    // The trash is theirs too: what they may delete, they may take back.
    assert.ok(resources['/trash'], '/trash');
    assert.ok(resources['/documents'].hints.allow.includes('POST'));
    assert.ok(!resources['/events'].hints.allow.includes('POST'));
    const adminHome = await s.request('GET', '/home', { token: admin });
    for (const area of ['/users', '/roles', '/trash']) assert.ok(adminHome.body.meta.resources[area], area);
  });

  test('the response cache never answers a signed-in reader with an anonymous answer, nor the reverse', async () => {
    const draft = await make(admin, 'documents', { title: 'Cache probe draft' });
    const url = '/documents?filter[title]=Cache probe draft';
    assert.deepEqual(ids(await s.request('GET', url)), []);
    assert.deepEqual(ids(await s.request('GET', url)), []);
    assert.deepEqual(ids(await s.request('GET', url, { token: tokens.ed })), [draft.id]);
    assert.deepEqual(ids(await s.request('GET', url, { token: tokens.nobody })), []);
    assert.deepEqual(ids(await s.request('GET', url)), []);
  });

  test('a user with no role: what anonymous clients may, plus its own account', async () => {
    const me = await s.request('GET', `/users/${userIds.nobody}`, { token: tokens.nobody });
    assert.equal(me.status, 200);
    expectError(await s.request('GET', `/users/${userIds.ed}`, { token: tokens.nobody }), 403);
    expectError(await s.request('GET', '/users', { token: tokens.nobody }), 403);
    // Users are not readable through /objects either (but one's own).
    const listed = ids(await s.request('GET', '/objects?filter[type]=users&page_size=100', { token: tokens.ed }));
    assert.deepEqual(listed, [userIds.ed]);
    expectError(await s.request('GET', `/objects/${userIds.nobody}`, { token: tokens.ed }), 404);
  });
});
