// Deep pages of object lists (issue 48): a page after the first starts after an anchor (the sort
// values of the last row of the page before it, or every few pages below MIN_ANCHOR_SPACING rows,
// kept per list shape until the next write; found ANCHOR_STEP rows per statement) instead of
// skipping every row before it. Whatever the sort (id, created, modified, either
// direction, with a filter), the page size, the reader (anonymous, signed in) and the writes in
// between, every page holds exactly the rows an OFFSET gives (the database's own order, read
// here in one statement). Anchors of a list by id or creation without other filters than its
// members' own columns outlive an edit of content (DataVersion.lists()); every other write that may
// move a member drops them, here or in another process.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startServer, type TestServer } from './helpers/server.js';
import { anchorSpacing, anchorStatistics, ANCHOR_STEP, MIN_ANCHOR_SPACING } from '../src/resources/objects/list.js';
import { connectOutside } from './helpers/outside.js';
import { onPostgres } from './helpers/test-database.js';

const ATOMIC = 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"';

describe('deep pages of object lists', () => {
  let t: TestServer;
  let token: string;
  /** Published documents: more than two steps of anchors, a few in draft and in other languages. */
  const TOTAL = ANCHOR_STEP * 2 + 150;

  before(async () => {
    t = await startServer();
    token = await t.adminToken();
    for (let start = 0; start < TOTAL; start += 100) {
      const operations = Array.from({ length: Math.min(100, TOTAL - start) }, (_, i) => {
        const n = start + i;
        return { op: 'add', data: { type: 'documents', attributes: { title: `Deep ${n}`, status: n % 17 === 0 ? 'draft' : 'on', lang: n % 5 === 0 ? 'it' : 'en' } } };
      });
      const res = await t.request('POST', '/operations', { token, body: { 'atomic:operations': operations }, headers: { 'Content-Type': ATOMIC, Accept: ATOMIC } });
      assert.equal(res.status, 200, res.text);
    }
  });
  after(() => t?.close());

  /** Every id of the list in its order, page by page at `size`, the pages asked in `order`. */
  async function paged(query: string, size: number, pages: number[], auth?: string): Promise<Map<number, string[]>> {
    const out = new Map<number, string[]>();
    for (const page of pages) {
      const res = await t.request('GET', `/documents?${query}&page_size=${size}&page=${page}`, auth ? { token: auth } : {});
      assert.equal(res.status, 200, res.text);
      out.set(page, res.body.data.map((d: { id: string }) => d.id));
    }
    return out;
  }

  /** The whole list in one walk of pages of 100 (the first step has no anchor: plain OFFSET). */
  async function whole(query: string, auth?: string): Promise<string[]> {
    const first = await t.request('GET', `/documents?${query}&page_size=100`, auth ? { token: auth } : {});
    const count = first.body.meta.pagination.count as number;
    const ids: string[] = [];
    for (let page = 1; page <= Math.ceil(count / 100); page++) ids.push(...(await paged(query, 100, [page], auth)).get(page)!);
    assert.equal(ids.length, count, `${query}: every row once`);
    assert.equal(new Set(ids).size, count, `${query}: no row twice`);
    return ids;
  }

  test('every deep page holds what an offset gives, for each anchored sort, asked out of order', async () => {
    for (const [query, auth] of [
      ['sort=-id', undefined],
      ['sort=id', token],
      ['sort=-created', undefined],
      ['sort=modified&filter[lang]=en', undefined],
      ['sort=-modified', token],
    ] as Array<[string, string | undefined]>) {
      const all = await whole(query, auth);
      assert.ok(all.length > ANCHOR_STEP + 100, `${query}: the list runs well past the first anchor (${all.length} rows)`);
      // Page size 7 does not divide the step: pages straddle anchors. Deep pages first, then earlier ones.
      const size = 7;
      const last = Math.ceil(all.length / size);
      const pages = [last, Math.floor(ANCHOR_STEP / size) + 1, last - 1, Math.floor((2 * ANCHOR_STEP) / size), Math.floor((2 * ANCHOR_STEP) / size) + 1, 3, Math.floor(ANCHOR_STEP / size)];
      const got = await paged(query, size, pages, auth);
      for (const page of pages) {
        assert.deepEqual(got.get(page), all.slice((page - 1) * size, page * size), `${query}: page ${page} of ${size}`);
      }
    }
  });

  test('anonymous readers page only what they may see, and a write in between moves the pages with it', async () => {
    const published = await whole('sort=-id');
    const everything = await whole('sort=-id', token);
    assert.ok(everything.length > published.length, 'drafts are in the admin list only');
    // A deep page, then a write that removes rows before it (the anchors are dropped with the write).
    const size = 20;
    const page = Math.floor(ANCHOR_STEP / size) + 10;
    assert.deepEqual((await paged('sort=-id', size, [page])).get(page), published.slice((page - 1) * size, page * size), 'before the write');
    const trashed = published.slice(5, 25);
    for (const id of trashed) assert.equal((await t.request('DELETE', `/documents/${id}`, { token })).status, 204);
    const left = published.filter((id) => !trashed.includes(id));
    assert.deepEqual((await paged('sort=-id', size, [page])).get(page), left.slice((page - 1) * size, page * size), 'after twenty rows before the page went to the trash');
    // A new document goes first in -id order: every deep page moves one on.
    const made = await t.request('POST', '/documents', { token, body: { data: { type: 'documents', attributes: { title: 'Newest', status: 'on' } } } });
    assert.equal(made.status, 201, made.text);
    assert.deepEqual((await paged('sort=-id', size, [page])).get(page), [made.body.data.id, ...left].slice((page - 1) * size, page * size), 'after a create');
  });

  test('deep pages asked at once, before any anchor is known, hold what an offset gives', async () => {
    // The last test's write dropped every anchor: these requests find them, one walk for all.
    const query = 'sort=-created';
    const size = 9;
    const pages = [230, 120, 225, 112, 200, 1, 150, 115, 400];
    const got = new Map<number, string[]>();
    await Promise.all(
      pages.map(async (page) => {
        const res = await t.request('GET', `/documents?${query}&page_size=${size}&page=${page}`);
        assert.equal(res.status, 200, res.text);
        got.set(page, res.body.data.map((d: { id: string }) => d.id));
      }),
    );
    const all = await whole(query);
    assert.ok(all.length > 2 * ANCHOR_STEP, `the list runs past two anchors (${all.length} rows)`);
    for (const page of pages) assert.deepEqual(got.get(page), all.slice((page - 1) * size, page * size), `page ${page} of ${size}`);
  });

  test('a page past the end is empty, a page just at an anchor is whole', async () => {
    const all = await whole('sort=-id');
    const size = 50;
    const atAnchor = ANCHOR_STEP / size + 1;
    const got = await paged('sort=-id', size, [atAnchor, Math.ceil(all.length / size) + 3]);
    assert.deepEqual(got.get(atAnchor), all.slice(ANCHOR_STEP, ANCHOR_STEP + size), 'the page that starts at the first anchor');
    assert.deepEqual(got.get(Math.ceil(all.length / size) + 3), [], 'past the last page');
  });
  test('a walk reads ANCHOR_STEP rows per statement, and finds every page of them at once', async () => {
    const query = 'sort=id&filter[status]=on';
    const all = await whole(query, token);
    // Not 100: whole() has walked that shape already.
    for (const size of [20, 50, 7]) {
      const spacing = anchorSpacing(size);
      assert.equal(spacing % size, 0, `page size ${size}: anchors fall on page boundaries`);
      assert.ok(spacing >= MIN_ANCHOR_SPACING && spacing < MIN_ANCHOR_SPACING + size, `page size ${size}: ${spacing} rows between anchors`);
      const last = Math.ceil(all.length / size);
      const deepest = await deepPagesAt(query, size, [last], token);
      // The last page starts after row (last - 1) × size: the walk read that many rows, ANCHOR_STEP at a time.
      const rows = Math.floor(((last - 1) * size) / spacing) * spacing;
      const batch = spacing * Math.floor(ANCHOR_STEP / spacing);
      assert.equal(deepest.steps, Math.ceil(rows / batch), `page size ${size}: walk statements for the last page`);
      const earlier = await deepPagesAt(query, size, [2, 3, Math.floor(last / 2), last - 1], token);
      assert.equal(earlier.steps, 0, `page size ${size}: the pages before the last one needed no walk of their own`);
      for (const page of [...deepest.pages, ...earlier.pages]) {
        const got = deepest.got.get(page) ?? earlier.got.get(page);
        assert.deepEqual(got, all.slice((page - 1) * size, page * size), `page size ${size}: page ${page}`);
      }
    }
  });

  /** `pages` of `query` at `size`, and the anchor steps it took to answer them. */
  async function deepPagesAt(query: string, size: number, pages: number[], auth?: string) {
    const before = anchorStatistics.steps;
    const got = await paged(query, size, pages, auth);
    return { pages, got, steps: anchorStatistics.steps - before };
  }

  /** A document's attributes changed by the admin (200 expected). */
  async function patch(id: string, attributes: Record<string, unknown>) {
    const res = await t.request('PATCH', `/documents/${id}`, { token, body: { data: { id, type: 'documents', attributes } } });
    assert.equal(res.status, 200, res.text);
  }

  /** Deep pages (past the first and the second anchor) of `query` at `size`, and the anchor steps it took to answer them. */
  async function deepPages(query: string, size: number, auth?: string) {
    return deepPagesAt(query, size, [Math.floor((2 * ANCHOR_STEP) / size) + 2, Math.floor(ANCHOR_STEP / size) + 3], auth);
  }

  /** Each deep page of `deep` against the whole list as read now. */
  async function assertOffsets(query: string, size: number, deep: { pages: number[]; got: Map<number, string[]> }, what: string, auth?: string) {
    const all = await whole(query, auth);
    for (const page of deep.pages) assert.deepEqual(deep.got.get(page), all.slice((page - 1) * size, page * size), `${query}, ${what}: page ${page} of ${size}`);
  }

  test('an edit of content keeps the anchors of a list by id or creation, and its deep pages still hold what an offset gives', async () => {
    for (const [query, auth] of [
      ['sort=-id', undefined],
      ['sort=created&filter[status]=on', token],
    ] as Array<[string, string | undefined]>) {
      const size = 20;
      const first = await deepPages(query, size, auth);
      const listed = (await whole(query, auth))[3];
      await patch(listed, { title: 'Edited, still listed', description: 'A new description', body: '<p>New body</p>' });
      const again = await deepPages(query, size, auth);
      assert.equal(again.steps, 0, `${query}: the anchors were walked again after an edit of content (first walk: ${first.steps} steps)`);
      await assertOffsets(query, size, again, 'after an edit of content', auth);
      assert.equal((await t.request('GET', `/documents/${listed}`)).body.data.attributes.title, 'Edited, still listed');
    }
  });

  test('a list by modification date walks its anchors again after an edit, and its deep pages follow the edit', async () => {
    const query = 'sort=modified';
    const size = 20;
    await deepPages(query, size);
    // The least recently modified document becomes the most recent: every page before the end moves one on.
    const oldest = (await whole(query))[0];
    await patch(oldest, { description: 'Now the newest' });
    const again = await deepPages(query, size);
    assert.ok(again.steps > 0, 'the anchors of a list by modification date outlived an edit');
    await assertOffsets(query, size, again, 'after an edit');
    // Among the last (edits in the same second as this one stay in id order with it).
    assert.ok((await whole(query)).indexOf(oldest) > 2 * ANCHOR_STEP, 'the edited document did not move to the end of the list');
  });

  test('every write that moves a member of a list drops its anchors: status, publication window, object permission, trash, restore, create', async () => {
    const query = 'sort=-id';
    const size = 20;
    const role = await t.request('POST', '/roles', { token, body: { data: { type: 'roles', attributes: { name: 'deep_readers' } } } });
    assert.equal(role.status, 201, role.text);
    const listed = async (k: number) => (await whole(query))[k];
    let drafted = '';
    const writes: Array<[string, () => Promise<void>]> = [
      ['a status taken off', async () => patch((drafted = await listed(2)), { status: 'draft' })],
      ['a publication window closed', async () => patch(await listed(4), { publish_end: '2001-01-01T00:00:00Z' })],
      [
        'an object permission',
        async () => {
          const res = await t.request('POST', '/object_permissions', { token, body: { data: { type: 'object_permissions', attributes: { object_id: Number(await listed(6)), role_id: Number(role.body.data.id) } } } });
          assert.equal(res.status, 201, res.text);
        },
      ],
      ['a status put back on', async () => patch(drafted, { status: 'on' })],
      ['a document trashed', async () => assert.equal((await t.request('DELETE', `/documents/${await listed(8)}`, { token })).status, 204)],
      [
        'a document restored',
        async () => {
          const trashed = (await t.request('GET', '/trash?page_size=1', { token })).body.data[0].id as string;
          assert.equal((await t.request('PATCH', `/trash/${trashed}`, { token, body: { data: { id: trashed, type: 'documents' } } })).status, 204);
        },
      ],
      [
        'a document created',
        async () => {
          const made = await t.request('POST', '/documents', { token, body: { data: { type: 'documents', attributes: { title: 'Deep newest', status: 'on' } } } });
          assert.equal(made.status, 201, made.text);
        },
      ],
    ];
    for (const [what, write] of writes) {
      const before = (await deepPages(query, size)).got;
      await write();
      const after = await deepPages(query, size);
      await assertOffsets(query, size, after, `after ${what}`);
      assert.notDeepEqual(after.got, before, `${what}: the deep pages did not move`);
    }
  });

  test("another process's writes: a status changed moves the deep pages, a content edit leaves PostgreSQL's anchors", async () => {
    const outside = await connectOutside(t);
    try {
      const query = 'sort=-id';
      const size = 20;
      const target = Number((await whole(query))[1]);
      await deepPages(query, size);
      await outside.run(`update objects set status = 'off' where id = ?`, [target]);
      const moved = await deepPages(query, size);
      await assertOffsets(query, size, moved, "after another process's status change");
      assert.ok(!(await whole(query)).includes(String(target)), 'the document switched off elsewhere is still listed');
      await outside.run(`update objects set description = 'Edited elsewhere' where id = ?`, [Number((await whole(query))[1])]);
      const edited = await deepPages(query, size);
      // SQLite sees only that another connection committed (its data_version): every cached list goes.
      if (onPostgres) assert.equal(edited.steps, 0, "another instance's edit of content dropped the anchors");
      await assertOffsets(query, size, edited, "after another process's edit of content");
    } finally {
      await outside.close();
    }
  });
});
