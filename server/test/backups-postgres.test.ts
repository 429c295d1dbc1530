// Moving up: a backup of a SQLite install (a desktop) restored into PostgreSQL with
// `npm run restore`, and back: the site answers the same — users log in with their passwords,
// roles, the folder tree, relations, search and files — and ids go on past the restored ones.
// Needs PostgreSQL: runs in npm test's PostgreSQL pass (FOLIO_TEST_DB=postgres).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { createServer, type FolioServer } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { runRestoreCli } from './helpers/child-server.js';
import { createUser, EDITOR } from './helpers/fixtures.js';
import { png } from './helpers/media-files.js';
import { ADMIN, startServer, type TestServer } from './helpers/server.js';
import { createTestDatabase, onPostgres, type TestDatabase } from './helpers/test-database.js';

const cleanups: Array<() => Promise<void> | void> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});
const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-move-'));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
};

interface Site {
  url: string;
  admin: string;
  close(): Promise<void>;
}

async function openSite(env: Record<string, string>): Promise<Site> {
  const server: FolioServer = await createServer(loadConfig({ FOLIO_LOGIN_LIMIT: '0', ...env }, { logRequests: false }), { log: () => {} });
  const { port } = await server.listen(0, '127.0.0.1');
  const url = `http://127.0.0.1:${port}`;
  const login = await fetch(`${url}/auth`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(ADMIN) });
  assert.equal(login.status, 200, 'the admin logs in with the password of the backup');
  return { url, admin: ((await login.json()) as { meta: { jwt: string } }).meta.jwt, close: () => server.close() };
}

const get = async (site: { url: string }, p: string, token?: string) => {
  const res = await fetch(site.url + p, { headers: { Accept: 'application/vnd.api+json', ...(token ? { Authorization: `Bearer ${token}` } : {}) } });
  assert.equal(res.status, 200, `${p}: ${res.status}`);
  return (await res.json()) as any;
};

/** What the site shows: documents (ids, titles, folder paths, relations), search, roles, the file. */
async function snapshot(site: Site, streamId: string) {
  const docs = await get(site, '/documents?sort=id&include=see_also&page_size=100', site.admin);
  const folders = await get(site, '/folders?sort=id', site.admin);
  const search = await get(site, `/documents?q=${encodeURIComponent('ünïcode')}`, site.admin);
  const file = await fetch(`${site.url}/streams/download/${streamId}`, { headers: { Authorization: `Bearer ${site.admin}` } });
  assert.equal(file.status, 200);
  return {
    documents: docs.data.map((d: any) => [d.id, d.attributes.title, d.attributes.status, d.relationships?.see_also?.data?.map((r: any) => r.id) ?? null]),
    folders: folders.data.map((f: any) => [f.id, f.attributes.title, f.meta.path]),
    search: search.data.map((d: any) => d.id).sort(),
    file: Buffer.from(await file.arrayBuffer()).toString('base64'),
  };
}

describe('moving a site between SQLite and PostgreSQL with a backup', { skip: onPostgres ? false : 'needs PostgreSQL: runs in the PostgreSQL pass of npm test' }, () => {
  let source: TestServer;
  let streamId: string;
  let before: Awaited<ReturnType<typeof snapshot>>;
  let pgDatabase: TestDatabase;
  let pgDir: string;

  test('a SQLite backup restores into PostgreSQL and the site answers the same', async () => {
    // The desktop install: SQLite (an empty FOLIO_DATABASE_URL is unset).
    source = await startServer({ FOLIO_DATABASE_URL: '' });
    cleanups.push(() => source.close());
    assert.equal(source.server.ctx.dialect.name, 'sqlite');
    const token = await source.adminToken();
    const post = async (p: string, body: unknown) => {
      const res = await source.request('POST', p, { token, body });
      assert.ok(res.status < 300, `${p}: ${res.text}`);
      return res.body;
    };
    const role = await post('/roles', { data: { type: 'roles', attributes: { name: 'editors' } } });
    const editor = await createUser(source, token, EDITOR);
    await post(`/users/${editor.id}/relationships/roles`, { data: [{ type: 'roles', id: role.data.id }] });
    const site = await post('/folders', { data: { type: 'folders', attributes: { title: 'Site', status: 'on' } } });
    const child = await post('/folders', { data: { type: 'folders', attributes: { title: 'News' }, relationships: { parent: { data: { type: 'folders', id: site.data.id } } } } });
    const docs: string[] = [];
    for (let i = 0; i < 4; i++) docs.push((await post('/documents', { data: { type: 'documents', attributes: { title: `Doc ${i}`, body: `ünïcode ${i}`, status: 'on' } } })).data.id);
    await post(`/folders/${child.data.id}/relationships/children`, { data: docs.slice(0, 2).map((id) => ({ type: 'documents', id })) });
    await post(`/documents/${docs[0]}/relationships/see_also`, { data: [{ type: 'documents', id: docs[1] }] });
    const image = await source.request('POST', '/images/upload/pixel.png', { token, raw: await png(20, 10), headers: { 'Content-Type': 'image/png' } });
    assert.equal(image.status, 201, image.text);
    streamId = image.body.included[0].id;
    before = await snapshot({ url: source.url, admin: token, close: async () => {} }, streamId);

    const backup = await source.request('POST', '/backups', { token });
    assert.equal(backup.status, 201, backup.text);
    const file = path.join(source.dataDir, 'backups', backup.body.data.attributes.file_name);

    pgDatabase = (await createTestDatabase())!;
    cleanups.push(() => pgDatabase.drop());
    pgDir = tempDir();
    const env = { FOLIO_DATA_DIR: pgDir, FOLIO_DATABASE_URL: pgDatabase.url };
    const run = await runRestoreCli(file, env);
    assert.equal(run.code, 0, run.out);
    assert.match(run.out, /objects\s+\d+/);

    const moved = await openSite(env);
    try {
      assert.deepEqual(await snapshot(moved, streamId), before);
      // Users keep their passwords and roles.
      const login = await fetch(`${moved.url}/auth`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(EDITOR) });
      assert.equal(login.status, 200);
      const jwt = ((await login.json()) as { meta: { jwt: string } }).meta.jwt;
      const me = await get(moved, '/auth/user?include=roles', jwt);
      assert.deepEqual(me.included.map((r: any) => r.attributes.name), ['editors']);
      // New objects and roles get ids past the restored ones.
      const created = await fetch(`${moved.url}/documents`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${moved.admin}` },
        body: JSON.stringify({ data: { type: 'documents', attributes: { title: 'After the move' } } }),
      });
      assert.equal(created.status, 201);
      const newId = Number(((await created.json()) as { data: { id: string } }).data.id);
      assert.ok(newId > Number(image.body.data.id), 'the one id sequence goes on past the highest restored id');
      const newRole = await fetch(`${moved.url}/roles`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${moved.admin}` },
        body: JSON.stringify({ data: { type: 'roles', attributes: { name: 'writers' } } }),
      });
      assert.equal(newRole.status, 201);
      assert.ok(Number(((await newRole.json()) as { data: { id: string } }).data.id) > Number(role.data.id));
    } finally {
      await moved.close();
    }
  });

  test('a PostgreSQL backup restores into SQLite', async () => {
    const env = { FOLIO_DATA_DIR: pgDir, FOLIO_DATABASE_URL: pgDatabase.url };
    const onPg = await openSite(env);
    let file: string;
    try {
      const backup = await fetch(`${onPg.url}/backups`, { method: 'POST', headers: { Authorization: `Bearer ${onPg.admin}` } });
      assert.equal(backup.status, 201);
      file = path.join(pgDir, 'backups', ((await backup.json()) as any).data.attributes.file_name);
    } finally {
      await onPg.close();
    }
    const back = tempDir();
    const run = await runRestoreCli(file, { FOLIO_DATA_DIR: back });
    assert.equal(run.code, 0, run.out);
    const site = await openSite({ FOLIO_DATA_DIR: back });
    try {
      const again = await snapshot(site, streamId);
      // The document created after the move came along.
      assert.deepEqual(again.documents.slice(0, before.documents.length), before.documents);
      assert.deepEqual(again.documents.at(-1)?.[1], 'After the move');
      assert.deepEqual({ ...again, documents: [] }, { ...before, documents: [] });
    } finally {
      await site.close();
    }
  });
});
