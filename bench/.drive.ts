// ad-hoc driver: each document id once, 10 connections; prints server utime/stime per request
import autocannon from 'autocannon';
import fs from 'node:fs';
const [url, pid, ref, hdr] = process.argv.slice(2);
const seed = JSON.parse(fs.readFileSync('/tmp/b20/bench-seed.json', 'utf8')).result;
const ids: number[] = seed.documentIds;
let s = 7;
const order = [...ids];
for (let i = order.length - 1; i > 0; i--) { s = (Math.imul(s, 1103515245) + 12345) >>> 0; const j = s % (i + 1); [order[i], order[j]] = [order[j], order[i]]; }
const cpu = (p: string) => { const f = fs.readFileSync(`/proc/${p}/stat`, 'utf8'); const x = f.slice(f.lastIndexOf(')') + 2).split(' '); return [Number(x[11]), Number(x[12])]; };
let n = 0;
const headers: Record<string, string> = { Accept: 'application/vnd.api+json' };
if (hdr) { const [k, v] = hdr.split(': '); headers[k] = v; }
const before = cpu(pid);
let inst: any;
inst = autocannon({ url, connections: 10, duration: 120, headers, requests: [{ setupRequest: (req: any) => { const i = n++; if (i + 1 >= order.length) inst.stop(); return { ...req, path: (ref ? '' : '') + `/documents/${order[i]}` }; } }] });
const r = await inst;
const after = cpu(pid);
const reqs = r.requests.total;
console.log(`${reqs} req, ${(reqs / r.duration).toFixed(0)} req/s, non2xx ${r.non2xx}, user ${((after[0] - before[0]) * 1e4 / reqs).toFixed(0)} µs/req, sys ${((after[1] - before[1]) * 1e4 / reqs).toFixed(0)} µs/req`);
