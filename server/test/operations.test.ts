// JSON:API atomic operations at POST /operations: many writes in one request and one
// transaction. Each operation behaves like its own endpoint; the first failure rolls back all.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { connectOutside, type OutsideConnection } from './helpers/outside.js';
import { expectError, startServer, type TestServer } from './helpers/server.js';
import { onPostgres } from './helpers/test-database.js';

const ATOMIC = 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"';
const add = (attributes: Record<string, unknown>, lid?: string) => ({ op: 'add', data: { type: 'documents', ...(lid ? { lid } : {}), attributes } });

describe('atomic operations (POST /operations)', () => {
  let t: TestServer;
  let token: string;
  let db: OutsideConnection;
  const ops = (operations: unknown[], headers: Record<string, string> = { 'Content-Type': ATOMIC, Accept: ATOMIC }) =>
    t.request('POST', '/operations', { token, headers, body: { 'atomic:operations': operations } });
  const count = async (table: string) => Number((await db.all<{ n: number }>(`select count(*) as n from ${table}`))[0].n);
  const countObjects = () => count('objects');
  const countRelations = () => count('object_relations');

  before(async () => {
    t = await startServer();
    token = await t.adminToken();
    db = await connectOutside(t, { readonly: true });
  });
  after(async () => {
    await db.close();
    await t.close();
  });

  test('adds, updates, relates and removes in one request; results in order, objects as stored', async () => {
    const target = await t.request('POST', '/documents', { token, body: { data: { type: 'documents', attributes: { title: 'Existing' } } } });
    const existingId = target.body.data.id;
    const res = await ops([
      add({ title: 'Atomic one', status: 'on', body: '<p>zebrafish</p>' }, 'one'),
      add({ title: 'Atomic two' }, 'two'),
      { op: 'update', data: { type: 'documents', lid: 'two', attributes: { description: 'set by lid' } } },
      { op: 'update', data: { type: 'documents', id: existingId, attributes: { title: 'Existing, renamed' } } },
      { op: 'add', ref: { type: 'documents', lid: 'one', relationship: 'see_also' }, data: [{ type: 'documents', lid: 'two' }, { type: 'documents', id: existingId }] },
      { op: 'remove', ref: { type: 'documents', id: existingId } },
    ]);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers.get('content-type')?.split(';').slice(0, 2).join(';'), 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"');
    const results = res.body['atomic:results'];
    assert.equal(results.length, 6);
    const [one, two, updated, renamed, related, removed] = results;
    assert.equal(one.data.type, 'documents');
    assert.equal(one.data.attributes.title, 'Atomic one');
    assert.equal(one.data.attributes.uname, 'atomic-one');
    assert.equal(two.data.attributes.description, 'set by lid', 'an add answers with the object as the request left it');
    assert.equal(updated.data.id, two.data.id);
    assert.equal(renamed.data.attributes.title, 'Existing, renamed');
    assert.deepEqual(related.data.map((d: { id: string }) => d.id).sort(), [two.data.id, existingId].sort());
    assert.deepEqual(removed, {});

    // All of it is in the database, through the ordinary endpoints.
    const fetched = await t.request('GET', `/documents/${one.data.id}/see_also`, { token });
    assert.deepEqual(fetched.body.data.map((d: { id: string }) => d.id).sort(), [two.data.id].sort(), 'the trashed object is no longer listed');
    expectError(await t.request('GET', `/documents/${existingId}`, { token }), 404);
    const search = await t.request('GET', '/objects?filter[query]=zebrafish');
    assert.deepEqual(search.body.data.map((d: { id: string }) => d.id), [one.data.id], 'indexed for search in the same commit');
  });

  test('the first failing operation rolls back every other one and says which it was', async () => {
    const objects = await countObjects();
    const relations = await countRelations();
    const res = await ops([add({ title: 'Rolled back 1' }, 'a'), add({ title: 'Rolled back 2' }), add({ title: 'Bad', nonsense: 1 })], { 'Content-Type': ATOMIC, Accept: ATOMIC, Prefer: 'handling=strict' });
    const err = expectError(res, 400, 'unknown_attribute');
    assert.equal(err.source.pointer, '/atomic:operations/2/data');
    assert.equal(err.meta.operation, 2);
    assert.match(err.detail, /^Operation 2: /);
    assert.equal(await countObjects(), objects, 'nothing of the request was kept');
    assert.equal(await countRelations(), relations);

    const missing = await ops([add({ title: 'Also rolled back' }), { op: 'remove', ref: { type: 'documents', id: '999999' } }]);
    expectError(missing, 404);
    assert.equal(await countObjects(), objects);
  });

  test('"href" may name the target instead of "ref", as a path or a full URL', async () => {
    const res = await ops([
      { op: 'add', href: '/documents', data: { type: 'documents', lid: 'h', attributes: { title: 'By href' } } },
      { op: 'add', href: `${t.url}/documents`, data: { type: 'documents', attributes: { title: 'By full href' } } },
    ]);
    assert.equal(res.status, 200, res.text);
    const [first, second] = res.body['atomic:results'].map((r: { data: { id: string } }) => r.data.id);
    const more = await ops([
      { op: 'update', href: `/documents/${first}`, data: { type: 'documents', id: first, attributes: { description: 'updated by href' } } },
      { op: 'add', href: `/documents/${first}/relationships/see_also`, data: [{ type: 'documents', id: second }] },
      { op: 'remove', href: `${t.url}/documents/${second}` },
    ]);
    assert.equal(more.status, 200, more.text);
    assert.equal(more.body['atomic:results'][0].data.attributes.description, 'updated by href');
    assert.deepEqual(more.body['atomic:results'][1].data.map((d: { id: string }) => d.id), [second]);
    expectError(await t.request('GET', `/documents/${second}`, { token }), 404);

    const objects = await countObjects();
    expectError(await ops([{ op: 'add', href: '/news', data: { type: 'documents', attributes: { title: 'x' } } }]), 409, 'type_mismatch');
    expectError(await ops([{ op: 'remove', href: '/documents' }]), 409, 'type_mismatch');
    const both = expectError(await ops([{ op: 'remove', href: `/documents/${first}`, ref: { type: 'documents', id: first } }]), 400, 'invalid_op');
    assert.equal(both.source.pointer, '/atomic:operations/0/href');
    expectError(await ops([{ op: 'remove', href: '/documents/1/2/3/4/5' }]), 400, 'invalid_href');
    expectError(await ops([{ op: 'remove', href: '/documents/%E0%A4%A' }]), 400, 'invalid_href');
    expectError(await ops([{ op: 'remove', href: 42 }]), 400, 'invalid_href');
    assert.equal(await countObjects(), objects);
  });

  test('plain JSON API content types are accepted too, and a big batch lands whole', async () => {
    const before = await countObjects();
    const batch = Array.from({ length: 200 }, (_, i) => add({ title: `Bulk ${i}`, body: `<p>${'text '.repeat(200)}</p>` }));
    const res = await ops(batch, { 'Content-Type': 'application/vnd.api+json', Accept: 'application/vnd.api+json' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body['atomic:results'].length, 200);
    assert.equal(new Set(res.body['atomic:results'].map((r: { data: { id: string } }) => r.data.id)).size, 200);
    assert.equal(await countObjects(), before + 200);
  });

  test('creates written together keep every rule of a single create: unique names, meta, lids, history, errors naming their operation', async () => {
    const taken = await t.request('POST', '/documents', { token, body: { data: { type: 'documents', attributes: { title: 'Taken', uname: 'taken-name' } } } });
    assert.equal(taken.status, 201, taken.text);
    const res = await ops([
      add({ title: 'Namesake' }, 'n1'),
      add({ title: 'Namesake' }, 'n2'),
      add({ title: 'Namesake', status: 'on' }),
      add({ title: 'Wants a taken name', uname: 'taken-name' }),
      { op: 'add', data: { type: 'documents', attributes: { title: 'Restricted' }, meta: { perms: { roles: ['admin'] } } } },
      // Not one to stage (meta.locked): the staged ones are written before it.
      { op: 'add', data: { type: 'documents', lid: 'locked', attributes: { title: 'Locked one' }, meta: { locked: true } } },
      { op: 'add', ref: { type: 'documents', lid: 'n1', relationship: 'see_also' }, data: [{ type: 'documents', lid: 'n2' }, { type: 'documents', lid: 'locked' }] },
      add({ title: 'Namesake' }),
    ]);
    assert.equal(res.status, 200, res.text);
    const [n1, n2, n3, renamed, restricted, locked, related, n4] = res.body['atomic:results'];
    assert.deepEqual([n1, n2, n3, n4].map((r) => r.data.attributes.uname), ['namesake', 'namesake-2', 'namesake-3', 'namesake-4']);
    assert.equal(n3.data.attributes.status, 'on');
    assert.ok(n3.data.meta.published, 'published when created on');
    assert.equal(renamed.data.attributes.uname, 'taken-name-2', 'a taken name gets the next free one, as a single create would');
    assert.deepEqual(restricted.data.meta.perms.roles, ['admin']);
    assert.equal(locked.data.meta.locked, true);
    assert.deepEqual(related.data.map((d: { id: string }) => d.id).sort(), [n2.data.id, locked.data.id].sort());
    const ids = res.body['atomic:results'].filter((r: { data?: { id?: string } }) => r.data?.id).map((r: { data: { id: string } }) => Number(r.data.id));
    assert.equal(new Set(ids).size, 7);
    // Each create is recorded once, by its object.
    for (const r of [n1, n2, n3, n4, renamed, restricted, locked]) {
      const rows = await db.all<{ n: number }>(`select count(*) as n from history where resource_id = ${Number(r.data.id)} and user_action = 'create'`);
      assert.equal(Number(rows[0].n), 1, `history of ${r.data.attributes.title}`);
    }
    const read = await t.request('GET', `/documents/${n1.data.id}/see_also`, { token });
    assert.deepEqual(read.body.data.map((d: { id: string }) => d.id).sort(), [n2.data.id, locked.data.id].sort());

    // A staged create that fails when written (an unknown role in meta.perms) names its own
    // operation, also when a later create is what writes it; nothing of the request stays.
    const objects = await countObjects();
    const badPerms = (title: string) => ({ op: 'add', data: { type: 'documents', attributes: { title }, meta: { perms: { roles: ['no-such-role'] } } } });
    const atEnd = expectError(await ops([add({ title: 'Fine 1' }), badPerms('Bad perms'), add({ title: 'Fine 2' })]), 400, 'invalid_data');
    assert.equal(atEnd.source.pointer, '/atomic:operations/1/data');
    assert.equal(atEnd.meta.operation, 1);
    const beforeLocked = expectError(await ops([badPerms('Bad perms'), { op: 'add', data: { type: 'documents', attributes: { title: 'L' }, meta: { locked: true } } }]), 400, 'invalid_data');
    assert.equal(beforeLocked.meta.operation, 0);
    const beforeUpdate = expectError(await ops([add({ title: 'Fine' }), badPerms('Bad perms'), { op: 'update', data: { type: 'documents', id: n1.data.id, attributes: { title: 'x' } } }]), 400, 'invalid_data');
    assert.equal(beforeUpdate.meta.operation, 1);
    assert.equal(await countObjects(), objects);
    assert.equal((await t.request('GET', `/documents/${n1.data.id}`, { token })).body.data.attributes.title, 'Namesake');
  });

  test('creates of one request are found by search as single creates are, whichever way their search document was made', async () => {
    const body = '<p>Quetzalcoatl flew over the mesa, twice.</p>';
    const single = await t.request('POST', '/documents', { token, body: { data: { type: 'documents', attributes: { title: 'Feathered serpent', description: 'A myth', body } } } });
    assert.equal(single.status, 201, single.text);
    const res = await ops([
      add({ title: 'Feathered serpent', description: 'A myth', body }),
      add({ title: 'Second serpent', body: '<p>Quetzalcoatl again</p>' }),
      // A taken uname: inserted after the others, alone, its document made by the trigger.
      add({ title: 'Third serpent', uname: single.body.data.attributes.uname, body: '<p>Quetzalcoatl thrice</p>' }),
      add({ title: 'Serpent, with data', body: '<p>Quetzalcoatl and data</p>', extra: { note: 'kept' } }),
    ]);
    assert.equal(res.status, 200, res.text);
    const ids = res.body['atomic:results'].map((r: { data: { id: string } }) => r.data.id);
    const found = await t.request('GET', `/objects?filter[query]=quetzalcoatl&page_size=50`, { token });
    assert.deepEqual(found.body.data.map((d: { id: string }) => d.id).sort(), [single.body.data.id, ...ids].sort());
    const ranked = await t.request('GET', `/objects?filter[query]=${encodeURIComponent('feathered serpent')}&page_size=50`, { token });
    assert.deepEqual(ranked.body.data.map((d: { id: string }) => d.id).sort(), [single.body.data.id, ids[0]].sort());
    if (onPostgres) {
      // The document that came with the insert is the one the trigger makes for a single create.
      const docs = await db.all<{ id: number; document: string }>(`select id, document::text as document from objects_search where id in (${[single.body.data.id, ids[0]].map(Number).join(',')})`);
      assert.equal(docs.length, 2);
      assert.equal(docs[0].document, docs[1].document);
      assert.match(docs[0].document, /'quetzalcoatl'/);
      // Staged for the insert, dropped when the request was over.
      assert.deepEqual(await db.all('select ref from folio_search_staged'), []);
    }
  });

  test('search documents staged for a request that fails are dropped too, and none reach another object', async () => {
    const objects = await countObjects();
    // The second add is refused at validation, after the documents were staged.
    const failed = expectError(await ops([add({ title: 'Staged then dropped', body: '<p>Axolotl</p>' }), add({ title: 'Axolotl two', status: 'nonsense' })]), 400);
    assert.equal(failed.meta.operation, 1);
    assert.equal(await countObjects(), objects);
    if (onPostgres) assert.deepEqual(await db.all('select ref from folio_search_staged'), []);
    // The same words again, this time kept: their documents are theirs, not the dropped ones.
    const res = await ops([add({ title: 'Staged then kept', body: '<p>Axolotl</p>' }), add({ title: 'Axolotl two', body: '<p>Gills</p>' })]);
    assert.equal(res.status, 200, res.text);
    const found = await t.request('GET', `/objects?filter[query]=axolotl&page_size=50`, { token });
    assert.deepEqual(found.body.data.map((d: { id: string }) => d.id).sort(), res.body['atomic:results'].map((r: { data: { id: string } }) => r.data.id).sort());
    assert.equal((await t.request('GET', `/objects?filter[query]=gills`, { token })).body.data.length, 1);
  });

  test('bad requests are refused before anything is written', async () => {
    const before = await countObjects();
    expectError(await t.request('POST', '/operations', { body: { 'atomic:operations': [add({ title: 'anonymous' })] }, headers: { 'Content-Type': ATOMIC } }), 401);
    expectError(await t.request('POST', '/operations', { token, body: { data: {} } }), 400, 'invalid_body');
    expectError(await ops([]), 400, 'invalid_body');
    expectError(await ops([42]), 400, 'invalid_body');
    expectError(await ops([{ op: 'merge', data: {} }]), 400, 'invalid_op');
    expectError(await ops([{ op: 'add', data: { type: 'documents', id: '5', attributes: {} } }]), 403, 'client_id');
    expectError(await ops([{ op: 'add', data: { type: 'nonexistent', attributes: {} } }]), 404, 'unknown_type');
    expectError(await ops([{ op: 'add', data: { type: 'users', attributes: {} } }]), 404, 'unknown_type');
    expectError(await ops([{ op: 'add', data: { type: 'folders', attributes: { title: 'f' } } }]), 400, 'unsupported_type');
    expectError(await ops([{ op: 'update', data: { type: 'documents', lid: 'nope', attributes: {} } }]), 400, 'unknown_lid');
    expectError(await ops([add({ title: 'x' }, 'same'), add({ title: 'y' }, 'same')]), 400, 'duplicate_lid');
    expectError(await ops([{ op: 'remove' }]), 400, 'invalid_body');
    expectError(await ops([{ op: 'add', ref: { type: 'documents', id: '1', relationship: 'no_such_relation' }, data: [] }]), 404);
    const tooMany = Array.from({ length: 1001 }, () => add({ title: 'x' }));
    expectError(await ops(tooMany), 413, 'too_many_operations');
    expectError(await t.request('POST', '/operations', { token, raw: 'x', headers: { 'Content-Type': 'text/plain' } }), 415);
    expectError(await t.request('POST', '/operations', { token, raw: '{"atomic:operations": [', headers: { 'Content-Type': ATOMIC } }), 400);
    expectError(await t.request('GET', '/operations', { token }), 405);
    expectError(await t.request('POST', '/operations', { token, body: { 'atomic:operations': [add({ title: 'x' })] }, headers: { Accept: 'text/html' } }), 406);
    const otherExtension = 'application/vnd.api+json; ext="https://example.com/ext/other"';
    expectError(await t.request('POST', '/operations', { token, body: { 'atomic:operations': [add({ title: 'x' })] }, headers: { Accept: otherExtension } }), 406);
    assert.equal(await countObjects(), before);
  });

  test('a type cannot be named "operations"', async () => {
    const res = await t.request('POST', '/model/object_types', {
      token,
      body: { data: { type: 'object_types', attributes: { name: 'operations', singular: 'operation', parent_name: 'objects' } } },
    });
    const err = expectError(res, 400, 'invalid_name');
    assert.match(err.detail, /reserved/);
  });
});
