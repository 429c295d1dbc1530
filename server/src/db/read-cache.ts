import type { CompiledQuery } from 'kysely';

// Results of costly reads (a list's count, the ids of a ranked or sorted page, a folder's
// placements) kept until the database changes. The key names the query (its SQL and
// parameters); the data version (see dialect/sqlite.ts) changes on every write of this process
// and every commit of another, so a cached result is never older than the data it was read
// from. Values are shared between requests: callers treat them as read-only.
export interface ReadCache {
  /** `load()`'s result for `key`, from the cache when nothing was written since it was read. */
  get<T>(key: string, load: () => Promise<T>): Promise<T>;
  /** Entries held now (for tests and the benchmark). */
  readonly size: number;
}

export function createReadCache(dataVersion: () => number, maxEntries = 2000): ReadCache {
  const entries = new Map<string, unknown>();
  let entriesVersion = NaN;
  return {
    async get<T>(key: string, load: () => Promise<T>): Promise<T> {
      const version = dataVersion();
      if (version !== entriesVersion) {
        // Everything held was read from older data.
        entries.clear();
        entriesVersion = version;
      }
      if (entries.has(key)) {
        const hit = entries.get(key);
        entries.delete(key);
        entries.set(key, hit);
        return hit as T;
      }
      const value = await load();
      // A write while it was read (another request's transaction) may or may not be in it.
      if (dataVersion() === version) {
        if (entriesVersion !== version) {
          entries.clear();
          entriesVersion = version;
        }
        entries.set(key, value);
        if (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
      }
      return value;
    },
    get size() {
      return entries.size;
    },
  };
}

/** A compiled read through the context's cache, keyed by its SQL and parameters. */
export function cachedRead<T>(ctx: { readCache: ReadCache }, query: CompiledQuery, load: () => Promise<T>): Promise<T> {
  return ctx.readCache.get(`${query.sql}\u0000${JSON.stringify(query.parameters)}`, load);
}
