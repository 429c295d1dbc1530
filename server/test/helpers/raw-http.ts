// Raw HTTP/1.1 over a TCP socket, for what fetch will not send: oversized or malformed request
// lines and headers, bodies that stop midway, requests that trickle in too slowly.
import net from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The socket closed without any answer. */
  closedSilently: boolean;
}

export function parseRawResponse(text: string): RawResponse {
  if (!text) return { status: 0, headers: {}, body: '', closedSilently: true };
  const [head, ...rest] = text.split('\r\n\r\n');
  const [statusLine, ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const l of lines) {
    const i = l.indexOf(':');
    if (i > 0) headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n'), closedSilently: false };
}

/**
 * Write `chunks` to the server (waiting `gapMs` between them), then read until the server closes
 * the connection or `waitMs` passes; `endAfterWrite` half-closes or destroys the socket instead.
 */
export function rawRequest(
  baseUrl: string,
  chunks: Array<string | Buffer>,
  opts: { gapMs?: number; waitMs?: number; abortAfterWrite?: boolean } = {},
): Promise<RawResponse> {
  const { port, hostname } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    const received: Buffer[] = [];
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(parseRawResponse(Buffer.concat(received).toString('utf8')));
    };
    const timer = setTimeout(finish, opts.waitMs ?? 5000);
    socket.on('data', (d) => received.push(d));
    socket.on('end', finish);
    socket.on('close', finish);
    socket.on('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNRESET' || err.code === 'EPIPE' ? finish() : reject(err)));
    socket.on('connect', async () => {
      for (const [i, c] of chunks.entries()) {
        if (i > 0 && opts.gapMs) await new Promise((r) => setTimeout(r, opts.gapMs));
        if (socket.destroyed) return;
        socket.write(c);
      }
      if (opts.abortAfterWrite) {
        setTimeout(() => {
          socket.destroy();
          finish();
        }, 50);
      }
    });
  });
}

/** A GET over a raw socket: fetch would add Cache-Control to conditional requests and drop Host. */
export async function rawGet(t: { url: string }, p: string, headers: Record<string, string>) {
  const lines = Object.entries({ Host: new URL(t.url).host, Accept: 'application/vnd.api+json', Connection: 'close', ...headers }).map(([k, v]) => `${k}: ${v}\r\n`);
  const res = await rawRequest(t.url, [`GET ${p} HTTP/1.1\r\n${lines.join('')}\r\n`]);
  return { ...res, body: res.body ? JSON.parse(res.body) : null };
}
