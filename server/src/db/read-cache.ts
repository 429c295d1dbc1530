// Results of costly reads (a list's count, the ids of a ranked or sorted page, a folder's
// placements, a user's roles) kept until the database changes. The key names the query (its SQL
// and parameters); the data version (see db/data-version.ts) changes on every write of this
// process and every commit of another, so a cached result is never older than the data it was
// read from. Values are shared between requests: callers treat them as read-only. Bounded by a
// weight (about one unit per row held), oldest use dropped first.
import type { CompiledQuery } from 'kysely';
import type { DataVersion } from './data-version.js';

type Scope = 'data' | 'settings' | 'accounts' | 'lists';

export interface ReadCache {
  /**
   * `load()`'s result for `key`, from the cache when nothing was written since it was read;
   * `scope` 'settings': when none of the settings tables was written (DataVersion.settings(): the
   * load reads nothing else); 'accounts': when no identity may have changed, no settings table
   * was written and the model did not change (DataVersion.accounts(), settings() and model(): a
   * user's identity, which says whether any object permission exists and keeps its rights per type);
   * 'lists': when no write may have changed which objects a list without filters holds or their
   * order by id or creation (DataVersion.lists(), settings() and model(): a list's count, its anchors).
   */
  get<T>(key: string, load: () => Promise<T>, scope?: Scope): Promise<T>;
  /**
   * The value held for `key` when nothing was written since it was read, else undefined (then
   * get() loads it): for the checks every request makes, which answer at once when it is held.
   */
  peek<T>(key: string, scope?: Scope): T | undefined;
  /**
   * Weighs again the value held for `key` (a value that grew after it was kept: a list's anchors,
   * see weightOf), dropping the oldest entries if the partition is now over its weight.
   */
  reweigh(key: string, scope?: Scope): void;
  /** Entries held now (for tests and the benchmark). */
  readonly size: number;
}

/**
 * About one unit per row a value holds: arrays and maps by their length, an object that says its
 * own `weight` by it, anything else 1.
 */
function weightOf(value: unknown): number {
  if (Array.isArray(value)) return 1 + value.length;
  if (value instanceof Map || value instanceof Set) return 1 + value.size;
  const own = (value as { weight?: unknown } | null)?.weight;
  return typeof own === 'number' ? 1 + own : 1;
}

/** Entries valid while `version()` stays the same, bounded by weight. */
function partition(version: () => number, maxWeight: number) {
  const entries = new Map<string, { value: unknown; weight: number }>();
  let entriesVersion = NaN;
  let weight = 0;
  /** Loads under way, with the version they were asked under (bounded by the requests in flight). */
  const pending = new Map<string, { version: number; promise: Promise<unknown> }>();
  const sync = (v: number) => {
    if (v === entriesVersion) return;
    // Everything held was read from older data.
    entries.clear();
    weight = 0;
    entriesVersion = v;
  };
  /** `load()`, kept under `key` unless the data changed while it was read. */
  async function loadAndKeep<T>(key: string, v: number, load: () => Promise<T>): Promise<T> {
    const value = await load();
    // A write while it was read (another request's transaction) may or may not be in it.
    if (version() === v) {
      sync(v);
      const entry = { value, weight: weightOf(value) };
      const old = entries.get(key);
      if (old) weight -= old.weight;
      entries.set(key, entry);
      weight += entry.weight;
      trim();
    }
    return value;
  }
  /** Drops the least recently used entries until the weight is within the bound. */
  function trim() {
    for (const [k, e] of entries) {
      if (weight <= maxWeight) break;
      entries.delete(k);
      weight -= e.weight;
    }
  }

  return {
    entries,
    reweigh(key: string): void {
      const held = entries.get(key);
      if (!held) return;
      const now = weightOf(held.value);
      weight += now - held.weight;
      held.weight = now;
      trim();
    },
    peek<T>(key: string): T | undefined {
      sync(version());
      const hit = entries.get(key);
      if (!hit) return undefined;
      entries.delete(key);
      entries.set(key, hit);
      return hit.value as T;
    },
    async get<T>(key: string, load: () => Promise<T>): Promise<T> {
      // Another instance's write (PostgreSQL) is seen through the version the request read when
      // it started (app.ts refreshes it first thing): one round trip per request, not per read.
      const v = version();
      sync(v);
      const hit = entries.get(key);
      if (hit) {
        entries.delete(key);
        entries.set(key, hit);
        return hit.value as T;
      }
      // The same read already under way for the same data (a page or a search asked by several
      // clients at once): its answer is theirs too, read once.
      const under = pending.get(key);
      if (under && under.version === v) return under.promise as Promise<T>;
      const promise = loadAndKeep(key, v, load);
      pending.set(key, { version: v, promise });
      try {
        return await promise;
      } finally {
        if (pending.get(key)?.promise === promise) pending.delete(key);
      }
    },
  };
}

export function createReadCache(dataVersion: DataVersion, maxWeight = 100_000): ReadCache {
  const data = partition(() => dataVersion.current(), maxWeight);
  // A few small values (does any object permission exist, the endpoint policy…).
  const settings = partition(() => dataVersion.settings(), 10_000);
  // One identity per signed-in user; its rights per type follow the model's types (their lineage).
  // Each version only grows: their sum moves whenever any of them does.
  const accounts = partition(() => dataVersion.accounts() + dataVersion.settings() + dataVersion.model(), 10_000);
  // A list's count and anchors (resources/objects/list.ts): a few values per list shape.
  const lists = partition(() => dataVersion.lists() + dataVersion.settings() + dataVersion.model(), 10_000);
  const partitions = { data, settings, accounts, lists };
  return {
    get: (key, load, scope = 'data') => partitions[scope].get(key, load),
    peek: (key, scope = 'data') => partitions[scope].peek(key),
    reweigh: (key, scope = 'data') => partitions[scope].reweigh(key),
    get size() {
      return data.entries.size + settings.entries.size + accounts.entries.size + lists.entries.size;
    },
  };
}

/** A compiled read through the context's cache, keyed by its SQL and parameters. */
export function cachedRead<T>(ctx: { readCache: ReadCache }, query: CompiledQuery, load: () => Promise<T>, scope?: Scope): Promise<T> {
  return ctx.readCache.get(`${query.sql}\u0000${JSON.stringify(query.parameters)}`, load, scope);
}
