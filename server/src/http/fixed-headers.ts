// helmet's security headers, set in one step. With Folio's options helmet answers every request
// with the same headers (no function of the request: no CSP nonce), so they are read from helmet
// itself once, at start, and each request gets them from one loop instead of helmet's dozen
// middlewares (about 8 µs of an uncached read's 230: issue 48). helmet still decides what they
// are; a helmet that ever reads the request, answers asynchronously or fails refuses to start.
import type { RequestHandler } from 'express';

export function fixedHeaders(middleware: RequestHandler): RequestHandler {
  const set = new Map<string, string>();
  const removed = new Set<string>();
  let passed = false;
  const refuse = (what: string) => {
    throw new Error(`fixedHeaders: the middleware ${what}; its headers are not the same for every request`);
  };
  const req = new Proxy({}, { get: (_t, name) => refuse(`read the request's ${String(name)}`) });
  const res = {
    setHeader(name: string, value: unknown) {
      if (typeof value !== 'string') refuse(`set ${name} to a ${typeof value}`);
      removed.delete(name.toLowerCase());
      set.set(name, value as string);
      return res;
    },
    removeHeader(name: string) {
      for (const k of set.keys()) if (k.toLowerCase() === name.toLowerCase()) set.delete(k);
      removed.add(name.toLowerCase());
    },
  };
  (middleware as unknown as (q: unknown, s: unknown, n: (err?: unknown) => void) => void)(req, res, (err?: unknown) => {
    if (err !== undefined) refuse(`failed: ${String(err)}`);
    passed = true;
  });
  if (!passed) refuse('did not pass the request on at once');
  const headers = [...set];
  const removes = [...removed];
  return (_req, response, next) => {
    for (const name of removes) response.removeHeader(name);
    for (let i = 0; i < headers.length; i++) response.setHeader(headers[i][0], headers[i][1]);
    next();
  };
}
