/**
 * Values by id for the ids seen most recently, at most `max`: two generations of plain Maps, the
 * current one and the one before. An id is found in the current generation with one lookup; one
 * found only in the older is moved into the current; when the current holds half of `max`, it
 * becomes the older and the older is let go. So an id asked for at least once per generation is
 * kept, and a flood of new ids pushes out the least recent, as an LRU would, within a factor of two.
 *
 * Written here, not taken from lru-cache or quick-lru, because it is asked on every request a key
 * makes: lru-cache's get also moves the entry in its recency list (two index arrays, another
 * random memory access), and quick-lru's asks its Map twice (`has`, then `get`) and unwraps an
 * expiry record, which budgets, whose windows end by themselves, do not need.
 */
export class RecentIds<V> {
  #current = new Map<string, V>();
  #older = new Map<string, V>();
  readonly #generationSize: number;
  #generation = 0;

  constructor(max: number) {
    this.#generationSize = Math.max(1, Math.floor(max / 2));
  }

  /**
   * Counts the current generations: a value got or set while it was N is in the current
   * generation, already as recent as a `get` would make it, for as long as it is still N.
   */
  get generation(): number {
    return this.#generation;
  }

  get size(): number {
    return this.#current.size + this.#older.size;
  }

  /** The id's value, kept as recent. */
  get(id: string): V | undefined {
    const value = this.#current.get(id);
    if (value !== undefined || this.#older.size === 0) return value;
    const old = this.#older.get(id);
    if (old !== undefined) {
      this.#older.delete(id);
      this.set(id, old);
    }
    return old;
  }

  /** The id's value, its recency left as it is. */
  peek(id: string): V | undefined {
    return this.#current.get(id) ?? this.#older.get(id);
  }

  set(id: string, value: V): void {
    if (!this.#current.has(id) && this.#current.size >= this.#generationSize) {
      this.#older = this.#current;
      this.#current = new Map();
      this.#generation++;
    }
    this.#current.set(id, value);
    // An id set anew in the current generation must not be found stale in the older one.
    if (this.#older.size > 0) this.#older.delete(id);
  }
}
