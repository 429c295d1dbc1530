// The write kernel (issue 28; CONTRACT.md Permissions "One rule on every entry point", Concurrent
// edits): every entry point answers as a plain read of an object the caller may not read (404
// exactly like a missing id, nothing of the object in the body), rights are checked on every part
// of a write, history shows only related ids the reader may read, and edits conflict through the
// object's version (strong ETag, If-Match → 412). Through HTTP, on SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { tinyPng } from './helpers/fixtures.js';
import { KERNEL_MODULES } from '../src/db/owners.js';
import { expectError, startServer, type TestResponse, type TestServer } from './helpers/server.js';
import { userWithPermissions } from './helpers/users.js';

const LEGACY = { Accept: 'application/json, text/javascript', 'Content-Type': 'application/json' };

describe('write kernel', () => {
  let s: TestServer;
  let admin: string;
  const tokens: Record<string, string> = {};

  const body = (type: string, attributes: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ data: { type, attributes, ...extra } });
  async function makeUser(username: string, permissions: unknown) {
    tokens[username] = await userWithPermissions(s, admin, username, permissions);
  }
  async function make(type: string, attributes: Record<string, unknown>, token = admin) {
    const r = await s.request('POST', `/${type}`, { token, body: body(type, attributes) });
    assert.equal(r.status, 201, r.text);
    return String(r.body.data.id);
  }
  const get = (p: string, token = admin) => s.request('GET', p, { token });
  /** A 404 exactly as for an id that does not exist, and nothing of the hidden object in it. */
  function asMissing(res: TestResponse, missing: TestResponse, secret: string) {
    assert.equal(res.status, 404, res.text);
    assert.equal(missing.status, 404, missing.text);
    assert.equal(res.body.error.code, missing.body.error.code);
    assert.ok(!res.text.includes(secret), `the answer leaks the hidden object: ${res.text}`);
  }

  before(async () => {
    s = await startServer();
    admin = await s.adminToken();
    // `publish` too: changing a published object needs it.
    await makeUser('updater', { documents: ['update', 'publish'] });
    await makeUser('deleter', { documents: ['delete'] });
    await makeUser('reader', { '*': ['read'] });
    await makeUser('writer', { documents: ['create', 'update', 'read:own'], folders: ['create', 'update', 'read:own'], images: ['create', 'update', 'read:own'], '*': [] });
  });
  after(() => s.close());

  test('/operations: an update or remove of a draft the caller may not read answers 404 as a missing id, changes nothing', async () => {
    const draft = await make('documents', { title: 'Hidden draft', body: '<p>secret body</p>' });
    const op = (token: string, operation: Record<string, unknown>) => s.request('POST', '/operations', { token, body: { 'atomic:operations': [operation] } });
    const update = (id: string) => ({ op: 'update', data: { type: 'documents', id, attributes: { title: 'Overwritten' } } });
    const remove = (id: string) => ({ op: 'remove', ref: { type: 'documents', id } });
    asMissing(await op(tokens.updater, update(draft)), await op(tokens.updater, update('999999')), 'secret body');
    asMissing(await op(tokens.deleter, remove(draft)), await op(tokens.deleter, remove('999999')), 'secret body');
    // The type endpoints answer the same.
    asMissing(await s.request('PATCH', `/documents/${draft}`, { token: tokens.updater, body: { data: { type: 'documents', id: draft, attributes: { title: 'x' } } } }), await s.request('PATCH', '/documents/999999', { token: tokens.updater, body: { data: { type: 'documents', id: '999999', attributes: { title: 'x' } } } }), 'secret');
    asMissing(await s.request('DELETE', `/objects/${draft}`, { token: tokens.deleter }), await s.request('DELETE', '/objects/999999', { token: tokens.deleter }), 'secret');
    const still = await get(`/documents/${draft}`);
    assert.equal(still.body.data.attributes.title, 'Hidden draft');
    assert.equal(still.body.data.meta.locked, false);
    // A published one the updater may see (anonymous rule) is updated, and answered.
    const open = await make('documents', { title: 'Open', status: 'on' });
    const ok = await op(tokens.updater, update(open));
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body['atomic:results'][0].data.attributes.title, 'Overwritten');
  });

  test('legacy POST /objects: a reader without update cannot change terms, parents or relations of an object (403), nothing changes', async () => {
    const root = await make('folders', { title: 'Publication', status: 'on' });
    const headers = LEGACY;
    const created = await s.request('POST', '/objects', { token: admin, headers, body: { data: { object_type: 'document', title: 'Tagged', status: 'on', parents: [Number(root)], tags: ['kept'] } } });
    assert.equal(created.status, 201, created.text);
    const id = created.body.data.object.id;
    for (const data of [{ id, tags: ['x'] }, { id, categories: ['news'] }, { id, relations: { see_also: [{ related_id: Number(root) }] } }, { id, parents: [Number(root)] }]) {
      const res = await s.request('POST', '/objects', { token: tokens.reader, headers, body: { data } });
      assert.equal(res.status, 403, `${JSON.stringify(data)}: ${res.text}`);
    }
    const after = await get(`/documents/${id}`);
    assert.deepEqual(after.body.data.meta.tags.map((t: { name: string }) => t.name), ['kept']);
    assert.deepEqual(after.body.data.meta.categories, []);
    const history = await get(`/documents/${id}/history`);
    assert.deepEqual(history.body.data.map((e: { attributes: { user_action: string } }) => e.attributes.user_action), ['create']);
  });

  test('filing, relating and linking to an object the caller may not read answer 404 exactly as a missing id', async () => {
    const hiddenDoc = await make('documents', { title: 'Admin draft', body: '<p>draft text</p>' });
    const folder = await make('folders', { title: 'Writer folder' }, tokens.writer);
    const own = await make('documents', { title: 'Writer doc' }, tokens.writer);
    const children = (id: string) => s.request('POST', `/folders/${folder}/relationships/children`, { token: tokens.writer, body: { data: [{ type: 'documents', id }] } });
    asMissing(await children(hiddenDoc), await children('999999'), 'Admin draft');
    const relate = (id: string) => s.request('POST', `/documents/${own}/relationships/see_also`, { token: tokens.writer, body: { data: [{ type: 'documents', id }] } });
    asMissing(await relate(hiddenDoc), await relate('999999'), 'Admin draft');
    const parents = (id: string) => s.request('POST', `/documents/${own}/relationships/parents`, { token: tokens.writer, body: { data: [{ type: 'folders', id }] } });
    const hiddenFolder = await make('folders', { title: 'Admin folder' });
    asMissing(await parents(hiddenFolder), await parents('999999'), 'Admin folder');
    // The writer's own stream linked to an image it may not read: 404, never the image's stream uuid.
    const image = await s.request('POST', '/images/upload/hidden.png', { token: admin, raw: await tinyPng(7), headers: { 'Content-Type': 'image/png' } });
    assert.equal(image.status, 201, image.text);
    const imageStream = image.body.data.relationships.streams.data[0].id;
    const mine = await s.request('POST', '/streams/upload/mine.png', { token: tokens.writer, raw: await tinyPng(8), headers: { 'Content-Type': 'image/png' } });
    assert.equal(mine.status, 201, mine.text);
    const link = (id: string) => s.request('PATCH', `/streams/${mine.body.data.id}/relationships/object`, { token: tokens.writer, body: { data: { type: 'images', id } } });
    asMissing(await link(image.body.data.id), await link('999999'), imageStream);
    // Nothing moved: no placement, no relation, the image keeps its one stream.
    assert.deepEqual((await get(`/folders/${folder}/children`)).body.data, []);
    assert.deepEqual((await get(`/documents/${own}/see_also`)).body.data, []);
    assert.deepEqual((await get(`/images/${image.body.data.id}`)).body.data.relationships.streams.data.map((d: { id: string }) => d.id), [imageStream]);
  });

  test("an object's history shows only the related ids its reader may read", async () => {
    const published = await make('documents', { title: 'Published neighbour', status: 'on' });
    const draft = await make('documents', { title: 'Draft neighbour' });
    const doc = await make('documents', { title: 'Open doc', status: 'on' });
    const rel = await s.request('POST', `/documents/${doc}/relationships/see_also`, { token: admin, body: { data: [{ type: 'documents', id: published }, { type: 'documents', id: draft }] } });
    assert.equal(rel.status, 200, rel.text);
    const relationEntries = (r: TestResponse) => r.body.data.filter((e: { attributes: { changed: Record<string, unknown> } }) => 'see_also' in e.attributes.changed);
    const [asAdmin] = relationEntries(await get(`/documents/${doc}/history`));
    assert.deepEqual(new Set(asAdmin.attributes.changed.see_also), new Set([published, draft]));
    // A user without read on documents sees published ones only, in history as in relations.
    const [asUpdater] = relationEntries(await get(`/documents/${doc}/history`, tokens.updater));
    assert.deepEqual(asUpdater.attributes.changed.see_also, [published]);
  });

  test('strong ETag from the version: PATCH and DELETE with a stale If-Match answer 412 and change nothing; the current one or * pass', async () => {
    const id = await make('documents', { title: 'Versioned' });
    const first = await get(`/documents/${id}`);
    const etag = first.headers.get('etag')!;
    assert.match(etag, /^"v1-[A-Za-z0-9_-]+"$/, 'a strong ETag carrying the version');
    const patch = (title: string, ifMatch?: string) =>
      s.request('PATCH', `/documents/${id}`, { token: admin, headers: ifMatch ? { 'If-Match': ifMatch } : {}, body: { data: { type: 'documents', id, attributes: { title } } } });
    const saved = await patch('Second', etag);
    assert.equal(saved.status, 200, saved.text);
    const second = saved.headers.get('etag')!;
    assert.match(second, /^"v2-/);
    // Someone else's edit came first: the stale tag is refused, nothing changes, no history entry.
    expectError(await patch('Lost update', etag), 412, 'precondition_failed');
    expectError(await s.request('DELETE', `/documents/${id}`, { token: admin, headers: { 'If-Match': etag } }), 412, 'precondition_failed');
    expectError(await s.request('DELETE', `/objects/${id}`, { token: admin, headers: { 'If-Match': 'W/"v2-x"' } }), 412, 'precondition_failed');
    const now = await get(`/documents/${id}`);
    assert.equal(now.body.data.attributes.title, 'Second');
    assert.equal((await get(`/documents/${id}/history`)).body.data.length, 2);
    // The same representation keeps its tag; If-None-Match still gives 304 elsewhere (raw HTTP tests).
    assert.equal(now.headers.get('etag'), second);
    assert.equal((await patch('Any', '*')).status, 200);
    const unconditional = await patch('Unconditional');
    assert.equal(unconditional.status, 200);
    // Each write that changes something moves the version by one; one that changes nothing keeps it.
    const versionOf = (res: { headers: Headers }) => Number(/^"v(\d+)-/.exec(res.headers.get('etag') ?? '')?.[1]);
    assert.equal(versionOf(unconditional), 4);
    assert.equal(versionOf(await patch('Unconditional')), 4, 'the same title again changes nothing');
    assert.equal(versionOf(await get(`/documents/${id}`)), 4);
    // A relationship write moves the version: the tag read before it is stale.
    const before = (await get(`/documents/${id}`)).headers.get('etag')!;
    const other = await make('documents', { title: 'Related' });
    assert.equal((await s.request('POST', `/documents/${id}/relationships/see_also`, { token: admin, body: { data: [{ type: 'documents', id: other }] } })).status, 200);
    const moved = (await get(`/documents/${id}`)).headers.get('etag')!;
    assert.notEqual(moved, before);
    expectError(await patch('Stale again', before), 412, 'precondition_failed');
    // The current tag passes, on DELETE too.
    assert.equal((await s.request('DELETE', `/objects/${id}`, { token: admin, headers: { 'If-Match': moved } })).status, 204);
  });

  test('If-Match on folders and users: 412 with a stale version', async () => {
    const folder = await make('folders', { title: 'F' });
    const tag = (await get(`/folders/${folder}`)).headers.get('etag')!;
    assert.match(tag, /^"v1-/);
    assert.equal((await s.request('PATCH', `/folders/${folder}`, { token: admin, headers: { 'If-Match': tag }, body: { data: { type: 'folders', id: folder, attributes: { title: 'G' } } } })).status, 200);
    expectError(await s.request('PATCH', `/folders/${folder}`, { token: admin, headers: { 'If-Match': tag }, body: { data: { type: 'folders', id: folder, attributes: { title: 'H' } } } }), 412, 'precondition_failed');
    const user = await s.request('POST', '/users', { token: admin, body: body('users', { username: 'versioned-user', password: 'password-1' }) });
    const uid = user.body.data.id;
    const patchUser = (ifMatch: string) => s.request('PATCH', `/users/${uid}`, { token: admin, headers: { 'If-Match': ifMatch }, body: { data: { type: 'users', id: uid, attributes: { name: 'N' } } } });
    expectError(await patchUser('"v99"'), 412, 'precondition_failed');
    assert.equal((await patchUser('"v1"')).status, 200);
  });

  test('the kernel\'s write steps are reached only through apply()', () => {
    // Who writes the objects tables is checked from the table owners' registry
    // (structure-owners.test.ts); here, that no other module calls the kernel's steps directly.
    const src = path.join(import.meta.dirname, '..', 'src');
    const kernel = new Set(KERNEL_MODULES.map((f) => path.join(...f.split('/'))));
    const internals = ['write.js', 'trash.js', 'relation-writes.js'];
    const importers: string[] = [];
    for (const entry of fs.readdirSync(src, { recursive: true })) {
      const file = String(entry);
      if (!file.endsWith('.ts') || kernel.has(file)) continue;
      const text = fs.readFileSync(path.join(src, file), 'utf8');
      for (const m of text.matchAll(/import\s+(type\s+)?\{([^}]*)\}\s+from\s+'([^']+)'/g)) {
        const target = path.basename(m[3]);
        if (!internals.includes(target) || m[1]) continue;
        // Types and pure helpers are fine; the write steps are not.
        const names = m[2].split(',').map((n) => n.trim().replace(/^type\s+/, '')).filter(Boolean);
        const steps = names.filter((n) => /^(createRow|updateRow|trashRows|restoreRows|purgeRows|relateObjects|setLink)$/.test(n));
        if (steps.length) importers.push(`${file}: ${steps.join(', ')}`);
      }
    }
    assert.deepEqual(importers, []);
  });
});
