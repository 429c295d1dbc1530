// The backup file: a gzip-compressed tar archive (tar-stream + zlib), engine- and storage-neutral.
//   folio-backup.json             first entry: {format, version, created} (what this file is)
//   tables/<table>.jsonl          one JSON object per row, one row per line
//   files/streams/<uuid>          the bytes of each stream
//   files/thumbs/<uuid>/<name>    its generated thumbnails
//   manifest.json                 last entry: version, migrations, sequences, and for every table
//                                 its row count, size and SHA-256, for every file its size and SHA-256
// The manifest comes last because its checksums are computed while the archive is written (no file
// is read twice); a reader must read the whole archive anyway before trusting any of it.
import { isThumbName, isUuid } from '../../storage/storage.js';

export const FORMAT = 'folio-backup';
export const FORMAT_VERSION = 1;
export const HEADER_ENTRY = 'folio-backup.json';
export const MANIFEST_ENTRY = 'manifest.json';

/**
 * Sessions are not backed up: after a restore everyone signs in again. Nor are queued jobs
 * (the job queue): a restore must not send a backup's old mails again.
 */
export const SKIPPED_TABLES = new Set(['refresh_tokens', 'jobs']);

export interface Digest {
  size: number;
  sha256: string;
}

export interface TableEntry extends Digest {
  rows: number;
  columns: string[];
}

export interface Manifest {
  format: typeof FORMAT;
  version: number;
  created: string;
  folio_version: string | null;
  /** Engine the backup was made from (it restores into any). */
  dialect: string;
  migrations: string[];
  sequences: Record<string, number>;
  tables: Record<string, TableEntry>;
  /** Keyed by entry name (files/streams/<uuid>, files/thumbs/<uuid>/<name>). */
  files: Record<string, Digest>;
  /** Streams whose file was already missing from the store when the backup was made. */
  missing_files: string[];
}

/** What a backup holds, for answers and the CLI: rows per table and the number of files. */
export interface BackupCounts {
  tables: Record<string, number>;
  files: number;
}

export const countsOf = (m: Pick<Manifest, 'tables' | 'files'>): BackupCounts => ({
  tables: Object.fromEntries(Object.entries(m.tables).map(([name, t]) => [name, t.rows])),
  files: Object.keys(m.files).length,
});

const TABLE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export const tableEntryName = (table: string) => `tables/${table}.jsonl`;
export const streamEntryName = (uuid: string) => `files/streams/${uuid}`;
export const thumbEntryName = (uuid: string, name: string) => `files/thumbs/${uuid}/${name}`;

export type EntryKind =
  | { kind: 'header' }
  | { kind: 'manifest' }
  | { kind: 'table'; table: string }
  | { kind: 'stream'; uuid: string }
  | { kind: 'thumb'; uuid: string; name: string };

/** What an entry name means, or null for a name no Folio backup holds (refused: never a path). */
export function parseEntryName(name: string): EntryKind | null {
  if (name === HEADER_ENTRY) return { kind: 'header' };
  if (name === MANIFEST_ENTRY) return { kind: 'manifest' };
  const parts = name.split('/');
  if (parts.length === 2 && parts[0] === 'tables' && parts[1].endsWith('.jsonl')) {
    const table = parts[1].slice(0, -'.jsonl'.length);
    return TABLE_NAME.test(table) ? { kind: 'table', table } : null;
  }
  if (parts.length === 3 && parts[0] === 'files' && parts[1] === 'streams' && isUuid(parts[2])) return { kind: 'stream', uuid: parts[2] };
  if (parts.length === 4 && parts[0] === 'files' && parts[1] === 'thumbs' && isUuid(parts[2]) && isThumbName(parts[3])) {
    return { kind: 'thumb', uuid: parts[2], name: parts[3] };
  }
  return null;
}

/** A backup file that cannot be restored: damaged, truncated, not a Folio backup, or too new. */
export class BackupFileError extends Error {}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isDigest = (v: unknown): v is Digest =>
  isObject(v) && Number.isSafeInteger(v.size) && (v.size as number) >= 0 && typeof v.sha256 === 'string' && /^[0-9a-f]{64}$/.test(v.sha256);

/** Check the manifest's shape (its numbers are checked against the entries by the reader). */
export function parseManifest(text: string): Manifest {
  let m: unknown;
  try {
    m = JSON.parse(text);
  } catch {
    throw new BackupFileError('The backup manifest is not valid JSON');
  }
  const bad = (what: string) => new BackupFileError(`The backup manifest is malformed: ${what}`);
  if (!isObject(m) || m.format !== FORMAT) throw new BackupFileError('This is not a Folio backup (no Folio manifest)');
  if (m.version !== FORMAT_VERSION) throw new BackupFileError(`This backup has format version ${String(m.version)}; this Folio reads version ${FORMAT_VERSION}`);
  if (typeof m.created !== 'string') throw bad('created');
  if (!Array.isArray(m.migrations) || !m.migrations.every((n) => typeof n === 'string')) throw bad('migrations');
  if (!isObject(m.sequences) || !Object.entries(m.sequences).every(([k, v]) => TABLE_NAME.test(k) && Number.isSafeInteger(v))) throw bad('sequences');
  if (!isObject(m.tables)) throw bad('tables');
  for (const [name, t] of Object.entries(m.tables)) {
    const entry = t as TableEntry;
    if (!TABLE_NAME.test(name) || !isDigest(t) || !Number.isSafeInteger(entry.rows) || !Array.isArray(entry.columns) || !entry.columns.every((c) => typeof c === 'string')) {
      throw bad(`table ${name}`);
    }
  }
  if (!isObject(m.files)) throw bad('files');
  for (const [name, f] of Object.entries(m.files)) {
    const kind = parseEntryName(name);
    if (!kind || (kind.kind !== 'stream' && kind.kind !== 'thumb') || !isDigest(f)) throw bad(`file ${name}`);
  }
  if (!Array.isArray(m.missing_files) || !m.missing_files.every((u) => typeof u === 'string' && isUuid(u))) throw bad('missing_files');
  return m as unknown as Manifest;
}

// ---- row values --------------------------------------------------------------------------------
// JSON has no bytes and no 64-bit integers: a Buffer is written as {"$base64": "..."}, a bigint as
// {"$bigint": "..."}; booleans as true/false whatever the engine stores.

export function encodeValue(v: unknown, boolean: boolean): unknown {
  if (v === null || v === undefined) return null;
  if (boolean && (v === 0 || v === 1 || typeof v === 'boolean')) return Boolean(v);
  if (typeof v === 'bigint') return { $bigint: v.toString() };
  if (Buffer.isBuffer(v) || v instanceof Uint8Array) return { $base64: Buffer.from(v).toString('base64') };
  return v;
}

export function decodeValue(v: unknown): unknown {
  if (isObject(v)) {
    if (typeof v.$base64 === 'string') return Buffer.from(v.$base64, 'base64');
    if (typeof v.$bigint === 'string' && /^-?\d+$/.test(v.$bigint)) {
      const n = BigInt(v.$bigint);
      return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;
    }
  }
  return v;
}
