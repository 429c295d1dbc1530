// Two server processes on one data dir (SQLite) or one database (PostgreSQL): a model change
// answered by one — a new object type, a property, a relation, hiding, disabling, a property
// type's params — is seen by the other's next request, routes included (no 404 for a type the
// other process created), also while the other is busy reading and writing.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startChildServer, type ChildServer } from './helpers/child-server.js';
import { ADMIN } from './helpers/server.js';
import { createTestDatabase, type TestDatabase } from './helpers/test-database.js';

const JSONAPI = { Accept: 'application/vnd.api+json', 'Content-Type': 'application/vnd.api+json' };

let dirA: string;
let dirB: string;
let database: TestDatabase | null;
let a: ChildServer;
let b: ChildServer;

async function call(base: string, method: string, p: string, token?: string, body?: unknown) {
  const headers: Record<string, string> = { ...JSONAPI, ...(token ? { Authorization: `Bearer ${token}` } : {}) };
  const res = await fetch(base + p, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, text };
}

async function token(base: string): Promise<string> {
  const res = await fetch(`${base}/auth`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(ADMIN) });
  return ((await res.json()) as { meta: { jwt: string } }).meta.jwt;
}

before(async () => {
  dirA = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-model-procs-'));
  database = await createTestDatabase();
  dirB = database ? fs.mkdtempSync(path.join(os.tmpdir(), 'folio-model-procs-')) : dirA;
  const env: Record<string, string> = database ? { FOLIO_DATABASE_URL: database.url } : {};
  a = await startChildServer(dirA, env);
  b = await startChildServer(dirB, env);
});

after(async () => {
  await a?.stop();
  await b?.stop();
  await database?.drop();
  for (const dir of new Set([dirA, dirB])) if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test('a type, a property and a relation created in one process answer at once in the other', async () => {
  const [ta, tb] = [await token(a.url), await token(b.url)];
  // B has answered for the type before it exists (a cached 404 must not outlive the model change).
  assert.equal((await call(b.url, 'GET', '/comets')).status, 404);
  assert.equal((await call(b.url, 'GET', '/comets', tb)).status, 404);

  const created = await call(a.url, 'POST', '/model/object_types', ta, { data: { type: 'object_types', attributes: { name: 'comets', singular: 'comet' } } });
  assert.equal(created.status, 201, created.text);
  assert.equal((await call(b.url, 'GET', '/comets')).status, 200);
  assert.equal((await call(b.url, 'GET', '/comets', tb)).status, 200);
  const made = await call(b.url, 'POST', '/comets', tb, { data: { type: 'comets', attributes: { title: 'Halley', status: 'on' } } });
  assert.equal(made.status, 201, made.text);
  const id = made.body.data.id;
  assert.equal((await call(a.url, 'GET', `/comets/${id}`)).body.data.attributes.title, 'Halley');

  const prop = await call(a.url, 'POST', '/model/properties', ta, {
    data: { type: 'properties', attributes: { name: 'period', property_type_name: 'integer', object_type_name: 'comets' } },
  });
  assert.equal(prop.status, 201, prop.text);
  const patched = await call(b.url, 'PATCH', `/comets/${id}`, tb, { data: { id, type: 'comets', attributes: { period: 76 } } });
  assert.equal(patched.status, 200, patched.text);
  assert.equal(patched.body.data.attributes.period, 76);
  assert.equal((await call(b.url, 'GET', '/model/schema/comets', tb)).body.properties.period !== undefined, true);

  const rel = await call(a.url, 'POST', '/model/relations', ta, { data: { type: 'relations', attributes: { name: 'orbits', inverse_name: 'orbited_by' } } });
  assert.equal(rel.status, 201, rel.text);
  for (const side of ['left_object_types', 'right_object_types']) {
    const res = await call(a.url, 'POST', `/model/relations/${rel.body.data.id}/relationships/${side}`, ta, { data: [{ type: 'object_types', id: created.body.data.id }] });
    assert.ok(res.status < 300, res.text);
  }
  const other = await call(b.url, 'POST', '/comets', tb, { data: { type: 'comets', attributes: { title: 'Sun', status: 'on' } } });
  const linked = await call(b.url, 'POST', `/comets/${id}/relationships/orbits`, tb, { data: [{ type: 'comets', id: other.body.data.id }] });
  assert.ok(linked.status < 300, linked.text);
  assert.deepEqual((await call(b.url, 'GET', `/comets/${id}/orbits`)).body.data.map((o: { id: string }) => o.id), [other.body.data.id]);
});

test('disabling, hiding and property type changes in one process hold in the other at once', async () => {
  const [ta, tb] = [await token(a.url), await token(b.url)];
  const type = await call(a.url, 'GET', '/model/object_types/comets', ta);
  const typeId = type.body.data.id;
  const patchType = (attributes: Record<string, unknown>) => call(a.url, 'PATCH', `/model/object_types/${typeId}`, ta, { data: { id: typeId, type: 'object_types', attributes } });
  // Lists and sorts by the property in B (a list plan B keeps), then A hides it.
  assert.equal((await call(b.url, 'GET', '/comets?sort=period&filter[period]=76', tb)).status, 200);
  assert.equal((await patchType({ hidden: ['period'] })).status, 200);
  assert.equal((await call(b.url, 'GET', '/comets?sort=period', tb)).status, 400);
  const listed = await call(b.url, 'GET', '/comets', tb);
  assert.equal(listed.body.data.every((o: { attributes: Record<string, unknown> }) => !('period' in o.attributes)), true);
  assert.equal((await patchType({ hidden: null, enabled: false })).status, 200);
  assert.equal((await call(b.url, 'GET', '/comets', tb)).status, 404);
  assert.equal((await call(b.url, 'POST', '/comets', tb, { data: { type: 'comets', attributes: { title: 'No' } } })).status, 404);
  assert.equal((await patchType({ enabled: true })).status, 200);
  assert.equal((await call(b.url, 'GET', '/comets', tb)).status, 200);

  const pt = await call(a.url, 'POST', '/model/property_types', ta, { data: { type: 'property_types', attributes: { name: 'sizes', params: { type: 'string', enum: ['small', 'big'] } } } });
  assert.equal(pt.status, 201, pt.text);
  const prop = await call(a.url, 'POST', '/model/properties', ta, { data: { type: 'properties', attributes: { name: 'size', property_type_name: 'sizes', object_type_name: 'comets' } } });
  assert.equal(prop.status, 201, prop.text);
  assert.equal((await call(b.url, 'POST', '/comets', tb, { data: { type: 'comets', attributes: { title: 'Tiny', size: 'tiny' } } })).status, 400);
  const widened = await call(a.url, 'PATCH', `/model/property_types/${pt.body.data.id}`, ta, {
    data: { id: pt.body.data.id, type: 'property_types', attributes: { params: { type: 'string', enum: ['tiny', 'small', 'big'] } } },
  });
  assert.equal(widened.status, 200, widened.text);
  const tiny = await call(b.url, 'POST', '/comets', tb, { data: { type: 'comets', attributes: { title: 'Tiny', size: 'tiny' } } });
  assert.equal(tiny.status, 201, tiny.text);
});

test('model changes made in one process while the other is busy are all seen there once answered', async () => {
  const [ta, tb] = [await token(a.url), await token(b.url)];
  let busy = true;
  // B keeps reloading its model, reading and writing, while A changes the model again and again.
  const load = Array.from({ length: 4 }, async (_, n) => {
    while (busy) {
      await call(b.url, 'GET', '/objects?page_size=1', tb);
      await call(b.url, 'POST', '/documents', tb, { data: { type: 'documents', attributes: { title: `Load ${n}` } } });
    }
  });
  const names: string[] = [];
  try {
    for (let i = 0; i < 12; i++) {
      const name = `planets_${i}`;
      const made = await call(a.url, 'POST', '/model/object_types', ta, { data: { type: 'object_types', attributes: { name, singular: `planet_${i}` } } });
      assert.equal(made.status, 201, made.text);
      names.push(name);
      // Answered by A: B's next request sees it (and every one before it).
      const seen = await call(b.url, 'GET', `/${name}`, tb);
      assert.equal(seen.status, 200, `${name} on B: ${seen.text}`);
    }
  } finally {
    busy = false;
    await Promise.all(load);
  }
  for (const name of names) assert.equal((await call(b.url, 'GET', `/${name}`, tb)).status, 200, name);
});
