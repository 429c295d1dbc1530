// Measures the server's memory during a large streamed upload (not part of npm test):
//   node scripts/upload-memory.mjs [megabytes=1024]
// Starts `npm start`'s server in a child process on a temp data dir, streams a generated body of
// that size to POST /streams/upload/big.bin (chunked, never held whole by the client either) and
// reports the child's resident memory before, during (sampled) and its peak (VmHWM).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';

const megabytes = Number(process.argv[2] ?? 1024);
const total = megabytes * 1024 * 1024;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-upload-memory-'));
const env = {
  ...process.env,
  PORT: '0',
  FOLIO_DATA_DIR: dataDir,
  FOLIO_ADMIN_USERNAME: 'admin',
  FOLIO_ADMIN_PASSWORD: 'memory-test-1',
  FOLIO_UPLOAD_MAX_BYTES: String(total + 1),
  FOLIO_LOGIN_LIMIT: '0',
};
const child = spawn(process.execPath, ['--import', 'tsx', 'server/src/main.ts'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
const memory = (field) => {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
};

const url = await new Promise((resolve, reject) => {
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
    const m = /listening on (http:\/\/\S+)/.exec(out);
    if (m) resolve(m[1]);
  });
  child.on('exit', (code) => reject(new Error(`server exited with ${code}`)));
});
child.stdout.resume();

try {
  const login = await fetch(`${url}/auth`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: 'memory-test-1' }) });
  const { meta } = await login.json();
  // Warm up (first request loads modules, sharp, prepared statements).
  await fetch(`${url}/streams/upload/warm.txt`, { method: 'POST', headers: { Authorization: `Bearer ${meta.jwt}`, 'Content-Type': 'text/plain' }, body: 'warm' });
  const before = memory('VmRSS');
  let peakSampled = before;
  const sampler = setInterval(() => (peakSampled = Math.max(peakSampled, memory('VmRSS'))), 50);

  const chunk = Buffer.alloc(256 * 1024);
  for (let i = 0; i < chunk.length; i++) chunk[i] = (i * 31) & 0xff;
  let sent = 0;
  const body = new Readable({
    read() {
      if (sent >= total) return this.push(null);
      const n = Math.min(chunk.length, total - sent);
      sent += n;
      this.push(n === chunk.length ? chunk : chunk.subarray(0, n));
    },
  });
  const started = Date.now();
  const status = await new Promise((resolve, reject) => {
    const u = new URL(`${url}/streams/upload/big.bin`);
    const req = http.request(
      { host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { Authorization: `Bearer ${meta.jwt}`, 'Content-Type': 'application/octet-stream', Accept: 'application/vnd.api+json' } },
      (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ code: res.statusCode, size: JSON.parse(text).data?.meta?.file_size }));
      },
    );
    req.on('error', reject);
    body.pipe(req);
  });
  clearInterval(sampler);
  const seconds = (Date.now() - started) / 1000;
  console.log(`upload of ${megabytes} MiB: HTTP ${status.code}, stored ${status.size} bytes in ${seconds.toFixed(1)} s (${(megabytes / seconds).toFixed(0)} MiB/s)`);
  console.log(`server RSS before: ${before.toFixed(1)} MiB; sampled peak during: ${peakSampled.toFixed(1)} MiB; VmHWM (peak of the process): ${memory('VmHWM').toFixed(1)} MiB`);
} finally {
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  fs.rmSync(dataDir, { recursive: true, force: true });
}
