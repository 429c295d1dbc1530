// Several real Folio processes on one new database (CONTRACT.md, "PostgreSQL, object storage and
// several instances"): started at the same moment they all come up, with exactly one admin and
// one JWT secret; and processes sharing a database — on SQLite, one data dir — serve each other's
// model changes (`/model/*`) on their next request. In the PostgreSQL pass each process has a
// data folder of its own, as instances on different machines; on SQLite they share one.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { startChildServer, type ChildServer } from './helpers/child-server.js';
import { ADMIN } from './helpers/server.js';
import { createTestDatabase, type TestDatabase } from './helpers/test-database.js';

const JSONAPI = { Accept: 'application/vnd.api+json', 'Content-Type': 'application/vnd.api+json' };

async function call(base: string, method: string, p: string, token?: string, body?: unknown) {
  const headers: Record<string, string> = { ...JSONAPI, ...(token ? { Authorization: `Bearer ${token}` } : {}) };
  const res = await fetch(base + p, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, text };
}

const cleanups: Array<() => Promise<unknown> | unknown> = [];
after(async () => {
  for (const clean of cleanups.reverse()) await clean();
});

/** `n` processes started at the same moment on one new database; each settles as it comes up or exits. */
async function startTogether(n: number): Promise<PromiseSettledResult<ChildServer>[]> {
  const database: TestDatabase | null = await createTestDatabase();
  const shared = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-start-'));
  const dirs = Array.from({ length: n }, (_, i) => (database && i > 0 ? fs.mkdtempSync(path.join(os.tmpdir(), 'folio-start-')) : shared));
  cleanups.push(async () => {
    await database?.drop();
    for (const dir of new Set(dirs)) fs.rmSync(dir, { recursive: true, force: true });
  });
  const env: Record<string, string> = database ? { FOLIO_DATABASE_URL: database.url } : {};
  const started = await Promise.allSettled(dirs.map((dir) => startChildServer(dir, env)));
  for (const s of started) if (s.status === 'fulfilled') cleanups.push(() => s.value.stop());
  return started;
}

function upServers(started: PromiseSettledResult<ChildServer>[]): ChildServer[] {
  const failed = started.filter((s): s is PromiseRejectedResult => s.status === 'rejected').map((s) => String(s.reason?.message ?? s.reason));
  assert.deepEqual(failed, [], 'every instance comes up');
  return started.map((s) => (s as PromiseFulfilledResult<ChildServer>).value);
}

async function adminToken(base: string): Promise<string> {
  const res = await call(base, 'POST', '/auth', undefined, ADMIN);
  assert.equal(res.status, 200, res.text);
  return res.body.meta.jwt;
}

test('three instances started at the same moment on an empty database all come up, with exactly one admin', async () => {
  const servers = upServers(await startTogether(3));
  for (const s of servers) assert.equal((await call(s.url, 'GET', '/status')).status, 200);
  // One admin, and one secret: a token from any instance is accepted by every other.
  const token = await adminToken(servers[0].url);
  for (const s of servers) {
    const users = await call(s.url, 'GET', '/users', token);
    assert.equal(users.status, 200, users.text);
    assert.deepEqual(users.body.data.map((u: { attributes: { username: string } }) => u.attributes.username), [ADMIN.username]);
  }
});

test('a type made on one process is served by the other on its next request', async () => {
  const [a, b] = upServers(await startTogether(2));
  const token = await adminToken(a.url);
  // B has loaded the model and answered from it before the change.
  assert.equal((await call(b.url, 'GET', '/model/object_types/gadgets', token)).status, 404);
  assert.equal((await call(b.url, 'GET', '/gadgets')).status, 404);
  const type = await call(a.url, 'POST', '/model/object_types', token, { data: { type: 'object_types', attributes: { name: 'gadgets', singular: 'gadget' } } });
  assert.equal(type.status, 201, type.text);
  const onB = await call(b.url, 'GET', '/model/object_types/gadgets', token);
  assert.equal(onB.status, 200, onB.text);
  assert.equal(onB.body.data.id, type.body.data.id);
  const created = await call(b.url, 'POST', '/gadgets', token, { data: { type: 'gadgets', attributes: { title: 'Lamp', status: 'on' } } });
  assert.equal(created.status, 201, created.text);
  // And the other way round: a property added on B is written and filtered on A.
  const prop = await call(b.url, 'POST', '/model/properties', token, {
    data: { type: 'properties', attributes: { name: 'watts', property_type_name: 'integer', object_type_name: 'gadgets' } },
  });
  assert.equal(prop.status, 201, prop.text);
  const id = created.body.data.id;
  const patched = await call(a.url, 'PATCH', `/gadgets/${id}`, token, { data: { id, type: 'gadgets', attributes: { watts: 40 } } });
  assert.equal(patched.status, 200, patched.text);
  assert.deepEqual((await call(a.url, 'GET', '/gadgets?filter[watts][gte]=30')).body.data.map((d: { id: string }) => d.id), [id]);
  // Deleted on A: gone from B.
  assert.equal((await call(a.url, 'DELETE', `/gadgets/${id}`, token)).status, 204);
  assert.equal((await call(a.url, 'DELETE', `/trash/${id}`, token)).status, 204);
  assert.equal((await call(a.url, 'DELETE', `/model/properties/${prop.body.data.id}`, token)).status, 204);
  assert.equal((await call(a.url, 'DELETE', `/model/object_types/${type.body.data.id}`, token)).status, 204);
  assert.equal((await call(b.url, 'GET', '/model/object_types/gadgets', token)).status, 404);
  assert.equal((await call(b.url, 'GET', '/gadgets')).status, 404);
});
