// The admin UI's query cache (ui/src/api/queries.ts) over its API client, against a real server:
// the client runs here as in the browser (its relative URLs sent to the test server, its session in
// an in-memory localStorage, as the tabs of a browser share it). A slow network that delivers an earlier search's answer after the
// later one's, even though the cache gave that request up, never replaces the newer answer; a write
// marks as stale what it may change and nothing of a family it cannot touch.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ADMIN, startServer, type TestServer } from './helpers/server.js';

/** What this test uses of ui/src/api (imported at run time: that code is typed against the DOM, not Node). */
interface Ui {
  signIn(username: string, password: string): Promise<void>;
  signOut(): Promise<void>;
  api: { create(path: string, type: string, attributes: Record<string, unknown>): Promise<{ data: { id: string } }> };
  queryClient: {
    getQueryState(key: unknown[]): { isInvalidated: boolean; fetchStatus: string; dataUpdateCount: number } | undefined;
    getQueryData(key: unknown[]): unknown;
  };
  listQuery(path: string, query: Record<string, unknown>): { queryKey: unknown[]; queryFn: unknown };
  apiKey(path: string, query: Record<string, unknown>, shape: string): unknown[];
  QueryObserver: new (client: unknown, options: Record<string, unknown>) => Observer;
  keepPreviousData: unknown;
}
interface Result {
  data?: { data: Array<{ attributes: { username: string } }> };
  isFetching: boolean;
}
interface Observer {
  subscribe(listener: (r: Result) => void): () => void;
  setOptions(options: Record<string, unknown>): void;
  getCurrentResult(): Result;
}

describe('admin UI query cache', () => {
  let s: TestServer;
  let ui: Ui;
  /** Requests of the client whose URL has this text wait for `gate` and ignore being given up. */
  let slow: { match: string; gate: Promise<void>; done: Promise<void>; finished: () => void } | null = null;

  before(async () => {
    s = await startServer();
    const store = new Map<string, string>();
    Object.assign(globalThis, {
      localStorage: {
        getItem: (k: string) => store.get(k) ?? null,
        setItem: (k: string, v: string) => void store.set(k, String(v)),
        removeItem: (k: string) => void store.delete(k),
      },
    });
    const realFetch = globalThis.fetch;
    globalThis.fetch = async (input: string | URL | Request, init?: RequestInit) => {
      const url = typeof input === 'string' && input.startsWith('/') ? s.url + input : input;
      const held = slow && String(url).includes(slow.match) ? slow : null;
      if (!held) return realFetch(url, init);
      await held.gate;
      // A network that answers even a request the page gave up.
      const res = await realFetch(url, { ...init, signal: undefined });
      setImmediate(held.finished);
      return res;
    };
    const client = await import(new URL('../../ui/src/api/client.ts', import.meta.url).href);
    const queries = await import(new URL('../../ui/src/api/queries.ts', import.meta.url).href);
    const core = await import('@tanstack/react-query');
    ui = { ...client, ...queries, QueryObserver: core.QueryObserver, keepPreviousData: core.keepPreviousData } as Ui;
    await ui.signIn(ADMIN.username, ADMIN.password);
    for (const username of ['slow-alpha', 'slow-beta']) await ui.api.create('/users', 'users', { username, password: 'a-long-password-1' });
  });
  after(async () => {
    // Ends the session's renewal timer and empties the cache (its entries' timers): nothing keeps this process alive.
    await ui?.signOut();
    await s?.close();
  });

  /** Resolves once the observer's result passes `ok` (at once when it already does). */
  const until = (o: Observer, ok: (r: Result) => boolean) =>
    new Promise<void>((resolve) => {
      if (ok(o.getCurrentResult())) return resolve();
      const stop = o.subscribe((r) => ok(r) && (stop(), resolve()));
    });

  const usernames = (r: { data?: { data: Array<{ attributes: { username: string } }> } }) => r.data?.data.map((u) => u.attributes.username) ?? null;

  test('the answer to an earlier search, arriving after the later one, does not replace it', async () => {
    let release!: () => void;
    let finished!: () => void;
    slow = { match: 'q=slow-alpha', gate: new Promise<void>((r) => (release = r)), done: new Promise<void>((r) => (finished = r)), finished: () => finished() };
    const options = (q: string) => ({ ...ui.listQuery('/users', { q, page: 1, page_size: 20 }), placeholderData: ui.keepPreviousData });
    // What a list component does: observe the search typed first, then the one typed next.
    const observer = new ui.QueryObserver(ui.queryClient, options('slow-alpha'));
    const seen: Array<string[] | null> = [];
    const stop = observer.subscribe((r) => seen.push(usernames(r)));
    observer.setOptions(options('slow-beta'));
    await until(observer, (r) => JSON.stringify(usernames(r)) === '["slow-beta"]');

    release();
    await slow.done;
    await new Promise((r) => setTimeout(r, 0));
    slow = null;
    assert.deepEqual(usernames(observer.getCurrentResult()), ['slow-beta']);
    assert.ok(!seen.some((names) => names?.includes('slow-alpha')), `the earlier answer was shown: ${JSON.stringify(seen)}`);
    // The earlier answer went nowhere near the later search's entry.
    assert.deepEqual(usernames({ data: ui.queryClient.getQueryData(ui.apiKey('/users', { q: 'slow-beta', page: 1, page_size: 20 }, 'list')) as never }), ['slow-beta']);
    stop();
  });

  test('a write marks the reads it may change as stale, and leaves other families alone', async () => {
    const usersQuery = ui.listQuery('/users', { page: 1, page_size: 50 });
    const observer = new ui.QueryObserver(ui.queryClient, usersQuery);
    const stop = observer.subscribe(() => undefined);
    await until(observer, (r) => !r.isFetching && r.data !== undefined);
    const state = () => ui.queryClient.getQueryState(usersQuery.queryKey)!;
    const before = state().dataUpdateCount;

    // Configuration changes no user: the users list is not touched (marking happens within the write).
    await ui.api.create('/config', 'config', { name: 'query_cache_test', context: 'app', content: 'x' });
    assert.deepEqual([state().isInvalidated, state().fetchStatus, state().dataUpdateCount], [false, 'idle', before]);

    // A new user: the list shown loads again (on its way or done when the write returns) and has it.
    await ui.api.create('/users', 'users', { username: 'slow-gamma', password: 'a-long-password-1' });
    assert.ok(state().fetchStatus === 'fetching' || state().dataUpdateCount > before, 'the users list was not loaded again');
    await until(observer, (r) => !r.isFetching);
    assert.ok(usernames(observer.getCurrentResult())?.includes('slow-gamma'));
    stop();
  });
});
