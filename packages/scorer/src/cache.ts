/** A bounded map that forgets the least recently used entry first. */
export class LruCache<V> {
  private readonly map = new Map<string, V>();
  /**
   * A live iterator over the map's keys in insertion order (a use moves a key to the end). Every key it has
   * passed was evicted, so its next key is always the least recently used one. Kept across calls, it never
   * walks again over the deleted slots at the front of the map, which a fresh `keys()` per eviction does.
   */
  private readonly order = this.map.keys();
  constructor(private readonly limit: number) {}

  get(key: string): V | undefined {
    const value = this.map.get(key);
    if (value !== undefined) {
      this.map.delete(key);
      this.map.set(key, value);
    }
    return value;
  }

  set(key: string, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.limit) this.map.delete(this.order.next().value as string);
  }

  get size(): number {
    return this.map.size;
  }
}
