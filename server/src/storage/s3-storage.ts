// The storage in an S3-compatible bucket (FOLIO_STORAGE_URL=s3://…). Keys follow storage.ts's
// layout below the configured prefix. Files are put from a finished local temp file: one streamed
// PutObject up to MULTIPART_FROM bytes, a multipart upload (lib-storage, a bounded number of parts
// in memory) above; reads are streamed GetObject calls with an optional Range. Any failure to reach
// the bucket (or a refusal: credentials, missing bucket) becomes a 503 storage_unavailable error.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  paginateListObjectsV2,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { StorageConfig } from '../config.js';
import { ApiError } from '../http/errors.js';
import {
  isThumbName,
  storageKey,
  tempFolder,
  thumbsKey,
  uuidOfKey,
  type ByteRange,
  type Storage,
  type StorageOptions,
  type StoredEntry,
  type StoredFile,
  type StoredStat,
} from './storage.js';

/** Files larger than this go up as a multipart upload (parts of PART_SIZE, QUEUE_SIZE at a time). */
const MULTIPART_FROM = 16 * 1024 * 1024;
const PART_SIZE = 8 * 1024 * 1024;
const QUEUE_SIZE = 2;
/** Keys one DeleteObjects call may name. */
const DELETE_BATCH = 1000;

type S3Config = Extract<StorageConfig, { kind: 's3' }>;

interface SdkError {
  name?: string;
  code?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number };
}

const isNotFound = (err: unknown) => {
  const e = err as SdkError;
  return e?.name === 'NotFound' || e?.name === 'NoSuchKey' || (e?.$metadata?.httpStatusCode === 404 && e?.name !== 'NoSuchBucket');
};

/** What a client is told when the bucket cannot be used (the log gets the whole error). */
/** Network errors of a connection the server dropped (a kept-alive socket it closed as it was reused). */
const DROPPED = /^(ECONNRESET|EPIPE)$|socket hang up/i;

/**
 * A PUT sent again, from the start of its file, when the connection was dropped under it: the
 * SDK retries such errors itself but cannot rewind a streamed body. Writing the same key again
 * is harmless (same bytes). At most two more tries; any other error at once.
 */
async function retryOnDroppedConnection(work: () => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      const e = err as { code?: unknown; message?: unknown };
      if (attempt >= 3 || (!DROPPED.test(String(e?.code ?? '')) && !DROPPED.test(String(e?.message ?? '')))) throw err;
    }
  }
}

export class StorageUnavailableError extends ApiError {
  constructor(reason: string) {
    super(503, 'storage_unavailable', `The file storage cannot be reached or refused the request (${reason}); try again later`, undefined, undefined, { 'Retry-After': '5' });
  }
}

function unavailable(err: unknown): StorageUnavailableError {
  const e = err as SdkError;
  const reason = e?.$metadata?.httpStatusCode ? `${e.name ?? 'error'} ${e.$metadata.httpStatusCode}` : (e?.code ?? e?.name ?? 'no answer');
  const out = new StorageUnavailableError(reason);
  out.cause = err;
  return out;
}

export class S3Storage implements Storage {
  readonly kind = 's3' as const;
  readonly description: string;
  readonly tempPath: () => string;
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;

  constructor(config: S3Config, options: StorageOptions) {
    this.bucket = config.bucket;
    this.prefix = config.prefix ? `${config.prefix}/` : '';
    this.description = `s3://${config.bucket}${config.prefix ? `/${config.prefix}` : ''}${config.endpoint ? ` at ${config.endpoint}` : ''}`;
    this.tempPath = tempFolder(options);
    this.client = new S3Client({
      region: config.region,
      endpoint: config.endpoint ?? undefined,
      forcePathStyle: config.pathStyle,
      ...(config.credentials ? { credentials: config.credentials } : {}),
      // Checksums only where S3 requires them: several S3-compatible servers refuse the newer ones.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: 3,
      // A bucket that does not answer fails a request in seconds, not minutes; a body may idle
      // while a slow client reads (backpressure), hence the longer socket timeout.
      requestHandler: { connectionTimeout: 5000, requestTimeout: 120_000 },
    });
  }

  private key(file: StoredFile): string {
    return this.prefix + storageKey(file);
  }

  /** Run an SDK call; failures other than "not found" become StorageUnavailableError. */
  private async call<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if (isNotFound(err)) throw err;
      throw unavailable(err);
    }
  }

  /** `call`, with null for "not found". */
  private async find<T>(work: () => Promise<T>): Promise<T | null> {
    return this.call(work).catch((err) => {
      if (isNotFound(err)) return null;
      throw err;
    });
  }

  localPath(): null {
    return null;
  }

  async put(file: StoredFile, tempFile: string): Promise<void> {
    const Key = this.key(file);
    try {
      const { size } = await fsp.stat(tempFile);
      await this.call(() => retryOnDroppedConnection(async () => {
        if (size <= MULTIPART_FROM) {
          // One streamed request: the body is read from the file as it is sent, never held whole.
          await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key, Body: fs.createReadStream(tempFile), ContentLength: size }));
          return;
        }
        const upload = new Upload({
          client: this.client,
          params: { Bucket: this.bucket, Key, Body: fs.createReadStream(tempFile) },
          partSize: PART_SIZE,
          queueSize: QUEUE_SIZE,
          leavePartsOnError: false,
        });
        await upload.done();
      }));
    } finally {
      await fsp.rm(tempFile, { force: true });
    }
  }

  async stat(file: StoredFile): Promise<StoredStat | null> {
    const head = await this.find(() => this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.key(file) })));
    return head && { size: Number(head.ContentLength ?? 0), mtime: head.LastModified ?? new Date(0) };
  }

  async exists(file: StoredFile): Promise<boolean> {
    return (await this.stat(file)) !== null;
  }

  async read(file: StoredFile, range?: ByteRange): Promise<Readable | null> {
    const out = await this.find(() =>
      this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.key(file), Range: range ? `bytes=${range.start}-${range.end}` : undefined })),
    );
    return out && (out.Body as Readable);
  }

  async copyTo(file: StoredFile, target: string): Promise<boolean> {
    const body = await this.read(file);
    if (!body) return false;
    try {
      await pipeline(body, fs.createWriteStream(target, { flags: 'wx', mode: 0o600 }));
    } catch (err) {
      await fsp.rm(target, { force: true });
      throw unavailable(err);
    }
    return true;
  }

  async remove(file: StoredFile): Promise<void> {
    await this.deleteKeys([this.key(file)]);
  }

  async removeThumbs(uuid: string): Promise<void> {
    await this.deleteKeys(await this.listKeys(`${thumbsKey(uuid)}/`));
  }

  async removeStream(uuid: string): Promise<void> {
    await this.deleteKeys([this.key({ kind: 'stream', uuid }), ...(await this.listKeys(`${thumbsKey(uuid)}/`))]);
  }

  private async deleteKeys(keys: string[]): Promise<void> {
    if (keys.length === 1) {
      await this.find(() => this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: keys[0] })));
      return;
    }
    for (let i = 0; i < keys.length; i += DELETE_BATCH) {
      const batch = keys.slice(i, i + DELETE_BATCH);
      const out = await this.call(() =>
        this.client.send(new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } })),
      );
      const failed = (out.Errors ?? []).filter((e) => e.Code !== 'NoSuchKey');
      if (failed.length) throw unavailable({ name: failed[0].Code ?? 'DeleteFailed', message: failed[0].Message });
    }
  }

  /** Every object whose key (below the prefix) starts with `start`: its key (with the prefix, or without it when `relative`) and modification time. */
  private async listObjects(start: string, relative = false): Promise<Array<{ key: string; modified: Date }>> {
    const out: Array<{ key: string; modified: Date }> = [];
    await this.call(async () => {
      for await (const page of paginateListObjectsV2({ client: this.client, pageSize: 1000 }, { Bucket: this.bucket, Prefix: this.prefix + start })) {
        for (const o of page.Contents ?? []) {
          if (o.Key) out.push({ key: relative ? o.Key.slice(this.prefix.length) : o.Key, modified: o.LastModified ?? new Date(0) });
        }
      }
    });
    return out;
  }

  /** Every key (below the prefix, without it when `relative`) starting with `start`. */
  private async listKeys(start: string, relative = false): Promise<string[]> {
    return (await this.listObjects(start, relative)).map((o) => o.key);
  }

  async listModified(family: 'streams' | 'thumbs'): Promise<StoredEntry[]> {
    const newest = new Map<string, number>();
    for (const o of await this.listObjects(`${family}/`, true)) {
      const uuid = uuidOfKey(family, o.key);
      if (uuid) newest.set(uuid, Math.max(newest.get(uuid) ?? 0, o.modified.getTime()));
    }
    return [...newest].map(([uuid, ms]) => ({ uuid, modified: new Date(ms) }));
  }

  private async listUuids(family: 'streams' | 'thumbs'): Promise<string[]> {
    const uuids = new Set<string>();
    for (const key of await this.listKeys(`${family}/`, true)) {
      const uuid = uuidOfKey(family, key);
      if (uuid) uuids.add(uuid);
    }
    return [...uuids].sort();
  }

  listStreams(): Promise<string[]> {
    return this.listUuids('streams');
  }

  listThumbStreams(): Promise<string[]> {
    return this.listUuids('thumbs');
  }

  async listThumbs(uuid: string): Promise<string[]> {
    const start = `${thumbsKey(uuid)}/`;
    const names = (await this.listKeys(start, true)).map((k) => k.slice(start.length));
    return names.filter(isThumbName).sort();
  }

  async check(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
    } catch (err) {
      throw unavailable(err);
    }
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}
