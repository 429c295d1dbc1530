// One composition root: the write kernel (extensions, guards, observers) and the request checks are
// assembled once, in app.ts createContext, from every family's declared parts — so a command that
// builds the context without mounting a route (`npm run model`) writes through the same kernel,
// permissions guard included, as the server. Which route answers follows from the paths declared,
// not from the order families are mounted in.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import express from 'express';
import { createContext } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabase, type OpenedDatabase } from '../src/db/database.js';
import { createResponseCache } from '../src/http/response-cache.js';
import { mountRoutes, specificity, type RouteDef, type RouteRecord } from '../src/http/router.js';
import { permissionsWriteGuard } from '../src/resources/permissions/index.js';
import { PART_RIGHTS, rightsTable } from '../src/resources/objects/rights.js';
import { usersWriteGuard } from '../src/resources/users/service.js';
import { openStorage } from '../src/storage/open-storage.js';
import type { Storage } from '../src/storage/storage.js';
import { startServer, type TestServer } from './helpers/server.js';
import { createTestDatabase, type TestDatabase } from './helpers/test-database.js';

describe('one composition root', () => {
  let s: TestServer;
  let dir: string;
  let database: TestDatabase | null;
  let opened: OpenedDatabase;
  let storage: Storage;
  before(async () => {
    s = await startServer();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-root-'));
    database = await createTestDatabase();
    const config = loadConfig({ FOLIO_DATA_DIR: dir, ...(database ? { FOLIO_DATABASE_URL: database.url } : {}) });
    opened = await openDatabase(config);
    storage = await openStorage(config.storage, { dataDir: dir });
  });
  after(async () => {
    await s.close();
    await storage.close();
    await opened.close();
    await database?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('a context built without routes has the same kernel and request checks as the server', async () => {
    const cli = await createContext(loadConfig({ FOLIO_DATA_DIR: dir }), opened, storage, () => {});
    const server = s.server.ctx;
    const names = (ctx: typeof cli) => ({
      extensions: ctx.objects.extensions.map((e) => e.name),
      observers: ctx.objects.observers.map((o) => o.name),
      guards: ctx.objects.guards.length,
      checks: ctx.requestChecks.length,
    });
    assert.deepEqual(names(cli), names(server));
    // The rights and the accounts' rules guard every write the command makes.
    for (const ctx of [cli, server]) {
      assert.ok(ctx.objects.guards.includes(permissionsWriteGuard), 'permissions guard');
      assert.ok(ctx.objects.guards.includes(usersWriteGuard), 'accounts guard');
      for (const ext of ['users', 'folders', 'terms', 'translations', 'stream-links', 'media-streams', 'object-perms', 'annotations']) {
        assert.ok(ctx.objects.extensions.some((e) => e.name === ext), `extension ${ext}`);
      }
      assert.deepEqual(ctx.objects.observers.map((o) => o.name).sort(), ['coords', 'history', 'webhooks']);
    }
  });

  test('every part of a change has its rights declared in one table, and the table names no part the kernel lacks', () => {
    const parts = new Set(['relations', 'link', ...s.server.ctx.objects.extensions.flatMap((e) => Object.keys(e.parts ?? {}))]);
    const declared = new Set(Object.keys(PART_RIGHTS).filter((p) => p !== 'attributes'));
    assert.deepEqual([...parts].sort(), [...declared].sort());
    const table = rightsTable();
    assert.equal(table.length, Object.keys(PART_RIGHTS).length);
    assert.ok(table.some((line) => line.startsWith('children: update on the object; read + update on the child; update on the former parent')), table.join('\n'));
  });

  test('the kernel is assembled once: nothing is added to it afterwards', () => {
    const { objects } = s.server.ctx;
    assert.ok(Object.isFrozen(objects.extensions) && Object.isFrozen(objects.guards) && Object.isFrozen(objects.observers));
    assert.throws(() => (objects.guards as unknown[]).push(() => {}), TypeError);
  });
});

describe('route precedence comes from the paths declared', () => {
  /** An app with `defs` mounted in that order; GET `url` answers the name of the route that took it. */
  async function answer(defs: RouteDef[], url: string): Promise<string> {
    const app = express();
    const routes: RouteRecord[] = [];
    mountRoutes(app, { routes, responseCache: createResponseCache({ current: () => 0 } as never) }, defs);
    const server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as { port: number }).port;
      const res = await fetch(`http://127.0.0.1:${port}${url}`, { headers: { Accept: 'application/json' } });
      return ((await res.json()) as { name: string }).name;
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  }
  const route = (path: string, name: string): RouteDef => ({
    method: 'get',
    path,
    guard: 'anonymous',
    produces: 'json',
    handler: (_req, res) => res.json({ name }),
  });

  test('a literal segment wins over a parameter, in either mount order', async () => {
    const generic = route('/:type/:id/:relation', 'relation');
    const history = route('/:type/:id/history', 'history');
    const folders = route('/folders/:id/:relation', 'folder relation');
    for (const defs of [[generic, history, folders], [folders, history, generic]]) {
      assert.equal(await answer(defs, '/documents/1/history'), 'history');
      assert.equal(await answer(defs, '/documents/1/see_also'), 'relation');
      assert.equal(await answer(defs, '/folders/1/children'), 'folder relation');
    }
  });

  test('specificity orders literal, then parameter, then wildcard segments', () => {
    const sorted = ['/objects/:id/*rest', '/:type/:id', '/objects/:id', '/:type/:id/history', '/objects/:id/children'].sort((a, b) => (specificity(a) < specificity(b) ? -1 : 1));
    assert.deepEqual(sorted, ['/objects/:id', '/objects/:id/children', '/objects/:id/*rest', '/:type/:id', '/:type/:id/history']);
  });
});
