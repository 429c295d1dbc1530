// The scenarios of the benchmark, and the result table printed from their figures.
import type { SeedResult } from './seed.js';
import { SEED_TEXT, textSource } from './text.js';

export interface LoadSpec {
  url: string;
  connections: number;
  seconds: number;
  method: string;
  headers: Record<string, string>;
  body?: string;
  /** Paths cycled through, one per request (default: the url's own path). */
  paths?: string[];
  /** With `paths`: stop once each path was asked for (or at `seconds`, whichever comes first). */
  once?: boolean;
  /** Every `every`-th request is one of these writes instead (cycled through), with its own method and headers. */
  writes?: { every: number; method: string; headers: Record<string, string>; requests: Array<{ path: string; body: string }> };
}

export interface LoadFigures {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  /** CPU the load process used, in seconds. */
  cpuSeconds?: number;
}

export interface Scenario {
  name: string;
  /** Which server: Folio, or the reference server for the ratio. */
  target: 'folio' | 'reference';
  /**
   * The reference scenario this one is compared to; several: their mean (the reference's runs just
   * before and just after this one, so that the machine's drift over the phase weighs on both sides).
   */
  comparedTo?: string | string[];
  /** Load driven at the same time from a second process (its figures are not reported). */
  alongside?: Omit<LoadSpec, 'url' | 'connections' | 'seconds'> & { path: string; connections: number };
  spec: Omit<LoadSpec, 'url' | 'connections' | 'seconds'> & { path: string };
  /** Documents each answered request creates: the run counts them in the database afterwards. */
  creates?: number;
  /** Every cache is emptied (by a write) before it runs: what it asks for is in none of them. */
  uncached?: boolean;
  /** The least share of the reference's CPU per request it must stay within (cpuRatio), when it has a target. */
  cpuTarget?: number;
  /** The highest p99 latency it may have, in ms, when it has a target. */
  p99Target?: number;
  /** Printed beside its name: what it reads when that is not what its name says in full. */
  note?: string;
}

const JSONAPI = 'application/vnd.api+json';
const ATOMIC = 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"';
/** Creates per atomic operations request. */
const BULK = 50;
/** What the create scenarios send: a document with a 1.7 kB body. */
const createdDocument = { type: 'documents', attributes: { title: 'Benchmark created document', body: '<p>' + 'Lorem ipsum dolor sit amet. '.repeat(60) + '</p>', lang: 'en' } };

/** Ids spread over the seeded documents, so reads do not hit one hot row. */
function spread(ids: number[], n = 1000): number[] {
  const step = Math.max(1, Math.floor(ids.length / n));
  return ids.filter((_, i) => i % step === 0).slice(0, n);
}

export const LIST_QUERY = 'filter[lang]=en&sort=-created&page_size=20';

/** A deterministic shuffle (so both servers and every run see the same order). */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let s = seed >>> 0;
  for (let i = out.length - 1; i > 0; i--) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** Searches no cache answers: different words, each once (searchWords). */
export const UNCACHED_SEARCH = 'uncached full-text search';

/** The uncached reads by id that are compared with each other (anonymous no dearer than signed in) and across data sizes. */
export const UNCACHED_ANONYMOUS = 'uncached GET /documents/{id}';
/** The same two kinds of read measured in turns, slice by slice (alternatingReads): their comparison. */
export const ALTERNATING_ANONYMOUS = 'uncached GET anonymous, in turns';
export const ALTERNATING_SIGNED_IN = 'uncached GET signed in, in turns';
/** The reference's reads of the same documents, in the same turns: what the two rows above are compared with. */
export const ALTERNATING_REFERENCE = 'ref uncached GET, in turns';

/** How many documents each kind reads in turns, at most. */
export const IN_TURNS_DOCUMENTS = 20_000;

export type InTurnsKind = 'anonymous' | 'signed in' | 'reference';

/**
 * Anonymous and signed-in uncached reads by id, and the reference's, in `slices` turns each: each
 * slice one kind after the other, who goes first turning round from slice to slice. Each kind
 * reads every document once, in an order no cache has seen, and all three see the machine as it
 * was at the same moments. Measured as separate runs seconds or minutes apart, one kind's figure
 * carried the other's noise (up to a third on this machine) and whatever the run before left
 * (anonymous reads, measured first, came out 8-26% dearer on PostgreSQL, and as cheap when asked
 * in turns); Folio's reads against the reference's the same (single runs put the same ratio
 * anywhere between 0.36 and 0.60).
 */
export function alternatingReads(seed: SeedResult, readers: Readers, phase: Phase, slices = 6): Array<{ kind: InTurnsKind; name: string; spec: Omit<LoadSpec, 'url' | 'connections' | 'seconds'> & { path: string } }> {
  const at = ` (${phase})`;
  // A comparison, not a survey: at most IN_TURNS_DOCUMENTS documents, spread over the seed (a
  // million would add minutes to each phase).
  const all = seed.documentIds;
  const documents = all.length > IN_TURNS_DOCUMENTS ? Array.from({ length: IN_TURNS_DOCUMENTS }, (_, k) => all[Math.floor((k * all.length) / IN_TURNS_DOCUMENTS)]) : all;
  const size = Math.ceil(documents.length / slices);
  const kinds: Array<{ kind: InTurnsKind; name: string; headers: Record<string, string>; order: number[] }> = [
    { kind: 'anonymous', name: ALTERNATING_ANONYMOUS + at, headers: { Accept: JSONAPI }, order: shuffled(documents, 7) },
    { kind: 'signed in', name: ALTERNATING_SIGNED_IN + at, headers: { Accept: JSONAPI, Authorization: `Bearer ${readers.editorToken}` }, order: shuffled(documents, 8) },
    { kind: 'reference', name: ALTERNATING_REFERENCE + at, headers: { Accept: JSONAPI }, order: shuffled(documents, 9) },
  ];
  const out: ReturnType<typeof alternatingReads> = [];
  for (let k = 0; k < slices; k++) {
    const first = k % kinds.length;
    for (const c of [...kinds.slice(first), ...kinds.slice(0, first)]) {
      const paths = c.order.slice(k * size, (k + 1) * size).map((id) => `/documents/${id}`);
      if (paths.length) out.push({ kind: c.kind, name: c.name, spec: { method: 'GET', headers: c.headers, path: '/documents', paths, once: true } });
    }
  }
  return out;
}
export const UNCACHED_SIGNED_IN = 'uncached GET signed in';

/** When the uncached scenarios run: on the server that just took the seed, or after a restart. */
export type Phase = 'after seeding' | 'after restart';

/** How the uncached scenarios read: anonymous, as the non-admin editor, or with an application's API key. */
export interface Readers {
  adminToken: string;
  editorToken: string;
  apiKey: string;
}

/**
 * The scenarios `--only a,b` keeps: Folio's whose names contain one of the words, with the
 * reference's runs they are compared with and no other (at a million documents each reference run
 * costs minutes); when the words name none of Folio's, the reference's runs they name. Without
 * `--only`, all of them.
 */
export function chooseScenarios(list: Scenario[], only: string[] | undefined): Scenario[] {
  if (!only) return list;
  const named = (s: Scenario) => only.some((o) => s.name.includes(o));
  const folio = list.filter((s) => s.target !== 'reference' && named(s));
  if (!folio.length) return list.filter(named);
  const needed = new Set(folio.flatMap((s) => (s.comparedTo === undefined ? [] : [s.comparedTo].flat())));
  return list.filter((s) => folio.includes(s) || (s.target === 'reference' && needed.has(s.name)));
}

/**
 * The most list pages a reference run reads (as many as the quick seed has): past it, an even
 * sample of the list's pages (the first and the deepest among them). The reference pages with an
 * OFFSET, which costs in proportion to the page's depth: at a million documents 90-125 ms of CPU a
 * page, and 50,000 pages four times over (two runs around each of Folio's two list rows) were
 * seven hours. Pages evenly spaced over the depth give the same mean cost per page. Folio's rows
 * still read every page (their p99 is the target).
 */
export const REFERENCE_LIST_PAGES = 1000;

/** Every page of `pageCount` in order, or REFERENCE_LIST_PAGES of them evenly spread. */
export function referencePages(pageCount: number): number[] {
  if (pageCount <= REFERENCE_LIST_PAGES) return Array.from({ length: pageCount }, (_, i) => i + 1);
  const last = REFERENCE_LIST_PAGES - 1;
  return Array.from({ length: REFERENCE_LIST_PAGES }, (_, i) => 1 + Math.round((i * (pageCount - 1)) / last));
}

/** The uncached list scenarios' page of twenty, newest first. */
const pagePath = (page: number) => `/documents?sort=-id&page_size=20&page=${page}`;
const pagesOf = (seed: SeedResult) => Math.ceil(seed.documentIds.length / 20);

/**
 * What both servers are asked before the uncached scenarios (run.ts, warmUp), so that each scenario
 * measures code that has compiled and pages the database holds, as a server that has run for a while
 * does. Every document (up to WARM_UP_ALL; a bigger seed, whose pages no cache holds, reads
 * WARM_UP_READS spread over it), the list pages (up to WARM_UP_PAGES, spread over the list) and
 * WARM_UP_WRITES edits of documents (the scenarios with one PATCH in twenty ran their writes on code
 * that had never run: a process's first thousand PATCHes cost 1.6 times the next ones).
 * The edits change `description` only, on documents spread over the seed, as the scenarios do.
 */
export const WARM_UP_READS = 3000;
export const WARM_UP_ALL = 50_000;
export const WARM_UP_PAGES = 1000;
export const WARM_UP_WRITES = 1000;
/**
 * Searches Folio answers before the uncached scenarios (the reference has no search): words the
 * uncached search row never asks, taken over the same frequency scale, so that row measures search
 * code that has compiled, as every other row does, and reads no answer a warm-up left in a cache.
 */
export const WARM_UP_SEARCHES = 300;
export function warmUpSearches(): string[] {
  const text = textSource(SEED_TEXT);
  const asked = new Set(searchWords());
  const last = text.words.length - 1;
  const words = new Set<string>();
  // The row's own scale, every point moved by one rank (and by more where that rank is asked).
  for (let i = 0; words.size < WARM_UP_SEARCHES && i < WARM_UP_SEARCHES * 4; i++) {
    let rank = Math.round(Math.exp(((i % SEARCH_POINTS) / (SEARCH_POINTS - 1)) * Math.log(last + 1))) + Math.floor(i / SEARCH_POINTS);
    while (rank <= last && (asked.has(text.wordOfRank(rank)) || words.has(text.wordOfRank(rank)))) rank++;
    if (rank <= last) words.add(text.wordOfRank(rank));
  }
  return shuffled([...words], 17).map((w) => `/objects?q=${encodeURIComponent(w)}`);
}
export function warmUpRequests(seed: SeedResult, adminToken: string): { reads: string[]; pages: string[]; writes: NonNullable<LoadSpec['writes']> } {
  const ids = seed.documentIds.length <= WARM_UP_ALL ? seed.documentIds : spread(seed.documentIds, WARM_UP_READS);
  const pageCount = pagesOf(seed);
  const step = Math.max(1, Math.floor(pageCount / WARM_UP_PAGES));
  const pages = Array.from({ length: Math.min(WARM_UP_PAGES, pageCount) }, (_, i) => pagePath(1 + i * step));
  const edited = spread(seed.documentIds, WARM_UP_WRITES);
  return {
    reads: ids.map((id) => `/documents/${id}`),
    pages,
    writes: {
      every: 1,
      method: 'PATCH',
      headers: { Accept: JSONAPI, 'Content-Type': JSONAPI, Authorization: `Bearer ${adminToken}` },
      requests: Array.from({ length: WARM_UP_WRITES }, (_, i) => {
        const id = edited[i % edited.length];
        return { path: `/documents/${id}`, body: JSON.stringify({ data: { id: String(id), type: 'documents', attributes: { description: `Warmed up by the benchmark, ${i}` } } }) };
      }),
    },
  };
}

/** Points on the frequency scale the uncached search row takes its words at (fewer words: the most frequent ranks coincide). */
export const SEARCH_POINTS = 200;

/**
 * The words of the uncached search row, each once: the seed's vocabulary at SEARCH_POINTS ranks
 * evenly spread over the logarithm of the frequency rank, from its most frequent word (in nearly
 * every document) to its rarest, without repeats (the ten most frequent words each once: 159
 * words), shuffled. The seed's text draws words with a Zipf frequency, so a word's rank says
 * how many documents hold it, and the row asks as many words of ranks 100-1,000 as of 1,000-10,000.
 */
export function searchWords(points = SEARCH_POINTS): string[] {
  const text = textSource(SEED_TEXT);
  const last = text.words.length - 1;
  const ranks = new Set<number>();
  for (let i = 0; i < points; i++) ranks.add(Math.round(Math.exp((i / (points - 1)) * Math.log(last + 1)) - 1));
  return shuffled([...ranks].map((r) => text.wordOfRank(r)), 13);
}

/**
 * The reads no cache helps: every published document once, in an order no cache has
 * seen, anonymous, signed in and by API key; every page of the whole list sorted by -id, alone
 * and with one PATCH in twenty; reads with one PATCH in twenty. Each beside the reference server on the same database, compared by
 * server CPU per request; each Folio scenario starts with its caches emptied. Each runs until every
 * path was asked once (not cut at --seconds: see run.ts).
 */
export function uncachedScenarios(seed: SeedResult, readers: Readers, phase: Phase): Scenario[] {
  const at = ` (${phase})`;
  const order = (k: number) => shuffled(seed.documentIds, k).map((id) => `/documents/${id}`);
  const pageCount = pagesOf(seed);
  const pages = shuffled(Array.from({ length: pageCount }, (_, i) => i + 1), 5).map(pagePath);
  const get = (headers: Record<string, string> = {}) => ({ method: 'GET', headers: { Accept: JSONAPI, ...headers }, path: '/documents', once: true });
  const patched = shuffled(seed.documentIds, 11).slice(0, 500);
  const writes = {
    every: 20,
    method: 'PATCH',
    headers: { Accept: JSONAPI, 'Content-Type': JSONAPI, Authorization: `Bearer ${readers.adminToken}` },
    requests: patched.map((id, i) => ({ path: `/documents/${id}`, body: JSON.stringify({ data: { id: String(id), type: 'documents', attributes: { description: `Changed by the benchmark, ${i}` } } }) })),
  };
  const ref = { id: `ref uncached GET /documents/{id}${at}`, list: `ref list pages, sort=-id${at}`, mixed: `ref reads, 1 PATCH in 20${at}`, mixedList: `ref list pages, 1 PATCH in 20${at}` };
  const folio = (name: string, comparedTo: string | string[], cpuTarget: number, spec: Scenario['spec'], p99Target?: number): Scenario => ({ name: name + at, target: 'folio', comparedTo, uncached: true, cpuTarget, p99Target, spec });
  // The reference runs again around each of Folio's: a single run of a few seconds moved by up to
  // a third from one run to the next (70 to 104 µs on the same data), and every ratio with it.
  // Each of Folio's runs is compared with the mean of the reference's runs just before and after
  // it; the uncached reads by id with the median of the phase's four reference reads (the first of
  // them was often the dearest: 105 against 76-78 µs, which alone made one ratio 0.54 for 0.46).
  const run = (name: string, k: number) => (k === 1 ? name : name.replace(at, `, run ${k}${at}`));
  const refRead = (k: number): Scenario => ({ name: run(ref.id, k), target: 'reference', spec: { ...get(), paths: order(1) } });
  const sampled = referencePages(pageCount);
  const note = sampled.length < pageCount ? `${sampled.length} of the ${pageCount} pages, evenly spread` : undefined;
  const refPages = (seed: number) => shuffled(sampled, seed).map(pagePath);
  const refList = (k: number): Scenario => ({ name: run(ref.list, k), target: 'reference', note, spec: { ...get(), paths: refPages(5) } });
  const refMixed = (k: number): Scenario => ({ name: run(ref.mixed, k), target: 'reference', spec: { ...get(), paths: order(4), writes } });
  // The same pages while documents are edited: an edit of content moves no list's members.
  const editedPages = shuffled(Array.from({ length: pageCount }, (_, i) => i + 1), 6).map(pagePath);
  const refMixedList = (k: number): Scenario => ({ name: run(ref.mixedList, k), target: 'reference', note, spec: { ...get(), paths: refPages(6), writes } });
  const around = (name: string, k: number) => [run(name, k), run(name, k + 1)];
  const everyRead = [1, 2, 3, 4].map((k) => run(ref.id, k));
  return [
    refRead(1),
    // Issue 48: at most twice the reference's CPU (half the raw server's cost).
    folio(UNCACHED_ANONYMOUS, everyRead, 0.5, { ...get(), paths: order(1) }),
    refRead(2),
    folio(UNCACHED_SIGNED_IN, everyRead, 0.5, { ...get({ Authorization: `Bearer ${readers.editorToken}` }), paths: order(2) }),
    refRead(3),
    folio('uncached GET API key', everyRead, 0.5, { ...get({ 'X-Api-Key': readers.apiKey }), paths: order(3) }),
    refRead(4),
    // Every page, first or last, within 50 ms at p99.
    refList(1),
    folio('list pages, sort=-id', around(ref.list, 1), 0.6, { ...get(), paths: pages }, 50),
    refList(2),
    refMixed(1),
    folio('reads, 1 PATCH in 20', around(ref.mixed, 1), 0.5, { ...get(), paths: order(4), writes }),
    refMixed(2),
    // Every page within 50 ms at p99 while documents are edited too.
    refMixedList(1),
    folio('list pages, 1 PATCH in 20', around(ref.mixedList, 1), 0.6, { ...get(), paths: editedPages, writes }, 50),
    refMixedList(2),
    // Search p99 under 50 ms: different words, each asked once (the row `GET full-text search`
    // asks one word again and again, which the response cache answers). No reference: it has no search.
    { name: `${UNCACHED_SEARCH}${at}`, target: 'folio', uncached: true, p99Target: 50, spec: { ...get(), path: '/objects', paths: searchWords().map((w) => `/objects?q=${encodeURIComponent(w)}`) } },
  ];
}

/** `deepPage`: 500, or the list's last page when it has fewer (the quick data set). */
export function scenarios(seed: SeedResult, adminToken: string, thumbPath: string, deepPage = 500, editorToken = adminToken): Scenario[] {
  const ids = spread(seed.documentIds);
  const read = { method: 'GET', headers: { Accept: JSONAPI } };
  const auth = { Accept: JSONAPI, 'Content-Type': JSONAPI, Authorization: `Bearer ${adminToken}` };
  const patchIds = spread(seed.documentIds, 200);
  const signedIn = { method: 'GET', headers: { Accept: JSONAPI, Authorization: `Bearer ${adminToken}` } };
  const editor = { method: 'GET', headers: { Accept: JSONAPI, Authorization: `Bearer ${editorToken}` } };
  const apiKey = { method: 'GET', headers: { Accept: JSONAPI, 'X-Api-Key': seed.apiKey } };
  // Every seeded document, in an order no cache has seen: more distinct answers than the response
  // cache keeps (on the full seed), so most requests take the whole read path.
  const everyId = [...seed.documentIds].sort((a, b) => (a * 7919) % 10007 - (b * 7919) % 10007);
  const login = { method: 'POST', headers: { 'Content-Type': 'application/json' }, path: '/auth', body: JSON.stringify({ username: 'bench-admin', password: 'bench-admin-password' }) };
  return [
    { name: 'ref GET /documents/{id}', target: 'reference', spec: { ...read, path: '/documents', paths: ids.map((id) => `/documents/${id}`) } },
    { name: 'ref GET list of 20', target: 'reference', spec: { ...read, path: `/documents?${LIST_QUERY}` } },
    {
      name: 'GET /documents/{id}',
      target: 'folio',
      comparedTo: 'ref GET /documents/{id}',
      spec: { ...read, path: '/documents', paths: ids.map((id) => `/documents/${id}`) },
    },
    {
      // A signed-in reader over 10,000 different ids: answers are cached per user, but every id is new.
      name: 'GET /documents/{id} signed in',
      target: 'folio',
      comparedTo: 'ref GET /documents/{id}',
      spec: { ...signedIn, path: '/documents', paths: ids.map((id) => `/documents/${id}`) },
    },
    { name: 'GET /documents/{id} editor', target: 'folio', comparedTo: 'ref GET /documents/{id}', spec: { ...editor, path: '/documents', paths: ids.map((id) => `/documents/${id}`) } },
    { name: 'GET /documents/{id} editor, every id', target: 'folio', comparedTo: 'ref GET /documents/{id}', spec: { ...editor, path: '/documents', paths: everyId.map((id) => `/documents/${id}`) } },
    { name: 'GET /documents/{id} API key', target: 'folio', comparedTo: 'ref GET /documents/{id}', spec: { ...apiKey, path: '/documents', paths: ids.map((id) => `/documents/${id}`) } },
    { name: 'GET list of 20, filter + sort', target: 'folio', comparedTo: 'ref GET list of 20', spec: { ...read, path: `/documents?${LIST_QUERY}` } },
    { name: `GET list page=${deepPage}`, target: 'folio', comparedTo: 'ref GET list of 20', spec: { ...read, path: `/documents?${LIST_QUERY}&page=${deepPage}` } },
    { name: 'GET full-text search', target: 'folio', p99Target: 50, spec: { ...read, path: `/objects?filter[query]=${encodeURIComponent(seed.searchWord)}` } },
    { name: 'GET folder children (1,000)', target: 'folio', spec: { ...read, path: `/folders/${seed.bigFolderId}/children` } },
    // Signed in: the same URL again, answered from the user's own response-cache entries.
    { name: 'GET full-text search signed in', target: 'folio', comparedTo: 'ref GET list of 20', spec: { ...signedIn, path: `/objects?filter[query]=${encodeURIComponent(seed.searchWord)}` } },
    { name: 'GET folder children signed in', target: 'folio', spec: { ...signedIn, path: `/folders/${seed.bigFolderId}/children` } },
    { name: 'GET list of 20 editor', target: 'folio', comparedTo: 'ref GET list of 20', spec: { ...editor, path: `/documents?${LIST_QUERY}` } },
    { name: 'GET list of 20 API key', target: 'folio', comparedTo: 'ref GET list of 20', spec: { ...apiKey, path: `/documents?${LIST_QUERY}` } },
    { name: 'GET full-text search editor', target: 'folio', comparedTo: 'ref GET list of 20', p99Target: 50, spec: { ...editor, path: `/objects?filter[query]=${encodeURIComponent(seed.searchWord)}` } },
    {
      name: 'POST create',
      target: 'folio',
      creates: 1,
      spec: {
        method: 'POST',
        headers: auth,
        path: '/documents',
        body: JSON.stringify({ data: createdDocument }),
      },
    },
    {
      // The same documents, 50 per request: JSON:API atomic operations, one transaction each.
      name: 'POST /operations, 50 creates',
      target: 'folio',
      creates: BULK,
      spec: {
        method: 'POST',
        headers: { ...auth, 'Content-Type': ATOMIC, Accept: ATOMIC },
        path: '/operations',
        // Fifty different bodies (as an import's would be): nothing the server could compute once for all.
        body: JSON.stringify({ 'atomic:operations': Array.from({ length: BULK }, (_, i) => ({ op: 'add', data: { ...createdDocument, attributes: { ...createdDocument.attributes, body: createdDocument.attributes.body.replace('</p>', ` Item ${i + 1} of the import.</p>`) } } })) }),
      },
    },
    {
      name: 'PATCH update',
      target: 'folio',
      spec: {
        method: 'PATCH',
        headers: auth,
        path: `/documents/${patchIds[0]}`,
        // Every PATCH body names its own id: the same document for the whole run.
        body: JSON.stringify({ data: { id: String(patchIds[0]), type: 'documents', attributes: { description: 'Changed by the benchmark' } } }),
      },
    },
    {
      name: 'POST /auth login',
      target: 'folio',
      spec: login,
    },
    {
      // Password hashing runs on libuv's thread pool: reads go on while logins hash.
      name: 'GET /documents/{id} during logins',
      target: 'folio',
      spec: { ...read, path: '/documents', paths: ids.map((id) => `/documents/${id}`) },
      alongside: { ...login, connections: 4 },
    },
    { name: 'GET cached thumbnail', target: 'folio', spec: { ...read, path: thumbPath } },
  ];
}

export interface ScenarioResult extends LoadFigures {
  name: string;
  /** Server CPU (user + system) per request, in µs. */
  cpuUsPerRequest?: number | null;
  /** The reference's CPU per request over this one's (1 = as cheap as the reference). */
  cpuRatio?: number | null;
  cpuTarget?: number;
  p99Target?: number;
  /** The compared reference scenario's own CPU per request, in µs (printed beside this one's); of several, their mean. */
  refCpuUsPerRequest?: number | null;
  /** The reference scenario(s) it is compared to (Scenario.comparedTo). */
  comparedTo?: string | string[];
  /** The machine while it ran: cores busy in all (of `cores`), and how many of them other processes than the measured server, the reference and the load generators kept busy. */
  machine?: MachineLoad | null;
  /** Create scenarios: objects per second, and documents counted before and after the run. */
  objectsPerSecond?: number;
  created?: { answered: number; counted: number; lost: number };
  target: 'folio' | 'reference';
  ratio: number | null;
  peakRssMb: number | null;
}

/**
 * Sets a result's ratios (rps and CPU per request) against the reference run(s) it is compared to
 * (ScenarioResult.comparedTo), among `results`: those measured so far, their mean when several.
 */
export function compareWithReference(result: ScenarioResult, results: readonly ScenarioResult[]): void {
  const names = result.comparedTo === undefined ? [] : Array.isArray(result.comparedTo) ? result.comparedTo : [result.comparedTo];
  const refs = names.map((n) => results.find((r) => r.name === n)).filter((r): r is ScenarioResult => r !== undefined);
  if (!refs.length) return;
  // The median: of two runs their mean; of more, the middle ones (a run the machine slowed, often
  // the reference's first of a phase, weighs no more than one).
  const median = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    const mid = Math.floor(sorted.length / 2);
    return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  };
  const cpus = refs.map((r) => r.cpuUsPerRequest).filter((v): v is number => typeof v === 'number');
  const refCpu = cpus.length ? median(cpus) : null;
  result.ratio = result.rps / median(refs.map((r) => r.rps));
  result.refCpuUsPerRequest = refCpu;
  result.cpuRatio = refCpu !== null && result.cpuUsPerRequest ? refCpu / result.cpuUsPerRequest : null;
}

/** How busy the machine was while a scenario ran (Linux /proc/stat); the figures of a busy machine are worth less. */
export interface MachineLoad {
  cores: number;
  busyCores: number;
  /** Cores kept busy by processes other than the measured ones (other work on the machine). */
  otherCores: number;
}

/** A million documents seeded in at most five minutes. */
export const SEED_TARGET_OBJECTS_PER_SECOND = 1_000_000 / 300;

/** An uncached read by id at any size costs at most this many times its cost at 20,000 documents. */
export const SCALE_TARGET = 1.5;

/** The figures of a smaller run the scale targets compare with (a 20,000-document run on the same database). */
export interface Baseline {
  file: string;
  documents: number;
  /** CPU per request of the uncached reads by id, by scenario name. */
  cpuUsPerRequest: Record<string, number>;
}

export interface BenchReport {
  startedAt: string;
  mode: 'quick' | 'full';
  /** The database Folio and the reference server ran on (absent in reports before --db). */
  database?: 'sqlite' | 'postgres';
  seed: Omit<SeedResult, 'documentIds' | 'imageIds' | 'editor' | 'apiKey'> & { searchMatches: number };
  /** The server's RSS once the seed was written through it (null when the seed was reused). */
  seedRssMb: number | null;
  idleRssMb: number | null;
  /** After a login, a search and a thumbnail (which loads the image library). */
  warmRssMb?: number | null;
  startToFirstAnswerMs: number;
  startInProcessMs: number;
  /** The deep page measured (500, or the last page of a smaller data set) and its cost. */
  deepPage: number;
  page500VsPage1: number | null;
  /** The admin UI's first-load JavaScript, gzipped (entry script and preloaded chunks). */
  uiFirstLoadKb?: number | null;
  /** RSS right after the uncached scenarios, on the server that took the seed and after the restart. */
  uncachedRssMb?: { afterSeeding: number | null; afterRestart: number | null };
  scenarios: ScenarioResult[];
  /** The machine's 1-minute load average as the run started and as it ended, and its cores. */
  loadAverage?: { start: number; end: number; cores: number };
  /** The smaller run the uncached reads are compared with (--baseline, or the latest 20,000-document run found). */
  baseline?: Baseline | null;
  /** Each performance target with the figure measured against it. */
  targets?: TargetCheck[];
}

export interface TargetCheck {
  what: string;
  figure: string;
  met: boolean | null;
}

/** The performance targets checked against a run's figures; null when not measured. */
export function checkTargets(r: BenchReport): TargetCheck[] {
  const pg = r.database === 'postgres';
  const by = (name: string) => r.scenarios.find((s) => s.name === name);
  const out: TargetCheck[] = [];
  const ratio = (name: string, min: number) => {
    const s = by(name);
    out.push({ what: `${name}: at least ${min * 100}% of the reference`, figure: s?.ratio == null ? '-' : `${(s.ratio * 100).toFixed(0)}%`, met: s?.ratio == null ? null : s.ratio >= min });
  };
  const p99 = (name: string, max: number) => {
    const s = by(name);
    out.push({ what: `${name}: p99 under ${max} ms`, figure: s ? `${s.p99} ms` : '-', met: s ? s.p99 < max : null });
  };
  const rate = (name: string, min: number) => {
    const s = by(name);
    out.push({ what: `${name}: at least ${min} objects/s`, figure: s?.objectsPerSecond === undefined ? '-' : s.objectsPerSecond.toFixed(0), met: s?.objectsPerSecond === undefined ? null : s.objectsPerSecond >= min });
  };
  if (pg) {
    for (const n of ['GET /documents/{id}', 'GET /documents/{id} signed in', 'GET /documents/{id} editor', 'GET /documents/{id} API key']) ratio(n, 0.5);
    for (const n of ['GET list of 20, filter + sort', 'GET list of 20 editor', 'GET full-text search', 'GET full-text search editor']) p99(n, 25);
    rate('POST /operations, 50 creates', 1500);
  } else {
    ratio('GET /documents/{id}', 0.6);
    for (const n of ['GET /documents/{id} signed in', 'GET /documents/{id} editor', 'GET /documents/{id} API key']) ratio(n, 0.4);
    for (const n of ['GET list of 20 editor', 'GET list of 20 API key', 'GET full-text search editor', 'GET full-text search signed in']) ratio(n, 0.25);
    for (const n of ['GET /documents/{id} signed in', 'GET /documents/{id} editor', 'GET /documents/{id} API key', 'GET list of 20 editor', 'GET full-text search editor']) p99(n, 20);
    rate('POST create', 1000);
  }
  for (const s of r.scenarios) {
    if (s.cpuTarget === undefined) continue;
    const met = s.cpuRatio == null ? null : s.cpuRatio >= s.cpuTarget;
    out.push({ what: `${s.name}: CPU per request at most ${(1 / s.cpuTarget).toFixed(1)}x the reference's (${s.cpuTarget})`, figure: s.cpuRatio == null ? '-' : s.cpuRatio.toFixed(2), met });
  }
  for (const s of r.scenarios) if (s.p99Target !== undefined && !out.some((t) => t.what.startsWith(`${s.name}: p99 under`))) p99(s.name, s.p99Target);
  // Anonymous uncached reads no dearer than signed-in ones (within 5%): judged on the two measured
  // in turns when they were (alternatingReads), else on their separate runs.
  for (const phase of [' (after seeding)', ' (after restart)']) {
    const inTurns = by(ALTERNATING_ANONYMOUS + phase)?.cpuUsPerRequest != null && by(ALTERNATING_SIGNED_IN + phase)?.cpuUsPerRequest != null;
    const anonymous = by((inTurns ? ALTERNATING_ANONYMOUS : UNCACHED_ANONYMOUS) + phase)?.cpuUsPerRequest;
    const signedIn = by((inTurns ? ALTERNATING_SIGNED_IN : UNCACHED_SIGNED_IN) + phase)?.cpuUsPerRequest;
    if (anonymous == null || signedIn == null) continue;
    out.push({ what: `${UNCACHED_ANONYMOUS}${phase}: CPU per request no more than signed in (within 5%${inTurns ? ', measured in turns' : ''})`, figure: `${anonymous.toFixed(0)} / ${signedIn.toFixed(0)} µs`, met: anonymous <= signedIn * 1.05 });
  }
  // At more documents than the baseline's: an uncached read by id costs at most SCALE_TARGET times as much.
  if (r.baseline && r.seed.sizes.documents > r.baseline.documents) {
    for (const [name, before] of Object.entries(r.baseline.cpuUsPerRequest)) {
      const now = by(name)?.cpuUsPerRequest;
      out.push({
        what: `${name}: CPU per request at ${r.seed.sizes.documents} documents at most ${SCALE_TARGET}x its cost at ${r.baseline.documents}`,
        figure: now == null ? '-' : `${(now / before).toFixed(2)}x`,
        met: now == null ? null : now / before <= SCALE_TARGET,
      });
    }
  }
  // Seeding through /operations: a million in under five minutes (judged on a run of a million or more).
  const pace = r.seed.sizes.documents / r.seed.seconds;
  out.push({
    what: `seeding a million documents in under 5 minutes (${Math.round(SEED_TARGET_OBJECTS_PER_SECOND)} documents/s; judged on a seed of a million)`,
    figure: `${pace.toFixed(0)}/s`,
    met: r.seed.sizes.documents >= 1_000_000 ? r.seed.seconds < 300 : null,
  });
  if (r.uncachedRssMb) {
    const worst = Math.max(r.uncachedRssMb.afterSeeding ?? 0, r.uncachedRssMb.afterRestart ?? 0);
    out.push({ what: 'RSS after the uncached scenarios under 200 MB', figure: worst ? `${worst.toFixed(0)} MB` : '-', met: worst ? worst < 200 : null });
  }
  out.push({ what: 'idle RSS under 120 MB', figure: r.idleRssMb === null ? '-' : `${r.idleRssMb.toFixed(0)} MB`, met: r.idleRssMb === null ? null : r.idleRssMb < 120 });
  out.push({ what: 'start to first answer under 1 s', figure: `${r.startToFirstAnswerMs.toFixed(0)} ms`, met: r.startToFirstAnswerMs < 1000 });
  if (r.uiFirstLoadKb !== undefined) out.push({ what: 'admin UI first load at most 250 kB gzipped JS', figure: r.uiFirstLoadKb === null ? '-' : `${r.uiFirstLoadKb.toFixed(1)} kB`, met: r.uiFirstLoadKb === null ? null : r.uiFirstLoadKb <= 250 });
  return out;
}

/** How many targets a run missed (not measured ones are not counted): `npm run bench` exits 1 when any. */
export function missedTargets(targets: TargetCheck[] | undefined): number {
  return (targets ?? []).filter((t) => t.met === false).length;
}

const pad = (s: string, n: number, right = false) => (right ? s.padEnd(n) : s.padStart(n));

/** The human-readable table of a run. */
export function formatReport(r: BenchReport): string {
  const lines: string[] = [];
  lines.push(`Folio benchmark (${r.mode}${r.database ? `, ${r.database}` : ''}), ${r.startedAt}`);
  lines.push(
    `seed: ${r.seed.sizes.documents} published documents and ${r.seed.sizes.others} other objects, ${r.seed.sizes.folders} folders, ${r.seed.sizes.relations} relation sources, ${r.seed.sizes.images} images in ${r.seed.seconds.toFixed(1)} s`,
  );
  lines.push('');
  const width = Math.max(32, ...r.scenarios.map((s) => s.name.length));
  lines.push(
    `${pad('scenario', width, true)} ${pad('req/s', 9)} ${pad('p50 ms', 7)} ${pad('p99 ms', 7)} ${pad('errors', 6)} ${pad('peak RSS', 9)} ${pad('vs ref', 7)} ${pad('objects/s', 10)} ${pad('CPU µs/req', 10)} ${pad('ref µs/req', 10)} ${pad('CPU ref/us', 10)} ${pad('target', 14)} ${pad('machine', 14)}`,
  );
  for (const s of r.scenarios) {
    // What the row is judged against: its CPU share of the reference's, its p99.
    const target = [s.cpuTarget === undefined ? '' : `≥ ${s.cpuTarget}`, s.p99Target === undefined ? '' : `p99 < ${s.p99Target}`].filter(Boolean).join(', ');
    // Cores busy on the machine while it ran / of them, busy with other work than this benchmark's.
    const machine = s.machine ? `${s.machine.busyCores.toFixed(1)}/${s.machine.cores} (${s.machine.otherCores.toFixed(1)})` : '';
    lines.push(
      `${pad(s.name, width, true)} ${pad(s.rps.toFixed(0), 9)} ${pad(String(s.p50), 7)} ${pad(String(s.p99), 7)} ${pad(String(s.errors), 6)} ${pad(s.peakRssMb === null ? '-' : `${s.peakRssMb.toFixed(0)} MB`, 9)} ${pad(s.ratio === null ? '' : `${(s.ratio * 100).toFixed(0)}%`, 7)} ${pad(s.objectsPerSecond === undefined ? '' : s.objectsPerSecond.toFixed(0), 10)} ${pad(s.cpuUsPerRequest == null ? '' : s.cpuUsPerRequest.toFixed(0), 10)} ${pad(s.refCpuUsPerRequest == null ? '' : s.refCpuUsPerRequest.toFixed(0), 10)} ${pad(s.cpuRatio == null ? '' : s.cpuRatio.toFixed(2), 10)} ${pad(target, 14)} ${pad(machine, 14)}`,
    );
  }
  lines.push(`(machine: cores busy while the row ran / cores, and in parentheses those busy with other work than the benchmark's processes)`);
  for (const s of r.scenarios) {
    if (s.created) lines.push(`${s.name}: ${s.created.answered} creates answered, ${s.created.counted} new documents counted, lost ${s.created.lost}`);
  }
  lines.push('');
  const mb = (v: number | null | undefined) => (v === null || v === undefined ? '-' : `${v.toFixed(0)} MB`);
  lines.push(`idle RSS after seeding (server restarted on the seeded db): ${mb(r.idleRssMb)}`);
  if (r.uncachedRssMb) lines.push(`RSS after the uncached scenarios: ${mb(r.uncachedRssMb.afterSeeding)} on the server that took the seed, ${mb(r.uncachedRssMb.afterRestart)} after the restart`);
  lines.push(`RSS after a login, a search and a first thumbnail: ${mb(r.warmRssMb)}`);
  lines.push(`RSS of the server at the end of the seed: ${r.seedRssMb === null ? '-' : `${r.seedRssMb.toFixed(0)} MB`}`);
  lines.push(`start to first answer on the existing db: ${r.startToFirstAnswerMs.toFixed(0)} ms (in-process to listening: ${r.startInProcessMs.toFixed(0)} ms)`);
  lines.push(`search "${r.seed.searchWord}" matches ${r.seed.searchMatches} objects`);
  lines.push(`page=${r.deepPage} vs page=1 cost (req/s of page 1 over page ${r.deepPage}): ${r.page500VsPage1 === null ? '-' : r.page500VsPage1.toFixed(2) + 'x'}`);
  if (r.loadAverage) lines.push(`machine: ${r.loadAverage.cores} cores, 1-minute load average ${r.loadAverage.start.toFixed(2)} as the run started, ${r.loadAverage.end.toFixed(2)} as it ended`);
  lines.push(`seeded at ${(r.seed.sizes.documents / r.seed.seconds).toFixed(0)} documents/s (a million would take ${((1_000_000 / (r.seed.sizes.documents / r.seed.seconds)) / 60).toFixed(1)} min at that pace)`);
  if (r.baseline !== undefined) lines.push(`uncached reads compared with: ${r.baseline ? `${r.baseline.file} (${r.baseline.documents} documents)` : 'no earlier run of 20,000 documents on this database found (--baseline FILE)'}`);
  if (r.uiFirstLoadKb !== undefined) lines.push(`admin UI first load: ${r.uiFirstLoadKb === null ? '- (ui/dist not built)' : `${r.uiFirstLoadKb.toFixed(1)} kB of gzipped JavaScript`}`);
  if (r.targets?.length) {
    lines.push('');
    lines.push('targets:');
    const figures = Math.max(8, ...r.targets.map((t) => t.figure.length));
    for (const t of r.targets) lines.push(`  ${pad(t.met === null ? '-' : t.met ? 'met' : 'MISSED', 6, true)}  ${pad(t.figure, figures)}  ${t.what}`);
  }
  return lines.join('\n');
}
