// A Map bounded by count that drops its least recently used entry first (a Map iterates in
// insertion order: a hit is moved to the end, the first key is the oldest). For caches keyed by
// text whose values cost more to make than to keep: prepared statements, compiled list plans.
export class LruMap<K, V> {
  private readonly entries = new Map<K, V>();
  constructor(private readonly max: number) {}

  /** The value for `key`, now the most recently used. */
  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value as K);
  }

  get size(): number {
    return this.entries.size;
  }
}
