// The local storage under $FOLIO_DATA_DIR/files: every path is derived from a storage key (UUIDs
// and thumbnail names only), resolved and checked to stay inside the folder, and every write is a
// finished temp file renamed into place (atomic: a reader sees the old file or the new one).
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import {
  isThumbName,
  isUuid,
  storageKey,
  tempFolder,
  thumbsKey,
  type ByteRange,
  type Storage,
  type StorageOptions,
  type StoredEntry,
  type StoredFile,
  type StoredStat,
} from './storage.js';

const missing = (err: unknown) => (err as NodeJS.ErrnoException).code === 'ENOENT';

export class LocalStorage implements Storage {
  readonly kind = 'local' as const;
  readonly root: string;
  readonly description: string;
  readonly tempPath: () => string;

  constructor(options: StorageOptions) {
    this.root = path.resolve(options.dataDir, 'files');
    this.description = `local folder ${this.root}`;
    for (const dir of ['streams', 'thumbs']) fs.mkdirSync(path.join(this.root, dir), { recursive: true });
    this.tempPath = tempFolder(options);
  }

  /** Resolve a key under the root; throws when the result would leave it. */
  private inside(key: string): string {
    const full = path.resolve(this.root, ...key.split('/'));
    const rel = path.relative(this.root, full);
    if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) throw new Error(`path escapes the file store: ${key}`);
    return full;
  }

  /** Where `file` lives on disk. */
  localPath(file: StoredFile): string {
    return this.inside(storageKey(file));
  }

  async put(file: StoredFile, tempFile: string): Promise<void> {
    const target = this.localPath(file);
    await fsp.mkdir(path.dirname(target), { recursive: true });
    try {
      await fsp.rename(tempFile, target);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
      // From another file system (a restore's staging folder): copied beside the target, then renamed.
      const temp = `${target}.${path.basename(this.tempPath())}`;
      await fsp.copyFile(tempFile, temp);
      await fsp.rename(temp, target);
      await fsp.rm(tempFile, { force: true });
    }
  }

  async stat(file: StoredFile): Promise<StoredStat | null> {
    try {
      const st = await fsp.stat(this.localPath(file));
      return st.isFile() ? { size: st.size, mtime: st.mtime } : null;
    } catch (err) {
      if (missing(err)) return null;
      throw err;
    }
  }

  async exists(file: StoredFile): Promise<boolean> {
    return (await this.stat(file)) !== null;
  }

  async read(file: StoredFile, range?: ByteRange): Promise<Readable | null> {
    const handle = await fsp.open(this.localPath(file), 'r').catch((err) => {
      if (missing(err)) return null;
      throw err;
    });
    return handle ? handle.createReadStream(range ? { start: range.start, end: range.end } : {}) : null;
  }

  async copyTo(file: StoredFile, target: string): Promise<boolean> {
    try {
      await fsp.copyFile(this.localPath(file), target, fs.constants.COPYFILE_EXCL);
      return true;
    } catch (err) {
      if (missing(err)) return false;
      throw err;
    }
  }

  async remove(file: StoredFile): Promise<void> {
    await fsp.rm(this.localPath(file), { force: true });
  }

  async removeThumbs(uuid: string): Promise<void> {
    await fsp.rm(this.inside(thumbsKey(uuid)), { recursive: true, force: true });
  }

  async removeStream(uuid: string): Promise<void> {
    await this.remove({ kind: 'stream', uuid });
    await this.removeThumbs(uuid);
  }

  listStreams(): Promise<string[]> {
    return this.listUuids('streams');
  }

  listThumbStreams(): Promise<string[]> {
    return this.listUuids('thumbs');
  }

  async listModified(family: 'streams' | 'thumbs'): Promise<StoredEntry[]> {
    const out: StoredEntry[] = [];
    for (const uuid of await this.listUuids(family)) {
      const where = family === 'streams' ? this.localPath({ kind: 'stream', uuid }) : this.inside(thumbsKey(uuid));
      // Gone meanwhile (deleted by a request): nothing to report.
      const own = await fsp.stat(where).catch(() => null);
      if (!own) continue;
      let newest = own.mtimeMs;
      if (family === 'thumbs') {
        for (const name of await fsp.readdir(where).catch(() => [] as string[])) {
          const st = await fsp.stat(path.join(where, name)).catch(() => null);
          if (st) newest = Math.max(newest, st.mtimeMs);
        }
      }
      out.push({ uuid, modified: new Date(newest) });
    }
    return out;
  }

  async listThumbs(uuid: string): Promise<string[]> {
    const names = await fsp.readdir(this.inside(thumbsKey(uuid))).catch(() => [] as string[]);
    return names.filter(isThumbName).sort();
  }

  private async listUuids(family: 'streams' | 'thumbs'): Promise<string[]> {
    const out: string[] = [];
    for (const shard of await fsp.readdir(path.join(this.root, family)).catch(() => [] as string[])) {
      if (!/^[0-9a-f]{2}$/.test(shard)) continue;
      for (const name of await fsp.readdir(path.join(this.root, family, shard)).catch(() => [] as string[])) {
        if (isUuid(name) && name.startsWith(shard)) out.push(name);
      }
    }
    return out.sort();
  }

  async check(): Promise<void> {
    await fsp.access(this.root, fs.constants.W_OK);
  }

  async close(): Promise<void> {}
}
