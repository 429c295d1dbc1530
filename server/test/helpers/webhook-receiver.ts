// A webhook receiver on 127.0.0.1 for tests: records every request it gets and answers with the
// status a test chooses per request.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitUntil } from './wait.js';

export interface Received {
  headers: http.IncomingHttpHeaders;
  raw: string;
  body: any;
  at: number;
}

/** A webhook receiver on 127.0.0.1: records every request; `answer(n)` gives the status of the n-th (from 1). */
export async function startReceiver(answer: (n: number) => number = () => 200) {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      received.push({ headers: req.headers, raw, body: JSON.parse(raw), at: Date.now() });
      res.statusCode = answer(received.length);
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return {
    url,
    received,
    /** Resolves when `n` requests have arrived (see wait.ts for the time limit). */
    waitFor: (n: number): Promise<Received[]> => waitUntil(() => (received.length >= n ? received.slice(0, n) : undefined), `${n} deliveries`),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

