// What an upload request says about its file: the name from the path, type, encoding and size
// from its headers (shared by /streams/upload, the one-step media upload and legacy /files).
import type { Request } from 'express';
import type { UploadInput } from './service.js';

export function uploadInput(req: Request, fileName: string): UploadInput {
  const length = req.headers['content-length'];
  return {
    fileName,
    contentType: req.headers['content-type'],
    contentEncoding: req.headers['content-encoding'],
    contentLength: length !== undefined && /^\d+$/.test(length) ? Number(length) : undefined,
  };
}
