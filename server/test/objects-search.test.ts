// Full-text search (q / filter[query]) reads the same on every engine: SQLite's FTS5 and
// PostgreSQL's text search (npm test runs this file on both). Words are split at punctuation,
// case and accents do not matter, every word must match, the last one as a prefix, and a match
// in the title ranks above one in the description, which ranks above one in the body.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fs from 'node:fs';
import path from 'node:path';
import { createServer } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { SEARCH_WINDOW } from '../src/resources/objects/list.js';
import { ADMIN, sameData, startServer, type TestServer } from './helpers/server.js';
import { onPostgres } from './helpers/test-database.js';

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
    assert.deepEqual((await found('ma')).sort(), [both, one].sort(), 'a last word of two letters');
    assert.deepEqual(await found('marmalade ora'), [both], 'of three letters');
    assert.deepEqual(await found('marmalade or'), [both]);
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

  test("a ranked search's pages count and rank alike whether its count is held or not, asked in any order", async () => {
    const ids = [
      await create({ title: 'Pistachio ice cream' }),
      await create({ title: 'Shelling', description: 'pistachio nuts, salted' }),
      await create({ title: 'Baklava', body: 'walnuts or pistachio between the layers' }),
      await create({ title: 'Pistachio pistachio', body: 'pistachio' }),
      await create({ title: 'Green', description: 'pistachio green', body: 'a colour' }),
      await create({ title: 'Cannoli', body: 'pistachio crumbs on both ends, pistachio cream' }),
      await create({ title: 'Gelato', description: 'pistachio di Bronte' }),
    ];
    const draft = await create({ title: 'Pistachio cake', status: 'draft' });
    const trashed = await create({ title: 'Pistachio biscotti' });
    assert.equal((await s.request('DELETE', `/documents/${trashed}`, { token: admin })).status, 204);
    const other = await create({ title: 'Unrelated' });
    let edits = 0;
    // A write drops whatever the server holds: the next page counts anew.
    const write = async () => {
      const res = await s.request('PATCH', `/documents/${other}`, { token: admin, body: { data: { id: other, type: 'documents', attributes: { description: `edit ${++edits}` } } } });
      assert.equal(res.status, 200, res.text);
    };
    const page = async (n: number, token?: string, size = 2, q = 'pistachio') => {
      const res = await s.request('GET', `/objects?q=${q}&page_size=${size}&page=${n}`, { token });
      assert.equal(res.status, 200, res.text);
      return { ids: res.body.data.map((d: { id: string }) => d.id) as string[], count: res.body.meta.pagination.count as number, pages: res.body.meta.pagination.page_count as number };
    };
    const whole = await page(1, undefined, 100);
    assert.equal(whole.count, 7);
    assert.deepEqual([...whole.ids].sort(), [...ids].sort(), 'the draft (anonymous) and the trashed object are left out');
    assert.equal(whole.ids[0], ids[3], 'the title with the word twice and the body with it ranks first');
    for (const held of [false, true]) {
      for (const n of [3, 1, 4, 2, 5]) {
        if (!held) await write();
        const got = await page(n);
        assert.deepEqual(got.ids, whole.ids.slice((n - 1) * 2, n * 2), `page ${n}, count ${held ? 'held' : 'not held'}`);
        assert.equal(got.count, 7, `page ${n}`);
        assert.equal(got.pages, 4);
      }
    }
    // An editor reads drafts too: a count of its own, the draft ranked among the rest.
    await write();
    const signedIn = await page(4, admin);
    assert.equal(signedIn.count, 8);
    const all = await page(1, admin, 100);
    assert.ok(all.ids.includes(draft));
    assert.deepEqual(signedIn.ids, all.ids.slice(6, 8));
    await write();
    assert.deepEqual(await page(1, undefined, 5, 'pistachiox'), { ids: [], count: 0, pages: 1 }, 'a word nobody wrote');
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

  test('a word with an underscore finds what holds it; never an error', async () => {
    const id = await create({ title: 'Naming', body: 'prefer snake_case identifiers' });
    assert.deepEqual(await found('snake_case'), [id]);
    assert.deepEqual(await found('snake_cas'), [id]);
    assert.deepEqual(await found('_ __ snake_'), [id]);
  });

  test("a ranked page shows each match's folders as a read of the object does: a published folder to everyone, a draft folder to its editors only", async () => {
    const shelf = await create({ title: 'Open shelf' }, 'folders');
    const back = await create({ title: 'Back room', status: 'draft' }, 'folders');
    const placed = await create({ title: 'Quokka census' });
    const loose = await create({ title: 'Quokka sightings' });
    for (const folder of [shelf, back]) {
      const res = await s.request('POST', `/folders/${folder}/relationships/children`, { token: admin, body: { data: [{ type: 'documents', id: placed }] } });
      assert.equal(res.status, 200, res.text);
    }
    const parentsIn = async (query: string, token?: string) => {
      const res = await s.request('GET', `/objects?${query}`, { token });
      assert.equal(res.status, 200, res.text);
      return Object.fromEntries(res.body.data.map((d: { id: string; relationships: { parents?: { data?: Array<{ id: string }> } } }) => [d.id, (d.relationships.parents?.data ?? []).map((p) => p.id).sort()]));
    };
    const read = async (id: string, token?: string) => ((await s.request('GET', `/documents/${id}`, { token })).body.data.relationships.parents.data as Array<{ id: string }>).map((p) => p.id).sort();
    // Whole, a page at a time (ranked: the second page read by its ids), and sorted.
    const pages = async (token?: string) => ({ ...(await parentsIn('q=quokka&page_size=1', token)), ...(await parentsIn('q=quokka&page_size=1&page=2', token)) });
    for (const [token, who] of [[undefined, 'anonymous'], [admin, 'admin']] as const) {
      const expected = { [placed]: token ? [back, shelf].sort() : [shelf], [loose]: [] };
      assert.deepEqual(await parentsIn('q=quokka', token), expected, `${who}, ranked`);
      assert.deepEqual(await pages(token), expected, `${who}, a page at a time`);
      assert.deepEqual(await parentsIn('q=quokka&sort=-id', token), expected, `${who}, sorted`);
    }
    assert.deepEqual(await read(placed), [shelf], 'a read by id shows the same');
    assert.deepEqual(await read(placed, admin), [back, shelf].sort());
    // The folder published: shown to everyone at once (the page read after the write, not kept from before).
    const published = await s.request('PATCH', `/folders/${back}`, { token: admin, body: { data: { id: back, type: 'folders', attributes: { status: 'on' } } } });
    assert.equal(published.status, 200, published.text);
    assert.deepEqual((await parentsIn('q=quokka'))[placed], [back, shelf].sort());
  });
});

// A search ranked by relevance (no sort) ranks the newest SEARCH_WINDOW of the matches the reader
// sees, after every filter; a sort lists and counts every match (decisions, "A ranked search ranks
// its newest 1,000 matches").
describe('the search window: a ranked search ranks its newest matches', () => {
  const ATOMIC = 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"';
  let s: TestServer;
  let admin: string;
  const events: string[] = [];
  const oldTitles: string[] = [];
  const bodies: string[] = [];
  const newTitles: string[] = [];
  let draft = '';
  const add = async (items: Array<{ type?: string; attributes: Record<string, unknown> }>) => {
    const ids: string[] = [];
    for (let start = 0; start < items.length; start += 100) {
      const operations = items.slice(start, start + 100).map((it) => ({ op: 'add', data: { type: it.type ?? 'documents', attributes: { status: 'on', ...it.attributes } } }));
      const res = await s.request('POST', '/operations', { token: admin, body: { 'atomic:operations': operations }, headers: { 'Content-Type': ATOMIC, Accept: ATOMIC } });
      assert.equal(res.status, 200, res.text);
      ids.push(...res.body['atomic:results'].map((r: { data: { id: string } }) => r.data.id));
    }
    return ids;
  };
  const list = async (query: string, token?: string) => {
    const res = await s.request('GET', `/objects?${query}`, { token });
    assert.equal(res.status, 200, res.text);
    return { ids: res.body.data.map((d: { id: string }) => d.id) as string[], pagination: res.body.meta.pagination, search: res.body.meta.search };
  };
  const sorted = (ids: string[]) => [...ids].sort((a, b) => Number(a) - Number(b));

  before(async () => {
    s = await startServer();
    admin = await s.adminToken();
    // Oldest first: three events and four documents with the word in their titles (the best matches).
    events.push(...(await add(Array.from({ length: 3 }, (_, i) => ({ type: 'events', attributes: { title: `Walrus colony ${i}` } })))));
    oldTitles.push(...(await add(Array.from({ length: 4 }, (_, i) => ({ attributes: { title: `Walrus walrus ${i}` } })))));
    // Then more than a window of documents with the word in their bodies; two newer ones in their titles, a draft among them.
    bodies.push(...(await add(Array.from({ length: SEARCH_WINDOW + 10 }, (_, i) => ({ attributes: { title: `Ice floe ${i}`, body: 'one walrus on the ice' } })))));
    newTitles.push(...(await add([{ attributes: { title: 'Walrus in the title' } }, { attributes: { title: 'A walrus, again in the title' } }])));
    [draft] = await add([{ attributes: { title: 'Walrus walrus draft', status: 'draft' } }]);
    bodies.push(...(await add(Array.from({ length: 5 }, (_, i) => ({ attributes: { title: `Late floe ${i}`, body: 'a late walrus' } })))));
  });
  after(() => s?.close());

  test('its pages are the newest matches in order of relevance, their count the window, meta.search says more exist', async () => {
    const visible = sorted([...events, ...oldTitles, ...bodies, ...newTitles]);
    const newest = visible.slice(-SEARCH_WINDOW);
    const first = await list('q=walrus&page_size=100');
    assert.equal(first.pagination.count, SEARCH_WINDOW);
    assert.equal(first.pagination.page_count, SEARCH_WINDOW / 100);
    assert.deepEqual(first.search, { ranked: SEARCH_WINDOW, complete: false });
    assert.deepEqual(first.ids.slice(0, 2), newTitles, 'the newer titles rank first');
    // Every page, asked from the last: the window exactly, each match once.
    const seen: string[] = [];
    for (let n = SEARCH_WINDOW / 100; n >= 1; n--) {
      const page = await list(`q=walrus&page_size=100&page=${n}`);
      assert.equal(page.pagination.count, SEARCH_WINDOW, `page ${n}`);
      seen.push(...page.ids);
    }
    assert.equal(new Set(seen).size, SEARCH_WINDOW);
    assert.deepEqual(sorted(seen), newest);
    assert.deepEqual((await list(`q=walrus&page_size=100&page=${SEARCH_WINDOW / 100 + 1}`)).ids, [], 'past the window: an empty page');
    for (const old of [...oldTitles, ...events]) assert.ok(!seen.includes(old), 'older matches are left out of the ranking');
    assert.ok(!seen.includes(draft), 'a draft is not for anonymous readers');
  });

  test('a sort lists and counts every match; a filter narrows before the window', async () => {
    const every = await list('q=walrus&sort=-id&page_size=100');
    assert.equal(every.pagination.count, events.length + oldTitles.length + bodies.length + newTitles.length);
    assert.equal(every.search, undefined, 'a sorted search has no window');
    const lastPage = await list(`q=walrus&sort=-id&page_size=100&page=${every.pagination.page_count}`);
    assert.deepEqual(lastPage.ids.slice(-3), [...events].reverse(), 'the oldest matches are on its last page');
    for (const query of ['q=walrus&filter[type]=events', 'filter[query]=walrus&filter[type][]=events']) {
      const found = await list(query);
      assert.deepEqual(sorted(found.ids), events, query);
      assert.equal(found.pagination.count, 3);
      assert.deepEqual(found.search, { ranked: 3, complete: true });
    }
    const res = await s.request('GET', '/events?q=walrus');
    assert.deepEqual(sorted(res.body.data.map((d: { id: string }) => d.id)), events);
    const rare = await list('q=colony');
    assert.deepEqual(rare.search, { ranked: 3, complete: true });
  });

  test("searches of other words share the list's statements, never their answers: counts, ranked pages and deep sorted pages are each word's own", async () => {
    const walrus = sorted([...events, ...oldTitles, ...bodies, ...newTitles]).reverse();
    const floe = sorted(bodies).reverse();
    const late = bodies.slice(-5).reverse();
    const expect = { walrus, floe, late } as const;
    // Deep pages (found from anchors) of each word in turn, and back: a word's anchors are its own.
    for (const [word, page] of [['floe', 40], ['walrus', 40], ['late', 1], ['floe', 45], ['walrus', 51], ['floe', 2]] as const) {
      const got = await list(`q=${word}&sort=-id&page_size=20&page=${page}`);
      assert.equal(got.pagination.count, expect[word].length, `${word} counted`);
      assert.deepEqual(got.ids, expect[word].slice((page - 1) * 20, page * 20), `${word}, page ${page}`);
    }
    // Ranked: the words' windows, asked in turns.
    for (const word of ['late', 'walrus', 'floe', 'late'] as const) {
      const got = await list(`q=${word}&page_size=100`);
      assert.equal(got.pagination.count, Math.min(expect[word].length, SEARCH_WINDOW), word);
      for (const id of got.ids) assert.ok(expect[word].includes(id), `${word} found ${id}`);
    }
    assert.deepEqual(sorted((await list('q=late&page_size=100')).ids), sorted(late));
  });

  test('a reader who sees drafts has them in the window, the count held or not', async () => {
    const page3 = await list('q=walrus&page_size=100&page=3', admin);
    const page1 = await list('q=walrus&page_size=100', admin);
    assert.equal(page1.ids[0], draft, "the draft's title ranks first for an admin");
    assert.equal(page1.pagination.count, SEARCH_WINDOW);
    assert.deepEqual(page1.search, { ranked: SEARCH_WINDOW, complete: false });
    assert.equal(page3.pagination.count, SEARCH_WINDOW);
    const all = new Set<string>();
    for (let n = 1; n <= SEARCH_WINDOW / 100; n++) for (const id of (await list(`q=walrus&page_size=100&page=${n}`, admin)).ids) all.add(id);
    assert.equal(all.size, SEARCH_WINDOW);
    assert.ok(all.has(draft));
    assert.ok(page3.ids.every((id) => all.has(id)), 'the page asked before the count was held is one of the same window');
    const newest = sorted([...events, ...oldTitles, ...bodies, ...newTitles, draft]).slice(-SEARCH_WINDOW);
    assert.deepEqual(sorted([...all]), newest);
  });

  test('a search with a language ranks the newest matches of the objects and of their translations together, each object once', async () => {
    const translate = async (objectId: string, title: string, status = 'on') => {
      const res = await s.request('POST', '/translations', { token: admin, body: { data: { type: 'translations', attributes: { object_id: Number(objectId), lang: 'it', status, translated_fields: { title } } } } });
      assert.equal(res.status, 201, res.text);
    };
    // The newest objects: matched only by their Italian translations (one a draft translation).
    const onlyTranslated = await add([{ attributes: { title: 'Seal rock' } }, { attributes: { title: 'Seal bay' } }]);
    const [draftTranslated] = await add([{ attributes: { title: 'Seal cove' } }]);
    for (const id of onlyTranslated) await translate(id, 'Un walrus sullo scoglio');
    await translate(draftTranslated, 'Un walrus nella baia', 'draft');
    // Objects matched by their own text and by a translation: once each.
    await translate(events[0], 'Colonia di walrus');
    await translate(bodies.at(-1)!, 'Un walrus tardivo');
    const matched = sorted([...events, ...oldTitles, ...bodies, ...newTitles, ...onlyTranslated]);
    for (const lang of ['lang=it', 'filter[search_translations]=1']) {
      const seen: string[] = [];
      for (let n = SEARCH_WINDOW / 100; n >= 1; n--) {
        const page = await list(`q=walrus&${lang}&page_size=100&page=${n}`);
        assert.equal(page.pagination.count, SEARCH_WINDOW, `${lang} page ${n}`);
        assert.deepEqual(page.search, { ranked: SEARCH_WINDOW, complete: false });
        seen.push(...page.ids);
      }
      assert.equal(new Set(seen).size, SEARCH_WINDOW, `${lang}: each object once`);
      assert.deepEqual(sorted(seen), matched.slice(-SEARCH_WINDOW), `${lang}: the newest matches of both`);
      assert.ok(onlyTranslated.every((id) => seen.includes(id)) && !seen.includes(draftTranslated), `${lang}: translated ones in, a draft translation not for anonymous readers`);
      // An admin's window holds the draft translation's object too (and the draft object).
      const adminFirst = await list(`q=walrus&${lang}&page_size=100&sort=-id`, admin);
      assert.equal(adminFirst.ids[0], draftTranslated, `${lang}: the admin finds the draft translation`);
      // Sorted: every match of both, each once.
      const every = await list(`q=walrus&${lang}&sort=-id&page_size=100`);
      assert.equal(every.pagination.count, matched.length, `${lang}: sorted, every match`);
      const few = await list(`q=scoglio&${lang}`);
      assert.deepEqual(sorted(few.ids), onlyTranslated);
      assert.deepEqual(few.search, { ranked: 2, complete: true });
    }
  });
});

// SQLite's index of objects keeps word positions (migration 0152; bm25 ranks from them), no copy
// of the text (migration 0153; only its rowids and ranks are read) and entries for the words' first
// two and three letters (migration 0154; a short last word reads one list): a database whose index
// was made in an older form has it made again from the objects' rows at its first start, text
// properties in and hidden fields out, as the triggers fill it, and finds and ranks what it found
// before. Both indexes merge 8 segments at a time.
const OLDER_INDEXES = [
  // Migrations 0127-0151: no positions, a copy of the text; 0152-0154 not yet run.
  { form: 'without positions (before 0152)', columns: 'detail = column', copy: true, migrations: ['0152-search-index-with-positions', '0153-search-index-without-copy', '0154-search-index-prefixes'] },
  // Migration 0152: positions, a copy of the text; 0153 and 0154 not yet run.
  { form: 'with its own copy of the text (before 0153)', columns: '', copy: true, migrations: ['0153-search-index-without-copy', '0154-search-index-prefixes'] },
  // Migration 0153: positions, no copy, no prefix entries; 0154 not yet run.
  { form: 'without prefix entries (before 0154)', columns: "content = '', contentless_delete = 1", copy: false, migrations: ['0154-search-index-prefixes'] },
] as const;

describe('the full-text index made again in its current form (SQLite, migrations 0152-0154)', { skip: onPostgres && 'SQLite full-text index' }, () => {
  for (const older of OLDER_INDEXES) test(`an index ${older.form} is rebuilt at the start: every object is found and ranked as before, hidden fields left out, writes followed`, async () => {
    const first = await startServer();
    const dataDir = first.dataDir;
    let second: Awaited<ReturnType<typeof createServer>> | undefined;
    const Database = (await import('better-sqlite3')).default;
    const index = () => {
      const check = new Database(path.join(dataDir, 'folio.sqlite'), { readonly: true });
      try {
        const made = check.prepare(`select sql from sqlite_schema where name = 'objects_fts'`).get() as { sql: string };
        const automerge = (table: string) => (check.prepare(`select v from ${table}_config where k = 'automerge'`).get() as { v: number } | undefined)?.v;
        const copy = check.prepare(`select count(*) as n from sqlite_schema where name = 'objects_fts_content'`).get() as { n: number };
        return { sql: made.sql, automerge: automerge('objects_fts'), translationsAutomerge: automerge('translations_fts'), copy: copy.n === 1 };
      } finally {
        check.close();
      }
    };
    /** The rowids the index itself holds for `word` (what a search joins with the objects' rows). */
    const indexed = (word: string) => {
      const check = new Database(path.join(dataDir, 'folio.sqlite'), { readonly: true });
      try {
        return (check.prepare(`select rowid from objects_fts where objects_fts match ? order by rowid`).pluck().all(`"${word}"`) as number[]).map(String);
      } finally {
        check.close();
      }
    };
    try {
      const admin = await first.adminToken();
      // A new database's index has positions, no copy of the text, and merges 8 segments at a time.
      assert.deepEqual(index().automerge, 8);
      assert.equal(index().translationsAutomerge, 8);
      assert.doesNotMatch(index().sql, /detail/);
      assert.match(index().sql, /content = ''/);
      assert.match(index().sql, /prefix = '2 3'/);
      assert.equal(index().copy, false);
      const prop = await first.request('POST', '/model/properties', { token: admin, body: { data: { type: 'properties', attributes: { name: 'grape', property_type_name: 'string', object_type_name: 'documents' } } } });
      assert.equal(prop.status, 201, prop.text);
      const notes = await first.request('POST', '/model/object_types', { token: admin, body: { data: { type: 'object_types', attributes: { name: 'notes', singular: 'note', hidden: ['body'] } } } });
      assert.equal(notes.status, 201, notes.text);
      const ids: string[] = [];
      for (const [type, attributes] of [
        ['documents', { title: 'Barolo', body: 'from Piedmont hills' }],
        ['documents', { title: 'Chianti', description: 'Tuscan red', grape: 'Sangiovese' }],
        ['documents', { title: 'Table wine', body: 'not Barolo at all' }],
        ['notes', { title: 'Cellar note', description: 'kept cool' }],
        ['documents', { title: 'Corked bottle', body: 'poured away in Piedmont' }],
      ] as const) {
        const res = await first.request('POST', `/${type}`, { token: admin, body: { data: { type, attributes: { status: 'on', ...attributes } } } });
        assert.equal(res.status, 201, res.text);
        ids.push(res.body.data.id);
      }
      // A body written to the notes' row directly (a type that hides it never stores one through the API).
      await first.server.close();
      const raw = new Database(path.join(dataDir, 'folio.sqlite'));
      raw.prepare(`update objects set body = 'secret vintage' where id = ?`).run(Number(ids[3]));
      // As a database of the versions before has it: the index in the older form, the migrations after it not yet run.
      raw.exec(`drop table objects_fts;
        create virtual table objects_fts using fts5(title, description, body, props, tokenize = 'unicode61 remove_diacritics 2'${older.columns ? `, ${older.columns}` : ''});
        insert into objects_fts(rowid, title, description, body, props) select id, title, description, body, null from objects;
        insert into translations_fts(translations_fts, rank) values ('automerge', 4);`);
      for (const name of older.migrations) raw.prepare('delete from kysely_migration where name = ?').run(name);
      raw.close();
      assert.equal(index().copy, older.copy);
      assert.doesNotMatch(index().sql, /prefix/);
      assert.equal(index().automerge, undefined);
      assert.equal(index().translationsAutomerge, 4);

      second = await createServer(loadConfig({ ...sameData(first), FOLIO_LOGIN_LIMIT: '0' }, { logRequests: false }), { log: () => {} });
      const { url } = await second.listen(0, '127.0.0.1');
      const after = index();
      assert.doesNotMatch(after.sql, /detail/, 'made again with positions');
      assert.equal(after.copy, false, 'made again without a copy of the text');
      assert.match(after.sql, /prefix = '2 3'/, 'made again with the prefix entries');
      assert.equal(after.automerge, 8);
      assert.equal(after.translationsAutomerge, 8);
      const found = async (q: string) => ((await (await fetch(`${url}/objects?q=${encodeURIComponent(q)}`)).json()) as { data: Array<{ id: string }> }).data.map((d) => d.id);
      assert.deepEqual((await found('piedmont')).sort(), [ids[0], ids[4]].sort());
      assert.deepEqual(await found('tuscan'), [ids[1]]);
      assert.deepEqual(await found('sangiov'), [ids[1]], 'text properties are in the index made again');
      assert.deepEqual((await found('pi')).sort(), [ids[0], ids[4]].sort(), 'a two-letter last word (its prefix entries)');
      assert.deepEqual(await found('tus'), [ids[1]], 'a three-letter last word');
      assert.deepEqual(await found('barolo'), [ids[0], ids[2]], 'ranked: the title match first');
      assert.deepEqual(await found('cellar'), [ids[3]]);
      assert.deepEqual(await found('vintage'), [], 'a field the type hides is left out, as the triggers leave it out');
      assert.deepEqual(indexed('vintage'), []);
      // The triggers follow writes into the new table: a changed object's old words go, a deleted
      // object leaves the index itself (not only the answers).
      const login = (await (await fetch(`${url}/auth`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(ADMIN) })).json()) as { meta: { jwt: string } };
      const call = (method: string, p: string, body?: unknown) => fetch(`${url}${p}`, { method, headers: { 'Content-Type': 'application/vnd.api+json', Authorization: `Bearer ${login.meta.jwt}` }, ...(body ? { body: JSON.stringify(body) } : {}) });
      const changed = await call('PATCH', `/documents/${ids[0]}`, { data: { id: ids[0], type: 'documents', attributes: { body: 'from the Langhe' } } });
      assert.equal(changed.status, 200, await changed.text());
      assert.deepEqual(await found('piedmont'), [ids[4]]);
      assert.deepEqual(await found('langhe'), [ids[0]]);
      assert.deepEqual(await found('barolo'), [ids[0], ids[2]], 'the changed object keeps its title');
      assert.deepEqual(indexed('piedmont'), [ids[4]]);
      assert.equal((await call('DELETE', `/documents/${ids[4]}`)).status, 204);
      assert.equal((await call('DELETE', `/trash/${ids[4]}`)).status, 204);
      assert.deepEqual(await found('corked'), []);
      assert.deepEqual(indexed('corked'), [], 'a deleted object leaves the index');
      assert.deepEqual(indexed('piedmont'), []);
      const again = await call('POST', '/documents', { data: { type: 'documents', attributes: { status: 'on', title: 'Piedmont again' } } });
      const againText = await again.text();
      assert.equal(again.status, 201, againText);
      const againId = (JSON.parse(againText) as { data: { id: string } }).data.id;
      assert.deepEqual(await found('piedmont'), [againId]);
      await second.close();
      second = undefined;
      // Made once: a second start leaves the index as it is.
      const rowsBefore = (() => { const c = new Database(path.join(dataDir, 'folio.sqlite'), { readonly: true }); try { return c.prepare('select count(*) as n from objects_fts_data').get(); } finally { c.close(); } })();
      second = await createServer(loadConfig({ ...sameData(first), FOLIO_LOGIN_LIMIT: '0' }, { logRequests: false }), { log: () => {} });
      const c = new Database(path.join(dataDir, 'folio.sqlite'), { readonly: true });
      assert.deepEqual(c.prepare('select count(*) as n from objects_fts_data').get(), rowsBefore);
      c.close();
    } finally {
      await second?.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
