// Restoring a backup file into the configured database and storage (local folder or bucket). The whole file is read and
// checked before anything changes: every entry is extracted into a staging folder while its SHA-256,
// size and (for tables) line count are computed, and only when all of them match the manifest (and
// the manifest names exactly the entries found) does the restore begin. Then:
//  - stream files and thumbnails new to the storage are put into place (orphans until the commit);
//  - one database transaction empties every table (sessions included: everyone signs in again),
//    inserts the backup's rows and sets the id sequences — all or nothing;
//  - after the commit the remaining files are put over their old copies, and files of streams
//    the restored database does not have are deleted. When the transaction fails, the files put
//    in before it are removed again: the storage never lacks a file the database names.
import crypto from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import readline from 'node:readline';
import zlib from 'node:zlib';
import type { Kysely } from 'kysely';
import tar from 'tar-stream';
import { streamFile, thumbFile, type Storage, type StoredFile } from '../../storage/storage.js';
import { forgetStaleInitialPassword } from '../users/service.js';
import type { BackupEngine, TableInfo } from './engine.js';
import {
  BackupFileError,
  FORMAT,
  FORMAT_VERSION,
  countsOf,
  decodeValue,
  parseEntryName,
  parseManifest,
  type BackupCounts,
  type EntryKind,
  type Manifest,
} from './format.js';

/** The target database holds content and --replace was not given. */
export class RestoreRefusedError extends Error {}

export interface RestoreProgress {
  phase: 'checking' | 'restoring' | 'done';
  bytes_done: number;
  bytes_total: number;
}

export interface RestoreOptions {
  engine: BackupEngine;
  /** The configured database (migrated to this build's latest schema). */
  db: Kysely<any>;
  /** Where the staging folder goes (its backups folder). */
  dataDir: string;
  /** The configured storage the files go to. */
  storage: Storage;
  file: string;
  /** Replace a database that holds content (any object but users). */
  replace: boolean;
  onProgress?: (p: RestoreProgress) => void;
}

/** Largest header or manifest accepted (a manifest lists every file: ~150 bytes each). */
const MAX_JSON_ENTRY = 256 * 1024 * 1024;
/** Rows per INSERT at most (fewer when the table has many columns). */
const MAX_ROWS_PER_INSERT = 500;

/** Whether the database holds content: any object that is not a user (trashed ones included). */
export async function holdsContent(db: Kysely<any>): Promise<boolean> {
  const row = await db
    .selectFrom('objects')
    .innerJoin('object_types', 'object_types.id', 'objects.object_type_id')
    .select('objects.id')
    .where('object_types.name', '!=', 'users')
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

interface StagedEntry {
  kind: EntryKind;
  file: string;
  size: number;
  sha256: string;
  /** Lines (rows) of a table entry. */
  lines: number;
}

const damaged = (err: unknown) =>
  err instanceof BackupFileError ? err : new BackupFileError(`The backup file is damaged, truncated or not a Folio backup (${(err as Error)?.message ?? err})`);

/** Extract every entry of the archive into `staging`, measuring each; the manifest is parsed. */
async function extractAll(file: string, staging: string, onBytes: (n: number) => void): Promise<{ manifest: Manifest; entries: Map<string, StagedEntry> }> {
  const entries = new Map<string, StagedEntry>();
  let manifest: Manifest | null = null;
  let first = true;
  const extract = tar.extract();
  const source = fs.createReadStream(file);
  const gunzip = zlib.createGunzip();
  source.on('data', (chunk) => onBytes(chunk.length));
  source.on('error', (err) => extract.destroy(err));
  gunzip.on('error', (err) => extract.destroy(damaged(err)));
  source.pipe(gunzip).pipe(extract);
  try {
    for await (const entry of extract) {
      const name = entry.header.name;
      const kind = entry.header.type === 'file' ? parseEntryName(name) : null;
      if (!kind) throw new BackupFileError(`The backup holds an unexpected entry "${name.slice(0, 200)}": it is not a Folio backup`);
      if (first !== (kind.kind === 'header')) throw new BackupFileError('This is not a Folio backup (it does not start with folio-backup.json)');
      first = false;
      if (entries.has(name) || (kind.kind === 'manifest' && manifest)) throw new BackupFileError(`The backup holds "${name}" twice`);
      if (kind.kind === 'header' || kind.kind === 'manifest') {
        if ((entry.header.size ?? 0) > MAX_JSON_ENTRY) throw new BackupFileError(`${name} is too large`);
        const chunks: Buffer[] = [];
        for await (const chunk of entry) chunks.push(chunk as Buffer);
        const text = Buffer.concat(chunks).toString('utf8');
        if (kind.kind === 'header') checkHeader(text);
        else manifest = parseManifest(text);
        continue;
      }
      if (manifest) throw new BackupFileError(`The backup holds "${name}" after its manifest`);
      const target = path.join(staging, ...name.split('/'));
      await fsp.mkdir(path.dirname(target), { recursive: true });
      const out = fs.createWriteStream(target, { flags: 'wx' });
      const hash = crypto.createHash('sha256');
      let size = 0;
      let lines = 0;
      for await (const chunk of entry) {
        const buf = chunk as Buffer;
        hash.update(buf);
        size += buf.length;
        if (kind.kind === 'table') for (let i = buf.indexOf(10); i !== -1; i = buf.indexOf(10, i + 1)) lines++;
        if (!out.write(buf)) await once(out, 'drain');
      }
      await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
      entries.set(name, { kind, file: target, size, sha256: hash.digest('hex'), lines });
    }
  } catch (err) {
    source.destroy();
    throw damaged(err);
  }
  if (first) throw new BackupFileError('The backup file is empty or not a Folio backup');
  if (!manifest) throw new BackupFileError('The backup file is truncated: it has no manifest');
  return { manifest, entries };
}

function checkHeader(text: string): void {
  let header: { format?: unknown; version?: unknown };
  try {
    header = JSON.parse(text);
  } catch {
    throw new BackupFileError('This is not a Folio backup (its header is not JSON)');
  }
  if (header?.format !== FORMAT) throw new BackupFileError('This is not a Folio backup');
  if (header.version !== FORMAT_VERSION) throw new BackupFileError(`This backup has format version ${String(header.version)}; this Folio reads version ${FORMAT_VERSION}`);
}

/** Every entry the manifest names is there with its size, checksum and row count, and nothing else. */
function verify(manifest: Manifest, entries: Map<string, StagedEntry>): void {
  const expected = new Map<string, { size: number; sha256: string; rows?: number }>();
  for (const [table, t] of Object.entries(manifest.tables)) expected.set(`tables/${table}.jsonl`, t);
  for (const [name, f] of Object.entries(manifest.files)) expected.set(name, f);
  for (const name of entries.keys()) if (!expected.has(name)) throw new BackupFileError(`The backup holds "${name}", which its manifest does not list`);
  for (const [name, want] of expected) {
    const got = entries.get(name);
    if (!got) throw new BackupFileError(`The backup is incomplete: "${name}" is missing`);
    if (got.size !== want.size || got.sha256 !== want.sha256) throw new BackupFileError(`The backup is damaged: "${name}" does not match its checksum`);
    if (want.rows !== undefined && got.lines !== want.rows) throw new BackupFileError(`The backup is damaged: "${name}" has ${got.lines} rows, its manifest says ${want.rows}`);
  }
}

/** The backup's tables and columns all exist here (a backup of a newer Folio is refused). */
function checkSchema(manifest: Manifest, migrations: string[], tables: TableInfo[]): void {
  const known = new Set(migrations);
  const unknown = manifest.migrations.filter((m) => !known.has(m));
  if (unknown.length) throw new BackupFileError(`This backup was made by a newer Folio (database migrations ${unknown.join(', ')} are unknown here); update Folio first`);
  const byName = new Map(tables.map((t) => [t.name, new Set(t.columns.map((c) => c.name))]));
  for (const [table, t] of Object.entries(manifest.tables)) {
    const columns = byName.get(table);
    if (!columns) throw new BackupFileError(`This backup has a table "${table}" that this Folio does not have`);
    const extra = t.columns.filter((c) => !columns.has(c));
    if (extra.length) throw new BackupFileError(`This backup's table "${table}" has columns this Folio does not have: ${extra.join(', ')}`);
  }
}

/** Insert the rows of one staged table, in batches. */
async function loadTable(trx: Kysely<any>, engine: BackupEngine, table: string, columns: string[], file: string): Promise<void> {
  const perInsert = Math.max(1, Math.min(MAX_ROWS_PER_INSERT, Math.floor(engine.maxParameters / Math.max(1, columns.length))));
  let batch: Record<string, unknown>[] = [];
  const flush = async () => {
    if (batch.length) await trx.insertInto(table).values(batch).execute();
    batch = [];
  };
  const lines = readline.createInterface({ input: fs.createReadStream(file), crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line) continue;
    const raw = JSON.parse(line) as Record<string, unknown>;
    const row: Record<string, unknown> = {};
    for (const c of columns) if (c in raw) row[c] = decodeValue(raw[c]);
    batch.push(row);
    if (batch.length >= perInsert) await flush();
  }
  await flush();
}

interface FileMove {
  from: string;
  to: StoredFile;
}

/** Restore `options.file`; resolves with what was restored. Nothing changes unless all is well. */
export async function restoreBackup(options: RestoreOptions): Promise<BackupCounts & { missing_files: string[] }> {
  const { engine, db } = options;
  if (!options.replace && (await holdsContent(db))) {
    throw new RestoreRefusedError('The database holds content; restoring would replace it. Run again with --replace to replace it.');
  }
  const progress: RestoreProgress = { phase: 'checking', bytes_done: 0, bytes_total: (await fsp.stat(options.file)).size };
  let lastReport = 0;
  const report = (force = false) => {
    if (!force && Date.now() - lastReport < 200) return;
    lastReport = Date.now();
    options.onProgress?.({ ...progress });
  };
  report(true);
  const stagingRoot = path.join(options.dataDir, 'backups');
  await fsp.mkdir(stagingRoot, { recursive: true });
  const staging = await fsp.mkdtemp(path.join(stagingRoot, '.restore-'));
  try {
    const { manifest, entries } = await extractAll(options.file, staging, (n) => {
      progress.bytes_done += n;
      report();
    });
    verify(manifest, entries);
    checkSchema(manifest, await engine.migrations(db), await engine.tables(db));
    progress.phase = 'restoring';
    report(true);

    // Files: new ones now, those replacing an existing file after the commit.
    const store = options.storage;
    const before: FileMove[] = [];
    const after: FileMove[] = [];
    for (const e of entries.values()) {
      const to = e.kind.kind === 'stream' ? streamFile(e.kind.uuid) : e.kind.kind === 'thumb' ? thumbFile(e.kind.uuid, e.kind.name) : null;
      if (!to) continue;
      ((await store.exists(to)) ? after : before).push({ from: e.file, to });
    }
    const placed: StoredFile[] = [];
    try {
      for (const move of before) {
        await store.put(move.to, move.from);
        placed.push(move.to);
      }
      await db.transaction().execute(async (trx) => {
        await engine.deferConstraints(trx);
        for (const t of await engine.tables(trx)) await trx.deleteFrom(t.name).execute();
        for (const [table, t] of Object.entries(manifest.tables)) {
          await loadTable(trx, engine, table, t.columns, entries.get(`tables/${table}.jsonl`)!.file);
        }
        await engine.setSequences(trx, manifest.sequences);
      });
    } catch (err) {
      for (const file of placed) await store.remove(file);
      throw err;
    }
    for (const move of after) await store.put(move.to, move.from);
    await removeUnreferencedFiles(store, manifest);
    await forgetStaleInitialPassword(db, options.dataDir);
    progress.phase = 'done';
    report(true);
    return { ...countsOf(manifest), missing_files: manifest.missing_files };
  } finally {
    await fsp.rm(staging, { recursive: true, force: true });
  }
}

/** After the commit: stream files and thumbnails of streams the restored database does not have. */
async function removeUnreferencedFiles(store: Storage, manifest: Manifest): Promise<void> {
  const keepStreams = new Set<string>();
  const keepThumbs = new Set<string>();
  for (const name of Object.keys(manifest.files)) {
    const kind = parseEntryName(name);
    if (kind?.kind === 'stream') keepStreams.add(kind.uuid);
    if (kind?.kind === 'thumb') keepThumbs.add(`${kind.uuid}/${kind.name}`);
  }
  for (const uuid of manifest.missing_files) keepStreams.add(uuid);
  for (const uuid of await store.listStreams()) if (!keepStreams.has(uuid)) await store.remove(streamFile(uuid));
  for (const uuid of await store.listThumbStreams()) {
    if (!keepStreams.has(uuid)) {
      await store.removeThumbs(uuid);
      continue;
    }
    for (const name of await store.listThumbs(uuid)) if (!keepThumbs.has(`${uuid}/${name}`)) await store.remove(thumbFile(uuid, name));
  }
}

