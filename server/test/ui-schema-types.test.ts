// The admin UI's object types (ui/src/api/schema-types.ts) are what `npm run ui:types` writes from
// a fresh server's GET /model/schema/{type}: a model change that is not followed by running the
// script fails here, so the committed types cannot go stale.
// postgres pass: not run (compares with `npm run ui:types`, which starts its own SQLite server)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { SCHEMA_TYPES_FILE, fetchSchemaTypes, renderSchemaTypes, typeOf } from '../../scripts/schema-types.ts';
import { startServer, type TestServer } from './helpers/server.js';

describe('admin UI schema types', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer();
  });
  after(() => s.close());

  test('the committed schema-types.ts is what the script generates from the model now', async () => {
    const generated = await fetchSchemaTypes(s.url, await s.adminToken());
    const committed = fs.readFileSync(new URL(`../../${SCHEMA_TYPES_FILE}`, import.meta.url), 'utf8');
    assert.equal(committed, generated, `${SCHEMA_TYPES_FILE} is stale: run npm run ui:types and commit it`);
  });

  test('a type added to the model shows in what the script generates, with its custom property', async () => {
    const token = await s.adminToken();
    const created = await s.request('POST', '/model/object_types', { token, body: { data: { type: 'object_types', attributes: { name: 'recipes', singular: 'recipe', parent_name: 'objects' } } } });
    assert.equal(created.status, 201, created.text);
    const prop = await s.request('POST', '/model/properties', {
      token,
      body: { data: { type: 'properties', attributes: { name: 'servings', property_type_name: 'integer', object_type_name: 'recipes' } } },
    });
    assert.equal(prop.status, 201, prop.text);
    const generated = await fetchSchemaTypes(s.url, token);
    // Every field of objects (title, status…) is inherited; its own property is declared.
    assert.match(generated, /\nexport interface RecipesAttributes extends ObjectsAttributes \{\n {2}servings: number \| null;\n\}\n/);
    assert.match(generated, /\nexport type RecipesMeta = ObjectsMeta;\n/);
    assert.match(generated, /^ {2}recipes: RecipesAttributes;$/m);
  });

  test('JSON Schema types become TypeScript types', () => {
    assert.equal(typeOf({ type: ['string', 'null'] }), 'string | null');
    assert.equal(typeOf({ type: 'integer' }), 'number');
    assert.equal(typeOf({ type: 'string', enum: ['a', "it's"] }), `'a' | 'it\\'s'`);
    assert.equal(typeOf({ type: ['object', 'array', 'string', 'number', 'boolean', 'null'] }), 'unknown');
    assert.equal(typeOf({ oneOf: [{ type: 'string' }, { type: 'null' }] }), 'string | null');
    assert.equal(typeOf({ type: 'array', items: { type: 'string' } }), 'Array<string>');
    const rendered = renderSchemaTypes({ 'date-things': { properties: { 'odd-name': { type: 'boolean', readOnly: true }, secret: { type: 'string', writeOnly: true }, created: { type: 'string', isMeta: true } } } });
    assert.match(rendered, /export interface DateThingsAttributes \{\n {2}readonly 'odd-name': boolean;\n {2}secret\?: string;\n\}/);
    assert.match(rendered, /export interface DateThingsMeta \{\n {2}created: string;\n\}/);
    // A type that changes one of its parent's fields does not extend it: it lists them all.
    const title = { type: ['string', 'null'] };
    const inherited = renderSchemaTypes({ base: { properties: { title } }, same: { properties: { title } }, other: { properties: { title: { type: 'string' } } } }, { same: 'base', other: 'base' });
    assert.match(inherited, /export type SameAttributes = BaseAttributes;/);
    assert.match(inherited, /export interface OtherAttributes \{\n {2}title: string;\n\}/);
    assert.ok(inherited.indexOf('interface BaseAttributes') < inherited.indexOf('SameAttributes ='), 'a parent is declared before its children');
  });
});
