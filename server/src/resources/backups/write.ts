// Making one backup file while the server keeps serving (see format.ts for the layout):
//  1. every file of the storage is hard-linked into a staging folder (a copy where links are not
//     possible; downloaded from a bucket), so a file the snapshot references survives a delete
//     that commits meanwhile;
//  2. the database snapshot (engine.withSnapshot) is dumped table by table to JSON lines in the
//     staging folder, hashed and counted on the way; files of streams created between 1 and 2 are
//     linked right after it;
//  3. the archive is written to a temp file beside the target (tar-stream through gzip, every file
//     streamed and hashed, never held whole), the manifest last, then fsync'ed and renamed into place.
// Only the files of streams in the snapshot (and their thumbnails) go in: the archive is as
// consistent as the snapshot. The staging folder is removed whatever happens.
import crypto from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import zlib from 'node:zlib';
import type { Kysely } from 'kysely';
import tar from 'tar-stream';
import { nowIso } from '../../db/time.js';
import { streamFile, thumbFile, type Storage, type StoredFile } from '../../storage/storage.js';
import type { BackupEngine } from './engine.js';
import {
  FORMAT,
  FORMAT_VERSION,
  HEADER_ENTRY,
  MANIFEST_ENTRY,
  SKIPPED_TABLES,
  encodeValue,
  streamEntryName,
  tableEntryName,
  thumbEntryName,
  type Digest,
  type Manifest,
  type TableEntry,
} from './format.js';

export interface BackupProgress {
  phase: 'files' | 'database' | 'archive' | 'done';
  /** Entries written to the archive so far, and in all (known from phase `archive` on). */
  entries_done: number;
  entries_total: number;
  bytes_done: number;
  bytes_total: number;
}

export interface WriteBackupOptions {
  engine: BackupEngine;
  /** Where the staging folder goes (its backups folder). */
  dataDir: string;
  /** The storage the files are read from (local folder or bucket). */
  storage: Storage;
  /** Where the finished file goes (replaced atomically); its folder must exist. */
  target: string;
  folioVersion: string | null;
  onProgress?: (p: BackupProgress) => void;
  signal?: AbortSignal;
}

export class BackupAbortedError extends Error {
  constructor() {
    super('The backup was cancelled');
  }
}

/** Rows dumped between two yields to the event loop (the SQLite driver reads synchronously). */
const ROWS_PER_YIELD = 500;

/** Link `from` to `to` (copy when the file system cannot link); false when `from` is gone. */
async function linkOrCopy(from: string, to: string): Promise<boolean> {
  await fsp.mkdir(path.dirname(to), { recursive: true });
  try {
    await fsp.link(from, to);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return false;
    if (code === 'EEXIST') return true;
    if (!['EXDEV', 'EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'EMLINK', 'EACCES'].includes(code ?? '')) throw err;
  }
  try {
    await fsp.copyFile(from, to, fs.constants.COPYFILE_EXCL);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}

const exists = (p: string) => fsp.access(p).then(() => true, () => false);

/** Stage one file of the storage: a link to a local one, a download of one in a bucket. */
async function stageFile(storage: Storage, file: StoredFile, to: string): Promise<void> {
  if (await exists(to)) return;
  const local = storage.localPath(file);
  if (local) {
    await linkOrCopy(local, to);
    return;
  }
  await fsp.mkdir(path.dirname(to), { recursive: true });
  await storage.copyTo(file, to);
}

/** Stage the stream file and thumbnails of each uuid not staged yet. */
async function stageFiles(storage: Storage, staging: string, uuids: string[], signal?: AbortSignal): Promise<void> {
  for (const uuid of uuids) {
    if (signal?.aborted) throw new BackupAbortedError();
    await stageFile(storage, streamFile(uuid), path.join(staging, streamEntryName(uuid)));
    for (const name of await storage.listThumbs(uuid)) await stageFile(storage, thumbFile(uuid, name), path.join(staging, thumbEntryName(uuid, name)));
  }
}

interface Snapshot {
  tables: Record<string, TableEntry>;
  migrations: string[];
  sequences: Record<string, number>;
  streamUuids: string[];
}

/** Dump every table of the snapshot to staging/tables/<name>.jsonl. */
async function dumpSnapshot(engine: BackupEngine, db: Kysely<any>, staging: string, signal?: AbortSignal): Promise<Snapshot> {
  const tables: Record<string, TableEntry> = {};
  await fsp.mkdir(path.join(staging, 'tables'), { recursive: true });
  for (const table of await engine.tables(db)) {
    if (SKIPPED_TABLES.has(table.name)) continue;
    const out = fs.createWriteStream(path.join(staging, tableEntryName(table.name)), { flags: 'wx' });
    const closed = once(out, 'close');
    const hash = crypto.createHash('sha256');
    let rows = 0;
    let size = 0;
    try {
      for await (const row of db.selectFrom(table.name).selectAll().stream()) {
        const record: Record<string, unknown> = {};
        for (const c of table.columns) record[c.name] = encodeValue((row as Record<string, unknown>)[c.name], c.boolean);
        const line = Buffer.from(JSON.stringify(record) + '\n');
        hash.update(line);
        size += line.length;
        rows++;
        if (!out.write(line)) await once(out, 'drain');
        if (rows % ROWS_PER_YIELD === 0) {
          if (signal?.aborted) throw new BackupAbortedError();
          await yieldToEventLoop();
        }
      }
    } finally {
      out.end();
      await closed;
    }
    tables[table.name] = { rows, size, sha256: hash.digest('hex'), columns: table.columns.map((c) => c.name) };
  }
  const streams = tables.streams ? await db.selectFrom('streams').select('uuid').orderBy('uuid').execute() : [];
  return {
    tables,
    migrations: await engine.migrations(db),
    sequences: await engine.sequences(db),
    streamUuids: streams.map((s) => String(s.uuid)),
  };
}

/** Append one entry read from `file` to the archive, hashing it on the way. */
async function addFileEntry(pack: tar.Pack, name: string, file: string, size: number, onBytes: (n: number) => void): Promise<Digest> {
  const hash = crypto.createHash('sha256');
  let written = 0;
  await new Promise<void>((resolve, reject) => {
    const entry = pack.entry({ name, size, mode: 0o644, mtime: new Date(0) }, (err) => (err ? reject(err) : resolve()));
    (async () => {
      for await (const chunk of fs.createReadStream(file)) {
        hash.update(chunk as Buffer);
        written += (chunk as Buffer).length;
        onBytes((chunk as Buffer).length);
        if (!entry.write(chunk)) await once(entry, 'drain');
      }
      (entry as NodeJS.WritableStream).end();
    })().catch((err) => {
      entry.destroy(err);
      reject(err);
    });
  });
  if (written !== size) throw new Error(`${name} changed while it was being backed up`);
  return { size, sha256: hash.digest('hex') };
}

function addSmallEntry(pack: tar.Pack, name: string, body: string): Promise<void> {
  return new Promise((resolve, reject) => pack.entry({ name, mode: 0o644, mtime: new Date(0) }, body, (err) => (err ? reject(err) : resolve())));
}

/** Write one backup of the configured database and storage to `options.target`. */
export async function writeBackup(options: WriteBackupOptions): Promise<{ manifest: Manifest; size: number }> {
  const { engine, signal } = options;
  const progress: BackupProgress = { phase: 'files', entries_done: 0, entries_total: 0, bytes_done: 0, bytes_total: 0 };
  const report = () => options.onProgress?.({ ...progress });
  report();
  const store = options.storage;
  const stagingRoot = path.join(options.dataDir, 'backups');
  await fsp.mkdir(stagingRoot, { recursive: true });
  const staging = await fsp.mkdtemp(path.join(stagingRoot, '.staging-'));
  const temp = `${options.target}.${crypto.randomBytes(6).toString('hex')}.part`;
  try {
    // 1. Everything in the store now, before the snapshot.
    const present = [...new Set([...(await store.listStreams()), ...(await store.listThumbStreams())])];
    await stageFiles(store, staging, present, signal);

    // 2. The snapshot, then the files of streams it has that were not there in step 1.
    progress.phase = 'database';
    report();
    const snap = await engine.withSnapshot((db) => dumpSnapshot(engine, db, staging, signal));
    await stageFiles(store, staging, snap.streamUuids, signal);

    // 3. The archive.
    progress.phase = 'archive';
    const files: Array<{ name: string; file: string; size: number }> = [];
    const missing: string[] = [];
    for (const uuid of snap.streamUuids) {
      const name = streamEntryName(uuid);
      const file = path.join(staging, name);
      const stat = await fsp.stat(file).catch(() => null);
      if (!stat) missing.push(uuid);
      else files.push({ name, file, size: stat.size });
      for (const thumb of await fsp.readdir(path.join(staging, 'files', 'thumbs', uuid)).catch(() => [] as string[])) {
        const tname = thumbEntryName(uuid, thumb);
        files.push({ name: tname, file: path.join(staging, tname), size: (await fsp.stat(path.join(staging, tname))).size });
      }
    }
    const tableFiles = Object.entries(snap.tables).map(([table, t]) => ({ name: tableEntryName(table), file: path.join(staging, tableEntryName(table)), size: t.size }));
    const all = [...tableFiles, ...files];
    progress.entries_total = all.length + 2;
    progress.bytes_total = all.reduce((n, f) => n + f.size, 0);
    report();

    const created = nowIso();
    const pack = tar.pack();
    const out = fs.createWriteStream(temp, { flags: 'wx', mode: 0o600 });
    const written = pipeline(pack, zlib.createGzip({ level: 6 }), out);
    written.catch(() => undefined); // awaited below; a failure also surfaces through the entries
    let lastReport = 0;
    const onBytes = (n: number) => {
      progress.bytes_done += n;
      if (Date.now() - lastReport > 200) {
        lastReport = Date.now();
        report();
      }
    };
    const digests: Record<string, Digest> = {};
    try {
      await addSmallEntry(pack, HEADER_ENTRY, JSON.stringify({ format: FORMAT, version: FORMAT_VERSION, created }) + '\n');
      progress.entries_done++;
      for (const f of all) {
        if (signal?.aborted) throw new BackupAbortedError();
        digests[f.name] = await addFileEntry(pack, f.name, f.file, f.size, onBytes);
        progress.entries_done++;
      }
      for (const t of tableFiles) {
        const expected = snap.tables[t.name.slice('tables/'.length, -'.jsonl'.length)];
        if (digests[t.name].sha256 !== expected.sha256) throw new Error(`${t.name} changed while it was being archived`);
      }
      const manifest: Manifest = {
        format: FORMAT,
        version: FORMAT_VERSION,
        created,
        folio_version: options.folioVersion,
        dialect: engine.dialect,
        migrations: snap.migrations,
        sequences: snap.sequences,
        tables: snap.tables,
        files: Object.fromEntries(files.map((f) => [f.name, digests[f.name]])),
        missing_files: missing,
      };
      await addSmallEntry(pack, MANIFEST_ENTRY, JSON.stringify(manifest, null, 1) + '\n');
      progress.entries_done++;
      pack.finalize();
      await written;
      const fd = await fsp.open(temp, 'r');
      try {
        await fd.sync();
      } finally {
        await fd.close();
      }
      await fsp.rename(temp, options.target);
      progress.phase = 'done';
      report();
      return { manifest, size: (await fsp.stat(options.target)).size };
    } catch (err) {
      pack.destroy();
      await written.catch(() => undefined);
      throw err;
    }
  } finally {
    await fsp.rm(temp, { force: true });
    await fsp.rm(staging, { recursive: true, force: true });
  }
}
