// The benchmark's bulk seed. Objects, folders, placements and relations are written in-process
// through the write kernel (apply: creates, a folder's children, relations), batched in
// transactions, so every invariant holds exactly as over the API
// (uname uniqueness, FTS triggers, the folder nested set) at a fraction of the HTTP cost.
// Images go through the real API (POST /images/upload/{name}) since their files matter.
import sharp from 'sharp';
import type { FolioServer } from '../../server/src/app.js';
import { apply, SYSTEM } from '../../server/src/resources/objects/kernel.js';
import { typeById } from '../../server/src/resources/objects/model.js';
import { inTransaction, type Actor } from '../../server/src/resources/objects/pipeline.js';
import { getObjectsByIds } from '../../server/src/resources/objects/read.js';
import { prng, textSource } from './text.js';

export interface SeedSizes {
  objects: number;
  folders: number;
  /** Items placed in the one big folder the children scenario reads. */
  folderItems: number;
  relations: number;
  images: number;
}

export const FULL: SeedSizes = { objects: 100_000, folders: 1_000, folderItems: 1_000, relations: 20_000, images: 200 };
export const QUICK: SeedSizes = { objects: 10_000, folders: 1_000, folderItems: 1_000, relations: 2_000, images: 20 };

export interface SeedResult {
  sizes: SeedSizes;
  /** Ids of seeded objects of type documents with status on (the read scenarios' targets). */
  documentIds: number[];
  bigFolderId: number;
  imageIds: number[];
  /** The full-text query used by the search scenario and how many objects it matches. */
  searchWord: string;
  /** A non-admin editor (role `bench-editor`: read everything, write documents) and an application's API key. */
  editor: { username: string; password: string };
  apiKey: string;
  seconds: number;
}

const TYPES = ['documents', 'events', 'news'] as const;
// Mostly English, as most sites are: the list scenario's filter keeps enough items for page 500.
const LANGS = ['en', 'en', 'en', 'it', 'de'];
const BATCH = 500;

export async function seed(server: FolioServer, url: string, adminToken: string, sizes: SeedSizes): Promise<SeedResult> {
  const started = Date.now();
  const { ctx } = server;
  const admin = await ctx.db.selectFrom('users').select('id').orderBy('id').executeTakeFirstOrThrow();
  const actor: Actor = { userId: Number(admin.id), isAdmin: true };
  const text = textSource(42);
  const rnd = prng(7);
  const documentIds: number[] = [];
  const allIds: number[] = [];

  for (let done = 0; done < sizes.objects; done += BATCH) {
    const n = Math.min(BATCH, sizes.objects - done);
    await inTransaction(ctx, undefined, async (trx) => {
      for (let i = 0; i < n; i++) {
        const type = TYPES[(done + i) % TYPES.length];
        const status = rnd() < 0.9 ? 'on' : 'draft';
        const attributes = {
          title: text.sentence(3, 8),
          description: text.sentence(10, 25),
          body: text.body(1000 + Math.floor(rnd() * 4000)),
          lang: LANGS[Math.floor(rnd() * LANGS.length)],
          status,
        };
        const id = (await apply(ctx, { action: 'create', type, actor, changes: { attributes } }, trx)).row.id;
        allIds.push(id);
        if (type === 'documents' && status === 'on') documentIds.push(id);
      }
    });
  }

  // A tree of folders: 10 roots, then each new folder under a random earlier one.
  const folderIds: number[] = [];
  for (let done = 0; done < sizes.folders; done += BATCH) {
    const n = Math.min(BATCH, sizes.folders - done);
    await inTransaction(ctx, undefined, async (trx) => {
      for (let i = 0; i < n; i++) {
        const k = done + i;
        const parentId = k < 10 ? null : folderIds[Math.floor(rnd() * folderIds.length)];
        const attributes = { title: `Folder ${k} ${text.sentence(1, 3)}`, status: 'on' };
        folderIds.push((await apply(ctx, { action: 'create', type: 'folders', actor, changes: { attributes, own: { parentId } } }, trx)).row.id);
      }
    });
  }
  const bigFolderId = folderIds[folderIds.length - 1];
  const items = await getObjectsByIds(ctx, documentIds.slice(0, sizes.folderItems), { viewer: SYSTEM });
  const children = { mode: 'add' as const, items: items.map((row) => ({ id: String(row.id) })) };
  await apply(ctx, { action: 'update', target: { key: bigFolderId }, actor, changes: { parts: { children } } });

  // see_also relations between random objects (several per object for some of them).
  const pool = await getObjectsByIds(ctx, allIds.slice(0, Math.min(allIds.length, sizes.relations)), { viewer: SYSTEM });
  for (let done = 0; done < pool.length; done += BATCH) {
    await inTransaction(ctx, undefined, async (trx) => {
      for (const row of pool.slice(done, done + BATCH)) {
        const others = Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => allIds[Math.floor(rnd() * allIds.length)]).filter((id) => id !== row.id);
        const targets = await getObjectsByIds(ctx, others, { db: trx, viewer: SYSTEM });
        const data = targets.map((t) => ({ type: typeById(ctx, t.object_type_id)!.name, id: String(t.id), meta: {} }));
        if (data.length) await apply(ctx, { action: 'update', target: { key: row.id }, actor, changes: { relations: [{ name: 'see_also', items: data, mode: 'add' }] } }, trx);
      }
    });
  }

  const imageIds: number[] = [];
  for (let i = 0; i < sizes.images; i++) {
    const png = await sharp({ create: { width: 320 + (i % 7) * 10, height: 240, channels: 3, background: { r: (i * 37) % 256, g: (i * 91) % 256, b: 120 } } })
      .png()
      .toBuffer();
    const res = await fetch(`${url}/images/upload/picture-${i}.png`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${adminToken}`, 'Content-Type': 'image/png', Accept: 'application/vnd.api+json' },
      body: new Uint8Array(png),
    });
    if (res.status !== 201) throw new Error(`image upload failed: ${res.status} ${await res.text()}`);
    const id = Number(((await res.json()) as { data: { id: string } }).data.id);
    // Publish it so anonymous thumbnail requests see it.
    const patch = await fetch(`${url}/images/${id}`, {
      method: 'PATCH',
      headers: { Authorization: `Bearer ${adminToken}`, 'Content-Type': 'application/vnd.api+json', Accept: 'application/vnd.api+json' },
      body: JSON.stringify({ data: { id: String(id), type: 'images', attributes: { status: 'on' } } }),
    });
    if (patch.status !== 200) throw new Error(`image publish failed: ${patch.status} ${await patch.text()}`);
    imageIds.push(id);
  }

  const { editor, apiKey } = await seedReaders(url, adminToken);
  return { sizes, documentIds, bigFolderId, imageIds, searchWord: text.wordOfRank(3000), editor, apiKey, seconds: (Date.now() - started) / 1000 };
}

export const BENCH_EDITOR = { username: 'bench-editor', password: 'bench-editor-password' };

/** The readers of the signed-in and API-key scenarios, made over the API as an admin would. */
async function seedReaders(url: string, adminToken: string): Promise<{ editor: typeof BENCH_EDITOR; apiKey: string }> {
  const call = async (method: string, path: string, body: unknown) => {
    const res = await fetch(url + path, {
      method,
      headers: { Authorization: `Bearer ${adminToken}`, 'Content-Type': 'application/vnd.api+json', Accept: 'application/vnd.api+json' },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${path} failed: ${res.status} ${await res.text()}`);
    return (await res.json()) as { data: { id: string; meta?: { api_key?: string } } };
  };
  const permissions = { '*': ['read'], documents: ['read', 'create', 'update', 'delete', 'publish'], news: ['read', 'create', 'update:own', 'delete:own'] };
  const role = await call('POST', '/roles', { data: { type: 'roles', attributes: { name: 'bench-editor', permissions } } });
  const user = await call('POST', '/users', { data: { type: 'users', attributes: { ...BENCH_EDITOR, email: 'bench-editor@example.com' } } });
  await call('POST', `/users/${user.data.id}/relationships/roles`, { data: [{ type: 'roles', id: role.data.id }] });
  const app = await call('POST', '/applications', { data: { type: 'applications', attributes: { name: 'bench-site', description: 'The benchmark\'s site client' } } });
  if (!app.data.meta?.api_key) throw new Error('the application has no api_key');
  return { editor: BENCH_EDITOR, apiKey: app.data.meta.api_key };
}
