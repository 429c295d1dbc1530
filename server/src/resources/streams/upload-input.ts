// What an upload request says about its file: the name from the path, type, encoding and size
// from its headers (shared by /streams/upload, the one-step media upload and legacy /files).
import type { Request } from 'express';
import { badRequest } from '../../http/errors.js';
import type { UploadInput } from './service.js';

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
