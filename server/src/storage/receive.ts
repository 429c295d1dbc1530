// Receives a request body into a temp file of the store: streamed chunk by chunk (never held
// whole), hashed on the way (MD5, SHA-1, SHA-256), its first bytes kept for type sniffing, and
// cut off past a size limit. On any failure the temp file is removed.
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { Transform, type TransformCallback } from 'node:stream';
import type { Storage } from './storage.js';

/** Bytes kept from the start of the body for sniffing (file-type needs about 4 kB). */
const HEAD_BYTES = 4100;

export interface ReceivedFile {
  tempFile: string;
  size: number;
  md5: string;
  sha1: string;
  sha256: string;
  head: Buffer;
}

export class UploadTooLargeError extends Error {
  constructor(public limit: number) {
    super(`The upload is larger than ${limit} bytes`);
  }
}

export class UploadAbortedError extends Error {
  constructor() {
    super('The upload was interrupted before it was complete');
  }
}

class Meter extends Transform {
  size = 0;
  md5 = crypto.createHash('md5');
  sha1 = crypto.createHash('sha1');
  sha256 = crypto.createHash('sha256');
  headChunks: Buffer[] = [];
  headSize = 0;

  constructor(private limit: number) {
    super();
  }

  _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.size += chunk.length;
    if (this.size > this.limit) return done(new UploadTooLargeError(this.limit));
    this.md5.update(chunk);
    this.sha1.update(chunk);
    this.sha256.update(chunk);
    if (this.headSize < HEAD_BYTES) {
      const part = chunk.subarray(0, HEAD_BYTES - this.headSize);
      this.headChunks.push(Buffer.from(part));
      this.headSize += part.length;
    }
    done(null, chunk);
  }
}

/**
 * Copy `source` into a new local temp file of `store`, at most `limit` bytes. Past the limit the
 * source is detached and drained (so an error answer can still be sent) and the file removed.
 */
export function receiveToTemp(source: Readable, store: Pick<Storage, 'tempPath'>, limit: number): Promise<ReceivedFile> {
  const tempFile = store.tempPath();
  const meter = new Meter(limit);
  const out = fs.createWriteStream(tempFile, { flags: 'wx', mode: 0o600 });
  return new Promise<ReceivedFile>((resolve, reject) => {
    let settled = false;
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      source.unpipe(meter);
      source.resume(); // drain what is left; never destroy the request (the answer must get out)
      meter.destroy();
      out.destroy();
      fsp.rm(tempFile, { force: true }).finally(() => reject(err));
    };
    source.on('aborted', () => fail(new UploadAbortedError()));
    source.on('close', () => {
      if (!(source as Readable & { complete?: boolean }).complete && !source.readableEnded) fail(new UploadAbortedError());
    });
    source.on('error', (err) => fail(err));
    meter.on('error', fail);
    out.on('error', fail);
    out.on('close', () => {
      if (settled || !out.writableFinished) return;
      settled = true;
      resolve({
        tempFile,
        size: meter.size,
        md5: meter.md5.digest('hex'),
        sha1: meter.sha1.digest('hex'),
        sha256: meter.sha256.digest('hex'),
        head: Buffer.concat(meter.headChunks),
      });
    });
    source.pipe(meter).pipe(out);
  });
}
