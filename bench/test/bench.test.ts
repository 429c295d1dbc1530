// The benchmark's own pieces on a tiny data set: the seed keeps every family's invariants (the
// API sees what it wrote) and the report prints every scenario.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startServer, type TestServer } from '../../server/test/helpers/server.js';
import { SEED_TEXT, textSource } from '../lib/text.js';
import { ALTERNATING_ANONYMOUS, ALTERNATING_REFERENCE, ALTERNATING_SIGNED_IN, alternatingReads, IN_TURNS_DOCUMENTS, checkTargets, chooseScenarios, compareWithReference, formatReport, missedTargets, REFERENCE_LIST_PAGES, searchWords, UNCACHED_SEARCH, uncachedScenarios, warmUpRequests, warmUpSearches, WARM_UP_PAGES, WARM_UP_SEARCHES, WARM_UP_READS, WARM_UP_WRITES, type BenchReport, type ScenarioResult } from '../lib/scenarios.js';
import { seed, type SeedResult } from '../lib/seed.js';

describe('benchmark seed and report', () => {
  let t: TestServer;
  let seeded: SeedResult;
  before(async () => {
    t = await startServer();
    seeded = await seed(t.url, await t.adminToken(), { documents: 50, others: 10, folders: 12, folderItems: 10, relations: 10, images: 1 });
  });
  after(() => t.close());

  test('seeded objects, folder children, search and images are visible through the API', async () => {
    const all = await t.request('GET', '/objects?filter[type]=documents,events,news', { token: await t.adminToken() });
    assert.equal(all.body.meta.pagination.count, 60);
    const children = await t.request('GET', `/folders/${seeded.bigFolderId}/children`);
    assert.equal(children.body.meta.pagination.count, 10);
    const folders = await t.request('GET', '/folders', { token: await t.adminToken() });
    assert.equal(folders.body.meta.pagination.count, 12);
    const title = (await t.request('GET', `/documents/${seeded.documentIds[0]}`)).body.data.attributes.title as string;
    const search = await t.request('GET', `/objects?filter[query]=${encodeURIComponent(title.split(' ')[0])}`);
    assert.ok(search.body.meta.pagination.count >= 1);
    assert.equal(seeded.imageIds.length, 1);
    assert.equal((await t.request('GET', `/images/${seeded.imageIds[0]}`)).body.data.attributes.status, 'on');
  });

  test('seeded relations are readable from the related side', async () => {
    const rows = await t.server.ctx.db.selectFrom('object_relations').select(['left_id', 'right_id']).execute();
    assert.ok(rows.length >= 1);
    const res = await t.request('GET', `/objects/${rows[0].left_id}/see_also`, { token: await t.adminToken() });
    assert.ok(res.body.data.some((d: { id: string }) => d.id === String(rows[0].right_id)));
  });

  test('the report table has a line per scenario with its ratio', () => {
    const figures = { requests: 10, rps: 100, p50: 1, p99: 2, errors: 0, non2xx: 0, peakRssMb: 50 };
    const report: BenchReport = {
      startedAt: 'now',
      mode: 'quick',
      seed: { sizes: seeded.sizes, bigFolderId: 1, searchWord: 'x', seconds: 1, searchMatches: 3 },
      seedRssMb: 100,
      idleRssMb: 80,
      startToFirstAnswerMs: 500,
      startInProcessMs: 400,
      deepPage: 500,
      page500VsPage1: 1.2,
      scenarios: [
        { name: 'ref GET /documents/{id}', target: 'reference', ...figures, ratio: null },
        { name: 'GET /documents/{id}', target: 'folio', ...figures, rps: 70, ratio: 0.7 },
      ],
    };
    const text = formatReport(report);
    assert.match(text, /GET \/documents\/\{id\}\s+70\s+1\s+2\s+0\s+50 MB\s+70%/);
    assert.match(text, /page=500 vs page=1 cost .*1\.20x/);
  });

  test("a Folio run compared with the reference's runs takes their median (of two, the mean; a dear first run weighs as one), and the ones so far until the others have run", () => {
    const figures = { requests: 10, p50: 1, p99: 2, errors: 0, non2xx: 0, peakRssMb: 50 };
    const before: ScenarioResult = { name: 'ref run 2', target: 'reference', ...figures, rps: 100, cpuUsPerRequest: 60, ratio: null };
    const folio: ScenarioResult = { name: 'uncached', target: 'folio', ...figures, rps: 40, cpuUsPerRequest: 200, ratio: null, comparedTo: ['ref run 2', 'ref run 3'] };
    const results = [before, folio];
    compareWithReference(folio, results);
    assert.equal(folio.refCpuUsPerRequest, 60);
    assert.equal(folio.cpuRatio, 0.3);
    assert.equal(folio.ratio, 0.4);
    results.push({ name: 'ref run 3', target: 'reference', ...figures, rps: 300, cpuUsPerRequest: 100, ratio: null });
    compareWithReference(folio, results);
    assert.equal(folio.refCpuUsPerRequest, 80);
    assert.equal(folio.cpuRatio, 0.4);
    assert.equal(folio.ratio, 0.2);
    // Four runs, the first of them dear: the middle two decide.
    const four: ScenarioResult = { ...folio, comparedTo: ['ref a', 'ref b', 'ref c', 'ref d'] };
    const runs = [105, 76, 78, 78].map((cpu, i): ScenarioResult => ({ name: `ref ${'abcd'[i]}`, target: 'reference', ...figures, rps: 100, cpuUsPerRequest: cpu, ratio: null }));
    compareWithReference(four, [...runs, four]);
    assert.equal(four.refCpuUsPerRequest, 78);
    assert.equal(four.cpuRatio, 0.39);
  });

  test("each uncached read by id is compared with the phase's four reference reads, every other uncached scenario with the reference's runs just before and just after it", () => {
    const list = uncachedScenarios(seeded, { adminToken: 'a', editorToken: 'e', apiKey: 'k' }, 'after restart');
    const folio = list.map((s, i) => [s, i] as const).filter(([s]) => s.target === 'folio' && !s.name.startsWith(UNCACHED_SEARCH));
    assert.equal(folio.length, 6);
    const reads = list.filter((s) => s.target === 'reference' && s.name.startsWith('ref uncached GET')).map((s) => s.name);
    assert.equal(reads.length, 4);
    for (const [s, i] of folio) {
      assert.ok(Array.isArray(s.comparedTo), s.name);
      const byId = s.name.startsWith('uncached GET');
      assert.deepEqual(s.comparedTo, byId ? reads : [list[i - 1].name, list[i + 1].name], s.name);
      const refs = list.filter((r) => (s.comparedTo as string[]).includes(r.name));
      assert.ok(refs.every((r) => r.target === 'reference' && r.spec.path === s.spec.path && r.spec.paths?.length === s.spec.paths?.length), s.name);
    }
    assert.equal(new Set(list.map((s) => s.name)).size, list.length, 'every run has a name of its own');
  });

  test('the uncached search row asks words from the most frequent to the rarest, each once, within 50 ms at p99, compared with nothing', async () => {
    const list = uncachedScenarios(seeded, { adminToken: 'a', editorToken: 'e', apiKey: 'k' }, 'after restart');
    const rows = list.filter((s) => s.name.startsWith(UNCACHED_SEARCH));
    assert.equal(rows.length, 1);
    const [row] = rows;
    assert.equal(row.name, `${UNCACHED_SEARCH} (after restart)`);
    assert.equal(row.target, 'folio');
    assert.equal(row.uncached, true);
    assert.equal(row.p99Target, 50);
    assert.equal(row.comparedTo, undefined);
    assert.equal(row.spec.once, true);
    const words = row.spec.paths!.map((p) => new URL(p, 'http://x').searchParams.get('q')!);
    assert.equal(new Set(words).size, words.length, 'each word once');
    assert.equal(words.length, searchWords().length);
    const text = textSource(SEED_TEXT);
    const ranks = words.map((w) => text.words.indexOf(w)).sort((a, b) => a - b);
    assert.deepEqual([ranks[0], ranks.at(-1)], [0, text.words.length - 1], 'from the most frequent word to the rarest');
    const within = (lo: number, hi: number) => ranks.filter((r) => r >= lo && r < hi).length;
    assert.ok(Math.abs(within(100, 1000) - within(1000, 10_000)) <= 2, 'as many words per tenfold of rank');
    assert.notDeepEqual(words, [...words].sort((a, b) => text.words.indexOf(a) - text.words.indexOf(b)), 'shuffled');
    // Against the seeded server: every search answers, the most frequent word in more documents than the rarest.
    const count = async (w: string) => {
      const res = await t.request('GET', `/objects?q=${encodeURIComponent(w)}`);
      assert.equal(res.status, 200, res.text);
      return res.body.meta.pagination.count as number;
    };
    for (const w of words) await count(w);
    assert.ok((await count(text.wordOfRank(0))) >= 40, 'the most frequent word is in most of the 50 documents');
    assert.ok((await count(text.wordOfRank(0))) > (await count(text.wordOfRank(text.words.length - 1))));
  });

  test("on a big seed the reference's list rows read an even sample of the pages, Folio's every page", () => {
    // 200,000 documents, 10,000 pages (a million shuffled in this process blocked its event loop
    // for seconds, the test server's included, and a kept-alive socket closed under the next test).
    const big = { ...seeded, documentIds: Array.from({ length: 200_000 }, (_, i) => i + 1) };
    const list = uncachedScenarios(big, { adminToken: 'a', editorToken: 'e', apiKey: 'k' }, 'after restart');
    const pagesOf = (s: (typeof list)[number]) => s.spec.paths!.map((p) => Number(new URL(p, 'http://x').searchParams.get('page')));
    const refLists = list.filter((s) => s.target === 'reference' && s.name.includes('list pages'));
    assert.equal(refLists.length, 4);
    for (const s of refLists) {
      const pages = pagesOf(s);
      assert.equal(pages.length, REFERENCE_LIST_PAGES, s.name);
      assert.equal(new Set(pages).size, pages.length, `${s.name}: each page once`);
      const sorted = [...pages].sort((a, b) => a - b);
      assert.deepEqual([sorted[0], sorted.at(-1)], [1, 10_000], `${s.name}: the first and the deepest page`);
      // Evenly spread: every gap between neighbours within one page of the mean gap.
      const gaps = sorted.slice(1).map((p, i) => p - sorted[i]);
      assert.ok(Math.max(...gaps) - Math.min(...gaps) <= 1, `${s.name}: gaps ${Math.min(...gaps)}-${Math.max(...gaps)}`);
      assert.notDeepEqual(pages, sorted, `${s.name}: in an order no cache has seen`);
      assert.match(s.note ?? '', /1000 of the 10000 pages/);
    }
    for (const s of list.filter((x) => x.target === 'folio' && x.name.includes('list pages'))) {
      assert.equal(new Set(pagesOf(s)).size, 10_000, s.name);
      assert.equal(s.note, undefined);
    }
    // The quick seed's lists are small: the reference reads every page, as Folio does.
    const small = uncachedScenarios(seeded, { adminToken: 'a', editorToken: 'e', apiKey: 'k' }, 'after restart').filter((s) => s.name.includes('list pages'));
    assert.ok(small.every((s) => s.note === undefined && s.spec.paths!.length === Math.ceil(seeded.documentIds.length / 20)));
  });

  test("--only keeps the scenarios it names and the reference's runs they are compared with, no other", () => {
    const list = uncachedScenarios(seeded, { adminToken: 'a', editorToken: 'e', apiKey: 'k' }, 'after restart');
    assert.equal(chooseScenarios(list, undefined), list);
    const kept = chooseScenarios(list, ['uncached GET /documents', 'list pages']).map((s) => s.name);
    assert.deepEqual(kept, [
      'ref uncached GET /documents/{id} (after restart)',
      'uncached GET /documents/{id} (after restart)',
      'ref uncached GET /documents/{id}, run 2 (after restart)',
      'ref uncached GET /documents/{id}, run 3 (after restart)',
      'ref uncached GET /documents/{id}, run 4 (after restart)',
      'ref list pages, sort=-id (after restart)',
      'list pages, sort=-id (after restart)',
      'ref list pages, sort=-id, run 2 (after restart)',
      'ref list pages, 1 PATCH in 20 (after restart)',
      'list pages, 1 PATCH in 20 (after restart)',
      'ref list pages, 1 PATCH in 20, run 2 (after restart)',
    ]);
    // A reference run named on its own is kept too.
    assert.deepEqual(chooseScenarios(list, ['ref reads']).map((s) => s.name), ['ref reads, 1 PATCH in 20 (after restart)', 'ref reads, 1 PATCH in 20, run 2 (after restart)']);
  });

  test('targets line up whatever their state, and a missed one makes the run fail', () => {
    const targets = [
      { what: 'idle RSS under 120 MB', figure: '80 MB', met: true },
      { what: 'start to first answer under 1 s', figure: '1500 ms', met: false },
      { what: 'admin UI first load at most 250 kB gzipped JS', figure: '-', met: null },
    ];
    const base = { startedAt: 'now', mode: 'quick', seed: { sizes: seeded.sizes, bigFolderId: 1, searchWord: 'x', seconds: 1, searchMatches: 3 } };
    const report = { ...base, seedRssMb: 1, idleRssMb: 80, startToFirstAnswerMs: 1500, startInProcessMs: 1, deepPage: 2, page500VsPage1: null, scenarios: [], targets } as BenchReport;
    const lines = formatReport(report).split('\n');
    const rows = lines.slice(lines.indexOf('targets:') + 1);
    assert.equal(rows.length, 3);
    const column = rows.map((r) => r.indexOf(targets[rows.indexOf(r)].what));
    assert.deepEqual(new Set(column).size, 1, `the descriptions start in one column:\n${rows.join('\n')}`);
    assert.equal(missedTargets(targets), 1);
    assert.equal(missedTargets(targets.filter((t) => t.met !== false)), 0, 'not measured is not missed');
  });

  test("issue 48's targets: each figure beside its target, anonymous against signed in, the scale against a smaller run, the seed's pace", () => {
    const row = (name: string, cpu: number, extra: Partial<ScenarioResult> = {}): ScenarioResult => ({
      name,
      target: 'folio',
      requests: 100,
      rps: 100,
      p50: 1,
      p99: 2,
      errors: 0,
      non2xx: 0,
      peakRssMb: 50,
      ratio: null,
      cpuUsPerRequest: cpu,
      ...extra,
    });
    const report = {
      startedAt: 'now',
      mode: 'full',
      database: 'sqlite',
      seed: { sizes: { ...seeded.sizes, documents: 1_000_000 }, bigFolderId: 1, searchWord: 'x', seconds: 420, searchMatches: 3 },
      seedRssMb: 1,
      idleRssMb: 80,
      startToFirstAnswerMs: 500,
      startInProcessMs: 1,
      deepPage: 500,
      page500VsPage1: null,
      loadAverage: { start: 0.5, end: 1.5, cores: 2 },
      baseline: { file: 'bench/results/small.json', documents: 20_000, cpuUsPerRequest: { 'uncached GET /documents/{id} (after restart)': 200 } },
      scenarios: [
        row('uncached GET /documents/{id} (after restart)', 320, { cpuRatio: 0.3, cpuTarget: 0.5, refCpuUsPerRequest: 96, machine: { cores: 2, busyCores: 1.4, otherCores: 0.2 } }),
        row('uncached GET signed in (after restart)', 280),
        row('list pages, sort=-id (after restart)', 900, { p99: 61, p99Target: 50 }),
      ],
    } as BenchReport;
    report.targets = checkTargets(report);
    const verdict = (what: RegExp) => {
      const t = report.targets!.find((x) => what.test(x.what));
      assert.ok(t, `a target matching ${what} among:\n${report.targets!.map((x) => x.what).join('\n')}`);
      return t!;
    };
    assert.equal(verdict(/^uncached GET \/documents\/\{id\} \(after restart\): CPU per request at most 2\.0x/).met, false, 'a CPU share of 0.3 misses the target of 0.5');
    assert.equal(verdict(/no more than signed in/).met, false, 'anonymous reads at 320 µs are dearer than signed-in ones at 280');
    assert.equal(verdict(/at 1000000 documents at most 1\.5x its cost at 20000/).figure, '1.60x');
    assert.equal(verdict(/at 1000000 documents at most 1\.5x/).met, false, '320 against 200 µs is 1.6 times');
    assert.equal(verdict(/^list pages, sort=-id \(after restart\): p99 under 50 ms/).met, false, 'a p99 of 61 ms misses 50 ms');
    assert.equal(verdict(/seeding a million/).met, false, 'a million seeded in 420 s is over five minutes');
    const text = formatReport(report);
    assert.match(text, /uncached GET \/documents\/\{id\} \(after restart\).*\s320\s+96\s+0\.30\s+≥ 0\.5\s+1\.4\/2 \(0\.2\)/, `the row shows its CPU, the reference's, the share, the target and the machine:\n${text}`);
    assert.match(text, /1-minute load average 0\.50 as the run started, 1\.50 as it ended/);
    assert.match(text, /seeded at 2381 documents\/s \(a million would take 7\.0 min/);
    assert.match(text, /compared with: bench\/results\/small\.json \(20000 documents\)/);
    // A small seed is not judged on the million's pace.
    const small = checkTargets({ ...report, seed: { ...report.seed, sizes: { ...report.seed.sizes, documents: 20_000 } }, baseline: undefined });
    assert.equal(small.find((t) => /seeding a million/.test(t.what))?.met, null, 'a 20,000-document seed is not judged against the million');
    // Measured in turns too: anonymous against signed in is judged on those.
    const inTurns = checkTargets({ ...report, scenarios: [...report.scenarios, row('uncached GET anonymous, in turns (after restart)', 250), row('uncached GET signed in, in turns (after restart)', 252)] });
    const judged = inTurns.find((t) => /no more than signed in/.test(t.what))!;
    assert.match(judged.what, /measured in turns/);
    assert.equal(judged.figure, '250 / 252 µs');
    assert.equal(judged.met, true);
  });

  test("anonymous, signed-in and the reference's reads in turns: every document once for each kind, in slices one kind after the other, who goes first turning round", () => {
    const slices = alternatingReads(seeded, { adminToken: 'a', editorToken: 'e', apiKey: 'k' }, 'after restart', 4);
    assert.deepEqual(
      slices.map((s) => s.kind),
      ['anonymous', 'signed in', 'reference', 'signed in', 'reference', 'anonymous', 'reference', 'anonymous', 'signed in', 'anonymous', 'signed in', 'reference'],
    );
    for (const kind of ['anonymous', 'signed in', 'reference'] as const) {
      const paths = slices.filter((s) => s.kind === kind).flatMap((s) => s.spec.paths ?? []);
      assert.deepEqual([...paths].sort(), seeded.documentIds.map((id) => `/documents/${id}`).sort(), `${kind}: each document once`);
    }
    assert.ok(slices.every((s) => s.spec.once && (s.kind === 'signed in') === (s.spec.headers.Authorization === 'Bearer e')));
    assert.deepEqual(new Set(slices.map((s) => s.name)), new Set([ALTERNATING_ANONYMOUS, ALTERNATING_SIGNED_IN, ALTERNATING_REFERENCE].map((n) => `${n} (after restart)`)));
    assert.notDeepEqual(slices[0].spec.paths, slices[1].spec.paths, 'each kind in an order of its own');
    assert.notDeepEqual(slices[0].spec.paths, slices[2].spec.paths, 'each kind in an order of its own');
    // A big seed: a sample spread over it, the same documents for every kind.
    const big = alternatingReads({ ...seeded, documentIds: Array.from({ length: 50_000 }, (_, i) => i + 1) }, { adminToken: 'a', editorToken: 'e', apiKey: 'k' }, 'after seeding');
    const sample = (kind: string) => new Set(big.filter((s) => s.kind === kind).flatMap((s) => s.spec.paths ?? []));
    assert.equal(sample('anonymous').size, IN_TURNS_DOCUMENTS);
    assert.deepEqual([...sample('anonymous')].sort(), [...sample('signed in')].sort());
    assert.deepEqual([...sample('anonymous')].sort(), [...sample('reference')].sort());
    assert.ok(sample('anonymous').has('/documents/1') && [...sample('anonymous')].some((p) => Number(p.split('/')[2]) > 45_000), 'spread over the seed');
  });

  test('the warm-up reads every document, every list page and edits documents as the scenarios do, on a big seed a sample spread over it', async () => {
    const token = await t.adminToken();
    const plan = warmUpRequests(seeded, token);
    assert.deepEqual(plan.reads, seeded.documentIds.map((id) => `/documents/${id}`));
    assert.deepEqual(plan.pages, [1, 2, 3].map((p) => `/documents?sort=-id&page_size=20&page=${p}`));
    assert.equal(plan.writes.every, 1);
    assert.equal(plan.writes.requests.length, WARM_UP_WRITES);
    // The edits are answered: a write the warm-up sends changes the document's description.
    const first = plan.writes.requests[0];
    const res = await t.request(plan.writes.method, first.path, { token, body: JSON.parse(first.body) });
    assert.equal(res.status, 200);
    assert.equal(res.body.data.attributes.description, 'Warmed up by the benchmark, 0');
    assert.ok(new Set(plan.writes.requests.map((w) => w.path)).size > 1, 'spread over the documents');
    const big = warmUpRequests({ ...seeded, documentIds: Array.from({ length: 1_000_000 }, (_, i) => i + 1) }, token);
    assert.equal(big.reads.length, WARM_UP_READS);
    assert.equal(big.pages.length, WARM_UP_PAGES);
    const pageNumbers = big.pages.map((p) => Number(new URL(p, 'http://x').searchParams.get('page')));
    assert.equal(pageNumbers[0], 1);
    assert.ok(pageNumbers.at(-1)! > 49_000 && pageNumbers.at(-1)! <= 50_000, 'pages spread to the end of the list');
    assert.equal(new Set(big.writes.requests.map((w) => w.path)).size, WARM_UP_WRITES);
  });

  test('the warm-up searches words the uncached search row never asks, over the same frequency scale', async () => {
    const warm = warmUpSearches();
    assert.equal(warm.length, WARM_UP_SEARCHES);
    assert.equal(new Set(warm).size, WARM_UP_SEARCHES);
    const asked = new Set(searchWords().map((w) => `/objects?q=${encodeURIComponent(w)}`));
    assert.deepEqual(warm.filter((p) => asked.has(p)), []);
    // Frequent words too: a warmed word found in most of the seed's documents.
    const counts = await Promise.all(warm.slice(0, 40).map(async (p) => (await t.request('GET', p)).body.meta.pagination.count as number));
    assert.ok(Math.max(...counts) > seeded.documentIds.length / 2, `counts ${counts.join(', ')}`);
  });

  test('a seed that outlives its access token signs in again and goes on', async () => {
    // Access tokens of one second: the seed's first token expires while it writes.
    const short = await startServer({ FOLIO_ACCESS_TOKEN_TTL: '1' });
    try {
      let renewed = 0;
      const first = await short.adminToken();
      await new Promise((r) => setTimeout(r, 1100));
      const result = await seed(short.url, first, { documents: 20, others: 2, folders: 2, folderItems: 2, relations: 2, images: 1 }, undefined, async () => {
        renewed++;
        return (await short.login()).jwt;
      });
      assert.ok(renewed >= 1, `signed in again ${renewed} times`);
      assert.equal(result.documentIds.length, 20);
      assert.equal(result.imageIds.length, 1, 'the upload went through too');
    } finally {
      await short.close();
    }
  });
});
