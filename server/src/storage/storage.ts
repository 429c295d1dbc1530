// One storage for stream files and thumbnails, whatever holds them: the local folder under
// $FOLIO_DATA_DIR/files (local-storage.ts) or an S3-compatible bucket (s3-storage.ts, loaded only
// when FOLIO_STORAGE_URL names one). Both use the same key layout, derived from UUIDs and
// thumbnail names only (never from a client's file name):
//   streams/<first 2 of uuid>/<uuid>              the bytes of a stream
//   thumbs/<first 2 of uuid>/<uuid>/<hash>.<ext>  its thumbnails (`.failed`: "not acceptable" marker)
// Uploads are always received into a local temp file first (hashing, size limit, type sniffing),
// then put into the storage in one step.
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const THUMB_NAME = /^[0-9a-f]{16,64}\.(jpg|png|webp|failed)$/;

export const isUuid = (value: string) => UUID.test(value);
export const isThumbName = (value: string) => THUMB_NAME.test(value);

/** A file of the storage: the bytes of a stream, or one thumbnail of a stream. */
export type StoredFile = { kind: 'stream'; uuid: string } | { kind: 'thumb'; uuid: string; name: string };

export const streamFile = (uuid: string): StoredFile => ({ kind: 'stream', uuid });
export const thumbFile = (uuid: string, name: string): StoredFile => ({ kind: 'thumb', uuid, name });

/** The key of `file` below the storage root (`streams/ab/<uuid>`…); throws on a malformed uuid or name. */
export function storageKey(file: StoredFile): string {
  if (!UUID.test(file.uuid)) throw new Error(`not a stream uuid: ${file.uuid}`);
  if (file.kind === 'stream') return `streams/${file.uuid.slice(0, 2)}/${file.uuid}`;
  if (!THUMB_NAME.test(file.name)) throw new Error(`not a thumbnail name: ${file.name}`);
  return `${thumbsKey(file.uuid)}/${file.name}`;
}

/** The key prefix of the thumbnails of stream `uuid`. */
export function thumbsKey(uuid: string): string {
  if (!UUID.test(uuid)) throw new Error(`not a stream uuid: ${uuid}`);
  return `thumbs/${uuid.slice(0, 2)}/${uuid}`;
}

/** The uuid a listed key `streams/ab/<uuid>` or `thumbs/ab/<uuid>/…` names, or null. */
export function uuidOfKey(family: 'streams' | 'thumbs', key: string): string | null {
  const parts = key.split('/');
  if (parts[0] !== family || parts.length < 3 || !/^[0-9a-f]{2}$/.test(parts[1])) return null;
  return UUID.test(parts[2]) && parts[2].startsWith(parts[1]) ? parts[2] : null;
}

/** A stream's stored bytes, or its thumbnail folder, with when it last changed. */
export interface StoredEntry {
  uuid: string;
  /** The file's modification time; for a thumbnail folder the newest of its files (or the folder's own). */
  modified: Date;
}

export interface StoredStat {
  size: number;
  mtime: Date;
}

/** Bytes `start` to `end` (both included), as range-parser gives them. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface Storage {
  readonly kind: 'local' | 's3';
  /** Where it is, for logs and messages (never credentials). */
  readonly description: string;
  /** A fresh local temp file path for receiving an upload or rendering a thumbnail. */
  tempPath(): string;
  /** Store the finished local `tempFile` as `file` (replacing it); the temp file is consumed. */
  put(file: StoredFile, tempFile: string): Promise<void>;
  /** Size and modification time, or null when the file is not there. */
  stat(file: StoredFile): Promise<StoredStat | null>;
  exists(file: StoredFile): Promise<boolean>;
  /** The bytes (or a range of them), streamed; null when the file is not there. */
  read(file: StoredFile, range?: ByteRange): Promise<Readable | null>;
  /** The file's path when it is a local file (served and read in place), else null. */
  localPath(file: StoredFile): string | null;
  /** Copy the bytes to the local file `target` (written whole or not at all); false when not there. */
  copyTo(file: StoredFile, target: string): Promise<boolean>;
  /** Remove a file; a missing one is fine. */
  remove(file: StoredFile): Promise<void>;
  /** Remove a stream's bytes and every thumbnail of it. */
  removeStream(uuid: string): Promise<void>;
  /** Remove every thumbnail of a stream. */
  removeThumbs(uuid: string): Promise<void>;
  /** The uuids of every stored stream file, sorted (backups walk the storage with it). */
  listStreams(): Promise<string[]>;
  /** The uuids that have thumbnails, sorted. */
  listThumbStreams(): Promise<string[]>;
  /** Every stored stream file (`streams`) or thumbnail folder (`thumbs`) with its age, by uuid (the orphan sweep). */
  listModified(family: 'streams' | 'thumbs'): Promise<StoredEntry[]>;
  /** The thumbnail names of stream `uuid`, sorted. */
  listThumbs(uuid: string): Promise<string[]>;
  /** Whether the storage answers (a start-up check; throws with the reason when it does not). */
  check(): Promise<void>;
  close(): Promise<void>;
}

export interface StorageOptions {
  /** Where local temp files go: `$FOLIO_DATA_DIR` (its files/tmp folder). */
  dataDir: string;
  /** `false` for a second user of a storage a server may be writing to (backups, restore). */
  clearTemp?: boolean;
}

/** A local file holding the bytes of `file` for `work` (the file itself when local, else a temp copy). */
export async function withLocalCopy<T>(storage: Storage, file: StoredFile, work: (path: string) => Promise<T>): Promise<T | null> {
  const local = storage.localPath(file);
  if (local) {
    if (!(await storage.exists(file))) return null;
    return work(local);
  }
  const temp = storage.tempPath();
  try {
    if (!(await storage.copyTo(file, temp))) return null;
    return await work(temp);
  } finally {
    await fsp.rm(temp, { force: true });
  }
}

/**
 * The local temp folder `$FOLIO_DATA_DIR/files/tmp` (on the file system of the local store, so a
 * finished file is renamed into place); returns a maker of fresh temp file paths.
 */
export function tempFolder(options: StorageOptions): () => string {
  const dir = path.resolve(options.dataDir, 'files', 'tmp');
  fs.mkdirSync(dir, { recursive: true });
  // Temp files left by a process that died mid-upload belong to no request of this one.
  if (options.clearTemp !== false) for (const name of fs.readdirSync(dir)) fs.rmSync(path.join(dir, name), { recursive: true, force: true });
  return () => path.join(dir, `${crypto.randomUUID()}.part`);
}
