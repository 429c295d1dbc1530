// Reading lists in tests: the ids a GET answers, in order (200 asserted).
import assert from 'node:assert/strict';
import type { TestServer } from './server.js';

export async function listIds(s: TestServer, token: string | undefined, path: string): Promise<string[]> {
  const res = await s.request('GET', path, { token });
  assert.equal(res.status, 200, res.text);
  return res.body.data.map((d: { id: string }) => d.id);
}
