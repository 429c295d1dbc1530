// Rich text as the admin's editor writes it (issue 46) and search through translations: a body
// with block quotes, fourth-level headings, tables, links to other objects (`data-object-id`) and
// links opening a new tab is stored and read back exactly as sent, in objects and translations
// alike (Folio, as BEdita, keeps HTML as given); `filter[search_translations]` widens a search to
// the translations of every language, with the rights a `lang` search has. Through HTTP, on
// SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { expectError, startServer, type TestServer } from './helpers/server.js';
import { userWithPermissions } from './helpers/users.js';

const RICH =
  '<h2>Harbour</h2><h4>Small print</h4><blockquote><p>The sea is <em>patient</em>.</p></blockquote>' +
  '<table><tbody><tr><th colspan="1" rowspan="1"><p>Boat</p></th><th colspan="1" rowspan="1"><p>Crew</p></th></tr>' +
  '<tr><td colspan="1" rowspan="1"><p>Ketch</p></td><td colspan="1" rowspan="1"><p>4</p></td></tr></tbody></table>' +
  '<p>See <a href="/objects/12" data-object-id="12">the lighthouse</a> and ' +
  '<a target="_blank" rel="noopener noreferrer" href="https://example.org/tides">the tides</a>.</p>';

describe('rich text and search through translations', () => {
  let s: TestServer;
  let admin: string;
  const tokens: Record<string, string> = {};
  const body = (type: string, attributes: Record<string, unknown>) => ({ data: { type, attributes } });
  async function create(type: string, attributes: Record<string, unknown>) {
    const r = await s.request('POST', `/${type}`, { token: admin, body: body(type, attributes) });
    assert.equal(r.status, 201, r.text);
    return String(r.body.data.id);
  }
  async function translate(objectId: string, lang: string, fields: Record<string, unknown>, status = 'on') {
    const r = await s.request('POST', '/translations', { token: admin, body: body('translations', { object_id: Number(objectId), lang, status, translated_fields: fields }) });
    assert.equal(r.status, 201, r.text);
    return String(r.body.data.id);
  }
  const found = async (path: string, token?: string) => {
    const r = await s.request('GET', path, { token });
    assert.equal(r.status, 200, r.text);
    return r.body.data.map((x: { id: string }) => x.id).sort();
  };

  before(async () => {
    s = await startServer();
    admin = await s.adminToken();
    tokens.reader = await userWithPermissions(s, admin, 'reader', { '*': ['read'] });
    tokens.docsOnly = await userWithPermissions(s, admin, 'docs-only', { documents: ['read', 'update'] });
  });
  after(() => s.close());

  test("an editor's rich text (quote, h4, table, object link, new-tab link) is stored and read back as sent", async () => {
    const id = await create('documents', { title: 'Harbour guide', body: RICH, status: 'on' });
    const read = await s.request('GET', `/documents/${id}`);
    assert.equal(read.body.data.attributes.body, RICH, 'the body reads back byte for byte');
    const patched = await s.request('PATCH', `/documents/${id}`, { token: admin, body: { data: { id, type: 'documents', attributes: { body: `${RICH}<p>More</p>` } } } });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.data.attributes.body, `${RICH}<p>More</p>`, 'a PATCH keeps every tag and attribute');
    const t = await translate(id, 'it', { title: 'Guida del porto', body: RICH.replace('Harbour', 'Porto') });
    const tr = await s.request('GET', `/translations/${t}`, { token: admin });
    assert.equal(tr.body.data.attributes.translated_fields.body, RICH.replace('Harbour', 'Porto'), "a translation's body keeps them too");
  });

  test('filter[search_translations] finds an object by a word of any translation; q alone keeps its meaning', async () => {
    const id = await create('documents', { title: 'Almanac tables', status: 'on' });
    const other = await create('documents', { title: 'Knotwork', status: 'on' });
    await translate(id, 'it', { title: 'Tavole delle maree', body: '<p>La marea sale</p>' });
    await translate(id, 'de', { description: 'Gezeitenkalender' });
    await translate(other, 'fr', { title: 'Noeuds' });
    assert.deepEqual(await found('/documents?q=marea'), [], 'q alone searches the objects\' own fields (BEdita)');
    assert.deepEqual(await found('/documents?q=marea&filter[search_translations]=true'), [id], 'Italian words find the object');
    assert.deepEqual(await found('/objects?filter[query]=gezeitenkalender&filter[search_translations]=1'), [id], 'German words too, on /objects');
    assert.deepEqual(await found('/documents?q=almanac&filter[search_translations]=true'), [id], "the object's own words still match");
    assert.deepEqual(await found('/documents?q=marea&filter[search_translations]=false'), [], 'false leaves translations out');
    // Ranked like a lang search: one row per object even when several translations match.
    await translate(id, 'es', { title: 'Marea' });
    const ranked = await s.request('GET', '/documents?q=marea&filter[search_translations]=true');
    assert.deepEqual(ranked.body.data.map((x: { id: string }) => x.id), [id], 'one row for the object');
    assert.equal(ranked.body.meta.pagination.count, 1, 'counted once');
  });

  test("search_translations shows no one an object or a draft translation they could not read", async () => {
    const draftObject = await create('documents', { title: 'Unreleased', status: 'draft' });
    await translate(draftObject, 'it', { title: 'Segretissimo' });
    const published = await create('documents', { title: 'Released', status: 'on' });
    await translate(published, 'fr', { title: 'Brouillonnage' }, 'draft');
    const event = await create('events', { title: 'Regatta', status: 'draft' });
    await translate(event, 'it', { title: 'Regata velocissima' });
    const q = (word: string) => `/objects?q=${word}&filter[search_translations]=true`;
    assert.deepEqual(await found(q('segretissimo')), [], 'anonymous: not a draft object');
    assert.deepEqual(await found(q('segretissimo'), tokens.reader), [draftObject], 'a reader of the type reads drafts');
    assert.deepEqual(await found(q('brouillonnage')), [], 'anonymous: not a draft translation');
    assert.deepEqual(await found(q('brouillonnage'), tokens.reader), [published], 'a reader of the type: its draft translation');
    assert.deepEqual(await found(q('velocissima'), tokens.docsOnly), [], 'no draft event for a role that reads only documents');
    assert.deepEqual(await found(q('velocissima'), tokens.reader), [event], 'the event for a reader of every type');
  });

  test("a type's hidden fields find nothing through their translations", async () => {
    const type = await s.request('POST', '/model/object_types', { token: admin, body: { data: { type: 'object_types', attributes: { name: 'memos', singular: 'memo' } } } });
    assert.equal(type.status, 201, type.text);
    const id = await create('memos', { title: 'Memo', description: 'Open words', status: 'on' });
    await translate(id, 'it', { title: 'Promemoria', description: 'Parolesegrete' });
    assert.deepEqual(await found('/memos?q=parolesegrete&filter[search_translations]=true'), [id], 'found while shown');
    const hide = await s.request('PATCH', `/model/object_types/${type.body.data.id}`, { token: admin, body: { data: { id: type.body.data.id, type: 'object_types', attributes: { hidden: ['description'] } } } });
    assert.equal(hide.status, 200, hide.text);
    assert.deepEqual(await found('/memos?q=parolesegrete&filter[search_translations]=true'), [], 'not found once hidden');
    assert.deepEqual(await found('/memos?q=promemoria&filter[search_translations]=true'), [id], 'a shown field still finds it');
  });

  test('filter[search_translations] without a search, or not true/false, gives 400', async () => {
    expectError(await s.request('GET', '/documents?filter[search_translations]=true'), 400, 'invalid_filter');
    expectError(await s.request('GET', '/documents?q=word&filter[search_translations]=maybe'), 400, 'invalid_filter');
  });
});
