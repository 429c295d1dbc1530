// Headers and limits: security headers (helmet) that leave the admin UI working, CORS per
// FOLIO_CORS_ORIGINS, header and body limits, request timeouts. Failures Node's HTTP parser
// catches before express still answer the JSON API error body.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { expectError, startServer, type TestServer } from './helpers/server.js';
import { rawRequest, type RawResponse } from './helpers/raw-http.js';
import { PATIENCE_MS } from './helpers/wait.js';

function expectRawError(res: RawResponse, status: number, code: string) {
  assert.equal(res.status, status, `expected ${status}, got ${res.status}: ${res.body}`);
  assert.match(res.headers['content-type'] ?? '', /application\/vnd\.api\+json/);
  const body = JSON.parse(res.body);
  assert.equal(body.error.status, String(status));
  assert.equal(body.error.code, code);
  assert.ok(body.links.self && body.links.home);
}

describe('security headers and the admin UI', () => {
  let s: TestServer;
  let uiDir: string;
  before(async () => {
    // A stand-in for the built admin UI: a module script and a stylesheet from /admin/assets,
    // an inline style attribute, a data: image, and a fetch to the API, as the React build does.
    uiDir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-ui-'));
    fs.mkdirSync(path.join(uiDir, 'assets'));
    fs.writeFileSync(
      path.join(uiDir, 'index.html'),
      '<!doctype html><html><head><link rel="stylesheet" href="/admin/assets/app.css">' +
        '<script type="module" crossorigin src="/admin/assets/app.js"></script></head><body><div id="root"></div></body></html>',
    );
    fs.writeFileSync(path.join(uiDir, 'assets/app.css'), '#root { color: rgb(1, 2, 3); }');
    fs.writeFileSync(
      path.join(uiDir, 'assets/app.js'),
      `const r = await fetch('/status', { headers: { Accept: 'application/vnd.api+json' } });
       const el = document.getElementById('root');
       el.style.fontWeight = 'bold';
       el.innerHTML = '<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">';
       el.dataset.status = String(r.status);`,
    );
    s = await startServer({}, {}, { uiDir });
  });
  after(async () => {
    await s.close();
    fs.rmSync(uiDir, { recursive: true, force: true });
  });

  test('API answers carry helmet headers and no X-Powered-By', async () => {
    const r = await s.request('GET', '/status');
    assert.equal(r.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(r.headers.get('x-frame-options'), 'SAMEORIGIN');
    assert.equal(r.headers.get('referrer-policy'), 'no-referrer');
    assert.match(r.headers.get('content-security-policy') ?? '', /default-src 'self'/);
    assert.equal(r.headers.get('x-powered-by'), null);
    const err = await s.request('GET', '/nowhere');
    assert.equal(err.headers.get('x-content-type-options'), 'nosniff');
  });

  test('the admin UI loads in a browser under the Content-Security-Policy', async (t) => {
    const chromium = process.env.CHROME_PATH ?? '/usr/bin/chromium';
    if (!fs.existsSync(chromium)) return t.skip('no Chromium on this machine');
    const { chromium: pw } = await import('playwright-core');
    const browser = await pw.launch({
      executablePath: chromium,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
    try {
      const page = await browser.newPage();
      const violations: string[] = [];
      page.on('console', (m) => {
        if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
      });
      await page.goto(`${s.url}/admin/`);
      await page.waitForSelector('#root[data-status="200"] img', { timeout: PATIENCE_MS });
      assert.equal(await page.$eval('#root', (el) => getComputedStyle(el).color), 'rgb(1, 2, 3)');
      assert.equal(await page.$eval('#root', (el) => (el as HTMLElement).style.fontWeight), 'bold');
      assert.deepEqual(violations, []);
    } finally {
      await browser.close();
    }
  });
});

describe('CORS per FOLIO_CORS_ORIGINS', () => {
  test('a preflight from a listed origin allows Authorization, Content-Type, Accept and X-Api-Key', async () => {
    const s = await startServer({ FOLIO_CORS_ORIGINS: 'https://app.example,https://other.example' });
    try {
      const pre = await fetch(`${s.url}/auth`, {
        method: 'OPTIONS',
        headers: {
          Origin: 'https://app.example',
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'authorization,content-type,accept,x-api-key',
        },
      });
      assert.equal(pre.status, 204);
      assert.equal(pre.headers.get('access-control-allow-origin'), 'https://app.example');
      const allowed = (pre.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(/\s*,\s*/);
      for (const h of ['authorization', 'content-type', 'accept', 'x-api-key']) assert.ok(allowed.includes(h), h);
      assert.match(pre.headers.get('access-control-allow-methods') ?? '', /PATCH/);
      const get = await fetch(`${s.url}/status`, { headers: { Origin: 'https://other.example' } });
      assert.equal(get.headers.get('access-control-allow-origin'), 'https://other.example');

      const foreign = await fetch(`${s.url}/status`, { headers: { Origin: 'https://evil.example' } });
      assert.equal(foreign.headers.get('access-control-allow-origin'), null);
      const foreignPre = await fetch(`${s.url}/auth`, {
        method: 'OPTIONS',
        headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST' },
      });
      assert.equal(foreignPre.headers.get('access-control-allow-origin'), null);
    } finally {
      await s.close();
    }
  });

  test('unset, no origin gets CORS headers (same-origin only)', async () => {
    const s = await startServer();
    try {
      const r = await fetch(`${s.url}/status`, { headers: { Origin: 'https://app.example' } });
      assert.equal(r.status, 200);
      assert.equal(r.headers.get('access-control-allow-origin'), null);
      const pre = await fetch(`${s.url}/status`, {
        method: 'OPTIONS',
        headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'GET' },
      });
      assert.equal(pre.headers.get('access-control-allow-origin'), null);
    } finally {
      await s.close();
    }
  });
});

describe('header, body and time limits', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer({}, { requestTimeoutMs: 600, headersTimeoutMs: 400 });
  });
  after(() => s.close());

  test('headers over 16 KB give 431 with a JSON API error', async () => {
    const res = await rawRequest(s.url, [`GET /status HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`]);
    expectRawError(res, 431, 'headers_too_large');
  });

  test('a malformed request line gives 400 with a JSON API error', async () => {
    expectRawError(await rawRequest(s.url, ['GET /status HTTP/9.9 extra\r\n\r\n']), 400, 'malformed_request');
    expectRawError(await rawRequest(s.url, ['\x00\x01\x02 garbage\r\n\r\n']), 400, 'malformed_request');
  });

  test('a JSON body over 2 MB gives 413 before the handler runs', async () => {
    const big = JSON.stringify({ data: { type: 'users', attributes: { name: 'x'.repeat(2.5 * 1024 * 1024) } } });
    expectError(await s.request('POST', '/auth', { raw: big, headers: { 'Content-Type': 'application/json' } }), 413, 'payload_too_large');
  });

  test('a body that trickles in past the request timeout gives 408 and the connection closes', async () => {
    const res = await rawRequest(
      s.url,
      ['POST /auth HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{"username":', '"a"'],
      { gapMs: 100, waitMs: PATIENCE_MS },
    );
    // The body never completes: only the request timeout can have answered (and closed).
    expectRawError(res, 408, 'request_timeout');
  });

  test('headers that never finish (slowloris) give 408', async () => {
    const res = await rawRequest(s.url, ['GET /status HTTP/1.1\r\nHost: x\r\n', 'X-Slow: 1\r\n'], { gapMs: 100, waitMs: PATIENCE_MS });
    expectRawError(res, 408, 'request_timeout');
  });

  test('the server keeps answering after all of the above', async () => {
    assert.equal((await s.request('GET', '/status')).status, 200);
  });
});
