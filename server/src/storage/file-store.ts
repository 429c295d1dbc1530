// The confined file store under $FOLIO_DATA_DIR/files: stream files and thumbnails live at paths
// derived from UUIDs and hashes only (never from a client's file name), every path is resolved
// and checked to stay inside the store, and writes go to a temp file renamed into place.
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const THUMB_NAME = /^[0-9a-f]{16,64}\.(jpg|png|webp|failed)$/;

export const isUuid = (value: string) => UUID.test(value);
export const isThumbName = (value: string) => THUMB_NAME.test(value);

export class FileStore {
  readonly root: string;

  /** `clearTemp: false` for a second user of a store a server may be writing to (backups). */
  constructor(dataDir: string, options: { clearTemp?: boolean } = {}) {
    this.root = path.resolve(dataDir, 'files');
    for (const dir of ['streams', 'thumbs', 'tmp']) fs.mkdirSync(path.join(this.root, dir), { recursive: true });
    if (options.clearTemp === false) return;
    // Temp files left by a process that died mid-upload belong to no request of this one.
    for (const name of fs.readdirSync(path.join(this.root, 'tmp'))) fs.rmSync(path.join(this.root, 'tmp', name), { recursive: true, force: true });
  }

  /** Resolve `parts` under the store root; throws when the result would leave it. */
  private inside(...parts: string[]): string {
    const full = path.resolve(this.root, ...parts);
    const rel = path.relative(this.root, full);
    if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) throw new Error(`path escapes the file store: ${parts.join('/')}`);
    return full;
  }

  private checkUuid(uuid: string): void {
    if (!UUID.test(uuid)) throw new Error(`not a stream uuid: ${uuid}`);
  }

  /** Where the bytes of stream `uuid` live. */
  streamPath(uuid: string): string {
    this.checkUuid(uuid);
    return this.inside('streams', uuid.slice(0, 2), uuid);
  }

  /** Folder of the thumbnails of stream `uuid`. */
  thumbDir(uuid: string): string {
    this.checkUuid(uuid);
    return this.inside('thumbs', uuid.slice(0, 2), uuid);
  }

  /** A thumbnail file of stream `uuid`, named by its options hash and extension. */
  thumbPath(uuid: string, name: string): string {
    if (!THUMB_NAME.test(name)) throw new Error(`not a thumbnail name: ${name}`);
    return this.inside('thumbs', uuid.slice(0, 2), uuid, name);
  }

  /** A fresh temp file path (same file system as the targets, so rename is atomic). */
  tempPath(): string {
    return this.inside('tmp', `${crypto.randomUUID()}.part`);
  }

  /** Move a finished temp file to `target` (creating its folder). */
  async commit(tempFile: string, target: string): Promise<void> {
    this.inside(path.relative(this.root, tempFile));
    await fsp.mkdir(path.dirname(target), { recursive: true });
    await fsp.rename(tempFile, target);
  }

  /** Remove a file or folder of the store; missing ones are fine. */
  async remove(target: string): Promise<void> {
    this.inside(path.relative(this.root, target));
    await fsp.rm(target, { recursive: true, force: true });
  }

  /** Remove a stream's file and all its thumbnails. */
  async removeStream(uuid: string): Promise<void> {
    await this.remove(this.streamPath(uuid));
    await this.remove(this.thumbDir(uuid));
  }

  /** The uuids of every stored stream file (backups walk the store with it). */
  async listStreams(): Promise<string[]> {
    return this.listUuids('streams');
  }

  /** The uuids that have a thumbnail folder. */
  async listThumbStreams(): Promise<string[]> {
    return this.listUuids('thumbs');
  }

  /** The thumbnail file names of stream `uuid` (none when it has no folder). */
  async listThumbs(uuid: string): Promise<string[]> {
    const names = await fsp.readdir(this.thumbDir(uuid)).catch(() => [] as string[]);
    return names.filter((n) => THUMB_NAME.test(n)).sort();
  }

  private async listUuids(family: 'streams' | 'thumbs'): Promise<string[]> {
    const out: string[] = [];
    for (const shard of await fsp.readdir(path.join(this.root, family)).catch(() => [] as string[])) {
      if (!/^[0-9a-f]{2}$/.test(shard)) continue;
      for (const name of await fsp.readdir(path.join(this.root, family, shard)).catch(() => [] as string[])) {
        if (UUID.test(name) && name.startsWith(shard)) out.push(name);
      }
    }
    return out.sort();
  }

  async exists(target: string): Promise<boolean> {
    try {
      await fsp.access(target);
      return true;
    } catch {
      return false;
    }
  }
}
