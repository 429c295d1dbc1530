// BEdita 5 parity: the JSON API media type without parameters, the
// lists and filters BEdita clients ask for (/media, filter[roles], filter[resource_type],
// filter[mine], filter[history_editor], filter[<core field>]=null), /trees paths and
// /object_permissions. Through HTTP, on SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { tinyPng } from './helpers/fixtures.js';
import { rawGet } from './helpers/raw-http.js';
import { expectError, startServer, type TestResponse, type TestServer } from './helpers/server.js';
import { createUser } from './helpers/users.js';

describe('BEdita 5 lists, trees and object permissions', () => {
  let s: TestServer;
  let admin: string;
  let editor: string;
  let editorId: string;
  let editorsRole: string;

  const body = (type: string, attributes: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ data: { type, attributes, ...extra } });
  async function make(type: string, attributes: Record<string, unknown>, token = admin) {
    const r = await s.request('POST', `/${type}`, { token, body: body(type, attributes) });
    assert.equal(r.status, 201, r.text);
    return r.body.data as { id: string; attributes: Record<string, unknown> };
  }
  const ids = (r: TestResponse) => r.body.data.map((d: { id: string }) => d.id);

  before(async () => {
    s = await startServer();
    admin = await s.adminToken();
    const role = await s.request('POST', '/roles', { token: admin, body: body('roles', { name: 'editors', permissions: { '*': ['read', 'create', 'update', 'delete', 'publish'] } }) });
    editorsRole = role.body.data.id;
    const u = await s.request('POST', '/users', { token: admin, body: body('users', { username: 'eddie', password: 'password-1' }) });
    editorId = u.body.data.id;
    await s.request('POST', `/users/${editorId}/relationships/roles`, { token: admin, body: { data: [{ type: 'roles', id: editorsRole }] } });
    editor = (await s.login('eddie', 'password-1')).jwt;
  });
  after(() => s.close());

  /** A second signed-in user with the editors' rights. */
  async function otherUser() {
    return (await createUser(s, admin, { username: 'olga', roles: [editorsRole] })).jwt;
  }

  test('every JSON API answer is application/vnd.api+json with no parameter: documents, lists, errors, 405, cached, 304', async () => {
    const doc = await make('documents', { title: 'Typed', status: 'on' });
    const exact = 'application/vnd.api+json';
    for (const r of [
      await s.request('GET', `/documents/${doc.id}`),
      await s.request('GET', `/documents/${doc.id}`), // from the response cache
      await s.request('GET', '/documents'),
      await s.request('GET', '/documents/999999'),
      await s.request('PUT', '/documents'),
      await s.request('GET', '/documents?filter[nope]=1'),
      await s.request('POST', '/documents', { token: admin, body: body('documents', { title: 'x' }) }),
    ]) {
      assert.equal(r.headers.get('content-type'), exact, `${r.status} ${r.text.slice(0, 80)}`);
    }
    const raw = await rawGet(s, `/documents/${doc.id}`, {});
    assert.equal(raw.headers['content-type'], exact);
    const notModified = await rawGet(s, `/documents/${doc.id}`, { 'If-None-Match': raw.headers.etag });
    assert.equal(notModified.status, 304);
    assert.ok(!notModified.headers['content-type'] || notModified.headers['content-type'] === exact);
    // Legacy and schema answers keep their own types.
    const schema = await s.request('GET', '/model/schema/documents', { headers: { Accept: 'application/schema+json' } });
    assert.equal(schema.headers.get('content-type'), 'application/schema+json');
    assert.equal((await s.request('GET', '/model/schema/documents')).headers.get('content-type'), exact);
  });

  test('/media lists every media object of any media type; /media/{id} reads one; writes are not there', async () => {
    const image = await s.request('POST', '/images/upload/one.png', { token: admin, raw: await tinyPng(1), headers: { 'Content-Type': 'image/png' } });
    const file = await s.request('POST', '/files/upload/two.txt', { token: admin, raw: 'hello', headers: { 'Content-Type': 'text/plain' } });
    assert.equal(image.status, 201, image.text);
    assert.equal(file.status, 201, file.text);
    await make('documents', { title: 'Not media' });
    const list = await s.request('GET', '/media', { token: admin });
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(new Set(list.body.data.map((d: { type: string }) => d.type)), new Set(['images', 'files']));
    assert.deepEqual(new Set(ids(list)), new Set([image.body.data.id, file.body.data.id]));
    assert.deepEqual(ids(await s.request('GET', '/media?filter[type]=images', { token: admin })), [image.body.data.id]);
    const one = await s.request('GET', `/media/${file.body.data.id}`, { token: admin });
    assert.equal(one.status, 200);
    assert.equal(one.body.data.type, 'files');
    expectError(await s.request('GET', `/media/${(await make('documents', { title: 'doc' })).id}`, { token: admin }), 404);
    // Drafts stay hidden from anonymous clients, as everywhere.
    assert.deepEqual(ids(await s.request('GET', '/media')), []);
    expectError(await s.request('POST', '/media', { token: admin, body: body('media', { title: 'x' }) }), 405);
  });

  test('filter[roles] on /users (ids or names), filter[resource_type] on /history', async () => {
    const byName = await s.request('GET', '/users?filter[roles]=editors', { token: admin });
    assert.deepEqual(ids(byName), [editorId]);
    assert.deepEqual(ids(await s.request('GET', `/users?filter[roles]=${editorsRole}`, { token: admin })), [editorId]);
    assert.deepEqual(ids(await s.request('GET', '/users?filter[roles][]=admin&filter[roles][]=editors', { token: admin })).sort(), ['1', editorId].sort());
    assert.deepEqual(ids(await s.request('GET', '/users?filter[roles]=nobody', { token: admin })), []);
    const history = await s.request('GET', '/history?filter[resource_type]=objects', { token: admin });
    assert.equal(history.status, 200, history.text);
    assert.ok(history.body.data.length > 0);
    assert.deepEqual((await s.request('GET', '/history?filter[resource_type]=roles', { token: admin })).body.data, []);
  });

  test('filter[mine] and filter[history_editor] answer the reader\'s own objects; bad values 400', async () => {
    const mine = await make('documents', { title: 'By eddie', status: 'on' }, editor);
    const theirs = await make('documents', { title: 'By admin', status: 'on' });
    assert.deepEqual(ids(await s.request('GET', '/documents?filter[mine]', { token: editor })), [mine.id]);
    assert.deepEqual(ids(await s.request('GET', '/documents?filter[mine]=true', { token: editor })), [mine.id]);
    assert.ok(ids(await s.request('GET', '/documents?filter[mine]=false', { token: editor })).includes(theirs.id));
    assert.deepEqual(ids(await s.request('GET', '/documents?filter[mine]=1')), []);
    expectError(await s.request('GET', '/documents?filter[mine]=maybe', { token: editor }), 400);
    // The editor changes the admin's document: it is now in the editor's history.
    assert.equal((await s.request('PATCH', `/documents/${theirs.id}`, { token: editor, body: { data: { type: 'documents', id: theirs.id, attributes: { description: 'edited' } } } })).status, 200);
    assert.deepEqual(new Set(ids(await s.request('GET', '/documents?filter[history_editor]', { token: editor }))), new Set([mine.id, theirs.id]));
    assert.deepEqual(new Set(ids(await s.request('GET', `/documents?filter[history_editor]=${editorId}`, { token: admin }))), new Set([mine.id, theirs.id]));
    expectError(await s.request('GET', '/documents?filter[history_editor]=someone', { token: admin }), 400);
  });

  test('filter[<core field>]=null works for every core text field, body included', async () => {
    const empty = await make('documents', { title: 'No body', status: 'on' });
    const full = await make('documents', { title: 'Body', body: '<p>text</p>', description: 'd', status: 'on' });
    for (const field of ['body', 'description', 'lang', 'title', 'uname']) {
      const r = await s.request('GET', `/documents?filter[${field}]=null`, { token: admin });
      assert.equal(r.status, 200, `${field}: ${r.text}`);
    }
    const noBody = ids(await s.request('GET', '/documents?filter[body]=null', { token: admin }));
    assert.ok(noBody.includes(empty.id) && !noBody.includes(full.id));
  });

  test('/trees/{root}/{folder}/{object} answers the object at that path with meta.uname_path; any other path 404', async () => {
    const root = await make('folders', { title: 'Site', uname: 'site', status: 'on' });
    const sub = await s.request('POST', '/folders', { token: admin, body: body('folders', { title: 'News', uname: 'news', status: 'on' }, { relationships: { parent: { data: { type: 'folders', id: root.id } } } }) });
    assert.equal(sub.status, 201, sub.text);
    const doc = await make('documents', { title: 'Story', uname: 'story', status: 'on' });
    assert.equal((await s.request('POST', `/folders/${sub.body.data.id}/relationships/children`, { token: admin, body: { data: [{ type: 'documents', id: doc.id }] } })).status, 200);
    for (const path of ['/trees/site/news/story', `/trees/${root.id}/news/${doc.id}`]) {
      const r = await s.request('GET', path);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.data.id, doc.id);
      assert.equal(r.body.data.type, 'documents');
      assert.equal(r.body.data.meta.uname_path, '/site/news/story');
      assert.equal(r.body.data.meta.menu, true);
    }
    const folder = await s.request('GET', '/trees/site/news');
    assert.equal(folder.body.data.id, sub.body.data.id);
    assert.equal((await s.request('GET', '/trees/site')).body.data.meta.uname_path, '/site');
    for (const bad of ['/trees/news/story', '/trees/site/story', '/trees/site/news/nothing', '/trees/story', '/trees/site/news/story/more']) {
      expectError(await s.request('GET', bad), 404);
    }
    // A draft on the path is hidden from anonymous clients.
    const draft = await make('documents', { title: 'Draft', uname: 'draft-story' });
    await s.request('POST', `/folders/${sub.body.data.id}/relationships/children`, { token: admin, body: { data: [{ type: 'documents', id: draft.id }] } });
    expectError(await s.request('GET', '/trees/site/news/draft-story'), 404);
    assert.equal((await s.request('GET', '/trees/site/news/draft-story', { token: admin })).status, 200);
  });

  test('/object_permissions: the same restrictions as meta.perms, admins only, through the kernel (history, version)', async () => {
    const doc = await make('documents', { title: 'Restricted later', status: 'on' });
    expectError(await s.request('GET', '/object_permissions', { token: editor }), 403);
    expectError(await s.request('GET', '/object_permissions'), 401);
    const created = await s.request('POST', '/object_permissions', { token: admin, body: body('object_permissions', { object_id: Number(doc.id), role_id: Number(editorsRole) }) });
    assert.equal(created.status, 201, created.text);
    const id = created.body.data.id;
    assert.deepEqual(created.body.data.attributes, { object_id: Number(doc.id), role_id: Number(editorsRole) });
    assert.equal(created.headers.get('location')?.endsWith(`/object_permissions/${id}`), true);
    // It is the object's meta.perms: anonymous clients are locked out, editors pass.
    assert.deepEqual((await s.request('GET', `/documents/${doc.id}`, { token: admin })).body.data.meta.perms, { roles: ['editors'], inherited: false });
    expectError(await s.request('GET', `/documents/${doc.id}`), 401);
    assert.equal((await s.request('GET', `/documents/${doc.id}`, { token: editor })).status, 200);
    const listed = await s.request('GET', `/object_permissions?filter[object_id]=${doc.id}`, { token: admin });
    assert.deepEqual(ids(listed), [id]);
    assert.equal((await s.request('GET', `/object_permissions/${id}`, { token: admin })).body.data.attributes.role_id, Number(editorsRole));
    // Bad input: unknown object or role, duplicates, unknown attributes; nothing changes.
    expectError(await s.request('POST', '/object_permissions', { token: admin, body: body('object_permissions', { object_id: 999999, role_id: Number(editorsRole) }) }), 400);
    expectError(await s.request('POST', '/object_permissions', { token: admin, body: body('object_permissions', { object_id: Number(doc.id), role_id: 9999 }) }), 400);
    expectError(await s.request('POST', '/object_permissions', { token: admin, body: body('object_permissions', { object_id: Number(doc.id), role_id: Number(editorsRole) }) }), 409);
    expectError(await s.request('POST', '/object_permissions', { token: admin, body: body('object_permissions', { object_id: Number(doc.id), role_id: Number(editorsRole), extra: 1 }) }), 400);
    expectError(await s.request('GET', '/object_permissions/nonsense', { token: admin }), 404);
    const history = await s.request('GET', `/documents/${doc.id}/history`, { token: admin });
    assert.deepEqual(history.body.data.at(-1).attributes.changed, { perms: { roles: ['editors'] } });
    const tag = (await s.request('GET', `/documents/${doc.id}`, { token: admin })).headers.get('etag');
    assert.match(tag ?? '', /^"v2-/);
    assert.equal((await s.request('DELETE', `/object_permissions/${id}`, { token: admin })).status, 204);
    assert.equal((await s.request('GET', `/documents/${doc.id}`)).status, 200);
    assert.deepEqual((await s.request('GET', `/object_permissions?filter[object_id]=${doc.id}`, { token: admin })).body.data, []);
  });

  test('POST /streams/clone/{uuid}: a new unlinked stream of the caller with the same bytes; unknown or hidden 404', async () => {
    const up = await s.request('POST', '/streams/upload/orig.png', { token: editor, raw: await tinyPng(3), headers: { 'Content-Type': 'image/png' } });
    assert.equal(up.status, 201, up.text);
    const clone = await s.request('POST', `/streams/clone/${up.body.data.id}`, { token: editor });
    assert.equal(clone.status, 201, clone.text);
    assert.notEqual(clone.body.data.id, up.body.data.id);
    assert.equal(clone.headers.get('location'), clone.body.data.links.self);
    assert.equal(clone.body.data.attributes.file_name, 'orig.png');
    assert.equal(clone.body.data.meta.hash_sha1, up.body.data.meta.hash_sha1);
    assert.equal(clone.body.data.relationships.object.data, null);
    const [a, b] = await Promise.all([up, clone].map((r) => fetch(r.body.data.meta.url, { headers: { Authorization: `Bearer ${editor}` } }).then((x) => x.arrayBuffer())));
    assert.deepEqual(Buffer.from(b), Buffer.from(a));
    // Another user's unlinked stream is not theirs to read, nor to clone.
    expectError(await s.request('POST', `/streams/clone/${up.body.data.id}`, { token: await otherUser() }), 404);
    expectError(await s.request('POST', '/streams/clone/00000000-0000-4000-8000-000000000000', { token: editor }), 404);
    expectError(await s.request('POST', `/streams/clone/${up.body.data.id}`), 401);
  });

  test('uploads with private_url=true: bytes and thumbnails need a signed-in reader (401 anonymous), never publicly cached', async () => {
    const media = await s.request('POST', '/images/upload/secret.png?private_url=true', { token: admin, raw: await tinyPng(4), headers: { 'Content-Type': 'image/png' } });
    assert.equal(media.status, 201, media.text);
    const imageId = media.body.data.id;
    const stream = media.body.included.find((r: { type: string }) => r.type === 'streams');
    assert.equal(stream.attributes.private_url, true);
    assert.equal((await s.request('PATCH', `/images/${imageId}`, { token: admin, body: { data: { type: 'images', id: imageId, attributes: { status: 'on' } } } })).status, 200);
    // The object is public; its bytes are not.
    assert.equal((await s.request('GET', `/images/${imageId}`)).status, 200);
    const anonymous = await fetch(`${s.url}/streams/download/${stream.id}`);
    assert.equal(anonymous.status, 401);
    assert.equal((await anonymous.json()).error.code, 'private_stream');
    const signed = await fetch(`${s.url}/streams/download/${stream.id}`, { headers: { Authorization: `Bearer ${editor}` } });
    assert.equal(signed.status, 200);
    assert.match(signed.headers.get('cache-control') ?? '', /private|no-store/);
    const thumbs = await s.request('GET', `/media/thumbs/${imageId}`);
    assert.equal(thumbs.status, 200, thumbs.text);
    assert.equal(thumbs.body.meta.thumbnails[0].uuid, null);
    const signedThumbs = await s.request('GET', `/media/thumbs/${imageId}`, { token: editor });
    assert.equal(signedThumbs.body.meta.thumbnails[0].uuid, stream.id);
    // A public upload stays public; a bad value is refused before the body is stored.
    const open = await s.request('POST', '/streams/upload/open.png?private_url=false', { token: admin, raw: await tinyPng(5), headers: { 'Content-Type': 'image/png' } });
    assert.equal(open.body.data.attributes.private_url, false);
    expectError(await s.request('POST', '/streams/upload/bad.png?private_url=maybe', { token: admin, raw: await tinyPng(6), headers: { 'Content-Type': 'image/png' } }), 400);
  });
});
