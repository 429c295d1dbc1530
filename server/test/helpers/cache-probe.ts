// A value held in a test server's read cache under one of its scopes (db/read-cache.ts): whether
// it is still held after a write tells which versions the write moved.
import assert from 'node:assert/strict';
import type { AppContext } from '../../src/context.js';

export async function cacheProbe(ctx: AppContext, scope: 'settings' | 'lists'): Promise<{ kept: () => boolean }> {
  const key = `${scope}-probe:${Math.random()}`;
  await ctx.readCache.get(key, async () => 'held', scope);
  assert.equal(ctx.readCache.peek(key, scope), 'held');
  return { kept: () => ctx.readCache.peek(key, scope) === 'held' };
}
