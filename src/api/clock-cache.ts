/** One entry: its value, its size, whether it was read since the hand last passed, and its end. */
interface Slot<V> {
  value: V;
  size: number;
  used: boolean;
  /** When the entry stops being found (the clock's ms), or 0 for never. */
  expiresAt: number;
}

export interface ClockCacheOptions<V> {
  /** The most the entries' sizes may add up to. */
  readonly maxSize: number;
  /** An entry's size, counted once when it is set. */
  readonly sizeOf: (value: V) => number;
  /** The clock that entries set with a time to live are read against (ms). */
  readonly now?: () => number;
}

/**
 * Values by key, bounded by the sum of their sizes, evicting by the second-chance (CLOCK) rule:
 * entries wait in a line in the order they were set; to make room, the one at the front goes
 * unless it was read since it joined the line, in which case it goes to the back, marked as not
 * read, and the next is looked at. Entries read again and again stay, as in an LRU; what a flood of
 * new keys pushes out is what was not read. The line is the Map's own order and the front is a live
 * iterator of it (the hand), so making room costs no scan from the start.
 *
 * Written here rather than taken from lru-cache because a hit is read on nearly every request (the
 * key's account, the purchase, the item), and here it costs one Map lookup and one flag set on
 * the entry; lru-cache's `get` also reads its value list, checks staleness, and moves the entry in
 * its recency list (two index arrays: more random memory reads). Validation measured about 6 %
 * faster in process with this in place of lru-cache (docs/decisions.md, "Speed and memory").
 */
export class ClockCache<K, V> {
  readonly #slots = new Map<K, Slot<V>>();
  readonly #maxSize: number;
  readonly #sizeOf: (value: V) => number;
  readonly #now: () => number;
  #size = 0;
  /** The front of the line: a live iterator of the Map, which also sees entries set after it was made. */
  #hand: Iterator<[K, Slot<V>]> | undefined;

  constructor({ maxSize, sizeOf, now = Date.now }: ClockCacheOptions<V>) {
    this.#maxSize = maxSize;
    this.#sizeOf = sizeOf;
    this.#now = now;
  }

  /** How many entries are kept. */
  get size(): number {
    return this.#slots.size;
  }

  /** What the entries' sizes add up to. */
  get calculatedSize(): number {
    return this.#size;
  }

  /** The key's value, marked as read; undefined when there is none or its time to live is over. */
  get(key: K): V | undefined {
    const slot = this.#slots.get(key);
    if (slot === undefined) return undefined;
    if (slot.expiresAt !== 0 && slot.expiresAt <= this.#now()) {
      this.delete(key);
      return undefined;
    }
    slot.used = true;
    return slot.value;
  }

  /**
   * Keeps `value` under `key`, for `ttlMs` when given; other entries are let go of until the sizes
   * fit. A value larger than the whole cache is not kept (and the key's older value goes).
   */
  set(key: K, value: V, ttlMs?: number): void {
    const size = this.#sizeOf(value);
    if (size > this.#maxSize) {
      this.delete(key);
      return;
    }
    const expiresAt = ttlMs === undefined ? 0 : this.#now() + ttlMs;
    const slot = this.#slots.get(key);
    if (slot === undefined) {
      this.#slots.set(key, { value, size, used: false, expiresAt });
      this.#size += size;
    } else {
      this.#size += size - slot.size;
      slot.value = value;
      slot.size = size;
      slot.expiresAt = expiresAt;
    }
    while (this.#size > this.#maxSize) this.#evictOne();
  }

  delete(key: K): boolean {
    const slot = this.#slots.get(key);
    if (slot === undefined) return false;
    this.#slots.delete(key);
    this.#size -= slot.size;
    return true;
  }

  clear(): void {
    this.#slots.clear();
    this.#size = 0;
    this.#hand = undefined;
  }

  /** Lets go of the entry at the front of the line not read since it joined it (see the class). */
  #evictOne(): void {
    for (;;) {
      this.#hand ??= this.#slots.entries();
      const next = this.#hand.next();
      if (next.done) {
        // Every entry the hand passed went to the back or went: the front is the oldest again.
        this.#hand = undefined;
        continue;
      }
      const [key, slot] = next.value;
      this.#slots.delete(key);
      if (!slot.used) {
        this.#size -= slot.size;
        return;
      }
      // Its second chance: the back of the line. Marking it alone, where it stood, would leave the
      // hand to reach the newest entries first, and let go of each new entry as it came.
      slot.used = false;
      this.#slots.set(key, slot);
    }
  }
}
