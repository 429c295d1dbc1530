// Full-text search (q / filter[query]) reads the same on every engine: SQLite's FTS5 and
// PostgreSQL's text search (npm test runs this file on both). Words are split at punctuation,
// case and accents do not matter, every word must match, the last one as a prefix, and a match
// in the title ranks above one in the description, which ranks above one in the body.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startServer, type TestServer } from './helpers/server.js';

describe('full-text search', () => {
  let s: TestServer;
  let admin: string;
  const create = async (attributes: Record<string, unknown>, type = 'documents') => {
    const res = await s.request('POST', `/${type}`, { token: admin, body: { data: { type, attributes: { status: 'on', ...attributes } } } });
    assert.equal(res.status, 201, res.text);
    return res.body.data.id as string;
  };
  const found = async (q: string, extra = '') => {
    const res = await s.request('GET', `/objects?q=${encodeURIComponent(q)}${extra}`);
    assert.equal(res.status, 200, res.text);
    return res.body.data.map((d: { id: string }) => d.id) as string[];
  };

  before(async () => {
    s = await startServer();
    admin = await s.adminToken();
  });
  after(() => s.close());

  test('every word must match; the last one also as a prefix, the others whole', async () => {
    const both = await create({ title: 'Marmalade oranges', body: 'bitter seville' });
    const one = await create({ title: 'Marmalade lemons' });
    assert.deepEqual(await found('marmalade oranges'), [both]);
    assert.deepEqual((await found('marmalade')).sort(), [both, one].sort());
    assert.deepEqual(await found('marmalade orang'), [both]);
    assert.deepEqual(await found('marm oranges'), [], 'only the last word is a prefix');
    assert.deepEqual(await found('seville marmalade'), [both], 'words match in any field and order');
  });

  test('case, accents and punctuation do not matter; e-mail addresses and paths split into words', async () => {
    const id = await create({ title: 'Crème Brûlée at Zoë’s', description: 'write to chef@patisserie-example.org or see /menus/desserts.html' });
    assert.deepEqual(await found('creme brulee'), [id]);
    assert.deepEqual(await found('CRÈME'), [id]);
    assert.deepEqual(await found('zoe'), [id]);
    assert.deepEqual(await found('patisserie'), [id]);
    assert.deepEqual(await found('chef example'), [id]);
    assert.deepEqual(await found('desserts html'), [id]);
  });

  test('title ranks above description, description above body; an explicit sort replaces the rank', async () => {
    const inBody = await create({ title: 'Notes', body: 'a word on quinoa' });
    const inTitle = await create({ title: 'Quinoa salad' });
    const inDescription = await create({ title: 'Grains', description: 'quinoa and more' });
    assert.deepEqual(await found('quinoa'), [inTitle, inDescription, inBody]);
    assert.deepEqual(await found('quinoa', '&sort=id'), [inBody, inTitle, inDescription]);
    const res = await s.request('GET', '/objects?q=quinoa&page_size=2&page=2');
    assert.deepEqual(res.body.data.map((d: { id: string }) => d.id), [inBody]);
    assert.equal(res.body.meta.pagination.count, 3);
  });

  test('the index follows every write: update, trash, restore, permanent delete', async () => {
    const id = await create({ title: 'Rhubarb crumble' });
    assert.deepEqual(await found('rhubarb'), [id]);
    const patch = await s.request('PATCH', `/documents/${id}`, { token: admin, body: { data: { id, type: 'documents', attributes: { title: 'Apple crumble' } } } });
    assert.equal(patch.status, 200, patch.text);
    assert.deepEqual(await found('rhubarb'), []);
    assert.deepEqual(await found('apple crumble'), [id]);
    assert.equal((await s.request('DELETE', `/documents/${id}`, { token: admin })).status, 204);
    assert.deepEqual(await found('apple crumble'), [], 'trashed objects are not listed');
    assert.equal((await s.request('PATCH', `/trash/${id}`, { token: admin, body: { data: { id, type: 'documents' } } })).status, 204);
    assert.deepEqual(await found('apple crumble'), [id]);
    assert.equal((await s.request('DELETE', `/documents/${id}`, { token: admin })).status, 204);
    assert.equal((await s.request('DELETE', `/trash/${id}`, { token: admin })).status, 204);
    assert.deepEqual(await found('apple crumble'), []);
  });

  test('text properties of a type are searched; queries without words find nothing', async () => {
    const prop = await s.request('POST', '/model/properties', {
      token: admin,
      body: { data: { type: 'properties', attributes: { name: 'ingredient', property_type_name: 'string', object_type_name: 'documents' } } },
    });
    assert.equal(prop.status, 201, prop.text);
    const id = await create({ title: 'Soup', ingredient: 'Parsnip' });
    assert.deepEqual(await found('parsnip'), [id]);
    assert.deepEqual(await found('soup pars'), [id]);
    assert.deepEqual(await found('!!! ???'), []);
    assert.deepEqual(await found('under_score'), []);
  });
});
