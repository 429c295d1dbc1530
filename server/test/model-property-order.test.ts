// Custom properties editable, relabelled and ordered (issue 46): PATCH /model/properties/{id}
// changes `label`, `description`, `required` and `position` (not the name, type or owner); the
// schema of the type (/model/schema/{type}) lists them in that order, each label its `title`,
// and so does the admin's form built from it. Positions are kept in the database (migration 0151),
// and the model file (/model/project) carries label and position when set, both ways.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { expectError, startServer, type TestServer } from './helpers/server.js';

describe('custom properties: labels and order', () => {
  let s: TestServer;
  let admin: string;
  const ids: Record<string, string> = {};

  before(async () => {
    s = await startServer();
    admin = await s.adminToken();
    const type = await s.request('POST', '/model/object_types', { token: admin, body: { data: { type: 'object_types', attributes: { name: 'recipes', singular: 'recipe', parent_name: 'objects' } } } });
    assert.equal(type.status, 201, type.text);
    for (const name of ['serves', 'cooking_time', 'difficulty']) {
      const r = await s.request('POST', '/model/properties', { token: admin, body: { data: { type: 'properties', attributes: { name, property_type_name: name === 'difficulty' ? 'string' : 'integer', object_type_name: 'recipes' } } } });
      assert.equal(r.status, 201, r.text);
      ids[name] = String(r.body.data.id);
    }
  });
  after(() => s.close());

  const schemaOrder = async () => {
    const r = await s.request('GET', '/model/schema/recipes', { token: admin });
    assert.equal(r.status, 200, r.text);
    return Object.keys(r.body.properties).filter((n) => n in ids);
  };

  test('a new property has no label and no position; the schema lists properties by creation', async () => {
    const r = await s.request('GET', `/model/properties/${ids.serves}`, { token: admin });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.data.attributes, { name: 'serves', property_type_name: 'integer', object_type_name: 'recipes', description: null, required: false, label: null, position: null });
    assert.deepEqual(await schemaOrder(), ['serves', 'cooking_time', 'difficulty']);
  });

  test('PATCH relabels, describes, requires and places a property; the schema follows', async () => {
    const patch = async (name: string, attributes: Record<string, unknown>) => {
      const r = await s.request('PATCH', `/model/properties/${ids[name]}`, { token: admin, body: { data: { type: 'properties', id: ids[name], attributes } } });
      assert.equal(r.status, 200, r.text);
      return r.body.data.attributes;
    };
    const changed = await patch('cooking_time', { label: 'Cooking time (minutes)', description: 'From oven on to table', required: true, position: 1 });
    assert.deepEqual(changed, { name: 'cooking_time', property_type_name: 'integer', object_type_name: 'recipes', description: 'From oven on to table', required: true, label: 'Cooking time (minutes)', position: 1 });
    await patch('difficulty', { position: 2 });
    await patch('serves', { position: 3, label: 'Serves' });
    assert.deepEqual(await schemaOrder(), ['cooking_time', 'difficulty', 'serves']);
    const schema = (await s.request('GET', '/model/schema/recipes', { token: admin })).body;
    assert.equal(schema.properties.cooking_time.title, 'Cooking time (minutes)', 'the label is the schema title');
    assert.ok(schema.required.includes('cooking_time'), 'required reaches the schema');
    const list = await s.request('GET', '/model/properties?filter[object_type_name]=recipes&sort=position', { token: admin });
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(list.body.data.map((p: { attributes: { name: string } }) => p.attributes.name), ['cooking_time', 'difficulty', 'serves']);
    // A label emptied is no label.
    assert.equal((await patch('serves', { label: '' })).label, null);
  });

  test('a property’s name cannot change, and a position is a whole number from 1', async () => {
    const rename = await s.request('PATCH', `/model/properties/${ids.serves}`, { token: admin, body: { data: { type: 'properties', id: ids.serves, attributes: { name: 'portions' } } } });
    expectError(rename, 400, 'immutable_field');
    const zero = await s.request('PATCH', `/model/properties/${ids.serves}`, { token: admin, body: { data: { type: 'properties', id: ids.serves, attributes: { position: 0 } } } });
    assert.equal(zero.status, 400, zero.text);
  });

  test('the model file exports label and position when set, and applies them', async () => {
    const JSON_HEADERS = { Accept: 'application/json', 'Content-Type': 'application/json' };
    const exported = await s.request('GET', '/model/project', { token: admin, headers: { Accept: 'application/json' } });
    assert.equal(exported.status, 200, exported.text);
    const byName = (doc: { properties: Array<Record<string, unknown>> }, name: string) => doc.properties.find((p) => p.object === 'recipes' && p.name === name)!;
    assert.equal(byName(exported.body, 'cooking_time').label, 'Cooking time (minutes)');
    assert.equal(byName(exported.body, 'cooking_time').position, 1);
    assert.ok(!('label' in byName(exported.body, 'serves')), 'no label key when none is set');
    const doc = { properties: [{ ...byName(exported.body, 'difficulty'), label: 'How hard', position: 4 }] };
    const applied = await s.request('POST', '/model/project', { token: admin, body: doc, headers: JSON_HEADERS });
    assert.equal(applied.status, 200, applied.text);
    const after = await s.request('GET', `/model/properties/${ids.difficulty}`, { token: admin });
    assert.deepEqual({ label: after.body.data.attributes.label, position: after.body.data.attributes.position }, { label: 'How hard', position: 4 });
  });
});
