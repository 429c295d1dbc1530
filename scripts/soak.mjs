// npm run soak: a longer load run, not part of npm test. Starts Folio as a child process on a
// temp data dir (loopback only), drives it with autocannon — 100 connections cycling through
// reads (lists, search, single objects, /status) and writes (creates, updates) — samples the
// server's RSS every second, and prints errors, status counts, throughput and RSS growth.
// Usage: npm run soak [-- <seconds> [connections]]   (defaults: 60 s, 100 connections)
// Exit code 1 when any request failed (5xx, network error, timeout).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { startChildServer } from '../server/test/helpers/child-server.ts';
import { ADMIN } from '../server/test/helpers/server.ts';

const seconds = Number(process.argv[2] ?? 60);
const connections = Number(process.argv[3] ?? 100);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-soak-'));
const server = await startChildServer(dataDir, { FOLIO_LOGIN_LIMIT: '0' });

const rssMb = () => {
  const status = fs.readFileSync(`/proc/${server.child.pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
};

try {
  const login = await fetch(`${server.url}/auth`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(ADMIN) });
  const token = (await login.json()).meta.jwt;
  const headers = { Authorization: `Bearer ${token}`, Accept: 'application/vnd.api+json', 'Content-Type': 'application/vnd.api+json' };
  const ids = [];
  for (let i = 0; i < 20; i++) {
    const r = await fetch(`${server.url}/documents`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ data: { type: 'documents', attributes: { title: `soak seed ${i}`, body: 'lorem ipsum dolor sit amet', status: 'on' } } }),
    });
    ids.push((await r.json()).data.id);
  }
  const pick = () => ids[Math.floor(Math.random() * ids.length)];
  const statuses = new Map();
  const count = (status) => statuses.set(status, (statuses.get(status) ?? 0) + 1);
  const read = (p) => ({ method: 'GET', path: p, headers, onResponse: count });
  const requests = [
    read('/documents?page_size=20'),
    { method: 'GET', headers, setupRequest: (r) => ({ ...r, path: `/documents/${pick()}` }), onResponse: count },
    read('/objects?q=soak&page_size=10'),
    read('/status'),
    {
      method: 'POST',
      path: '/documents',
      headers,
      body: JSON.stringify({ data: { type: 'documents', attributes: { title: 'soak write', body: 'created under load', status: 'on' } } }),
      onResponse: (status, body) => {
        count(status);
        if (status === 201 && ids.length < 2000) ids.push(JSON.parse(body).data.id);
      },
    },
    {
      method: 'PATCH',
      headers,
      setupRequest: (r) => {
        const id = pick();
        return { ...r, path: `/documents/${id}`, body: JSON.stringify({ data: { id, type: 'documents', attributes: { description: `touched ${Date.now()}` } } }) };
      },
      onResponse: count,
    },
    read('/folders?page_size=10'),
  ];

  // Warm up for a few seconds so the RSS baseline is not the cold start.
  await autocannon({ url: server.url, connections: 10, duration: 3, requests });
  statuses.clear();
  const rssStart = rssMb();
  let rssPeak = rssStart;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssMb())), 1000);
  console.log(`soak: ${connections} connections for ${seconds} s against ${server.url} (RSS at start ${rssStart.toFixed(1)} MB)`);
  const result = await autocannon({ url: server.url, connections, duration: seconds, requests, timeout: 30 });
  clearInterval(sampler);
  const rssEnd = rssMb();

  const fivexx = [...statuses.entries()].filter(([st]) => st >= 500).reduce((a, [, n]) => a + n, 0);
  const unexpected = [...statuses.entries()].filter(([st]) => st >= 400).reduce((a, [, n]) => a + n, 0);
  const errors = result.errors + result.timeouts + fivexx + unexpected;
  console.log(`requests: ${result.requests.total} (${result.requests.average.toFixed(0)}/s), latency p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms`);
  console.log(`statuses: ${[...statuses.entries()].sort((a, b) => a[0] - b[0]).map(([k, v]) => `${k}:${v}`).join(' ')}`);
  console.log(`errors: ${errors} (network ${result.errors}, timeouts ${result.timeouts}, 5xx ${fivexx}, other 4xx ${unexpected - fivexx})`);
  console.log(`RSS: start ${rssStart.toFixed(1)} MB, peak ${rssPeak.toFixed(1)} MB, end ${rssEnd.toFixed(1)} MB, growth ${(rssEnd - rssStart).toFixed(1)} MB`);
  process.exitCode = errors ? 1 : 0;
} finally {
  await server.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
