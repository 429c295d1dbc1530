// Backups and restore: a backup restored into a fresh data dir gives every table and every file
// back byte for byte; a backup taken under a write load (by the server and by `npm run backup` in
// another process) restores to a consistent state; damaged, truncated and tampered files are
// refused and change nothing; --replace; the /backups API (permissions, errors, download);
// scheduled backups and their pruning; the commands' exit codes.
// postgres pass: not run (the restore CLI children and their fixtures read the SQLite file; backups-postgres covers PostgreSQL)
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import tar from 'tar-stream';
import { ConfigError, loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { checkTree } from '../src/resources/folders/check.js';
import { createUser, EDITOR, tinyPng } from './helpers/fixtures.js';
import { png, rotatedJpeg } from './helpers/media-files.js';
import { runCommand, type CommandResult } from './helpers/run-command.js';
import { ADMIN, expectError, startServer, type TestServer } from './helpers/server.js';
import { letTimePass, waitUntil } from './helpers/wait.js';

const root = path.resolve(import.meta.dirname, '..', '..');
const tempDirs: string[] = [];
function tempDir(prefix = 'folio-backup-test-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}
after(() => {
  for (const d of tempDirs) fs.rmSync(d, { recursive: true, force: true });
});

type RunResult = CommandResult;

/** Run a command of server/src/cli (through tsx) with FOLIO_DATA_DIR set. */
function runCli(name: 'backup' | 'restore', args: string[], dataDir: string): Promise<RunResult> {
  return runNode(['--import', 'tsx', path.join(root, 'server/src/cli', `${name}.ts`), ...args], dataDir);
}

function runNode(args: string[], dataDir: string): Promise<RunResult> {
  return runCommand(process.execPath, args, { FOLIO_DATA_DIR: dataDir });
}

// ---- what a data dir holds, to compare ---------------------------------------------------------

interface DataDirState {
  tables: Record<string, string[]>;
  sequences: string[];
  files: Record<string, Buffer>;
}

function readState(dataDir: string): DataDirState {
  const db = new Database(path.join(dataDir, 'folio.sqlite'), { readonly: true });
  try {
    const names = (db.prepare("select name from pragma_table_list where schema = 'main' and type = 'table' and name not like 'sqlite_%' and name not like 'kysely_%' and name != 'folio_data_version' order by name").all() as { name: string }[]).map((r) => r.name);
    const tables: Record<string, string[]> = {};
    for (const name of names) {
      const rows = db.prepare(`select * from "${name}"`).all() as Record<string, unknown>[];
      tables[name] = rows.map((r) => JSON.stringify(r, (_k, v) => (Buffer.isBuffer(v) ? v.toString('base64') : v))).sort();
    }
    const sequences = (db.prepare('select name, seq from sqlite_sequence order by name').all() as { name: string; seq: number }[]).map((r) => `${r.name}=${r.seq}`);
    const files: Record<string, Buffer> = {};
    for (const family of ['streams', 'thumbs']) {
      const dir = path.join(dataDir, 'files', family);
      if (!fs.existsSync(dir)) continue;
      for (const entry of fs.readdirSync(dir, { recursive: true })) {
        const full = path.join(dir, String(entry));
        if (fs.statSync(full).isFile()) files[`${family}/${String(entry)}`] = fs.readFileSync(full);
      }
    }
    return { tables, sequences, files };
  } finally {
    db.close();
  }
}

/** Every table (sessions emptied) and every stored file of `restored` equal those of `original`. */
function assertSameContent(original: DataDirState, restored: DataDirState) {
  const expected = { ...original.tables, refresh_tokens: [] };
  assert.deepEqual(Object.keys(restored.tables).sort(), Object.keys(expected).sort());
  for (const [name, rows] of Object.entries(expected)) assert.deepEqual(restored.tables[name], rows, `table ${name} differs`);
  assert.deepEqual(Object.keys(restored.files).sort(), Object.keys(original.files).sort());
  for (const [name, bytes] of Object.entries(original.files)) assert.ok(restored.files[name].equals(bytes), `file ${name} differs`);
}

// ---- content ------------------------------------------------------------------------------------

interface Content {
  editor: { id: string; jwt: string };
  imageId: string;
  streamId: string;
}

/** Users with roles, documents, a folder tree with contents, relations, media with thumbnails, trash. */
async function makeContent(s: TestServer): Promise<Content> {
  const token = await s.adminToken();
  const post = async (p: string, body: unknown) => {
    const r = await s.request('POST', p, { token, body });
    assert.ok(r.status === 201 || r.status === 200, `${p}: ${r.status} ${r.text}`);
    return r.body;
  };
  const role = await post('/roles', { data: { type: 'roles', attributes: { name: 'editors', description: 'Editors' } } });
  const editor = await createUser(s, token, EDITOR);
  await post(`/users/${editor.id}/relationships/roles`, { data: [{ type: 'roles', id: role.data.id }] });
  const root = await post('/folders', { data: { type: 'folders', attributes: { title: 'Root', status: 'on' } } });
  const child = await post('/folders', { data: { type: 'folders', attributes: { title: 'Child' }, relationships: { parent: { data: { type: 'folders', id: root.data.id } } } } });
  const docs: string[] = [];
  for (let i = 0; i < 5; i++) {
    const d = await post('/documents', { data: { type: 'documents', attributes: { title: `Doc ${i}`, body: `Body ${i} ünïcode`, status: i % 2 ? 'on' : 'draft' } } });
    docs.push(d.body?.data?.id ?? d.data.id);
  }
  await post(`/folders/${child.data.id}/relationships/children`, { data: docs.slice(0, 3).map((id) => ({ type: 'documents', id })) });
  await post(`/documents/${docs[0]}/relationships/see_also`, { data: [{ type: 'documents', id: docs[1] }, { type: 'documents', id: docs[2], meta: { relation: { priority: 2 } } }] });
  const image = await s.request('POST', '/images/upload/photo.jpg', { token, raw: await rotatedJpeg(), headers: { 'Content-Type': 'image/jpeg' } });
  assert.equal(image.status, 201, image.text);
  const second = await s.request('POST', '/images/upload/pixel.png', { token, raw: await png(20, 10), headers: { 'Content-Type': 'image/png' } });
  assert.equal(second.status, 201, second.text);
  for (const preset of ['small', 'medium']) assert.equal((await s.request('GET', `/media/thumbs/${image.body.data.id}?preset=${preset}`, { token })).status, 200);
  await post(`/documents/${docs[3]}/relationships/poster`, { data: [{ type: 'images', id: image.body.data.id }] });
  assert.equal((await s.request('DELETE', `/documents/${docs[4]}`, { token })).status, 204);
  return { editor, imageId: image.body.data.id, streamId: image.body.included[0].id };
}

// ---- tests ----------------------------------------------------------------------------------------

describe('backup and restore', () => {
  let s: TestServer;
  let content: Content;
  let backupFile: string;
  let original: DataDirState;

  before(async () => {
    s = await startServer();
    content = await makeContent(s);
  });
  after(() => s.close());

  test('POST /backups makes a backup: 201 with file_name, size, created and meta.counts; the download is that file', async () => {
    const token = await s.adminToken();
    const res = await s.request('POST', '/backups', { token });
    assert.equal(res.status, 201, res.text);
    const b = res.body.data;
    assert.equal(b.type, 'backups');
    assert.match(b.id, /^\d{8}T\d{6}Z-[0-9a-f]{6}$/);
    assert.equal(b.attributes.file_name, `folio-backup-${b.id}.tar.gz`);
    assert.ok(b.attributes.size > 0);
    assert.ok(!Number.isNaN(Date.parse(b.attributes.created)));
    assert.equal(res.headers.get('location'), `${s.url}/backups/${b.id}`);
    const counts = res.body.meta.counts;
    assert.deepEqual(counts, b.meta.counts);
    assert.equal(counts.tables.objects, (readState(s.dataDir).tables.objects ?? []).length);
    assert.equal(counts.tables.streams, 2);
    assert.equal(counts.tables.refresh_tokens, undefined, 'sessions are not backed up');
    assert.equal(counts.files, Object.keys(readState(s.dataDir).files).length);

    const download = await fetch(`${s.url}/backups/${b.id}/download`, { headers: { Authorization: `Bearer ${token}` } });
    assert.equal(download.status, 200);
    assert.equal(download.headers.get('content-disposition'), `attachment; filename=${b.attributes.file_name}`);
    assert.equal(download.headers.get('content-type'), 'application/gzip');
    assert.equal(download.headers.get('content-length'), String(b.attributes.size));
    const bytes = Buffer.from(await download.arrayBuffer());
    assert.ok(bytes.equals(fs.readFileSync(path.join(s.dataDir, 'backups', b.attributes.file_name))));
    backupFile = path.join(tempDir(), 'site.tar.gz');
    fs.writeFileSync(backupFile, bytes);
    original = readState(s.dataDir);
  });

  test('the file is a gzip tar: header first, tables as JSON lines, files, manifest last with SHA-256 of each', async () => {
    const names: string[] = [];
    const bodies = new Map<string, Buffer>();
    const extract = tar.extract();
    fs.createReadStream(backupFile).pipe(zlib.createGunzip()).pipe(extract);
    for await (const entry of extract) {
      names.push(entry.header.name);
      const chunks: Buffer[] = [];
      for await (const c of entry) chunks.push(c as Buffer);
      bodies.set(entry.header.name, Buffer.concat(chunks));
    }
    assert.equal(names[0], 'folio-backup.json');
    assert.equal(names.at(-1), 'manifest.json');
    const manifest = JSON.parse(bodies.get('manifest.json')!.toString());
    assert.equal(manifest.format, 'folio-backup');
    assert.equal(manifest.version, 1);
    assert.ok(manifest.files[`files/streams/${content.streamId}`]);
    for (const [name, d] of Object.entries<{ sha256: string; size: number }>(manifest.files)) {
      assert.equal(crypto.createHash('sha256').update(bodies.get(name)!).digest('hex'), d.sha256);
    }
    const users = bodies.get('tables/users.jsonl')!.toString().trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(users.length, manifest.tables.users.rows);
    assert.ok(users.every((u) => typeof u.blocked === 'boolean'), 'booleans are written as true/false');
    assert.ok(!names.includes('tables/refresh_tokens.jsonl'));
    assert.ok(!names.some((n) => n.startsWith('tables/objects_fts')), 'the full-text index is rebuilt, not backed up');
  });

  test('npm run restore into a fresh data dir gives every table and every file back byte for byte; sessions end', async () => {
    const fresh = tempDir();
    const run = await runCli('restore', [backupFile], fresh);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /objects\s+\d+/);
    assert.match(run.stdout, /files\s+\d+/);
    assertSameContent(original, readState(fresh));

    // The restored site works: users log in with their passwords, roles apply, search finds, files serve.
    const config = loadConfig({ FOLIO_DATA_DIR: fresh, FOLIO_LOGIN_LIMIT: '0' }, { logRequests: false });
    const { createServer } = await import('../src/app.js');
    const server = await createServer(config, { log: () => {} });
    const { port } = await server.listen(0, '127.0.0.1');
    const url = `http://127.0.0.1:${port}`;
    try {
      const login = await fetch(`${url}/auth`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(EDITOR) });
      assert.equal(login.status, 200);
      const jwt = ((await login.json()) as { meta: { jwt: string } }).meta.jwt;
      const me = (await (await fetch(`${url}/auth/user?include=roles`, { headers: { Authorization: `Bearer ${jwt}` } })).json()) as { included: { attributes: { name: string } }[] };
      assert.deepEqual(me.included.map((r) => r.attributes.name), ['editors']);
      const adminLogin = await fetch(`${url}/auth`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(ADMIN) });
      const admin = ((await adminLogin.json()) as { meta: { jwt: string } }).meta.jwt;
      const found = (await (await fetch(`${url}/documents?q=${encodeURIComponent('ünïcode')}`, { headers: { Authorization: `Bearer ${admin}` } })).json()) as { data: unknown[] };
      assert.equal(found.data.length, 4, 'full-text search sees the restored objects (the trashed one aside)');
      const file = await fetch(`${url}/streams/download/${content.streamId}`, { headers: { Authorization: `Bearer ${admin}` } });
      assert.equal(file.status, 200);
      assert.ok(Buffer.from(await file.arrayBuffer()).equals(original.files[Object.keys(original.files).find((f) => f.endsWith(content.streamId))!]));
      // An old session is gone: refresh tokens were not restored.
      const renew = await fetch(`${url}/auth`, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${(await s.login()).renew}` }, body: '{"grant_type":"refresh_token"}' });
      assert.equal(renew.status, 401);
      // The shared id sequence goes on past the highest id the backup had used.
      const created = await fetch(`${url}/documents`, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${admin}` }, body: JSON.stringify({ data: { type: 'documents', attributes: { title: 'after' } } }) });
      assert.equal(created.status, 201);
      const seq = Number(original.sequences.find((x) => x.startsWith('objects='))!.split('=')[1]);
      assert.equal(Number(((await created.json()) as { data: { id: string } }).data.id), seq + 1);
    } finally {
      await server.close();
    }
  });

  test('a database holding content is refused without --replace (exit 1, nothing changed), replaced with it', async () => {
    const target = await startServer();
    const token = await target.adminToken();
    const mine = await target.request('POST', '/documents', { token, body: { data: { type: 'documents', attributes: { title: 'Keep me' } } } });
    assert.equal(mine.status, 201);
    const upload = await target.request('POST', '/images/upload/other.png', { token, raw: await tinyPng(99), headers: { 'Content-Type': 'image/png' } });
    assert.equal(upload.status, 201);
    const dir = target.dataDir;
    await target.server.close(); // restore runs with the server stopped
    const before = readState(dir);
    const refused = await runCli('restore', [backupFile], dir);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /holds content.*--replace/);
    assert.match(refused.stderr, /nothing was changed/);
    assert.deepEqual(readState(dir), before);

    const replaced = await runCli('restore', ['--', backupFile, '--replace'], dir);
    assert.equal(replaced.code, 0, replaced.stderr);
    assertSameContent(original, readState(dir));
    assert.ok(!Object.keys(readState(dir).files).some((f) => f.includes(upload.body.included[0].id)), 'files of replaced streams are gone');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('a damaged (one flipped byte), truncated or tampered file is refused with a clear message and changes nothing', async () => {
    const dir = tempDir();
    // A target with content of its own, restored with --replace: only the file's checks can stop it.
    assert.equal((await runCli('restore', [backupFile], dir)).code, 0);
    const before = readState(dir);
    const bytes = fs.readFileSync(backupFile);

    const flipped = Buffer.from(bytes);
    flipped[Math.floor(bytes.length / 2)] ^= 0x01;
    const truncated = bytes.subarray(0, Math.floor(bytes.length * 0.8));
    const tampered = await repack(backupFile, (name, body) => (name === 'tables/objects.jsonl' ? Buffer.from(body.toString().replace('Doc 1', 'Doc X')) : body));
    const dropped = await repack(backupFile, (name, body) => (name.startsWith('files/thumbs/') ? null : body));
    const cases: Array<[string, Buffer, RegExp]> = [
      ['flipped', flipped, /damaged|truncated|not a Folio backup|checksum/],
      ['truncated', truncated, /damaged, truncated/],
      ['tampered', tampered, /tables\/objects\.jsonl" does not match its checksum/],
      ['dropped', dropped, /incomplete: "files\/thumbs\//],
      ['not-a-backup', zlib.gzipSync(Buffer.from('hello')), /damaged|not a Folio backup/],
      ['empty', Buffer.alloc(0), /damaged|truncated|empty/],
    ];
    for (const [name, body, message] of cases) {
      const file = path.join(tempDir(), `${name}.tar.gz`);
      fs.writeFileSync(file, body);
      const run = await runCli('restore', [file, '--replace'], dir);
      assert.equal(run.code, 1, `${name}: ${run.stdout} ${run.stderr}`);
      assert.match(run.stderr, message, name);
      assert.match(run.stderr, /nothing was changed/, name);
      assert.deepEqual(readState(dir), before, `${name} changed the data dir`);
      assert.deepEqual(fs.readdirSync(path.join(dir, 'backups')), [], `${name} left staging files`);
    }
  });

  test('the /backups API is for admins: anonymous 401, others 403', async () => {
    const list = await s.request('GET', '/backups', { token: await s.adminToken() });
    const id = list.body.data[0].id;
    for (const [method, p] of [
      ['GET', '/backups'],
      ['POST', '/backups'],
      ['GET', `/backups/${id}`],
      ['GET', `/backups/${id}/download`],
      ['DELETE', `/backups/${id}`],
    ]) {
      expectError(await s.request(method, p), 401);
      expectError(await s.request(method, p, { token: content.editor.jwt }), 403);
    }
    const home = await s.request('GET', '/home', { token: content.editor.jwt });
    assert.equal(home.body.meta.resources['/backups'], undefined);
    const adminHome = await s.request('GET', '/home', { token: await s.adminToken() });
    assert.ok(adminHome.body.meta.resources['/backups']);
  });

  test('GET /backups lists newest first with paging and the running backup; bad ids give 404, bad queries 400', async () => {
    const token = await s.adminToken();
    const second = await s.request('POST', '/backups', { token });
    assert.equal(second.status, 201);
    const list = await s.request('GET', '/backups', { token });
    assert.equal(list.status, 200);
    assert.equal(list.body.meta.pagination.count, 2);
    assert.equal(list.body.meta.running, null);
    assert.equal(list.body.data[0].id, second.body.data.id);
    assert.equal(list.body.data[0].links.download, `${s.url}/backups/${second.body.data.id}/download`);
    const bySize = await s.request('GET', '/backups?sort=size&page_size=1&page=2', { token });
    assert.equal(bySize.body.data.length, 1);
    expectError(await s.request('GET', '/backups?sort=nope', { token }), 400, 'invalid_sort');
    expectError(await s.request('GET', '/backups?filter[size]=1', { token }), 400, 'invalid_filter');
    assert.equal((await s.request('GET', '/backups?page_size=101', { token })).body.meta.pagination.page_size, 100, 'a page size over 100 is answered as 100');

    const one = await s.request('GET', `/backups/${second.body.data.id}`, { token });
    assert.deepEqual(one.body.data, second.body.data);
    for (const bad of ['..%2F..%2Ffolio.sqlite', '..', '20990101T000000Z-abcdef', 'folio-backup-x', '%2Fetc%2Fpasswd', second.body.data.id.replace('T', 't')]) {
      expectError(await s.request('GET', `/backups/${bad}`, { token }), 404);
      expectError(await s.request('GET', `/backups/${bad}/download`, { token }), 404);
      expectError(await s.request('DELETE', `/backups/${bad}`, { token }), 404);
    }
    expectError(await s.request('PATCH', `/backups/${second.body.data.id}`, { token, body: {} }), 405);
    expectError(await s.request('POST', '/backups', { token, raw: 'x', headers: { 'Content-Type': 'text/plain' } }), 415);

    const del = await s.request('DELETE', `/backups/${second.body.data.id}`, { token });
    assert.equal(del.status, 204);
    expectError(await s.request('GET', `/backups/${second.body.data.id}`, { token }), 404);
    expectError(await s.request('DELETE', `/backups/${second.body.data.id}`, { token }), 404);
    assert.ok(!fs.readdirSync(path.join(s.dataDir, 'backups')).some((f) => f.includes(second.body.data.id)));
  });
});

describe('a backup that takes a while', () => {
  test('GET /backups shows it under meta.running with its progress; a second POST meanwhile gives 409', async () => {
    const s = await startServer();
    try {
      const token = await s.adminToken();
      const big = await s.request('POST', '/files/upload/noise.bin', { token, raw: crypto.randomBytes(24 * 1024 * 1024), headers: { 'Content-Type': 'application/octet-stream' } });
      assert.equal(big.status, 201, big.text);
      let done = false;
      const made = s.request('POST', '/backups', { token }).finally(() => (done = true));
      const seen: Array<{ phase: string; bytes_done: number; bytes_total: number }> = [];
      let second: number | null = null;
      while (!done) {
        const list = await s.request('GET', '/backups', { token });
        const running = list.body.meta.running;
        if (running) {
          seen.push(running.progress);
          assert.match(running.id, /^\d{8}T\d{6}Z-[0-9a-f]{6}$/);
          assert.equal(running.kind, 'manual');
          if (second === null) {
            const again = await s.request('POST', '/backups', { token });
            second = again.status;
            if (again.status === 409) expectError(again, 409, 'backup_running');
          }
        }
        await new Promise((r) => setTimeout(r, 20));
      }
      assert.equal((await made).status, 201);
      assert.ok(seen.length > 0, 'the running backup was reported');
      assert.equal(second, 409);
      const archiving = seen.filter((p) => p.phase === 'archive');
      assert.ok(archiving.length > 0 && archiving.every((p) => p.bytes_total >= 24 * 1024 * 1024 && p.bytes_done <= p.bytes_total), JSON.stringify(seen));
      assert.equal((await s.request('GET', '/backups', { token })).body.meta.running, null);
      assert.equal((await s.request('GET', '/backups', { token })).body.data.length, 1, 'the refused POST made nothing');
    } finally {
      await s.close();
    }
  });
});

/** Rewrite an archive entry by entry (null drops one), with the original manifest. */
async function repack(file: string, change: (name: string, body: Buffer) => Buffer | null): Promise<Buffer> {
  const extract = tar.extract();
  const pack = tar.pack();
  fs.createReadStream(file).pipe(zlib.createGunzip()).pipe(extract);
  const out: Buffer[] = [];
  const gzip = zlib.createGzip();
  gzip.on('data', (c) => out.push(c));
  const ended = new Promise((resolve) => gzip.on('end', resolve));
  pack.pipe(gzip);
  for await (const entry of extract) {
    const chunks: Buffer[] = [];
    for await (const c of entry) chunks.push(c as Buffer);
    const body = change(entry.header.name, Buffer.concat(chunks));
    if (body) pack.entry({ name: entry.header.name }, body);
  }
  pack.finalize();
  await ended;
  return Buffer.concat(out);
}

describe('a backup under write load', () => {
  test('taken by the server and by npm run backup while parallel creates and uploads run, it restores consistent', async () => {
    const s = await startServer();
    try {
      const token = await s.adminToken();
      const root = await s.request('POST', '/folders', { token, body: { data: { type: 'folders', attributes: { title: 'Load root' } } } });
      let stop = false;
      const acked = { folders: 0, images: 0, documents: 0 };
      const worker = async (w: number) => {
        for (let i = 0; !stop; i++) {
          if (i % 3 === 0) {
            const r = await s.request('POST', '/images/upload/w.png', { token, raw: await tinyPng(w * 1000 + i), headers: { 'Content-Type': 'image/png' } });
            assert.equal(r.status, 201, r.text);
            acked.images++;
          } else if (i % 3 === 1) {
            const r = await s.request('POST', '/folders', { token, body: { data: { type: 'folders', attributes: { title: `F${w}.${i}` }, relationships: { parent: { data: { type: 'folders', id: root.body.data.id } } } } } });
            assert.equal(r.status, 201, r.text);
            acked.folders++;
          } else {
            const r = await s.request('POST', '/documents', { token, body: { data: { type: 'documents', attributes: { title: `D${w}.${i}`, body: 'x'.repeat(2000) } } } });
            assert.equal(r.status, 201, r.text);
            acked.documents++;
          }
        }
      };
      const workers = Array.from({ length: 6 }, (_, w) => worker(w));
      const total = (a: typeof acked) => a.images + a.folders + a.documents;
      await waitUntil(() => (total(acked) > 10 ? true : undefined), 'the load to get going');
      const cliFile = path.join(tempDir(), 'cli.tar.gz');
      const [cli, api] = await Promise.all([runCli('backup', [cliFile], s.dataDir), s.request('POST', '/backups', { token })]);
      const during = { ...acked };
      // The load goes on after the backups, then stops.
      await waitUntil(() => (total(acked) > total(during) + 3 ? true : undefined), 'more writes after the backups');
      stop = true;
      await Promise.all(workers);
      assert.equal(cli.code, 0, cli.stderr);
      assert.equal(api.status, 201, api.text);
      assert.ok(total(during) > 10, `the load ran during the backups: ${JSON.stringify(during)}`);

      for (const file of [cliFile, path.join(s.dataDir, 'backups', api.body.data.attributes.file_name)]) {
        const dir = tempDir();
        const run = await runCli('restore', [file], dir);
        assert.equal(run.code, 0, run.stderr);
        await assertConsistent(dir);
      }
    } finally {
      await s.close();
    }
  });
});

/** Every image has its stream and its file with the right checksum; every folder its tree node; the tree is valid. */
async function assertConsistent(dataDir: string) {
  const raw = new Database(path.join(dataDir, 'folio.sqlite'), { readonly: true });
  try {
    assert.equal(raw.pragma('integrity_check', { simple: true }), 'ok');
    assert.deepEqual(raw.pragma('foreign_key_check'), []);
    const images = raw.prepare("select o.id, s.uuid, s.hash_sha256, s.file_size from objects o join object_types t on t.id = o.object_type_id left join streams s on s.object_id = o.id where t.name = 'images'").all() as { id: number; uuid: string | null; hash_sha256: string; file_size: number }[];
    assert.ok(images.length > 0);
    for (const img of images) {
      assert.ok(img.uuid, `image ${img.id} has its stream`);
      const bytes = fs.readFileSync(path.join(dataDir, 'files', 'streams', img.uuid.slice(0, 2), img.uuid));
      assert.equal(bytes.length, img.file_size);
      assert.equal(crypto.createHash('sha256').update(bytes).digest('hex'), img.hash_sha256);
    }
    const orphanStreams = raw.prepare('select count(*) n from streams where object_id is null').get() as { n: number };
    assert.equal(orphanStreams.n, 0);
    const folders = raw.prepare("select count(*) n from objects o join object_types t on t.id = o.object_type_id left join trees tr on tr.object_id = o.id where t.name = 'folders' and tr.id is null").get() as { n: number };
    assert.equal(folders.n, 0, 'every folder has its tree node');
    const titled = raw.prepare("select count(*) n from objects o join object_types t on t.id = o.object_type_id where t.name = 'documents' and length(body) <> 2000").get() as { n: number };
    assert.equal(titled.n, 0, 'every document is complete');
  } finally {
    raw.close();
  }
  const db = await openDatabase(loadConfig({ FOLIO_DATA_DIR: dataDir }));
  try {
    assert.deepEqual(await checkTree(db.db), []);
  } finally {
    await db.close();
  }
}

describe('scheduled backups', () => {
  test('FOLIO_BACKUP_INTERVAL_HOURS makes backups on a timer; FOLIO_BACKUP_KEEP keeps the newest scheduled ones; manual ones stay', async () => {
    // 0.0003 h ≈ 1.1 s
    const s = await startServer({ FOLIO_BACKUP_INTERVAL_HOURS: '0.0003', FOLIO_BACKUP_KEEP: '2' });
    try {
      const token = await s.adminToken();
      // The timer may have started a scheduled backup first (409 backup_running): once it is done.
      const manual = await waitUntil(async () => {
        const r = await s.request('POST', '/backups', { token });
        if (r.status === 409) return undefined;
        assert.equal(r.status, 201, r.text);
        return r;
      }, 'a manual backup between scheduled ones');
      const seen = new Set<string>();
      await waitUntil(async () => {
        const list = await s.request('GET', '/backups?page_size=100', { token });
        const scheduled = list.body.data.filter((b: { meta: { kind: string } }) => b.meta.kind === 'scheduled');
        for (const b of scheduled) seen.add(b.id);
        assert.ok(scheduled.length <= 2, `at most FOLIO_BACKUP_KEEP scheduled backups are kept: ${scheduled.length}`);
        assert.ok(list.body.data.some((b: { id: string }) => b.id === manual.body.data.id), 'the manual backup stays');
        return seen.size >= 4 ? true : undefined;
      }, 'four scheduled backups');
    } catch (err) {
      await s.close();
      throw err;
    }
    const dir = s.dataDir;
    await s.server.close();
    // Closed: the timer is cleared, nothing more is written.
    const after = fs.readdirSync(path.join(dir, 'backups')).sort();
    // More than one interval passes, in which a timer left running would have started a backup.
    await letTimePass(1500);
    assert.deepEqual(fs.readdirSync(path.join(dir, 'backups')).sort(), after);
    assert.ok(!after.some((f) => f.startsWith('.')), 'no staging left behind');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('bad settings stop start-up with a message naming the variable', () => {
    assert.throws(() => loadConfig({ FOLIO_BACKUP_INTERVAL_HOURS: 'daily' }), (e) => e instanceof ConfigError && /FOLIO_BACKUP_INTERVAL_HOURS/.test(e.message));
    assert.throws(() => loadConfig({ FOLIO_BACKUP_INTERVAL_HOURS: '0' }), ConfigError);
    assert.throws(() => loadConfig({ FOLIO_BACKUP_KEEP: '0' }), (e) => e instanceof ConfigError && /FOLIO_BACKUP_KEEP/.test(e.message));
    assert.equal(loadConfig({}).backupKeep, 7);
    assert.equal(loadConfig({}).backupIntervalHours, null);
    assert.equal(loadConfig({ FOLIO_BACKUP_INTERVAL_HOURS: '1.5' }).backupIntervalHours, 1.5);
  });
});

describe('the commands', () => {
  test('exit codes: usage errors 2, no database 2, a missing file 1; npm run backup without FILE stores it where the API lists it', async () => {
    const empty = tempDir();
    assert.equal((await runCli('backup', [], empty)).code, 2);
    assert.equal((await runCli('backup', ['--bogus'], empty)).code, 2);
    assert.equal((await runCli('backup', ['a', 'b'], empty)).code, 2);
    assert.equal((await runCli('restore', [], empty)).code, 2);
    assert.equal((await runCli('restore', ['x', '--force'], empty)).code, 2);
    const missing = await runCli('restore', [path.join(empty, 'nope.tar.gz')], empty);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /not a file/);

    const s = await startServer();
    try {
      const run = await runCli('backup', [], s.dataDir);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /backup: wrote .*folio-backup-\d{8}T\d{6}Z-[0-9a-f]{6}\.tar\.gz/);
      const list = await s.request('GET', '/backups', { token: await s.adminToken() });
      assert.equal(list.body.data.length, 1);
      assert.equal(list.body.data[0].meta.kind, 'manual');
      assert.ok(list.body.data[0].meta.counts.tables.users >= 1);
    } finally {
      await s.close();
    }
  });

  test('npm run backup and npm run restore run from the built bundle', async () => {
    for (const name of ['backup', 'restore']) assert.ok(fs.existsSync(path.join(root, 'server', 'dist', `${name}.bundle.js`)), `${name}.bundle.js is missing: run npm run build`);
    const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
    assert.equal(pkg.scripts.backup, 'node server/dist/backup.bundle.js');
    assert.equal(pkg.scripts.restore, 'node server/dist/restore.bundle.js');
    const s = await startServer();
    try {
      const file = path.join(tempDir(), 'bundle.tar.gz');
      const made = await runNode([path.join(root, 'server/dist/backup.bundle.js'), file], s.dataDir);
      assert.equal(made.code, 0, made.stderr);
      const fresh = tempDir();
      const restored = await runNode([path.join(root, 'server/dist/restore.bundle.js'), file], fresh);
      assert.equal(restored.code, 0, restored.stderr);
      assertSameContent(readState(s.dataDir), readState(fresh));
    } finally {
      await s.close();
    }
  });
});
