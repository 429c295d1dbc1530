// Model changes that could break later requests are refused, alone: a property type whose
// `params` do not validate values on their own (`$async`, `$id`, `$ref`, `$schema`, `$defs`, or
// anything Ajv cannot compile) gives 400 naming `params`, through /model/property_types and
// POST /model/project alike, and nothing changes; params stored before that check make writes of
// the types using them answer 409, never 500.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { connectOutside } from './helpers/outside.js';
import { expectError, startServer, type TestServer } from './helpers/server.js';

describe('model guards: property type params', () => {
  let s: TestServer;
  let admin: string;
  const post = (path: string, type: string, attributes: Record<string, unknown>) => s.request('POST', path, { token: admin, body: { data: { type, attributes } } });
  const patch = (path: string, type: string, id: string, attributes: Record<string, unknown>) =>
    s.request('PATCH', path, { token: admin, body: { data: { id, type, attributes } } });
  before(async () => {
    s = await startServer();
    admin = await s.adminToken();
  });
  after(() => s.close());

  const BAD: Array<Record<string, unknown>> = [
    { $async: true, type: 'string' },
    { $id: 'http://example.com/mood', type: 'string' },
    { $ref: '#' },
    { $ref: 'http://json-schema.org/draft-06/schema#' },
    { type: 'array', items: { $ref: '#/definitions/x' }, definitions: { x: { type: 'string' } } },
    { $schema: 'http://json-schema.org/draft-07/schema#', type: 'string' },
    { $defs: { x: { type: 'string' } }, type: 'string' },
    { type: 'object', properties: { a: { $id: 'inner' } } },
    { type: 'string', pattern: '([' },
  ];

  test('params that cannot validate on their own give 400 naming params; nothing is made or changed', async () => {
    const before = (await s.request('GET', '/model/property_types?page_size=100', { token: admin })).body.data.length;
    for (const params of BAD) {
      const res = await post('/model/property_types', 'property_types', { name: 'weird', params });
      expectError(res, 400, 'invalid_data');
      assert.deepEqual(res.body.error.meta?.fields, ['params'], JSON.stringify(params));
    }
    assert.equal((await s.request('GET', '/model/property_types?page_size=100', { token: admin })).body.data.length, before);

    const good = await post('/model/property_types', 'property_types', { name: 'moods', params: { type: 'string', enum: ['calm', 'angry'] } });
    assert.equal(good.status, 201, good.text);
    const id = good.body.data.id;
    assert.equal((await post('/model/object_types', 'object_types', { name: 'diaries', singular: 'diary' })).status, 201);
    assert.equal((await post('/model/properties', 'properties', { name: 'mood', property_type_name: 'moods', object_type_name: 'diaries' })).status, 201);
    for (const params of BAD) {
      const res = await patch(`/model/property_types/${id}`, 'property_types', id, { params });
      expectError(res, 400, 'invalid_data');
      assert.deepEqual(res.body.error.meta?.fields, ['params']);
    }
    assert.deepEqual((await s.request('GET', `/model/property_types/${id}`, { token: admin })).body.data.attributes.params, { type: 'string', enum: ['calm', 'angry'] });
    // Writes of the type using it still work, and still validate.
    const made = await post('/diaries', 'diaries', { title: 'Monday', mood: 'calm' });
    assert.equal(made.status, 201, made.text);
    expectError(await post('/diaries', 'diaries', { title: 'Tuesday', mood: 'bored' }), 400, 'invalid_data');
    const changed = await patch(`/diaries/${made.body.data.id}`, 'diaries', made.body.data.id, { mood: 'angry' });
    assert.equal(changed.status, 200, changed.text);
  });

  test('POST /model/project with such params: 400 naming the item and params, nothing applied', async () => {
    for (const params of BAD) {
      const doc = { property_types: [{ name: 'fancy', params }], object_types: [{ name: 'fancies', singular: 'fancy', parent_name: 'objects' }] };
      const res = await s.request('POST', '/model/project', { token: admin, body: doc, headers: { 'Content-Type': 'application/json', Accept: 'application/json' } });
      assert.equal(res.status, 400, `${JSON.stringify(params)}: ${res.text}`);
      assert.match(res.text, /params/);
      assert.match(res.text, /fancy/);
    }
    expectError(await s.request('GET', '/model/property_types/fancy', { token: admin }), 404);
    expectError(await s.request('GET', '/model/object_types/fancies', { token: admin }), 404);
  });

  test('params stored before the check: writes of the type answer 409 naming the property type, reads still work', async () => {
    const outside = await connectOutside(s);
    const now = new Date().toISOString();
    try {
      await outside.run(`insert into property_types (name, params, core_type, created, modified) values (?, ?, ${s.databaseUrl ? 'false' : '0'}, ?, ?)`, ['legacy_async', JSON.stringify({ $async: true, type: 'string' }), now, now]);
    } finally {
      await outside.close();
    }
    assert.equal((await post('/model/object_types', 'object_types', { name: 'ledgers', singular: 'ledger' })).status, 201);
    const before = await post('/ledgers', 'ledgers', { title: 'Before' });
    assert.equal(before.status, 201);
    assert.equal((await post('/model/properties', 'properties', { name: 'code', property_type_name: 'legacy_async', object_type_name: 'ledgers' })).status, 201);
    for (const res of [await post('/ledgers', 'ledgers', { title: 'After' }), await patch(`/ledgers/${before.body.data.id}`, 'ledgers', before.body.data.id, { title: 'Renamed' })]) {
      expectError(res, 409, 'invalid_property_type');
      assert.match(res.body.error.detail, /legacy_async/);
    }
    assert.equal((await s.request('GET', `/ledgers/${before.body.data.id}`, { token: admin })).status, 200);
    assert.equal((await s.request('GET', '/model/schema/ledgers', { token: admin })).status, 200);
    // Corrected, the type takes writes again.
    const legacyId = (await s.request('GET', '/model/property_types/legacy_async', { token: admin })).body.data.id;
    const fixed = await patch(`/model/property_types/${legacyId}`, 'property_types', legacyId, { params: { type: 'string' } });
    assert.equal(fixed.status, 200, fixed.text);
    assert.equal((await post('/ledgers', 'ledgers', { title: 'After', code: 'x1' })).status, 201);
  });
});
