// Concurrency: parallel writes that race for the same name, the same tree or the same row end
// consistent, each answered with a success or a 4xx. (Parallel renewals with one refresh token
// are in auth.test.ts; writes against a lock held by another process in reliability-busy.)
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { checkTree } from '../src/resources/folders/check.js';
import { startServer, type TestServer } from './helpers/server.js';

describe('concurrent writes', () => {
  let s: TestServer;
  let admin: string;
  before(async () => {
    s = await startServer();
    admin = await s.adminToken();
  });
  after(() => s.close());

  test('50 parallel creates with one title get 50 distinct unames', async () => {
    const results = await Promise.all(
      Array.from({ length: 50 }, () => s.request('POST', '/documents', { token: admin, body: { data: { type: 'documents', attributes: { title: 'Same Title' } } } })),
    );
    assert.deepEqual([...new Set(results.map((r) => r.status))], [201], results.find((r) => r.status !== 201)?.text);
    const unames = results.map((r) => r.body.data.attributes.uname as string);
    assert.equal(new Set(unames).size, 50);
    assert.ok(unames.includes('same-title'));
    for (const u of unames) assert.match(u, /^same-title(-\d+)?$/);
  });

  test('parallel creates asking for one uname get distinct ones too', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => s.request('POST', '/documents', { token: admin, body: { data: { type: 'documents', attributes: { title: `t${i}`, uname: 'wanted-name' } } } })),
    );
    assert.deepEqual([...new Set(results.map((r) => r.status))], [201]);
    assert.equal(new Set(results.map((r) => r.body.data.attributes.uname)).size, 20);
  });

  test('parallel updates of one object all succeed and the last one wins whole', async () => {
    const created = await s.request('POST', '/documents', { token: admin, body: { data: { type: 'documents', attributes: { title: 'race' } } } });
    const id = created.body.data.id;
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        s.request('PATCH', `/documents/${id}`, { token: admin, body: { data: { id, type: 'documents', attributes: { title: `title ${i}`, description: `description ${i}` } } } }),
      ),
    );
    assert.deepEqual([...new Set(results.map((r) => r.status))], [200]);
    const final = (await s.request('GET', `/documents/${id}`, { token: admin })).body.data.attributes;
    assert.equal(final.title.replace('title', 'description'), final.description, 'title and description come from the same write');
  });

  test('parallel user creates with one username: one succeeds, the rest get 400', async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        s.request('POST', '/users', { token: admin, body: { data: { type: 'users', attributes: { username: 'twin', password: 'twin-secret-1', uname: `twin-${i}` } } } }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    assert.equal(statuses.filter((x) => x === 201).length, 1, results.map((r) => r.text).join('\n'));
    assert.equal(statuses.filter((x) => x === 400).length, 9);
  });

  test('parallel moves in the folder tree keep it valid', async () => {
    const mk = async (title: string, parent?: string) => {
      const r = await s.request('POST', '/folders', { token: admin, body: { data: { type: 'folders', attributes: { title } } } });
      assert.equal(r.status, 201, r.text);
      const id = String(r.body.data.id);
      if (parent) {
        const m = await s.request('PATCH', `/folders/${id}/relationships/parent`, { token: admin, body: { data: { type: 'folders', id: parent } } });
        assert.equal(m.status, 200, m.text);
      }
      return id;
    };
    const root = await mk('race root');
    const ids = [root];
    for (let i = 0; i < 11; i++) ids.push(await mk(`race ${i}`, ids[Math.floor(i / 2)]));
    // Deterministic pseudo-random pairs, cycles (a folder under its own descendant) included.
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) % ids.length;
    const moves = Array.from({ length: 40 }, () => [ids[next()], ids[next()]]);
    const results = await Promise.all(
      moves.map(([a, b]) =>
        a === b
          ? s.request('DELETE', `/folders/${a}/relationships/parent`, { token: admin, body: { data: { type: 'folders', id: b } } })
          : s.request('PATCH', `/folders/${a}/relationships/parent`, { token: admin, body: { data: { type: 'folders', id: b } } }),
      ),
    );
    for (const r of results) assert.ok([200, 204, 400, 404].includes(r.status), `${r.status} ${r.text}`);
    assert.ok(results.some((r) => r.status === 200), 'some moves happened');
    assert.deepEqual(await checkTree(s.server.ctx.db), []);
    // Every folder's path walks its parents up to a root.
    for (const id of ids) {
      const f = await s.request('GET', `/folders/${id}`, { token: admin });
      const path = String(f.body.data.meta.path).split('/').filter(Boolean);
      assert.equal(path[path.length - 1], id);
      const parent = await s.request('GET', `/folders/${id}/parent`, { token: admin });
      if (path.length > 1) assert.equal(parent.body.data.id, path[path.length - 2]);
    }
  });
});
