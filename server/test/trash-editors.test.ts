// The trash for editors (CONTRACT.md, Model and objects: Trash): a signed-in user sees in GET
// /trash (and GET /trash/{id}) the trashed objects they may `delete` — their own ones with
// `delete:own` — and restores them with PATCH /trash/{id}; deleting for good stays admin-only;
// anonymous clients get 401. Restoring a published object needs `publish` too (it reappears for
// the public).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { expectError, startServer, type TestServer } from './helpers/server.js';
import { userWithPermissions } from './helpers/users.js';

describe('the trash for editors', () => {
  let s: TestServer;
  let admin: string;
  let editor: string;
  let other: string;
  let cleaner: string;
  const create = async (token: string, attributes: Record<string, unknown>) => {
    const r = await s.request('POST', '/documents', { token, body: { data: { type: 'documents', attributes } } });
    assert.equal(r.status, 201, r.text);
    return String(r.body.data.id);
  };
  const trashIds = async (token: string) => {
    const r = await s.request('GET', '/trash', { token });
    assert.equal(r.status, 200, r.text);
    return r.body.data.map((d: { id: string }) => d.id).sort();
  };

  before(async () => {
    s = await startServer();
    admin = await s.adminToken();
    editor = await userWithPermissions(s, admin, 'trash-editor', { documents: ['read', 'create', 'update', 'delete:own'] });
    other = await userWithPermissions(s, admin, 'trash-other', { documents: ['read', 'create', 'update', 'delete:own'] });
    cleaner = await userWithPermissions(s, admin, 'trash-cleaner', { documents: ['read', 'update', 'delete'] });
  });
  after(() => s.close());

  test('an editor sees and restores what they trashed, and nothing of others', async () => {
    const mine = await create(editor, { title: 'Mine' });
    const theirs = await create(other, { title: 'Theirs' });
    assert.equal((await s.request('DELETE', `/documents/${mine}`, { token: editor })).status, 204);
    assert.equal((await s.request('DELETE', `/documents/${theirs}`, { token: other })).status, 204);
    assert.deepEqual(await trashIds(editor), [mine]);
    assert.deepEqual(await trashIds(other), [theirs]);
    assert.deepEqual(await trashIds(admin), [mine, theirs].sort());
    assert.equal((await s.request('GET', `/trash/${mine}`, { token: editor })).status, 200);
    expectError(await s.request('GET', `/trash/${theirs}`, { token: editor }), 404);
    expectError(await s.request('PATCH', `/trash/${theirs}`, { token: editor, body: { data: { type: 'documents', id: theirs } } }), 404);
    expectError(await s.request('DELETE', `/trash/${mine}`, { token: editor }), 403);
    const restored = await s.request('PATCH', `/trash/${mine}`, { token: editor, body: { data: { type: 'documents', id: mine } } });
    assert.equal(restored.status, 204, restored.text);
    assert.equal((await s.request('GET', `/documents/${mine}`, { token: editor })).body.data.attributes.title, 'Mine');
    assert.deepEqual(await trashIds(editor), []);
    // Still in the trash, untouched by the refusals.
    assert.deepEqual(await trashIds(admin), [theirs]);
    expectError(await s.request('GET', '/trash'), 401);
  });

  test('restoring a published object needs publish; nothing changes when refused', async () => {
    const live = await create(admin, { title: 'Live', status: 'on' });
    assert.equal((await s.request('DELETE', `/documents/${live}`, { token: admin })).status, 204);
    assert.ok((await trashIds(cleaner)).includes(live));
    expectError(await s.request('PATCH', `/trash/${live}`, { token: cleaner, body: { data: { type: 'documents', id: live } } }), 403, 'publish_required');
    assert.ok((await trashIds(admin)).includes(live));
    expectError(await s.request('GET', `/documents/${live}`), 404);
  });
});
