// Serving stored bytes with the answers of express's send (which `res.sendFile` uses): Accept-Ranges,
// Last-Modified, ETag (a weak one from size and time unless the route set its own), conditional
// GET (304, 412), one byte range (206 with Content-Range; 416 when it cannot be satisfied; several
// ranges or a stale If-Range: the whole file), Content-Length and HEAD. A local file goes through
// send itself; a file in a bucket through the same steps here, its body streamed from the bucket.
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Request, Response } from 'express';
import fresh from 'fresh';
import mime from 'mime-types';
import parseRange from 'range-parser';
import type { Storage, StoredFile, StoredStat } from '../storage/storage.js';
import { storageKey } from '../storage/storage.js';
import { ApiError, notFound } from './errors.js';

export interface SendOptions {
  /** false when the route has set its own ETag (streams: the SHA-1 of the bytes). */
  etag?: boolean;
}

const rangeNotSatisfiable = (size: number) =>
  new ApiError(416, 'range_not_satisfiable', `The requested range is outside the file (${size} bytes)`, 'Range Not Satisfiable', undefined, { 'Content-Range': `bytes */${size}` });
const preconditionFailed = () => new ApiError(412, 'precondition_failed', 'The file does not match the request\'s If-Match or If-Unmodified-Since', 'Precondition Failed');

/** send's errors as the API's errors. */
function sendError(err: { status?: number; code?: string }, res: Response): Error {
  if (err.code === 'ENOENT' || err.status === 404) return notFound('The file is missing');
  if (err.status === 416) return rangeNotSatisfiable(Number(String(res.getHeader('Content-Range') ?? '').split('/')[1]));
  if (err.status === 412) return preconditionFailed();
  return err as Error;
}

/** Serve a local file with express's send (Range, ETag, conditional GET); 404 when missing. */
export function sendLocalFile(res: Response, file: string, options: SendOptions = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    res.sendFile(file, { dotfiles: 'allow', cacheControl: false, ...options }, (err) => {
      if (!err || res.headersSent) return resolve();
      reject(sendError(err as { status?: number; code?: string }, res));
    });
  });
}

/** Serve a file of the storage: in place when local, else streamed from the bucket. */
export async function sendStored(req: Request, res: Response, storage: Storage, file: StoredFile, options: SendOptions = {}): Promise<void> {
  const local = storage.localPath(file);
  if (local) return sendLocalFile(res, local, options);
  const stat = await storage.stat(file);
  if (!stat) throw notFound('The file is missing');
  await sendRemote(req, res, stat, path.extname(storageKey(file)), options, (range) => storage.read(file, range));
}

const parseHttpDate = (date: unknown) => {
  const t = typeof date === 'string' ? Date.parse(date) : NaN;
  return typeof t === 'number' ? t : NaN;
};

/** The comma-separated tokens of a header (send's parseTokenList). */
const tokens = (value: string) => value.split(',').map((t) => t.trim()).filter(Boolean);

/** Undo the content headers of an answer that turns into an error before its body. */
function forgetContent(res: Response): void {
  res.statusCode = 200;
  for (const name of ['Content-Length', 'Content-Range', 'Content-Type']) res.removeHeader(name);
}

/** send's steps for bytes that are not a local file. */
async function sendRemote(
  req: Request,
  res: Response,
  stat: StoredStat,
  ext: string,
  options: SendOptions,
  open: (range?: { start: number; end: number }) => Promise<NodeJS.ReadableStream | null>,
): Promise<void> {
  if (res.headersSent) return;
  const size = stat.size;
  if (!res.getHeader('Accept-Ranges')) res.setHeader('Accept-Ranges', 'bytes');
  if (!res.getHeader('Last-Modified')) res.setHeader('Last-Modified', stat.mtime.toUTCString());
  if (options.etag !== false && !res.getHeader('ETag')) res.setHeader('ETag', `W/"${size.toString(16)}-${stat.mtime.getTime().toString(16)}"`);
  if (!res.getHeader('Content-Type')) res.setHeader('Content-Type', mime.contentType(ext) || 'application/octet-stream');
  const etag = res.getHeader('ETag') as string | undefined;
  const lastModified = res.getHeader('Last-Modified') as string;
  const h = req.headers;

  if (h['if-match'] || h['if-unmodified-since'] || h['if-none-match'] || h['if-modified-since']) {
    const match = h['if-match'];
    const unmodifiedSince = parseHttpDate(h['if-unmodified-since']);
    const failed = match
      ? !etag || (match !== '*' && tokens(match).every((m) => m !== etag && m !== `W/${etag}` && `W/${m}` !== etag))
      : !Number.isNaN(unmodifiedSince) && (Number.isNaN(parseHttpDate(lastModified)) || parseHttpDate(lastModified) > unmodifiedSince);
    if (failed) throw preconditionFailed();
    if (fresh(h, { etag, 'last-modified': lastModified })) {
      for (const name of ['Content-Encoding', 'Content-Language', 'Content-Length', 'Content-Range', 'Content-Type']) res.removeHeader(name);
      res.statusCode = 304;
      res.end();
      return;
    }
  }

  let range: { start: number; end: number } | undefined;
  const rangeHeader = h.range;
  if (rangeHeader && /^ *bytes=/.test(rangeHeader)) {
    let ranges = parseRange(size, rangeHeader, { combine: true });
    const ifRange = h['if-range'];
    if (ifRange && !(ifRange.includes('"') ? Boolean(etag && ifRange.includes(etag)) : parseHttpDate(lastModified) <= parseHttpDate(ifRange))) ranges = -2;
    if (ranges === -1) {
      res.setHeader('Content-Range', `bytes */${size}`);
      throw rangeNotSatisfiable(size);
    }
    if (ranges !== -2 && ranges.length === 1) {
      range = { start: ranges[0].start, end: ranges[0].end };
      res.statusCode = 206;
      res.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${size}`);
    }
  }
  res.setHeader('Content-Length', range ? range.end - range.start + 1 : size);
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  // An empty file: nothing to fetch (a Range on it is never satisfiable, so no range here).
  if (size === 0) return void res.end();
  const body = await open(range).catch((err) => {
    forgetContent(res);
    throw err;
  });
  if (!body) {
    forgetContent(res);
    throw notFound('The file is missing');
  }
  try {
    await pipeline(body, res);
  } catch {
    // The client went away or the bucket broke off: the answer cannot be finished either way.
    res.destroy();
  }
}
