// The account limits count in sliding windows (CONTRACT.md: "failed logins one client IP may make
// in 15 minutes"): the window that ended still counts in proportion to how much of it the last 15
// minutes cover, so a client cannot spend its allowance at the end of one window and again at the
// start of the next; Retry-After says when one more hit would be let in.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { carriedHits, loginLimit, retryAfterSeconds, type RateLimit } from '../src/resources/accounts/rate-limits.js';
import { expectError, startServer, type TestServer } from './helpers/server.js';

const W = 15 * 60 * 1000;
const rl: RateLimit = { bucket: 'login', limit: 5, windowMs: W };
const windowStart = (now = Date.now()) => now - (now % W);

describe('sliding rate-limit windows: arithmetic', () => {
  const start = 1000 * W;
  test('the ended window carries all its hits at the edge, a share of them later, none after a whole window', () => {
    assert.equal(carriedHits(rl, 7, start), 7);
    assert.equal(carriedHits(rl, 7, start + 1), 7);
    assert.equal(carriedHits(rl, 8, start + W / 2), 4);
    assert.equal(carriedHits(rl, 1, start + W - 1), 1, 'a single hit counts until its window has fully passed');
    assert.equal(carriedHits(rl, 0, start + 1), 0);
    assert.equal(carriedHits(rl, 8, start + W), 8, 'the next window carries the one that just ended');
  });

  test('Retry-After: when the carried share leaves room, or when the full window has carried enough', () => {
    // 2 of 5 here, 6 carried at the start: room for a third once ceil(6(1-f)) <= 2, i.e. f >= 2/3.
    assert.equal(retryAfterSeconds(rl, 2, 6, start), Math.ceil((2 * W) / 3 / 1000));
    // A full window: in the next, ceil(5(1-f)) <= 4 once f >= 1/5.
    assert.equal(retryAfterSeconds(rl, 5, 0, start + W / 2), (W / 2 + W / 5) / 1000);
    // A limit of 1 filled: the hit must have left the last 15 minutes entirely.
    assert.equal(retryAfterSeconds({ ...rl, limit: 1 }, 1, 0, start), (2 * W) / 1000);
    assert.ok(retryAfterSeconds(rl, 0, 1e9, start + W - 10) >= 1);
  });
});

describe('sliding rate-limit windows through POST /auth', () => {
  let s: TestServer;
  let client: string;
  const wrongLogin = () => s.request('POST', '/auth', { body: { username: 'nobody-here', password: 'wrong-password' } });
  const rows = () => s.server.ctx.db.selectFrom('rate_hits').select(['client', 'window_start', 'hits']).where('bucket', '=', 'login').orderBy('window_start').execute();
  const setLast = async (windowsAgo: number, hits: number) => {
    const { db } = s.server.ctx;
    await db.deleteFrom('rate_hits').where('bucket', '=', 'login').execute();
    await db.insertInto('rate_hits').values({ bucket: 'login', client, window_start: windowStart() - windowsAgo * W, hits }).execute();
  };

  before(async () => {
    s = await startServer({ FOLIO_LOGIN_LIMIT: String(rl.limit) });
    expectError(await wrongLogin(), 401, 'login_failed');
    const [row] = await rows();
    client = row.client;
    assert.equal(loginLimit(s.server.ctx).windowMs, W);
  });
  after(() => s.close());

  test('a window that ended full still refuses the first wrong login of the next, with Retry-After', async () => {
    await setLast(1, 1e9);
    const r = await wrongLogin();
    expectError(r, 429, 'too_many_requests');
    const retry = Number(r.headers.get('retry-after'));
    const left = (W - (Date.now() % W)) / 1000;
    assert.ok(retry >= 1 && retry <= Math.ceil(left) + 1, `Retry-After ${retry}, window ends in ${left} s`);
    // The refused attempt counted nothing.
    assert.deepEqual((await rows()).map((x) => Number(x.hits)), [1e9]);
  });

  test('hits from two windows ago count nothing, and the first hit of a window clears them but keeps the last one', async () => {
    await setLast(2, 1e9);
    expectError(await wrongLogin(), 401, 'login_failed');
    const now = windowStart();
    assert.deepEqual((await rows()).map((x) => [Number(x.window_start) - now, Number(x.hits)]), [[0, 1]]);
    const { db } = s.server.ctx;
    await db.insertInto('rate_hits').values({ bucket: 'login', client, window_start: now - W, hits: 1 }).execute();
    await db.deleteFrom('rate_hits').where('window_start', '=', now).execute();
    expectError(await wrongLogin(), 401, 'login_failed');
    assert.deepEqual((await rows()).map((x) => Number(x.window_start) - now), [-W, 0]);
  });

  test('the allowance left is the limit less this window and the last one\'s carried share', async () => {
    // Four of the last window carried at most four; the exact share depends on the clock, so the
    // allowance is read from it the way the server must have.
    await setLast(1, 4);
    const carried = carriedHits(rl, 4, Date.now());
    let let_in = 0;
    for (let i = 0; i < rl.limit + 1; i++) if ((await wrongLogin()).status === 401) let_in++;
    const carriedAfter = carriedHits(rl, 4, Date.now());
    assert.ok(let_in >= rl.limit - carried && let_in <= rl.limit - carriedAfter, `${let_in} let in, ${carried}→${carriedAfter} carried`);
    assert.ok(let_in < rl.limit, 'the last window counted');
  });
});
