// What the speed work must never change: cached answers and cached list figures follow every
// write (of this server and of another process), signed-in callers never get an answer cached for
// anyone else (each user has their own entries), writes that share a transaction (group commit)
// succeed or fail one by one,
// unames stay unique however many objects share a title, and an answer is only served for
// requests that agree on all its route says it varies on.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import express from 'express';
import { sql } from 'kysely';
import { connectOutside } from './helpers/outside.js';
import { readerObservers } from '../src/db/dialect/sqlite-reader.js';
import { createServer } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createResponseCache, SEEN_ONCE_GENERATION } from '../src/http/response-cache.js';
import { mountRoutes, type Handler } from '../src/http/router.js';
import { ANONYMOUS } from '../src/identity.js';
import { SYSTEM } from '../src/resources/objects/kernel.js';
import { getObject } from '../src/resources/objects/read.js';
import { rawGet } from './helpers/raw-http.js';
import { sameData, startServer, type TestServer } from './helpers/server.js';
import { waitUntil } from './helpers/wait.js';
import { createRole, createUser, userWithPermissions } from './helpers/users.js';
import { startChildServer } from './helpers/child-server.js';
import { createTestDatabase, onPostgres } from './helpers/test-database.js';
import { logStatements, type StatementLog } from './helpers/pg-statements.js';


const doc = (attributes: Record<string, unknown>) => ({ data: { type: 'documents', attributes } });

describe('response cache, read cache, group commit and unames', () => {
  let t: TestServer;
  let token: string;
  before(async () => {
    t = await startServer();
    token = await t.adminToken();
  });
  after(() => t.close());

  test('a cached anonymous answer follows a PATCH, and signed-in callers still see drafts', async () => {
    const created = await t.request('POST', '/documents', { token, body: doc({ title: 'Cached one', status: 'on' }) });
    assert.equal(created.status, 201);
    const id = created.body.data.id;
    const first = await t.request('GET', `/documents/${id}`);
    const second = await t.request('GET', `/documents/${id}`);
    assert.equal(first.status, 200);
    assert.equal(second.text, first.text);
    assert.equal(second.headers.get('etag'), first.headers.get('etag'));
    assert.ok(t.server.ctx.responseCache.size >= 1, 'the anonymous answer was kept');

    const patched = await t.request('PATCH', `/documents/${id}`, { token, body: { data: { id, type: 'documents', attributes: { title: 'Renamed' } } } });
    assert.equal(patched.status, 200);
    const after = await t.request('GET', `/documents/${id}`);
    assert.equal(after.body.data.attributes.title, 'Renamed');

    // Draft: gone for anonymous readers at once, still there for the signed-in user.
    await t.request('PATCH', `/documents/${id}`, { token, body: { data: { id, type: 'documents', attributes: { status: 'draft' } } } });
    assert.equal((await t.request('GET', `/documents/${id}`)).status, 404);
    const mine = await t.request('GET', `/documents/${id}`, { token });
    assert.equal(mine.status, 200);
    assert.equal(mine.body.data.attributes.status, 'draft');
  });

  test('an answer is kept from its second request on: reads of objects asked for once keep nothing', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await t.request('POST', '/documents', { token, body: doc({ title: `Scanned ${i}`, status: 'on' }) })).body.data.id);
    const before = t.server.ctx.responseCache.size;
    for (const id of ids) assert.equal((await t.request('GET', `/documents/${id}`)).status, 200);
    assert.equal(t.server.ctx.responseCache.size, before, 'each asked for once: nothing kept');
    const again = await t.request('GET', `/documents/${ids[0]}`);
    assert.equal(t.server.ctx.responseCache.size, before + 1, 'asked for again: kept');
    const hit = await t.request('GET', `/documents/${ids[0]}`);
    assert.equal(hit.text, again.text);
    assert.equal(t.server.ctx.responseCache.size, before + 1);
    // A write forgets what was asked for: the next read after it is a first one again.
    await t.request('PATCH', `/documents/${ids[1]}`, { token, body: { data: { id: ids[1], type: 'documents', attributes: { title: 'Scanned again' } } } });
    assert.equal((await t.request('GET', `/documents/${ids[0]}`)).status, 200);
    assert.equal(t.server.ctx.responseCache.size, 0);
  });

  test('a cached answer still honours If-None-Match and HEAD', async () => {
    const created = await t.request('POST', '/documents', { token, body: doc({ title: 'Conditional', status: 'on' }) });
    const id = created.body.data.id;
    const first = await t.request('GET', `/documents/${id}`);
    await t.request('GET', `/documents/${id}`);
    const etag = first.headers.get('etag')!;
    const notModified = await rawGet(t, `/documents/${id}`, { 'If-None-Match': etag });
    assert.equal(notModified.status, 304);
    const head = await t.request('HEAD', `/documents/${id}`);
    assert.equal(head.status, 200);
    assert.equal(head.text, '');
    assert.equal(head.headers.get('content-type'), 'application/vnd.api+json');
  });

  test('lists, counts and search follow creates and trashing', async () => {
    const word = 'zyxwcachedword';
    const count = async () => (await t.request('GET', `/objects?filter[query]=${word}`)).body.meta.pagination.count as number;
    assert.equal(await count(), 0);
    const a = await t.request('POST', '/documents', { token, body: doc({ title: `Alpha ${word}`, status: 'on' }) });
    assert.equal(await count(), 1);
    assert.equal(await count(), 1);
    await t.request('POST', '/documents', { token, body: doc({ title: `Beta ${word}`, status: 'on' }) });
    assert.equal(await count(), 2);
    assert.equal((await t.request('DELETE', `/documents/${a.body.data.id}`, { token })).status, 204);
    const list = await t.request('GET', `/objects?filter[query]=${word}`);
    assert.equal(list.body.meta.pagination.count, 1);
    assert.deepEqual(
      list.body.data.map((d: { attributes: { title: string } }) => d.attributes.title),
      [`Beta ${word}`],
    );
  });

  test('a commit by another process shows in the next answer', async () => {
    const created = await t.request('POST', '/documents', { token, body: doc({ title: 'Outside', status: 'on' }) });
    const id = created.body.data.id;
    await t.request('GET', `/documents/${id}`);
    await t.request('GET', `/documents?filter[title]=Outside`);
    const other = await connectOutside(t);
    try {
      await other.run('update objects set title = ? where id = ?', ['Changed elsewhere', Number(id)]);
    } finally {
      await other.close();
    }
    assert.equal((await t.request('GET', `/documents/${id}`)).body.data.attributes.title, 'Changed elsewhere');
    assert.equal((await t.request('GET', `/documents?filter[title]=Outside`)).body.meta.pagination.count, 0);
  });

  test('answers differ by Accept and by Host, and each is cached apart', async () => {
    const created = await t.request('POST', '/documents', { token, body: doc({ title: 'Hosts', status: 'on' }) });
    const id = created.body.data.id;
    const a = await rawGet(t, `/documents/${id}`, { Host: 'a.example:8080' });
    const b = await rawGet(t, `/documents/${id}`, { Host: 'b.example:8080' });
    assert.equal((await rawGet(t, `/documents/${id}`, { Host: 'a.example:8080' })).body.data.links.self, a.body.data.links.self);
    assert.match(a.body.data.links.self, /^http:\/\/a\.example:8080\//);
    assert.match(b.body.data.links.self, /^http:\/\/b\.example:8080\//);
    const plain = await t.request('GET', `/documents/${id}`, { headers: { Accept: 'application/json' } });
    assert.equal(plain.status, 200);
    assert.equal(plain.headers.get('content-type'), 'application/json; charset=utf-8');
    const again = await t.request('GET', `/documents/${id}`);
    assert.equal(again.headers.get('content-type'), 'application/vnd.api+json');
  });

  test('concurrent creates commit together, and a bad one fails alone', async () => {
    const before = (await t.request('GET', '/documents', { token })).body.meta.pagination.count as number;
    const bodies = Array.from({ length: 24 }, (_, i) => (i % 6 === 5 ? doc({ title: `Batch ${i}`, no_such_attribute: 1 }) : doc({ title: `Batch ${i}` })));
    // Strict handling, as the admin UI asks: the unknown attribute is refused, not ignored.
    const answers = await Promise.all(bodies.map((body) => t.request('POST', '/documents', { token, body, headers: { Prefer: 'handling=strict' } })));
    const failed = answers.filter((a) => a.status !== 201);
    assert.equal(failed.length, 4);
    for (const f of failed) assert.equal(f.status, 400);
    const after = (await t.request('GET', '/documents', { token })).body.meta.pagination.count as number;
    assert.equal(after, before + 20);
    for (const a of answers.filter((x) => x.status === 201)) {
      const read = await t.request('GET', `/documents/${a.body.data.id}`, { token });
      assert.equal(read.body.data.attributes.title, a.body.data.attributes.title);
    }
  });

  test('a write that fails inside a shared transaction fails alone; the others land', async () => {
    const locked = await t.request('POST', '/documents', { token, body: doc({ title: 'Locked one', status: 'on' }) });
    const lockedId = locked.body.data.id;
    const lock = await t.request('PATCH', `/documents/${lockedId}`, { token, body: { data: { id: lockedId, type: 'documents', meta: { locked: true } } } });
    assert.equal(lock.status, 200);
    const other = await t.request('POST', '/documents', { token, body: doc({ title: 'Other one' }) });
    const otherId = other.body.data.id;
    const before = (await t.request('GET', '/documents', { token })).body.meta.pagination.count as number;
    // Validation passes before the write; the lock is found inside it, in the shared transaction.
    const writes = Array.from({ length: 24 }, (_, i) => {
      if (i % 4 === 1) return t.request('PATCH', `/documents/${lockedId}`, { token, body: { data: { id: lockedId, type: 'documents', attributes: { status: 'draft' } } } });
      if (i % 4 === 3) return t.request('PATCH', `/documents/${otherId}`, { token, body: { data: { id: otherId, type: 'documents', attributes: { description: `edit ${i}` } } } });
      return t.request('POST', '/documents', { token, body: doc({ title: `Mixed ${i}` }) });
    });
    const answers = await Promise.all(writes);
    answers.forEach((a, i) => assert.equal(a.status, i % 4 === 1 ? 403 : i % 4 === 3 ? 200 : 201, `write ${i}: ${a.text}`));
    assert.equal((await t.request('GET', `/documents/${lockedId}`, { token })).body.data.attributes.status, 'on');
    const description = (await t.request('GET', `/documents/${otherId}`, { token })).body.data.attributes.description;
    // Concurrent requests have no order of their own: 24 requests over several sockets may arrive
    // in any order on a busy machine (and PostgreSQL's pool finishes their reads in any order), so
    // the one that lands last is any of the six edits.
    assert.match(description, /^edit (3|7|11|15|19|23)$/);
    assert.equal((await t.request('GET', '/documents', { token })).body.meta.pagination.count, before + 12);
  });

  test('many objects with one title get distinct -n unames, each right after a taken one', async () => {
    const answers = await Promise.all(Array.from({ length: 40 }, () => t.request('POST', '/documents', { token, body: doc({ title: 'Same Title' }) })));
    const unames = answers.map((a) => {
      assert.equal(a.status, 201);
      return a.body.data.attributes.uname as string;
    });
    assert.equal(new Set(unames).size, 40);
    const suffixes = unames.map((u) => (u === 'same-title' ? 1 : Number(/^same-title-(\d+)$/.exec(u)?.[1])));
    assert.ok(suffixes.every((n) => Number.isInteger(n) && n >= 1), unames.join(', '));
    // Sequential creates fill the suffixes without gaps.
    assert.deepEqual([...suffixes].sort((x, y) => x - y), Array.from({ length: 40 }, (_, i) => i + 1));
    // Trashed objects keep their uname: the next one still gets a fresh suffix.
    assert.equal((await t.request('DELETE', `/documents/${answers[39].body.data.id}`, { token })).status, 204);
    const next = await t.request('POST', '/documents', { token, body: doc({ title: 'Same Title' }) });
    assert.equal(next.body.data.attributes.uname, 'same-title-41');
  });

  test('a hit answered before express has the headers and body of the answer that was stored', async () => {
    const created = await t.request('POST', '/documents', { token, body: doc({ title: 'Same headers', status: 'on' }) });
    const id = created.body.data.id;
    const headersOf = (r: { headers: Record<string, string> }) => Object.entries(r.headers).filter(([k]) => k !== 'date').sort();
    const miss = await rawGet(t, `/documents/${id}`, {});
    const hit = await rawGet(t, `/documents/${id}`, {});
    assert.equal(miss.status, 200);
    assert.equal(hit.status, 200);
    assert.deepEqual(headersOf(hit), headersOf(miss));
    assert.ok(hit.headers['content-security-policy'] && hit.headers['x-content-type-options'] === 'nosniff', 'helmet headers kept');
    assert.deepEqual(hit.body, miss.body);
    // Credentials of any kind never get the anonymous answer.
    const signedIn = await rawGet(t, `/documents/${id}`, { Authorization: `Bearer ${token}` });
    assert.equal(signedIn.status, 200);
    assert.equal((await rawGet(t, `/documents/${id}?access_token=not-a-token`, {})).status, 401);
    assert.equal((await rawGet(t, `/documents/${id}?%61ccess%5Ftoken=not-a-token`, {})).status, 401);
    assert.equal((await rawGet(t, `/documents/${id}`, { 'X-Api-Key': 'not-a-key' })).status, 403);
  });
});

describe('response cache with request-dependent middleware', () => {
  test('with CORS configured, each origin gets its own CORS headers on cached answers; hits are logged', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-cors-cache-'));
    const lines: string[] = [];
    const server = await createServer(
      loadConfig({ FOLIO_DATA_DIR: dir, FOLIO_ADMIN_PASSWORD: 'admin-secret-1', FOLIO_CORS_ORIGINS: 'http://a.example,http://b.example' }, { logRequests: true }),
      { log: (l) => lines.push(l) },
    );
    const { url } = await server.listen(0, '127.0.0.1');
    try {
      const login = await (await fetch(`${url}/auth`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: 'admin-secret-1' }) })).json();
      const created = await fetch(`${url}/documents`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/vnd.api+json', Authorization: `Bearer ${login.meta.jwt}` },
        body: JSON.stringify(doc({ title: 'Cors cached', status: 'on' })),
      });
      const id = (await created.json()).data.id;
      const get = (origin: string) => fetch(`${url}/documents/${id}`, { headers: { Accept: 'application/vnd.api+json', Origin: origin } });
      const a = await get('http://a.example');
      const b = await get('http://b.example');
      const a2 = await get('http://a.example');
      assert.equal(a.headers.get('access-control-allow-origin'), 'http://a.example');
      assert.equal(b.headers.get('access-control-allow-origin'), 'http://b.example');
      assert.equal(a2.headers.get('access-control-allow-origin'), 'http://a.example');
      assert.equal(await b.text(), await a2.text());
      assert.ok(server.ctx.responseCache.size >= 1);
      assert.equal(lines.filter((l) => l.startsWith(`GET /documents/${id} 200`)).length, 3, lines.join('\n'));
    } finally {
      await server.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('without CORS, hits answered before express are logged like any request', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-log-cache-'));
    const lines: string[] = [];
    const server = await createServer(loadConfig({ FOLIO_DATA_DIR: dir, FOLIO_ADMIN_PASSWORD: 'admin-secret-1' }, { logRequests: true }), { log: (l) => lines.push(l) });
    const { url } = await server.listen(0, '127.0.0.1');
    try {
      for (let i = 0; i < 3; i++) assert.equal((await fetch(`${url}/folders`, { headers: { Accept: 'application/vnd.api+json' } })).status, 200);
      assert.equal(lines.filter((l) => l.startsWith('GET /folders 200')).length, 3, lines.join('\n'));
    } finally {
      await server.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('signed-in answers in the response cache', () => {
  let t: TestServer;
  let admin: string;
  before(async () => {
    t = await startServer();
    admin = await t.adminToken();
  });
  after(() => t.close());

  const role = (name: string, permissions: Record<string, string[]>) => createRole(t, admin, name, permissions);
  const user = async (username: string, roleId: string | null) => (await createUser(t, admin, { username, roles: roleId ? [roleId] : [] })).jwt;
  /** The server's own count of cache hits is not exposed: a hit is what the entry count shows. */
  const entries = () => t.server.ctx.responseCache.size;

  test('each user gets their own cached answers: one who may read drafts never serves one who may not', async () => {
    const readers = await role('readers', { documents: ['read'] });
    const reader = await user('reader', readers);
    const stranger = await user('stranger', null);
    const draft = await t.request('POST', '/documents', { token: admin, body: doc({ title: 'Draft only', status: 'draft' }) });
    const id = draft.body.data.id;
    const first = await t.request('GET', `/documents/${id}`, { token: reader });
    assert.equal(first.status, 200);
    assert.equal(entries(), 0, 'an answer asked for once is not stored');
    assert.equal((await t.request('GET', `/documents/${id}`, { token: reader })).text, first.text);
    const stored = entries();
    assert.ok(stored > 0, 'the signed-in answer was stored when asked for again');
    const again = await t.request('GET', `/documents/${id}`, { token: reader });
    assert.equal(again.text, first.text);
    assert.equal(entries(), stored, 'the third read was a hit');
    // Another signed-in user without the right, and anonymous callers: not found.
    assert.equal((await t.request('GET', `/documents/${id}`, { token: stranger })).status, 404);
    assert.equal((await t.request('GET', `/documents/${id}`)).status, 404);
    assert.equal((await t.request('GET', `/documents/${id}`, { token: reader })).status, 200);
  });

  test("changing a role's rights between two reads takes effect on the next read", async () => {
    const editors = await role('cache_editors', { documents: ['read'] });
    const editor = await user('cache-editor', editors);
    const draft = await t.request('POST', '/documents', { token: admin, body: doc({ title: 'Soon hidden', status: 'draft' }) });
    const id = draft.body.data.id;
    assert.equal((await t.request('GET', `/documents/${id}`, { token: editor })).status, 200);
    assert.equal((await t.request('GET', `/documents?filter[status]=draft`, { token: editor })).body.data.some((d: { id: string }) => d.id === id), true);
    const patched = await t.request('PATCH', `/roles/${editors}`, { token: admin, body: { data: { id: editors, type: 'roles', attributes: { permissions: {} } } } });
    assert.equal(patched.status, 200, patched.text);
    assert.equal((await t.request('GET', `/documents/${id}`, { token: editor })).status, 404);
    assert.equal((await t.request('GET', `/documents?filter[status]=draft`, { token: editor })).body.data.some((d: { id: string }) => d.id === id), false);
  });

  test("restricting an object between two reads takes effect on the next read", async () => {
    const viewers = await role('cache_viewers', { documents: ['read'] });
    const viewer = await user('cache-viewer', viewers);
    await role('insiders', { documents: ['read'] });
    const pub = await t.request('POST', '/documents', { token: admin, body: doc({ title: 'Public for now', status: 'on' }) });
    const id = pub.body.data.id;
    assert.equal((await t.request('GET', `/documents/${id}`, { token: viewer })).status, 200);
    assert.equal((await t.request('GET', `/documents/${id}`)).status, 200);
    const restricted = await t.request('PATCH', `/documents/${id}`, { token: admin, body: { data: { id, type: 'documents', meta: { perms: { roles: ['insiders'] } } } } });
    assert.equal(restricted.status, 200, restricted.text);
    assert.equal((await t.request('GET', `/documents/${id}`, { token: viewer })).status, 403);
    assert.equal((await t.request('GET', `/documents/${id}`)).status, 401);
  });
});

// Object lists keep their compiled statements per shape (resources/objects/list.ts, a plan per
// model, reader, language, types and query but the page), across writes: each reader, page and
// rule must still get its own answer. Every list here is asked for once per reader, so the
// response cache (which stores an answer from its second request) never answers in their place.
describe('list statements kept per shape', () => {
  let t: TestServer;
  let admin: string;
  before(async () => {
    t = await startServer();
    admin = await t.adminToken();
  });
  after(() => t.close());

  const titles = (body: { data: Array<{ attributes: { title: string } }> }) => body.data.map((d) => d.attributes.title);
  const list = async (query: string, token?: string) => {
    const r = await t.request('GET', `/documents?${query}`, { token });
    assert.equal(r.status, 200, r.text);
    return titles(r.body);
  };

  test('two users of one role with :own rights each list their own drafts; pages of one shape each get their rows', async () => {
    const own = await createRole(t, admin, 'plan_own', { documents: ['read:own', 'create'] });
    const ann = (await createUser(t, admin, { username: 'plan-ann', roles: [own] })).jwt;
    const bob = (await createUser(t, admin, { username: 'plan-bob', roles: [own] })).jwt;
    for (const [token, title] of [[ann, 'Plan draft of ann'], [bob, 'Plan draft of bob']] as const) {
      const r = await t.request('POST', '/documents', { token, body: doc({ title, status: 'draft' }) });
      assert.equal(r.status, 201, r.text);
    }
    assert.deepEqual(await list('filter[status]=draft&filter[title][ne]=x', ann), ['Plan draft of ann']);
    assert.deepEqual(await list('filter[status]=draft&filter[title][ne]=x', bob), ['Plan draft of bob']);
    assert.deepEqual(await list('filter[status]=draft&filter[title][ne]=x'), []);
    // filter[mine] reads the user, whatever the visibility.
    assert.deepEqual(await list('filter[mine]&page_size=5', ann), ['Plan draft of ann']);
    assert.deepEqual(await list('filter[mine]&page_size=5', bob), ['Plan draft of bob']);
    // Pages of one shape: the offset is the page's own.
    for (const n of [1, 2, 3]) {
      assert.equal((await t.request('POST', '/documents', { token: admin, body: doc({ title: `Plan page ${n}`, status: 'on' }) })).status, 201);
    }
    const shape = 'filter[title][gt]=Plan page&sort=title&page_size=1';
    assert.deepEqual(
      [await list(`${shape}&page=1`), await list(`${shape}&page=2`), await list(`${shape}&page=3`), await list(`${shape}&page=4`)],
      [['Plan page 1'], ['Plan page 2'], ['Plan page 3'], []],
    );
  });

  test('a list asked for again after its reader lost a right, after an object permission, and after a publication bound follows each', async () => {
    const readers = await createRole(t, admin, 'plan_readers', { documents: ['read'] });
    const reader = (await createUser(t, admin, { username: 'plan-reader', roles: [readers] })).jwt;
    await createRole(t, admin, 'plan_insiders', { documents: ['read'] });
    const draft = await t.request('POST', '/documents', { token: admin, body: doc({ title: 'Plan rights draft', status: 'draft' }) });
    const open = await t.request('POST', '/documents', { token: admin, body: doc({ title: 'Plan rights open', status: 'on' }) });
    const query = 'filter[title][gt]=Plan rights&sort=title';
    assert.deepEqual(await list(query, reader), ['Plan rights draft', 'Plan rights open']);
    // The role loses its read right: published objects only, with the same query.
    const patched = await t.request('PATCH', `/roles/${readers}`, { token: admin, body: { data: { id: readers, type: 'roles', attributes: { permissions: {} } } } });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual(await list(`${query}&page_size=10`, reader), ['Plan rights open']);
    // An object permission for other roles hides the published one too.
    const id = open.body.data.id;
    const restricted = await t.request('PATCH', `/documents/${id}`, { token: admin, body: { data: { id, type: 'documents', meta: { perms: { roles: ['plan_insiders'] } } } } });
    assert.equal(restricted.status, 200, restricted.text);
    assert.deepEqual(await list(`${query}&page_size=11`, reader), []);
    assert.deepEqual(await list(`${query}&page_size=11`), []);
    assert.ok(draft.body.data.id);
    // A publication window's start: the same anonymous list before and after it.
    const start = new Date(Date.now() + 1500).toISOString();
    const later = await t.request('POST', '/documents', { token: admin, body: doc({ title: 'Plan window', status: 'on', publish_start: start }) });
    assert.equal(later.status, 201, later.text);
    assert.deepEqual(await list('filter[title]=Plan window&page_size=3'), []);
    await waitUntil(() => (Date.now() > Date.parse(start) ? true : undefined), 'the window to open');
    await waitUntil(async () => ((await list('filter[title]=Plan window&page_size=3')).length === 1 ? true : undefined), 'the list to show the object once its window opened');
  });
});

/** The real response cache on the running server's data version, in front of an express app of a test's own routes (anonymous callers). */
function cachedApp(t: TestServer) {
  const cache = createResponseCache(t.server.ctx.dataVersion);
  const app = express();
  app.use((req, res, next) => {
    req.auth = ANONYMOUS;
    if (!cache.serve(req, res)) next();
  });
  return { cache, app };
}

describe('what a cached answer varies on (RouteDef.vary)', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer();
  });
  after(() => t.close());

  test('an answer cached for ?lang=it is never served for ?lang=en or without lang, before express or in it', async () => {
    const admin = await t.adminToken();
    const entries = () => t.server.ctx.responseCache.size;
    // Anonymous requests without credentials are answered before express (serveRaw); signed-in
    // ones by express (serve), kept for that user.
    const paths = [(p: string) => rawGet(t, p, {}), (p: string) => t.request('GET', p, { token: admin })];
    const created = await t.request('POST', '/documents', { token: admin, body: doc({ title: 'Lingua', status: 'on' }) });
    const id = created.body.data.id;
    for (const get of paths) {
      const start = entries();
      // Each asked for twice: an answer is stored from its second request on.
      for (const p of [`/documents/${id}?lang=it`, `/documents/${id}?lang=it`, `/documents/${id}?lang=it`]) assert.equal((await get(p)).status, 200);
      assert.equal(entries(), start + 1, 'the third ?lang=it is a hit');
      for (let i = 0; i < 2; i++) assert.equal((await get(`/documents/${id}?lang=en`)).status, 200);
      assert.equal(entries(), start + 2, '?lang=en is not answered from the ?lang=it entry');
      for (let i = 0; i < 2; i++) assert.equal((await get(`/documents/${id}`)).status, 200);
      assert.equal(entries(), start + 3, 'no lang is not answered from the ?lang=it entry');
    }
  });

  test('first requests are remembered for a bounded while: one asked again within it is stored, one asked again after it is not', async () => {
    // The real cache and router on a route of its own, served by express (as signed-in requests are).
    const { cache, app } = cachedApp(t);
    let answered = 0;
    mountRoutes(app, { routes: [], responseCache: cache }, [
      { method: 'get', path: '/pages', guard: 'anonymous', produces: 'any', cache: true, handler: (req, res) => void (answered++, res.type('application/json').send(JSON.stringify({ page: req.query.page }))) },
    ]);
    const server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
    const port = (server.address() as AddressInfo).port;
    const get = (page: number) =>
      new Promise<void>((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port, path: `/pages?page=${page}`, agent, headers: { Accept: 'application/json' } }, (res) => {
            res.resume().on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`status ${res.statusCode}`))));
          })
          .on('error', reject);
      });
    const firstTimes = async (from: number, count: number) => {
      for (let i = 0; i < count; i += 64) await Promise.all(Array.from({ length: Math.min(64, count - i) }, (_, k) => get(from + i + k)));
    };
    try {
      await firstTimes(1, SEEN_ONCE_GENERATION + 100);
      assert.equal(cache.size, 0, 'asked for once each: nothing stored');
      // Page 1 was asked for more than a generation ago: still remembered, so its second request stores it.
      await get(1);
      assert.equal(cache.size, 1, 'asked again within the window: stored');
      const before = answered;
      await get(1);
      assert.equal(answered, before, 'and answered from the cache');
      // Two more generations of first requests: page 2 is forgotten, its next request is a first one again.
      await firstTimes(SEEN_ONCE_GENERATION + 101, 2 * SEEN_ONCE_GENERATION);
      await get(2);
      assert.equal(cache.size, 1, 'asked again after the window: a first request again, nothing stored');
      await get(2);
      assert.equal(cache.size, 2, 'then its second request stores it');
    } finally {
      agent.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test('a route that declares a header or a narrower query in `vary` is keyed on what it declares', async () => {
    // A route of its own, mounted with the real router on the real cache and data version, served
    // before express (serveRaw) like app.ts does, and by express.
    const { cache, app } = cachedApp(t);
    let answered = 0;
    const answer: Handler = (req, res) => {
      answered++;
      res.type('application/json').send(JSON.stringify({ language: req.headers['accept-language'] ?? null, page: req.query.page ?? null }));
    };
    mountRoutes(app, { routes: [], responseCache: cache }, [
      { method: 'get', path: '/greeting', guard: 'anonymous', produces: 'any', cache: true, vary: { headers: ['Accept-Language'] }, handler: answer },
      { method: 'get', path: '/pages', guard: 'anonymous', produces: 'any', cache: true, vary: { query: ['page'] }, handler: answer },
    ]);
    for (const raw of [true, false]) {
      const server = http.createServer((req, res) => {
        Object.setPrototypeOf(req, app.request);
        Object.setPrototypeOf(res, app.response);
        if (!(raw && cache.serveRaw(req, res))) app(req, res);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      try {
        const get = async (p: string, headers: Record<string, string> = {}) => {
          // fetch sends Accept-Language: * unless told otherwise.
          const r = await fetch(url + p, { headers: { Accept: 'application/json', ...headers } });
          assert.equal(r.status, 200);
          return r.json();
        };
        const start = answered;
        // An answer is stored from its second request on: each is asked for twice, then once more.
        const twice = async (p: string, headers: Record<string, string> = {}) => {
          const first = await get(p, headers);
          assert.deepEqual(await get(p, headers), first);
          return first;
        };
        const it = { 'Accept-Language': 'it' };
        assert.deepEqual(await twice('/greeting', it), { language: 'it', page: null });
        assert.deepEqual(await get('/greeting', it), { language: 'it', page: null });
        assert.equal(answered, start + 2, 'the same language is a hit');
        assert.deepEqual(await get('/greeting', { 'Accept-Language': 'en' }), { language: 'en', page: null });
        assert.deepEqual(await get('/greeting', { 'Accept-Language': 'de' }), { language: 'de', page: null });
        assert.equal(answered, start + 4);
        // Narrowed to `page`: other parameters share the answer, `lang` never does.
        assert.deepEqual(await twice('/pages?page=2&utm=a'), { language: '*', page: '2' });
        assert.deepEqual(await get('/pages?utm=b&page=2'), { language: '*', page: '2' });
        assert.equal(answered, start + 6, 'a parameter the route does not read is not keyed');
        await get('/pages?page=2&lang=it');
        await get('/pages?page=2&lang=en');
        await get('/pages?page=3');
        assert.equal(answered, start + 9, 'lang and page are keyed');
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
      // The second round (in express) starts from an empty cache.
      t.server.ctx.dataVersion.bump();
    }
  });
});

describe('reads beside a transaction', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer();
  });
  after(() => t.close());

  test('a read started while a transaction is open never sees its writes, which are then rolled back', async () => {
    // SQLite's one connection is the transaction's: a prepared read outside kysely's lock would
    // read inside it (db/prepared.ts runs them directly only when no transaction is open).
    const created = await t.request('POST', '/documents', { token: await t.adminToken(), body: doc({ title: 'Before', status: 'on' }) });
    const id = Number(created.body.data.id);
    let wrote!: () => void;
    let release!: () => void;
    const written = new Promise<void>((resolve) => (wrote = resolve));
    const held = new Promise<void>((resolve) => (release = resolve));
    const transaction = t.server.ctx.db.transaction().execute(async (trx) => {
      await trx.updateTable('objects').set({ title: 'Uncommitted' }).where('id', '=', id).execute();
      wrote();
      await held;
      throw new Error('rolled back on purpose');
    });
    await written;
    const read = getObject(t.server.ctx, id, { viewer: SYSTEM });
    release();
    await assert.rejects(transaction, /rolled back on purpose/);
    assert.equal((await read)?.title, 'Before');
    assert.equal((await t.request('GET', `/documents/${id}`)).body.data.attributes.title, 'Before');
  });
});

// PostgreSQL: every statement is a round trip, which costs more CPU than most of the work it asks
// for. What a request needs once per version of the data must not be asked again for a write that
// cannot change it (the settings tables, publication bounds), and one object is read with its
// parents in one statement.
describe('statements per request on PostgreSQL', { skip: !onPostgres && 'PostgreSQL round trips' }, () => {
  let t: TestServer;
  let token: string;
  let log: StatementLog;
  before(async () => {
    log = logStatements();
    t = await startServer();
    token = await t.adminToken();
  });
  after(async () => {
    log.restore();
    await t.close();
  });
  /** The statements sent while the request ran, less the planner-statistics upkeep a large write
   * schedules off the request (planner-statistics.ts): it lands inside the window or after it by
   * timing alone. */
  const statementsOf = async (request: () => Promise<unknown>) =>
    (await log.during(request)).filter((s) => !/^select relname as name from pg_stat_user_tables |^analyze /.test(s));
  /** A published object of `type`, made by the admin. */
  const created = async (type: string, title: string) => {
    const res = await t.request('POST', `/${type}`, { token, body: { data: { type, attributes: { title, status: 'on' } } } });
    assert.equal(res.status, 201, res.text);
    return String(res.body.data.id);
  };

  test('an uncached GET of one object: the object with its parents and the data version along, one statement; a write asks nothing again that it cannot change', async () => {
    const folder = await created('folders', 'Shelf');
    const [placed, loose, other] = [await created('documents', 'Placed'), await created('documents', 'Loose'), await created('documents', 'Other')];
    const placedIn = await t.request('POST', `/folders/${folder}/relationships/children`, { token, body: { data: [{ type: 'documents', id: placed }] } });
    assert.equal(placedIn.status, 200, placedIn.text);
    // Warm what is read once per version (endpoint policy, object permissions, terms, the next bound).
    await t.request('GET', `/documents/${loose}`);
    let answer: Awaited<ReturnType<TestServer['request']>> | undefined;
    const read = await statementsOf(async () => (answer = await t.request('GET', `/documents/${placed}`)));
    assert.equal(answer!.status, 200);
    assert.deepEqual(answer!.body.data.relationships.parents.data, [{ id: folder, type: 'folders' }]);
    // The object with its parents (each saying whether it is plainly published: a published
    // folder needs no read of its own for an anonymous reader) and the data version rows, in one
    // statement (db/read-along.ts): no read of the version first, no read of the placements
    // alone, none of the parent folder.
    assert.equal(read.length, 1, read.join('\n'));
    assert.match(read[0], /^select "objects"\.\*, \(select .* from "trees"/);
    assert.match(read[0], /from folio_data_version\) as "folio_versions"/);
    assert.ok(!read.some((s) => /^select "trees"/.test(s)), read.join('\n'));
    // A write by this server that sets no publication window and touches no settings table.
    const patch = await statementsOf(() => t.request('PATCH', `/documents/${other}`, { token, body: { data: { id: other, type: 'documents', attributes: { title: 'Other, changed' } } } }));
    const after = await statementsOf(() => t.request('GET', `/documents/${loose}`));
    for (const s of [...patch, ...after]) {
      assert.doesNotMatch(s, /object_perms|endpoint_permissions|"endpoints"|object_categories|"webhooks"|"publish_start" >/, `asked again after a write that cannot change it: ${s}`);
    }
    // An object in no folder, after this server's own write: the object, the version along.
    assert.equal(after.length, 1, after.join('\n'));
    // BEGIN and the write lock go together; the commit reads the versions back in the same round trip.
    assert.ok(patch.some((s) => /^begin; select pg_advisory_xact_lock/.test(s)), patch.join('\n'));
    // A PATCH by id of a type nothing extends reads the object once, inside its transaction.
    const begin = patch.findIndex((s) => /^begin; select pg_advisory_xact_lock/.test(s));
    assert.deepEqual(patch.slice(0, begin).filter((s) => /^select \* from "objects" where "id"/.test(s)), [], patch.join('\n'));
    assert.equal(patch.slice(begin).filter((s) => /^select \* from "objects" where "id"/.test(s)).length, 1, patch.join('\n'));
    assert.ok(patch.some((s) => /folio_data_version; commit$/.test(s)), patch.join('\n'));
  });

  test("a ranked search's page reads its rows with their parents: no statement of the placements, none of the published folders", async () => {
    const shelf = await created('folders', 'Wombat shelf');
    const placed = await created('documents', 'Wombat burrows');
    await created('documents', 'Wombat diets');
    const placedIn = await t.request('POST', `/folders/${shelf}/relationships/children`, { token, body: { data: [{ type: 'documents', id: placed }] } });
    assert.equal(placedIn.status, 200, placedIn.text);
    await t.request('GET', '/objects?q=koala');
    let answer: Awaited<ReturnType<TestServer['request']>> | undefined;
    const statements = await statementsOf(async () => (answer = await t.request('GET', '/objects?q=wombat&filter[type]=documents')));
    assert.equal(answer!.status, 200, answer!.text);
    const parents = Object.fromEntries(answer!.body.data.map((d: { id: string; relationships: { parents: { data?: Array<{ id: string }> } } }) => [d.id, (d.relationships.parents.data ?? []).map((p) => p.id)]));
    assert.deepEqual(parents[placed], [shelf]);
    assert.equal(Object.keys(parents).length, 2);
    // The window with its count, then the page's rows with their parents: nothing else (but the
    // data version, when this server's last write moved it).
    const reads = statements.filter((s) => !/^select id, version from folio_data_version$/.test(s));
    assert.ok(!reads.some((s) => /"trees"\."object_id" in|^select "trees"\./.test(s)), reads.join('\n'));
    const rows = reads.filter((s) => /^select "objects"\./.test(s));
    assert.equal(rows.length, 1, reads.join('\n'));
    assert.match(rows[0], /as "folio_parents"/);
    assert.equal(reads.length, 2, reads.join('\n'));
  });

  test('creates of one /operations request are inserted together: 50 namesakes in three statements (32 + 16 + 2), not 50, their search documents made before the write lock', async () => {
    const ATOMIC = 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"';
    const operations = Array.from({ length: 50 }, () => ({ op: 'add', data: { type: 'documents', attributes: { title: 'Imported', status: 'on' } } }));
    let answer: Awaited<ReturnType<TestServer['request']>> | undefined;
    const statements = await statementsOf(async () => (answer = await t.request('POST', '/operations', { token, headers: { 'Content-Type': ATOMIC, Accept: ATOMIC }, body: { 'atomic:operations': operations } })));
    assert.equal(answer!.status, 200, answer!.text);
    const unames = answer!.body['atomic:results'].map((r: { data: { attributes: { uname: string } } }) => r.data.attributes.uname);
    assert.deepEqual(unames, ['imported', ...Array.from({ length: 49 }, (_, i) => `imported-${i + 2}`)]);
    const inserts = statements.filter((s) => /insert into "objects" /.test(s));
    assert.equal(inserts.length, 3, inserts.join('\n'));
    // Their search documents are made before the write lock, in one statement that keeps them in
    // the database; the inserts take them from there; they are dropped once the request is over.
    const documents = statements.findIndex((s) => /folio_search_document\(/.test(s));
    assert.ok(documents >= 0 && documents < statements.findIndex((s) => /^begin; select pg_advisory_xact_lock/.test(s)), statements.join('\n'));
    assert.match(statements[documents], /^insert into folio_search_staged /);
    assert.ok(inserts.every((s) => /insert into "objects_search"/.test(s) && /join folio_search_staged /.test(s)), inserts.join('\n'));
    const dropped = statements.findIndex((s) => /^delete from folio_search_staged /.test(s));
    assert.ok(dropped > statements.findIndex((s) => /; commit$/.test(s)), statements.join('\n'));
    assert.ok(statements.length <= 13, statements.join('\n'));
  });

  test('no search documents are made for creates the user may not make: the request is refused with nothing tokenized', async () => {
    const ATOMIC = 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"';
    const reader = await userWithPermissions(t, token, 'tokenless-reader', { '*': ['read'] });
    const operations = Array.from({ length: 2 }, (_, i) => ({ op: 'add', data: { type: 'documents', attributes: { title: `Not allowed ${i}`, body: 'a long body '.repeat(50) } } }));
    let answer: Awaited<ReturnType<TestServer['request']>> | undefined;
    const statements = await statementsOf(async () => (answer = await t.request('POST', '/operations', { token: reader, headers: { 'Content-Type': ATOMIC, Accept: ATOMIC }, body: { 'atomic:operations': operations } })));
    assert.equal(answer!.status, 403, answer!.text);
    assert.ok(!statements.some((s) => /folio_search_document\(/.test(s)), statements.join('\n'));
    // The same request from someone who may create them has its documents made.
    const editor = await userWithPermissions(t, token, 'tokenizing-editor', { documents: ['read', 'create'] });
    const allowed = await statementsOf(async () => (answer = await t.request('POST', '/operations', { token: editor, headers: { 'Content-Type': ATOMIC, Accept: ATOMIC }, body: { 'atomic:operations': operations } })));
    assert.equal(answer!.status, 200, answer!.text);
    assert.ok(allowed.some((s) => /folio_search_document\(/.test(s)), allowed.join('\n'));
  });

  test("a start makes no table's version triggers again when they are in place (each would lock its table against autovacuum); a missing one is made again", async () => {
    /** The version triggers every table gets (installDatabaseUpkeep) that a start sent, as "name on table". */
    const madeAtStart = async () => {
      const sent = await log.during(async () => {
        const other = await createServer(loadConfig({ ...sameData(t), FOLIO_LOGIN_LIMIT: '0' }, { logRequests: false }), { log: () => {} });
        await other.close();
      });
      return sent
        .map((s) => /^create or replace trigger "(folio_(?:data|model|settings|accounts)_version(?:_truncate)?)" after (?:insert or update or delete|truncate) on "(\w+)"/.exec(s))
        .filter((m): m is RegExpExecArray => m !== null)
        .map((m) => `${m[1]} on ${m[2]}`);
    };
    assert.deepEqual(await madeAtStart(), []);
    await sql`drop trigger folio_data_version on objects_search`.execute(t.server.ctx.db);
    await sql`drop trigger folio_model_version_truncate on object_types`.execute(t.server.ctx.db);
    assert.deepEqual((await madeAtStart()).sort(), ['folio_data_version on objects_search', 'folio_model_version_truncate on object_types']);
    assert.deepEqual(await madeAtStart(), []);
    // Made again as they were: a write to the search table moves the data version.
    const before = await sql<{ version: string }>`select version from folio_data_version where id = 1`.execute(t.server.ctx.db);
    await sql`update objects_search set document = document where id = (select min(id) from objects_search)`.execute(t.server.ctx.db);
    const after = await sql<{ version: string }>`select version from folio_data_version where id = 1`.execute(t.server.ctx.db);
    assert.equal(Number(after.rows[0].version), Number(before.rows[0].version) + 1);
  });
});

describe('planner statistics', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer();
  });
  after(() => t.close());

  /** What the planner knows of `objects`: SQLite's row count in sqlite_stat1; PostgreSQL's once Folio's ANALYZE ran (autovacuum's does not count). */
  const objectStatistics = async (): Promise<number | null> => {
    if (onPostgres) {
      const row = await sql<{ analysed: string | null }>`select last_analyze::text as analysed
        from pg_stat_user_tables where relname = 'objects' and schemaname = current_schema()`.execute(t.server.ctx.db);
      return row.rows[0]?.analysed ? Number((await sql<{ n: number }>`select reltuples::bigint as n from pg_class where oid = 'objects'::regclass`.execute(t.server.ctx.db)).rows[0].n) : null;
    }
    const analysed = await sql`select 1 from sqlite_schema where name = 'sqlite_stat1'`.execute(t.server.ctx.db);
    if (!analysed.rows.length) return null;
    const stats = await sql<{ stat: string }>`select stat from sqlite_stat1 where tbl = 'objects' limit 1`.execute(t.server.ctx.db);
    return stats.rows[0] ? Number(stats.rows[0].stat.split(' ')[0]) : null;
  };

  test('objects written through /operations after the start are in the planner statistics soon after, without a restart', async () => {
    const token = await t.adminToken();
    const before = await objectStatistics();
    assert.ok(before === null || before < 100, `statistics of an empty site: ${before}`);
    for (let batch = 0; batch < 3; batch++) {
      const ops = Array.from({ length: 1000 }, (_, i) => ({ op: 'add', data: { type: 'documents', attributes: { title: `Filled ${batch}-${i}`, status: 'on' } } }));
      const res = await t.request('POST', '/operations', {
        token,
        headers: { 'Content-Type': 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"', Accept: 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"' },
        body: { 'atomic:operations': ops },
      });
      assert.equal(res.status, 200, res.text);
    }
    // The refresh runs shortly after the writes, off the requests; PostgreSQL's collector counts
    // changes up to seconds late. Waited for, not timed.
    let rows: number | null = null;
    for (let i = 0; i < 300 && !(rows !== null && rows >= 2000); i++) {
      await new Promise((r) => setTimeout(r, 100));
      rows = await objectStatistics();
    }
    assert.ok(rows !== null && rows >= 2000, `the planner's row count of objects after 3,000 creates: ${rows}`);
    // Reads planned before the refresh still answer (SQLite re-prepares expired statements).
    const list = await t.request('GET', '/documents?sort=-id&page_size=5');
    assert.equal(list.status, 200);
    assert.equal(list.body.meta.pagination.count, 3000);
  });

  // The list indexes carry every column an anonymous list filters on, the publication window
  // included (migration 0125): a page deep in a list walks an index and reads only its own rows
  // from the table. Seen in SQLite's plan of the very statement Folio ran (captured as it is
  // prepared); PostgreSQL chooses index-only scans by its visibility map, not by the schema alone.
  test('an anonymous list page finds its rows through an index alone, in every list order (SQLite plans)', { skip: onPostgres && 'SQLite query plans' }, async () => {
    const Database = (await import('better-sqlite3')).default;
    const prepared: string[] = [];
    const prepare = Database.prototype.prepare;
    Database.prototype.prepare = function (this: InstanceType<typeof Database>, source: string) {
      prepared.push(source);
      return prepare.call(this, source);
    } as typeof prepare;
    // A list's count and its walk steps run on a reader thread (dialect/sqlite-reader.ts): its own
    // better-sqlite3, which the hook above never sees.
    readerObservers.sent = (source) => prepared.push(source);
    const outside = await connectOutside(t, { readonly: true });
    try {
      for (const sort of ['id', '-created', 'modified', 'title']) {
        prepared.length = 0;
        const res = await t.request('GET', `/documents?sort=${sort}&page_size=9&page=40`);
        assert.equal(res.status, 200, res.text);
        assert.equal(res.body.data.length, 9);
        // After an OFFSET, or after an anchor with the page size written in (resources/objects/list.ts).
        const page = prepared.find((s) => /\boffset\b|\blimit 9\b/i.test(s) && /\bfrom "objects"/.test(s));
        assert.ok(page, `the page's statement for sort=${sort} was prepared: ${prepared.join('\n')}`);
        // Planned as it is prepared: before any value is bound (null for each placeholder here).
        const placeholders = page.match(/\?/g)?.length ?? 0;
        const plan = (await outside.all<{ detail: string }>(`explain query plan ${page}`, Array(placeholders).fill(null))).map((r) => r.detail);
        const onObjects = plan.filter((d) => /\bobjects\b(?!_)/.test(d) && /^(SCAN|SEARCH)/.test(d));
        assert.ok(onObjects.length, plan.join('\n'));
        for (const step of onObjects) {
          assert.ok(/COVERING INDEX|INTEGER PRIMARY KEY/.test(step), `sort=${sort}: a step reads the table of every row it passes: ${step}\n${plan.join('\n')}`);
        }
        // A page (and a walk step) after an anchor reads the index from the anchor on, not from the
        // list's start: a range on the sort's first column. Page 150 needs a second walk step.
        const column = sort.replace('-', '');
        if (column === 'title') continue;
        const deeper = await t.request('GET', `/documents?sort=${sort}&page_size=9&page=150`);
        assert.equal(deeper.status, 200, deeper.text);
        assert.equal(deeper.body.data.length, 9);
        const afterAnchor = new RegExp(`"objects"\\."${column}" [<>]`);
        const step = prepared.find((s) => /row_number\(\)/.test(s) && afterAnchor.test(s));
        for (const [what, statement] of [['page', page], ['walk step', step]] as const) {
          assert.ok(statement && afterAnchor.test(statement), `sort=${sort}: the ${what} after an anchor was prepared: ${prepared.join('\n')}`);
          const steps = (await outside.all<{ detail: string }>(`explain query plan ${statement}`, Array(statement.match(/\?/g)?.length ?? 0).fill(null))).map((r) => r.detail);
          const range = new RegExp(`SEARCH .*\\bobjects\\b.*\\b${column}[<>]\\?`);
          assert.ok(steps.some((d) => range.test(d)), `sort=${sort}: the ${what} reads no range of ${column} after the anchor:\n${statement}\n${steps.join('\n')}`);
        }
      }
    } finally {
      Database.prototype.prepare = prepare;
      readerObservers.sent = null;
      await outside.close();
    }
  });
});

describe('the request log of npm start', () => {
  test('every request is logged on standard output, in order, the last ones too when the server stops', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-log-'));
    const database = await createTestDatabase();
    const child = await startChildServer(dataDir, database ? { FOLIO_DATABASE_URL: database.url } : {});
    let out = '';
    child.child.stdout!.on('data', (d) => (out += d));
    try {
      // Several at once (one batch) and one more on its own just before the stop.
      await Promise.all(['/status', '/home', '/documents/999999'].map((p) => fetch(child.url + p, { headers: { Accept: 'application/vnd.api+json' } })));
      await fetch(`${child.url}/objects?page_size=1`, { headers: { Accept: 'application/vnd.api+json' } });
    } finally {
      assert.equal(await child.stop(), 0);
      fs.rmSync(dataDir, { recursive: true, force: true });
      await database?.drop();
    }
    const lines = out.split('\n').filter((l) => /^(GET|POST) \//.test(l));
    for (const expected of [/^GET \/status 200 /, /^GET \/home 200 /, /^GET \/documents\/999999 404 /]) assert.ok(lines.slice(0, 3).some((l) => expected.test(l)), `${expected} in ${JSON.stringify(lines)}`);
    assert.match(lines[3] ?? '', /^GET \/objects 200 \d+\.\dms$/);
  });
});
