// One HTTP attempt of a webhook delivery: POST the body with its signature headers, wait at most
// `timeoutMs` for the whole answer, read at most a few kB of it, never follow a redirect (a 3xx
// counts as a failed attempt, so a receiver cannot bounce deliveries to another scheme or host).
import crypto from 'node:crypto';
import http from 'node:http';
import https from 'node:https';

/** Most of a receiver's answer we keep (for the deliveries list); the rest is not read. */
const MAX_ANSWER_BYTES = 4096;

export interface SendResult {
  /** HTTP status of the answer, or null when none came. */
  status: number | null;
  ok: boolean;
  /** Why it failed (network error, timeout, or the start of a non-2xx answer). */
  error: string | null;
}

export const signature = (body: string, secret: string) => `sha256=${crypto.createHmac('sha256', secret).update(body).digest('hex')}`;

export interface Outgoing {
  url: string;
  body: string;
  event: string;
  deliveryId: string;
  secret: string;
}

export function sendDelivery(out: Outgoing, timeoutMs: number, signal?: AbortSignal): Promise<SendResult> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (r: SendResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(r);
    };
    let url: URL;
    try {
      url = new URL(out.url);
    } catch {
      return finish({ status: null, ok: false, error: 'The webhook URL is not valid' });
    }
    const client = url.protocol === 'https:' ? https : url.protocol === 'http:' ? http : null;
    if (!client) return finish({ status: null, ok: false, error: `Unsupported URL scheme ${url.protocol}` });
    const payload = Buffer.from(out.body, 'utf8');
    const req = client.request(url, {
      method: 'POST',
      agent: false,
      headers: {
        'Content-Type': 'application/json',
        'Content-Length': payload.length,
        'User-Agent': 'Folio-Webhooks/1',
        'X-Folio-Event': out.event,
        'X-Folio-Delivery': out.deliveryId,
        'X-Folio-Signature': signature(out.body, out.secret),
      },
    });
    const timer = setTimeout(() => {
      req.destroy();
      finish({ status: null, ok: false, error: `No answer within ${Math.round(timeoutMs / 1000)} s` });
    }, timeoutMs);
    const onAbort = () => {
      req.destroy();
      finish({ status: null, ok: false, error: 'Stopped before an answer came (server shutting down)' });
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    req.on('error', (err) => finish({ status: null, ok: false, error: err.message || String(err) }));
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      const ok = status >= 200 && status < 300;
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () => {
        const answer = Buffer.concat(chunks).toString('utf8').slice(0, 500);
        const error = ok ? null : status >= 300 && status < 400 ? `Redirect (${status}) not followed` : `HTTP ${status}${answer ? `: ${answer}` : ''}`;
        res.destroy();
        finish({ status, ok, error });
      };
      res.on('data', (chunk: Buffer) => {
        if (size < MAX_ANSWER_BYTES) chunks.push(chunk.subarray(0, MAX_ANSWER_BYTES - size));
        size += chunk.length;
        if (size >= MAX_ANSWER_BYTES) done();
      });
      res.on('end', done);
      res.on('error', done);
    });
    req.end(payload);
  });
}
