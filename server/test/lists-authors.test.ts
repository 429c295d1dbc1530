// Lists that answer "whose?" (issue 46): `author_names=1` on a read of objects adds each object's
// `meta.created_by_name` and `meta.modified_by_name` (usernames) for a signed-in reader, editors
// included (who may not read /users); anonymous readers and reads without it get the ids alone.
// The "mine" filters the admin's lists use (filter[created_by], filter[modified_by]) and the
// folder filter (filter[parent]) answer as the lists expect.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startServer, type TestServer } from './helpers/server.js';
import { userWithPermissions } from './helpers/users.js';

describe('lists that name authors', () => {
  let s: TestServer;
  let admin: string;
  let editor: string;
  let editorId: string;
  let adminId: string;
  let doc: string;

  before(async () => {
    s = await startServer();
    admin = await s.adminToken();
    editor = await userWithPermissions(s, admin, 'author-editor', { documents: ['read', 'create', 'update'] });
    editorId = String((await s.request('GET', '/auth/user', { token: editor })).body.data.id);
    adminId = String((await s.request('GET', '/auth/user', { token: admin })).body.data.id);
    const created = await s.request('POST', '/documents', { token: editor, body: { data: { type: 'documents', attributes: { title: 'Written by the editor' } } } });
    assert.equal(created.status, 201, created.text);
    doc = String(created.body.data.id);
    const changed = await s.request('PATCH', `/documents/${doc}`, { token: admin, body: { data: { type: 'documents', id: doc, attributes: { description: 'Checked by the admin', status: 'on' } } } });
    assert.equal(changed.status, 200, changed.text);
  });
  after(() => s.close());

  test('an editor reads the names of who created and who last changed each object of a list', async () => {
    const r = await s.request('GET', `/documents?author_names=1&filter[id]=${doc}`, { token: editor });
    assert.equal(r.status, 200, r.text);
    const { created_by, modified_by, created_by_name, modified_by_name } = r.body.data[0].meta;
    assert.deepEqual({ created_by, modified_by, created_by_name, modified_by_name }, { created_by: Number(editorId), modified_by: Number(adminId), created_by_name: 'author-editor', modified_by_name: 'admin' });
    const one = await s.request('GET', `/objects/${doc}?author_names=1`, { token: editor });
    assert.equal(one.status, 200, one.text);
    assert.equal(one.body.data.meta.created_by_name, 'author-editor', 'a single read names the author too');
  });

  test('without author_names, or for an anonymous reader, only the ids are given', async () => {
    const plain = await s.request('GET', `/documents?filter[id]=${doc}`, { token: editor });
    assert.equal(plain.status, 200, plain.text);
    assert.ok(!('created_by_name' in plain.body.data[0].meta), 'no names unless asked');
    const anonymous = await s.request('GET', `/documents?author_names=1&filter[id]=${doc}`);
    assert.equal(anonymous.status, 200, anonymous.text);
    assert.equal(anonymous.body.data.length, 1, 'the published document is public');
    assert.ok(!('created_by_name' in anonymous.body.data[0].meta), 'an anonymous reader gets no names');
  });

  test('the "mine" filters and the folder filter the lists use', async () => {
    const ids = async (query: string) => {
      const r = await s.request('GET', `/documents?${query}`, { token: editor });
      assert.equal(r.status, 200, r.text);
      return r.body.data.map((d: { id: string }) => d.id);
    };
    assert.deepEqual(await ids(`filter[created_by]=${editorId}`), [doc]);
    assert.deepEqual(await ids(`filter[modified_by]=${editorId}`), []);
    const folder = await s.request('POST', '/folders', { token: admin, body: { data: { type: 'folders', attributes: { title: 'Harbour' } } } });
    assert.equal(folder.status, 201, folder.text);
    const put = await s.request('POST', `/folders/${folder.body.data.id}/relationships/children`, { token: admin, body: { data: [{ type: 'documents', id: doc }] } });
    assert.ok(put.status < 300, put.text);
    assert.deepEqual(await ids(`filter[parent]=${folder.body.data.id}`), [doc]);
  });
});
