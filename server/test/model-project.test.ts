// The model as code: GET /model/project answers the whole model as
// one plain JSON document in BEdita 5's layout; POST /model/project (and `npm run model -- apply`)
// answers the differences and applies them in one transaction — dry runs, idempotence, removals
// only with delete and refused where data would be lost, bad documents refused naming the item —
// and a model exported from one fresh install and applied to another makes /model/* and /roles
// answer identically.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createUser, EDITOR } from './helpers/fixtures.js';
import { runCommand, type CommandResult } from './helpers/run-command.js';
import { expectError, sameData, startServer, type TestServer } from './helpers/server.js';

const root = path.resolve(import.meta.dirname, '..', '..');
const JSON_ACCEPT = { Accept: 'application/json', 'Content-Type': 'application/json' };

/** `npm run model -- …` (the CLI through tsx) on the data of `s`. */
function runModelCli(args: string[], s: Pick<TestServer, 'dataDir' | 'databaseUrl'>): Promise<CommandResult> {
  return runCommand(process.execPath, ['--import', 'tsx', path.join(root, 'server/src/cli/model.ts'), ...args], sameData(s));
}

const tempDirs: string[] = [];
after(() => {
  for (const d of tempDirs) fs.rmSync(d, { recursive: true, force: true });
});
function tempFile(name: string, content?: unknown): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-model-'));
  tempDirs.push(dir);
  const file = path.join(dir, name);
  if (content !== undefined) fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return file;
}

/** A client of one server: JSON API writes and the plain JSON /model/project. */
function client(s: TestServer, token: string) {
  return {
    post: (p: string, type: string, attributes: Record<string, unknown>) => s.request('POST', p, { token, body: { data: { type, attributes } } }),
    get: (p: string) => s.request('GET', p, { token }),
    exportModel: () => s.request('GET', '/model/project', { token, headers: { Accept: 'application/json' } }),
    applyModel: (doc: unknown, query = '') => s.request('POST', `/model/project${query}`, { token, body: doc, headers: JSON_ACCEPT }),
  };
}

/** A site's own model: types, properties, a property type with an enum, relations, categories, tags, roles, an application. */
async function buildModel(s: TestServer, token: string) {
  const c = client(s, token);
  const ok = async (p: Promise<{ status: number; text: string }>) => {
    const res = await p;
    assert.ok(res.status === 201 || res.status === 200, res.text);
    return res as { status: number; text: string; body: any };
  };
  await ok(c.post('/model/property_types', 'property_types', { name: 'mood', params: { type: 'string', enum: ['calm', 'angry'] } }));
  await ok(c.post('/model/object_types', 'object_types', { name: 'products', singular: 'product', is_abstract: true, description: 'Things we sell' }));
  await ok(c.post('/model/object_types', 'object_types', { name: 'books', singular: 'book', parent_name: 'products' }));
  await ok(c.post('/model/object_types', 'object_types', { name: 'articles', singular: 'article', associations: ['Categories', 'Tags'], translation_rules: { body: false } }));
  await ok(c.post('/model/properties', 'properties', { name: 'subtitle', property_type_name: 'string', object_type_name: 'articles', description: 'Below the title' }));
  await ok(c.post('/model/properties', 'properties', { name: 'tone', property_type_name: 'mood', object_type_name: 'articles' }));
  await ok(c.post('/model/properties', 'properties', { name: 'isbn', property_type_name: 'string', object_type_name: 'products', required: true }));
  const articles = (await c.get('/model/object_types/articles')).body.data;
  await ok(s.request('PATCH', `/model/object_types/${articles.id}`, { token, body: { data: { id: articles.id, type: 'object_types', attributes: { hidden: ['subtitle'] } } } }));
  const cites = await ok(c.post('/model/relations', 'relations', { name: 'cites', inverse_name: 'cited_by', label: 'Cites', inverse_label: 'Cited by', params: { type: 'object', properties: { page: { type: 'integer' } } } }));
  await ok(s.request('POST', `/model/relations/${cites.body.data.id}/relationships/left_object_types`, { token, body: { data: [{ type: 'object_types', id: 'articles' }] } }));
  await ok(s.request('POST', `/model/relations/${cites.body.data.id}/relationships/right_object_types`, { token, body: { data: [{ type: 'object_types', id: 'books' }, { type: 'object_types', id: 'articles' }] } }));
  const news = await ok(c.post('/model/categories', 'categories', { name: 'news', type: 'articles', labels: { default: 'News', it: 'Notizie' } }));
  await ok(c.post('/model/categories', 'categories', { name: 'sport', type: 'articles', label: 'Sport', parent_id: Number(news.body.data.id) }));
  await ok(c.post('/model/categories', 'categories', { name: 'old', type: 'articles', enabled: false }));
  await ok(c.post('/model/tags', 'tags', { name: 'featured', label: 'Featured' }));
  await ok(s.request('POST', '/roles', { token, body: { data: { type: 'roles', attributes: { name: 'editors', description: 'Write articles', permissions: { '*': ['read'], articles: ['read', 'create', 'update:own'] } } } } }));
  await ok(s.request('POST', '/applications', { token, body: { data: { type: 'applications', attributes: { name: 'website', description: 'The public site' } } } }));
}

/** What /model/* and /roles answer, without ids and timestamps, each list by name. */
async function modelAnswers(s: TestServer, token: string) {
  const c = client(s, token);
  const lists = ['/model/object_types', '/model/properties?filter[type]=both', '/model/relations', '/model/property_types', '/model/categories', '/model/tags', '/roles'];
  const out: Record<string, unknown> = {};
  for (const list of lists) {
    const res = await c.get(`${list}${list.includes('?') ? '&' : '?'}page_size=100`);
    assert.equal(res.status, 200, res.text);
    const byId = new Map(res.body.data.map((r: any) => [r.id, r.attributes.name]));
    out[list] = res.body.data
      .map((r: any) => {
        const { parent_id, ...attributes } = r.attributes;
        const { created, modified, revision, ...meta } = r.meta ?? {};
        return { type: r.type, attributes: { ...attributes, ...(parent_id !== undefined ? { parent: parent_id === null ? null : byId.get(String(parent_id)) } : {}) }, meta };
      })
      .sort((a: any, b: any) => `${a.attributes.name}/${a.attributes.object_type_name ?? a.attributes.type ?? ''}`.localeCompare(`${b.attributes.name}/${b.attributes.object_type_name ?? b.attributes.type ?? ''}`));
  }
  for (const side of ['left_object_types', 'right_object_types']) {
    const res = await c.get(`/model/relations/cites/${side}`);
    out[`cites ${side}`] = res.status === 200 ? res.body.data.map((t: any) => t.attributes.name).sort() : res.status;
  }
  return out;
}

describe('model as code: GET and POST /model/project', () => {
  let s: TestServer;
  let admin: string;
  let c: ReturnType<typeof client>;
  before(async () => {
    s = await startServer();
    admin = await s.adminToken();
    c = client(s, admin);
    await buildModel(s, admin);
  });
  after(() => s.close());

  test('GET /model/project: admins only (401 anonymous, 403 signed-in users); a JSON API Accept alone gets 406', async () => {
    expectError(await s.request('GET', '/model/project', { headers: { Accept: 'application/json' } }), 401);
    expectError(await s.request('POST', '/model/project', { body: {}, headers: JSON_ACCEPT }), 401);
    await createUser(s, admin, EDITOR);
    const editor = (await s.login(EDITOR.username, EDITOR.password)).jwt;
    expectError(await s.request('GET', '/model/project', { token: editor, headers: { Accept: 'application/json' } }), 403);
    expectError(await s.request('POST', '/model/project?dry_run=1', { token: editor, body: {}, headers: JSON_ACCEPT }), 403);
    expectError(await s.request('GET', '/model/project', { token: admin, headers: { Accept: 'application/vnd.api+json' } }), 406);
  });

  test("GET /model/project answers BEdita 5's layout as plain JSON, sorted by name, without secrets", async () => {
    const res = await c.exportModel();
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers.get('content-type'), 'application/json');
    const doc = res.body;
    assert.deepEqual(Object.keys(doc), ['applications', 'roles', 'property_types', 'object_types', 'relations', 'properties', 'categories', 'tags']);
    assert.equal(doc.data, undefined, 'not a JSON API document');
    for (const [section, items] of Object.entries(doc) as Array<[string, any[]]>) {
      const names = items.map((i) => `${i.name}\u0000${i.object ?? ''}`);
      assert.deepEqual(names, [...names].sort(), `${section} sorted by name`);
    }
    assert.deepEqual(doc.applications, [{ name: 'website', description: 'The public site', enabled: true }]);
    const apps = await s.request('GET', '/applications', { token: admin });
    assert.ok(!res.text.includes(apps.body.data[0].meta.api_key), 'no api key in the document');
    assert.ok(!/api_key|client_secret/.test(res.text));
    assert.deepEqual(doc.roles.find((r: any) => r.name === 'editors'), { name: 'editors', description: 'Write articles', permissions: { '*': ['read'], articles: ['read', 'create', 'update:own'] } });
    assert.ok(doc.roles.some((r: any) => r.name === 'admin'), 'the built-in admin role, as it is');
    assert.deepEqual(doc.property_types, [{ name: 'mood', params: { type: 'string', enum: ['calm', 'angry'] } }], 'custom property types only');
    assert.deepEqual(doc.object_types.find((t: any) => t.name === 'articles'), {
      name: 'articles',
      singular: 'article',
      description: null,
      parent_name: 'objects',
      is_abstract: false,
      enabled: true,
      table: 'BEdita/Core.Objects',
      associations: ['Categories', 'Tags'],
      hidden: ['subtitle'],
      is_translatable: true,
      translation_rules: { body: false },
      preview_url: null,
    });
    assert.ok(doc.object_types.some((t: any) => t.name === 'documents'), 'core types are in it');
    assert.deepEqual(doc.relations.find((r: any) => r.name === 'cites'), {
      name: 'cites',
      label: 'Cites',
      inverse_name: 'cited_by',
      inverse_label: 'Cited by',
      description: null,
      params: { type: 'object', properties: { page: { type: 'integer' } } },
      left: ['articles'],
      right: ['articles', 'books'],
    });
    assert.deepEqual(doc.properties.filter((p: any) => ['subtitle', 'tone', 'isbn'].includes(p.name)), [
      { name: 'isbn', object: 'products', property: 'string', description: null, required: true },
      { name: 'subtitle', object: 'articles', property: 'string', description: 'Below the title', required: false },
      { name: 'tone', object: 'articles', property: 'mood', description: null, required: false },
    ]);
    assert.deepEqual(doc.categories.find((x: any) => x.name === 'sport'), { name: 'sport', label: 'Sport', labels: { default: 'Sport' }, object: 'articles', parent: 'news', enabled: true });
    assert.deepEqual(doc.categories.find((x: any) => x.name === 'news').labels, { default: 'News', it: 'Notizie' });
    assert.deepEqual(doc.tags, [{ name: 'featured', label: 'Featured', labels: { default: 'Featured' }, enabled: true }]);
  });

  test('the exported document applied back lists no differences and changes nothing', async () => {
    const before = await modelAnswers(s, admin);
    const res = await c.applyModel((await c.exportModel()).body);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers.get('content-type'), 'application/json');
    assert.deepEqual({ create: res.body.create, update: res.body.update, remove: res.body.remove, applied: res.body.applied }, { create: {}, update: {}, remove: {}, applied: false });
    assert.deepEqual(await modelAnswers(s, admin), before);
  });

  test('?dry_run=1 answers the differences (per section, per item, with what changes) and changes nothing', async () => {
    const doc = (await c.exportModel()).body;
    const before = await modelAnswers(s, admin);
    doc.object_types.push({ name: 'recipes', singular: 'recipe', associations: ['Tags'] });
    doc.properties.push({ name: 'servings', object: 'recipes', property: 'integer', description: 'How many' });
    doc.object_types.find((t: any) => t.name === 'articles').description = 'News and stories';
    doc.tags.find((t: any) => t.name === 'featured').labels = { default: 'Featured', it: 'In evidenza' };
    const res = await c.applyModel(doc, '?dry_run=1');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.dry_run, true);
    assert.equal(res.body.applied, false);
    assert.deepEqual(res.body.create, { object_types: [{ name: 'recipes', singular: 'recipe', associations: ['Tags'] }], properties: [{ name: 'servings', object: 'recipes', property: 'integer', description: 'How many' }] });
    assert.deepEqual(res.body.update, {
      object_types: [{ name: 'articles', changes: { description: { from: null, to: 'News and stories' } } }],
      tags: [{ name: 'featured', changes: { labels: { from: { default: 'Featured' }, to: { default: 'Featured', it: 'In evidenza' } } } }],
    });
    assert.deepEqual(res.body.remove, {});
    assert.deepEqual(await modelAnswers(s, admin), before, 'a dry run changes nothing');
    assert.equal((await c.get('/model/object_types/recipes')).status, 404);
  });

  test('POST applies creates and changes in one go; the same file applied twice lists no differences', async () => {
    const doc = (await c.exportModel()).body;
    doc.object_types.push({ name: 'recipes', singular: 'recipe', associations: ['Categories', 'Tags'], hidden: ['servings'] });
    doc.properties.push({ name: 'servings', object: 'recipes', property: 'integer' });
    doc.relations.find((r: any) => r.name === 'cites').right = ['articles', 'books', 'recipes'];
    doc.categories.push({ name: 'pasta', object: 'recipes', label: 'Pasta' }, { name: 'fresh', object: 'recipes', label: 'Fresh', parent: 'pasta' });
    doc.roles.push({ name: 'cooks', description: null, permissions: { recipes: ['read', 'create', 'update'] } });
    doc.applications.find((a: any) => a.name === 'website').enabled = false;
    const first = await c.applyModel(doc);
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.applied, true);
    assert.deepEqual(Object.keys(first.body.create).sort(), ['categories', 'object_types', 'properties', 'roles']);
    assert.deepEqual(first.body.update.relations, [{ name: 'cites', changes: { right: { from: ['articles', 'books'], to: ['articles', 'books', 'recipes'] } } }]);
    assert.deepEqual(first.body.update.applications, [{ name: 'website', changes: { enabled: { from: true, to: false } } }]);
    // Everything is there, as the single endpoints show it.
    const recipes = (await c.get('/model/object_types/recipes')).body.data.attributes;
    assert.deepEqual([recipes.associations, recipes.hidden], [['Categories', 'Tags'], ['servings']]);
    const made = await c.post('/recipes', 'recipes', { title: 'Carbonara', categories: [{ name: 'fresh' }] });
    assert.equal(made.status, 201, made.text);
    const fresh = (await c.get('/model/categories?filter[type]=recipes')).body.data;
    assert.equal(fresh.find((x: any) => x.attributes.name === 'fresh').attributes.parent_id, Number(fresh.find((x: any) => x.attributes.name === 'pasta').id));
    const cooks = (await s.request('GET', '/roles?filter[name]=cooks', { token: admin })).body.data[0];
    assert.deepEqual(cooks.attributes.permissions, { recipes: ['read', 'create', 'update'] });
    const second = await c.applyModel(doc);
    assert.equal(second.status, 200, second.text);
    assert.deepEqual({ create: second.body.create, update: second.body.update, remove: second.body.remove, applied: second.body.applied }, { create: {}, update: {}, remove: {}, applied: false });
  });

  test('bad documents give 400 naming the item; nothing of the document is applied', async () => {
    const before = await modelAnswers(s, admin);
    const doc = (await c.exportModel()).body;
    const bad = async (change: (d: any) => void, code: string, names: RegExp, query = '') => {
      const d = structuredClone(doc);
      change(d);
      const e = expectError(await c.applyModel(d, query), 400, code);
      assert.match(e.detail, names);
    };
    await bad((d) => (d.widgets = []), 'invalid_model', /widgets/);
    await bad((d) => (d.tags = 'featured'), 'invalid_model', /"tags" must be a list/);
    await bad((d) => d.tags.push({ label: 'no name' }), 'invalid_model', /tags\[1\].*name/);
    await bad((d) => d.tags.push({ name: 'x', colour: 'red' }), 'invalid_model', /tags "x".*unknown field "colour"/);
    await bad((d) => d.tags.push({ name: 'featured' }), 'invalid_model', /tags "featured".*twice/);
    // A valid new type before an invalid property: the type is not created either.
    await bad((d) => (d.object_types.push({ name: 'gadgets' }), d.properties.push({ name: 'Bad Name', object: 'gadgets', property: 'string' })), 'invalid_name', /properties "gadgets\.Bad Name"/);
    await bad((d) => d.properties.push({ name: 'colour', object: 'gadgetz', property: 'string' }), 'invalid_data', /properties "gadgetz\.colour".*gadgetz/);
    await bad((d) => d.properties.push({ name: 'colour', object: 'articles', property: 'rainbow' }), 'invalid_data', /properties "articles\.colour".*rainbow/);
    await bad((d) => (d.object_types.find((t: any) => t.name === 'documents').parent_name = 'media'), 'core_type', /object_types "documents"/);
    await bad((d) => (d.properties.find((p: any) => p.name === 'tone').property = 'text'), 'immutable_field', /properties "articles\.tone"/);
    await bad((d) => (d.roles.find((r: any) => r.name === 'admin').description = 'changed'), 'unchangeable_role', /roles "admin"/);
    await bad((d) => (d.roles.find((r: any) => r.name === 'editors').permissions = { gadgets: ['read'] }), 'invalid_permissions', /roles "editors"/);
    await bad((d) => d.categories.push({ name: 'orphan', object: 'articles', parent: 'nowhere' }), 'invalid_data', /categories "articles\.orphan".*nowhere/);
    await bad((d) => d.relations.push({ name: 'likes', inverse_name: 'liked_by', left: ['nothings'], right: ['articles'] }), 'invalid_object_type', /relations "likes".*nothings/);
    await bad((d) => d.property_types.push({ name: 'broken', params: { type: 'nonsense' } }), 'invalid_data', /property_types "broken"/);
    expectError(await c.applyModel(doc, '?dry_run=maybe'), 400, 'invalid_parameter');
    expectError(await c.applyModel(doc, '?force=1'), 400, 'invalid_parameter');
    expectError(await c.applyModel([1, 2]), 400, 'invalid_model');
    expectError(await s.request('POST', '/model/project', { token: admin, raw: '{"tags": [', headers: JSON_ACCEPT }), 400, 'malformed_json');
    assert.deepEqual(await modelAnswers(s, admin), before, 'nothing changed');
  });

  test('removals need ?delete=1; one that would lose data is refused with 400 naming it, and nothing changes', async () => {
    const doc = (await c.exportModel()).body;
    // Data the removals would lose: a book with a value of `isbn`, an article with a category and a tag, a link through `cites`.
    const book = await c.post('/books', 'books', { title: 'A book', isbn: '978-3' });
    assert.equal(book.status, 201, book.text);
    const article = await c.post('/articles', 'articles', { title: 'A story', categories: [{ name: 'news' }], tags: [{ name: 'featured' }] });
    assert.equal(article.status, 201, article.text);
    const link = await s.request('POST', `/articles/${article.body.data.id}/relationships/cites`, { token: admin, body: { data: [{ type: 'books', id: book.body.data.id }] } });
    assert.equal(link.status, 200, link.text);
    const before = await modelAnswers(s, admin);
    const smaller = structuredClone(doc);
    const drop = (section: string, keep: (i: any) => boolean) => (smaller[section] = smaller[section].filter(keep));
    drop('properties', (p) => p.name !== 'isbn');
    drop('relations', (r) => r.name !== 'cites');
    drop('categories', (x) => x.name !== 'news' && x.name !== 'sport');
    drop('tags', () => false);
    drop('roles', (r) => r.name !== 'cooks');
    // Without delete: nothing is removed, the items are listed as kept.
    const kept = await c.applyModel(smaller);
    assert.equal(kept.status, 200, kept.text);
    assert.deepEqual(kept.body.remove, {});
    assert.deepEqual(kept.body.kept.tags, [{ name: 'featured', reason: 'not in the file (removed only with delete)' }]);
    assert.deepEqual(await modelAnswers(s, admin), before);
    // With delete: refused, naming every item whose removal would lose data.
    const e = expectError(await c.applyModel(smaller, '?delete=1'), 400, 'model_removal_refused');
    for (const named of ['properties "products.isbn"', 'relations "cites"', 'categories "articles.news"', 'tags "featured"']) assert.ok(e.detail.includes(named), `${named} in: ${e.detail}`);
    assert.ok(!e.detail.includes('cooks'), 'a role no user has may go');
    assert.deepEqual(await modelAnswers(s, admin), before, 'nothing changed, the unused role included');
    // A type with objects (trashed ones count) is refused too.
    assert.equal((await s.request('DELETE', `/books/${book.body.data.id}`, { token: admin })).status, 204);
    const noBooks = structuredClone(doc);
    noBooks.object_types = noBooks.object_types.filter((t: any) => t.name !== 'books');
    noBooks.relations.find((r: any) => r.name === 'cites').right = ['articles', 'recipes'];
    assert.match(expectError(await c.applyModel(noBooks, '?delete=1'), 400, 'model_removal_refused').detail, /object_types "books" \(1 object, trashed ones included\)/);
    assert.equal((await c.get('/model/object_types/books')).status, 200);
  });

  test('?delete=1 removes unused items the file does not have; core types and the admin role are kept', async () => {
    await c.post('/model/property_types', 'property_types', { name: 'unused_kind', params: { type: 'string', maxLength: 3 } });
    await c.post('/model/tags', 'tags', { name: 'spare' });
    await c.post('/model/object_types', 'object_types', { name: 'drafts_box', singular: 'draft_box' });
    const doc = (await c.exportModel()).body;
    doc.property_types = doc.property_types.filter((t: any) => t.name !== 'unused_kind');
    doc.tags = doc.tags.filter((t: any) => t.name !== 'spare');
    doc.object_types = doc.object_types.filter((t: any) => t.name !== 'drafts_box' && t.name !== 'links');
    doc.roles = doc.roles.filter((r: any) => r.name !== 'admin' && r.name !== 'cooks');
    const res = await c.applyModel(doc, '?delete=1');
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.remove, { property_types: [{ name: 'unused_kind' }], object_types: [{ name: 'drafts_box' }], roles: [{ name: 'cooks' }], tags: [{ name: 'spare' }] });
    assert.deepEqual(res.body.kept, { roles: [{ name: 'admin', reason: 'core: never removed' }], object_types: [{ name: 'links', reason: 'core: never removed' }] });
    assert.equal((await c.get('/model/property_types/unused_kind')).status, 404);
    assert.equal((await c.get('/model/object_types/drafts_box')).status, 404);
    assert.equal((await c.get('/model/object_types/links')).status, 200);
    assert.equal((await s.request('GET', '/roles?filter[name]=cooks', { token: admin })).body.data.length, 0);
  });
});

describe('model as code: a model round trip between two fresh installs, and npm run model', () => {
  let a: TestServer;
  let b: TestServer;
  before(async () => {
    [a, b] = await Promise.all([startServer(), startServer()]);
  });
  after(async () => {
    await Promise.all([a.close(), b.close()]);
  });

  test('a model exported from install A and applied to a fresh install B makes /model/* and /roles answer identically', async () => {
    const [tokenA, tokenB] = await Promise.all([a.adminToken(), b.adminToken()]);
    await buildModel(a, tokenA);
    const doc = (await client(a, tokenA).exportModel()).body;
    const applied = await client(b, tokenB).applyModel(doc);
    assert.equal(applied.status, 200, applied.text);
    assert.equal(applied.body.applied, true);
    assert.deepEqual(await modelAnswers(b, tokenB), await modelAnswers(a, tokenA));
    assert.deepEqual((await client(b, tokenB).exportModel()).body, doc, 'B exports the same document');
    // B's new model works: a value outside the property type's enum is refused.
    const bad = await client(b, tokenB).post('/articles', 'articles', { title: 'x', tone: 'happy' });
    expectError(bad, 400);
  });

  test('npm run model: export to stdout and to a file, apply with --dry-run, apply, apply again; a running server sees the change', async () => {
    const token = await b.adminToken();
    const exported = await runModelCli(['export'], b);
    assert.equal(exported.code, 0, exported.stderr);
    const doc = JSON.parse(exported.stdout);
    assert.deepEqual(doc, (await client(b, token).exportModel()).body, 'the CLI exports what the API answers');
    const file = tempFile('model.json');
    const toFile = await runModelCli(['--', 'export', file], b);
    assert.equal(toFile.code, 0, toFile.stderr);
    assert.deepEqual(JSON.parse(fs.readFileSync(file, 'utf8')), doc);

    doc.object_types.push({ name: 'podcasts', singular: 'podcast', description: 'Episodes' });
    doc.tags.find((t: any) => t.name === 'featured').label = 'Highlighted';
    fs.writeFileSync(file, JSON.stringify(doc, null, 2));
    const dry = await runModelCli(['apply', file, '--dry-run'], b);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /object_types:\n {2}\+ podcasts/);
    assert.match(dry.stdout, /tags:\n {2}~ featured: labels \{"default":"Featured"\} → \{"default":"Highlighted"\}/);
    assert.match(dry.stdout, /1 to create, 1 to change, 0 to remove: dry run, nothing was changed/);
    assert.equal((await client(b, token).get('/model/object_types/podcasts')).status, 404);

    const run = await runModelCli(['apply', file], b);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /applied/);
    // The running server answers with the new model at once (the model version moved).
    assert.equal((await client(b, token).get('/model/object_types/podcasts')).status, 200);
    assert.equal((await client(b, token).post('/podcasts', 'podcasts', { title: 'Episode 1' })).status, 201);
    const again = await runModelCli(['apply', file], b);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /no differences/);
  });

  test('npm run model: a refused apply exits 1 and changes nothing; usage errors exit 2', async () => {
    const token = await b.adminToken();
    const doc = (await client(b, token).exportModel()).body;
    doc.object_types = doc.object_types.filter((t: any) => t.name !== 'podcasts');
    doc.tags.push({ name: 'brand-new' });
    const file = tempFile('model.json', doc);
    const refused = await runModelCli(['apply', file, '--delete'], b);
    assert.equal(refused.code, 1, refused.stdout + refused.stderr);
    assert.match(refused.stderr, /refused: .*object_types "podcasts" \(1 object/);
    assert.match(refused.stderr, /nothing was changed/);
    assert.equal((await client(b, token).get('/model/tags?filter[name]=brand-new')).body.data.length, 0, 'nothing of the file applied');
    const notJson = await runModelCli(['apply', tempFile('broken.json', '{"tags": [')], b);
    assert.equal(notJson.code, 1);
    assert.match(notJson.stderr, /not valid JSON/);
    const missing = await runModelCli(['apply', path.join(os.tmpdir(), 'no-such-model.json')], b);
    assert.equal(missing.code, 1);
    for (const args of [[], ['import', file], ['apply'], ['apply', file, '--force'], ['export', 'a.json', 'b.json']]) {
      const usage = await runModelCli(args, b);
      assert.equal(usage.code, 2, `${args.join(' ')}: ${usage.stderr}`);
      assert.match(usage.stderr, /usage: npm run model/);
    }
  });
});
