// What an upload request says about its file: the name from the path, type, encoding and size
// from its headers (shared by /streams/upload, the one-step media upload and legacy /files);
// the file name it may keep, and the answer to a body over the limit.
import type { Request } from 'express';
import { ApiError, badRequest } from '../../http/errors.js';

export interface UploadInput {
  /** The client's file name (path parts and control characters are dropped). */
  fileName: string;
  /** The request's Content-Type header, if any. */
  contentType?: string;
  contentEncoding?: string;
  /** Content-Length, when sent: refused at once when over the limit. */
  contentLength?: number;
  /** `?private_url=true`: the bytes need an authenticated reader of the object. */
  privateUrl?: boolean;
}

/** What a client may call a file: the last path part, without control characters, at most 255 chars. */
export function safeFileName(raw: string): string {
  let name = (raw.normalize('NFC').split(/[\\/]/).pop() ?? '').replace(/[\u0000-\u001f\u007f]/g, '').trim();
  if (name === '.' || name === '..') name = '';
  if (!name) return 'file';
  if (name.length > 255) {
    const dot = name.lastIndexOf('.');
    const ext = dot > 0 && name.length - dot <= 16 ? name.slice(dot) : '';
    name = name.slice(0, 255 - ext.length) + ext;
  }
  return name;
}

export function tooLarge(limit: number) {
  return new ApiError(413, 'payload_too_large', `The file is larger than the upload limit of ${limit} bytes`, undefined, undefined, { Connection: 'close' });
}


/** `?private_url=true|1|false|0` (BEdita's private streams); anything else 400, before the body is read. */
function privateUrlOf(req: Request): boolean {
  const v = req.query.private_url;
  if (v === undefined) return false;
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw badRequest('"private_url" must be true or false', 'invalid_parameter');
}

export function uploadInput(req: Request, fileName: string): UploadInput {
  const length = req.headers['content-length'];
  return {
    fileName,
    contentType: req.headers['content-type'],
    contentEncoding: req.headers['content-encoding'],
    contentLength: length !== undefined && /^\d+$/.test(length) ? Number(length) : undefined,
    privateUrl: privateUrlOf(req),
  };
}
