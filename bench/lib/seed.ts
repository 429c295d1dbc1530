// The benchmark's seed, written through the HTTP API as an importer would: documents and the
// other objects in batches of JSON:API atomic operations (POST /operations), their see_also
// relations the same way, folders one POST each, the big folder's children in one request, images
// uploaded, then a non-admin editor and an application's API key. Everything goes through the
// server's one write path, so what the benchmark reads is what a freshly filled site holds (and
// the server that took the writes can be measured right after them).
import sharp from 'sharp';
import { prng, SEED_TEXT, textSource } from './text.js';

export interface SeedSizes {
  /** Published documents: the uncached scenarios read every one of them once. */
  documents: number;
  /** Other objects beside them: events, news and draft documents (not visible to anonymous readers). */
  others: number;
  folders: number;
  /** Items placed in the one big folder the children scenario reads. */
  folderItems: number;
  relations: number;
  images: number;
}

export const FULL: SeedSizes = { documents: 100_000, others: 5_000, folders: 1_000, folderItems: 1_000, relations: 20_000, images: 200 };
export const QUICK: SeedSizes = { documents: 20_000, others: 1_000, folders: 1_000, folderItems: 1_000, relations: 2_000, images: 20 };

export interface SeedResult {
  sizes: SeedSizes;
  /** Ids of seeded objects of type documents with status on (the read scenarios' targets). */
  documentIds: number[];
  bigFolderId: number;
  imageIds: number[];
  /** The full-text query used by the search scenario and how many objects it matches. */
  searchWord: string;
  /** A non-admin editor (role `bench_editor`: read everything, write documents) and an application's API key. */
  editor: { username: string; password: string };
  apiKey: string;
  seconds: number;
}

const OTHER_TYPES = ['events', 'news', 'documents'] as const;
// Mostly English, as most sites are: the list scenario's filter keeps enough items for page 500.
const LANGS = ['en', 'en', 'en', 'it', 'de'];
/** Operations per POST /operations request (about 300 kB of body each). */
const BATCH = 100;
const JSONAPI = 'application/vnd.api+json';
const ATOMIC = 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"';

type Call = (method: string, path: string, body: unknown, contentType?: string) => Promise<any>;

/**
 * Calls as the admin; with `renew`, signs in again when the access token expired (a million
 * documents take longer to seed than an access token lives) and sends the request once more.
 */
function caller(url: string, adminToken: string, renew?: () => Promise<string>): Call {
  let token = adminToken;
  return async (method, path, body, contentType = JSONAPI) => {
    const send = () =>
      fetch(url + path, {
        method,
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': contentType, Accept: contentType === ATOMIC ? ATOMIC : JSONAPI },
        // Bytes (an upload) as they are, anything else as JSON.
        body: body instanceof Uint8Array ? (body as Uint8Array<ArrayBuffer>) : JSON.stringify(body),
      });
    let res = await send();
    if (res.status === 401 && renew) {
      const answer = await res.text();
      if (!/expired_token/.test(answer)) throw new Error(`${method} ${path} failed: 401 ${answer}`);
      token = await renew();
      res = await send();
    }
    if (!res.ok) throw new Error(`${method} ${path} failed: ${res.status} ${await res.text()}`);
    return res.status === 204 ? null : res.json();
  };
}

/** `progress(done, total)` is told after each batch of objects; `renew` gives a new admin token when the one in use expired. */
export async function seed(url: string, adminToken: string, sizes: SeedSizes, progress?: (done: number, total: number) => void, renew?: () => Promise<string>): Promise<SeedResult> {
  const started = Date.now();
  const call = caller(url, adminToken, renew);
  const operations = async (ops: unknown[]) => (await call('POST', '/operations', { 'atomic:operations': ops }, ATOMIC))['atomic:results'] as Array<{ data?: { id: string } }>;
  const text = textSource(SEED_TEXT);
  const rnd = prng(7);
  const documentIds: number[] = [];
  const all: Array<{ id: number; type: string }> = [];

  // The others are spread among the documents (one every documents/others), as a site's are.
  const total = sizes.documents + sizes.others;
  const otherEvery = sizes.others ? Math.max(1, Math.floor(total / sizes.others)) : Infinity;
  let others = 0;
  let inFlight: Promise<void> = Promise.resolve();
  for (let done = 0; done < total; done += BATCH) {
    const kinds = Array.from({ length: Math.min(BATCH, total - done) }, (_, i) => {
      const other = (done + i) % otherEvery === otherEvery - 1 && others < sizes.others;
      return other ? { type: OTHER_TYPES[others++ % OTHER_TYPES.length], other } : { type: 'documents', other };
    });
    const ops = kinds.map(({ type, other }) => {
      // Among the others, documents are drafts: the published ones are exactly `sizes.documents`.
      const attributes = {
        title: text.sentence(3, 8),
        description: text.sentence(10, 25),
        body: text.body(1000 + Math.floor(rnd() * 4000)),
        lang: LANGS[Math.floor(rnd() * LANGS.length)],
        status: other && type === 'documents' ? 'draft' : 'on',
      };
      return { op: 'add', data: { type, attributes } };
    });
    // The next batch is made while this one is written (one in flight, as an importer reading
    // its source ahead would do): the server is never idle waiting for this process's text.
    const sent = operations(ops);
    const before = inFlight;
    inFlight = (async () => {
      const [results] = await Promise.all([sent, before]);
      results.forEach((r, i) => {
        const id = Number(r.data!.id);
        all.push({ id, type: kinds[i].type });
        if (!kinds[i].other) documentIds.push(id);
      });
      progress?.(Math.min(done + BATCH, total), total);
    })();
    // Its failure is reported where it is awaited (next turn), not as an unhandled rejection meanwhile.
    inFlight.catch(() => {});
    // At most one batch waits behind the one being written.
    await before;
  }
  await inFlight;

  // see_also relations from the first objects to random others (one to three each).
  for (let done = 0; done < Math.min(sizes.relations, all.length); done += BATCH) {
    const ops = all.slice(done, Math.min(done + BATCH, sizes.relations)).flatMap((source) => {
      const targets = Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => all[Math.floor(rnd() * all.length)]).filter((t) => t.id !== source.id);
      const data = [...new Map(targets.map((t) => [t.id, { type: t.type, id: String(t.id) }])).values()];
      return data.length ? [{ op: 'add', ref: { type: source.type, id: String(source.id), relationship: 'see_also' }, data }] : [];
    });
    if (ops.length) await operations(ops);
  }

  // A tree of folders: 10 roots, then each new folder under a random earlier one.
  const folderIds: number[] = [];
  for (let k = 0; k < sizes.folders; k++) {
    const parent = k < 10 ? undefined : { parent: { data: { type: 'folders', id: String(folderIds[Math.floor(rnd() * folderIds.length)]) } } };
    const attributes = { title: `Folder ${k} ${text.sentence(1, 3)}`, status: 'on' };
    const created = await call('POST', '/folders', { data: { type: 'folders', attributes, ...(parent ? { relationships: parent } : {}) } });
    folderIds.push(Number(created.data.id));
  }
  const bigFolderId = folderIds[folderIds.length - 1];
  const children = documentIds.slice(0, sizes.folderItems).map((id) => ({ type: 'documents', id: String(id) }));
  if (children.length) await call('POST', `/folders/${bigFolderId}/relationships/children`, { data: children });

  const imageIds: number[] = [];
  for (let i = 0; i < sizes.images; i++) {
    const png = await sharp({ create: { width: 320 + (i % 7) * 10, height: 240, channels: 3, background: { r: (i * 37) % 256, g: (i * 91) % 256, b: 120 } } })
      .png()
      .toBuffer();
    const uploaded = (await call('POST', `/images/upload/picture-${i}.png`, new Uint8Array(png), 'image/png')) as { data: { id: string } };
    const id = Number(uploaded.data.id);
    // Publish it so anonymous thumbnail requests see it.
    await call('PATCH', `/images/${id}`, { data: { id: String(id), type: 'images', attributes: { status: 'on' } } });
    imageIds.push(id);
  }

  const { editor, apiKey } = await seedReaders(call);
  return { sizes, documentIds, bigFolderId, imageIds, searchWord: text.wordOfRank(3000), editor, apiKey, seconds: (Date.now() - started) / 1000 };
}

export const BENCH_EDITOR = { username: 'bench-editor', password: 'bench-editor-password' };

/** The readers of the signed-in and API-key scenarios, made over the API as an admin would. */
async function seedReaders(call: Call): Promise<{ editor: typeof BENCH_EDITOR; apiKey: string }> {
  const permissions = { '*': ['read'], documents: ['read', 'create', 'update', 'delete', 'publish'], news: ['read', 'create', 'update:own', 'delete:own'] };
  const role = await call('POST', '/roles', { data: { type: 'roles', attributes: { name: 'bench_editor', permissions } } });
  const user = await call('POST', '/users', { data: { type: 'users', attributes: { ...BENCH_EDITOR, email: 'bench-editor@example.com' } } });
  await call('POST', `/users/${user.data.id}/relationships/roles`, { data: [{ type: 'roles', id: role.data.id }] });
  const app = await call('POST', '/applications', { data: { type: 'applications', attributes: { name: 'bench-site', description: "The benchmark's site client" } } });
  if (!app.data.meta?.api_key) throw new Error('the application has no api_key');
  return { editor: BENCH_EDITOR, apiKey: app.data.meta.api_key };
}
