// The read cache (db/read-cache.ts) of a running server reads a value once for everyone who asks
// for it while it is being read (a list page or a search asked by many clients at once), and
// never hands a read begun before a write to a caller who asks after it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AppContext } from '../src/context.js';
import { startServer, type TestServer } from './helpers/server.js';

describe('the read cache reads once for concurrent callers', () => {
  let s: TestServer;
  let ctx: AppContext;
  let admin = '';

  before(async () => {
    s = await startServer();
    admin = await s.adminToken();
    ctx = s.server.app.locals.ctx as AppContext;
  });
  after(() => s?.close());

  /** A load that counts its runs and ends when `release` is called. */
  function gatedLoad(value: string) {
    let runs = 0;
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    return {
      load: async () => {
        runs++;
        await gate;
        return value;
      },
      get runs() {
        return runs;
      },
      release: () => release(),
    };
  }

  test('callers asking while a value is read share that one read; later ones get it from the cache', async () => {
    const read = gatedLoad('page of ids');
    const asked = Array.from({ length: 8 }, () => ctx.readCache.get('test:shared', read.load));
    read.release();
    assert.deepEqual(await Promise.all(asked), Array(8).fill('page of ids'));
    assert.equal(read.runs, 1, 'one read for eight callers');
    const again = gatedLoad('not read');
    assert.equal(await ctx.readCache.get('test:shared', again.load), 'page of ids');
    assert.equal(again.runs, 0, 'kept');
  });

  test('a caller asking after a write does not get a read begun before it', async () => {
    const before = gatedLoad('before the write');
    const first = ctx.readCache.get('test:write', before.load);
    const made = await s.request('POST', '/documents', { token: admin, body: { data: { type: 'documents', attributes: { title: 'A write in between' } } } });
    assert.equal(made.status, 201, made.text);
    const after = gatedLoad('after the write');
    const second = ctx.readCache.get('test:write', after.load);
    after.release();
    before.release();
    assert.equal(await first, 'before the write');
    assert.equal(await second, 'after the write', 'read again');
    assert.equal(after.runs, 1);
    const third = gatedLoad('not read');
    assert.equal(await ctx.readCache.get('test:write', third.load), 'after the write', 'the read begun before the write was not kept');
  });

  test('a failed read fails its waiting callers, and the next caller reads again', async () => {
    let runs = 0;
    let fail = () => {};
    const failing = () => {
      runs++;
      return new Promise<string>((_, reject) => (fail = () => reject(new Error('database gone'))));
    };
    const a = ctx.readCache.get('test:fail', failing);
    const b = ctx.readCache.get('test:fail', failing);
    fail();
    await assert.rejects(a, /database gone/);
    await assert.rejects(b, /database gone/);
    assert.equal(runs, 1);
    assert.equal(await ctx.readCache.get('test:fail', async () => 'read again'), 'read again');
  });
  test('a value that grew after it was kept is weighed again: past the bound the least recently used entries go', async () => {
    // The lists' partition holds 10,000 units (about one per row): a list's anchors grow as its walk goes on.
    const older = Array.from({ length: 100 }, (_, i) => i);
    assert.equal(await ctx.readCache.get('test:older', async () => older, 'lists'), older);
    const walk = { weight: 0 };
    assert.equal(await ctx.readCache.get('test:walk', async () => walk, 'lists'), walk);
    walk.weight = 9_000;
    ctx.readCache.reweigh('test:walk', 'lists');
    assert.equal(ctx.readCache.peek('test:walk', 'lists'), walk, 'still within the bound');
    // Over the bound by more than every other entry together: the older one goes too.
    walk.weight = 9_998;
    ctx.readCache.reweigh('test:walk', 'lists');
    assert.equal(ctx.readCache.peek('test:older', 'lists'), undefined, 'the least recently used entry went to make room');
    assert.equal(ctx.readCache.peek('test:walk', 'lists'), walk, 'the grown value is kept');
    assert.equal(await ctx.readCache.get('test:older', async () => 'read again', 'lists'), 'read again');
    walk.weight = 20_000;
    ctx.readCache.reweigh('test:walk', 'lists');
    assert.equal(ctx.readCache.peek('test:walk', 'lists'), undefined, 'a value heavier than the whole bound is not kept');
    ctx.readCache.reweigh('test:gone', 'lists');
  });
});
