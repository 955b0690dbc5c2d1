import { RecentIds } from './recent-ids.js';
import type { SharedCounters } from './shared-counters.js';

/** How many ids one counter remembers: a flood of new clients pushes out the least recently seen. */
export const MAX_IDS_PER_COUNTER = 50_000;
/** How often counts taken without waiting are sent to the shared store, in one batch. */
export const FLUSH_INTERVAL_MS = 200;

const countOf = (entry: Entry) => entry.known + entry.pending + entry.sending;

interface Entry {
  readonly id: string;
  window: number;
  /** The RecentIds generation it was last found or put in (see CounterSlot). */
  generation: number;
  /** The last shared total seen, or this process's own count while Redis cannot be used. */
  known: number;
  /** Added here and not yet sent. */
  pending: number;
  /** Sent and not yet answered. */
  sending: number;
}

/**
 * Where a caller that counts the same id again and again keeps that id's entry, to count on it
 * without a lookup while it is still the id's entry in the current window and generation.
 */
export interface CounterSlot {
  counterSlot: unknown;
}

/**
 * Counts per id in fixed windows aligned on the clock (`windowMs` long), so every instance puts
 * the same request in the same window and the shared counter's key names it. In memory, bounded;
 * with shared counters, `add` counts here and sends in batches (a request never waits on Redis),
 * `addNow` waits for the shared total.
 */
export class WindowCounter {
  readonly #entries: RecentIds<Entry>;
  readonly #dirty = new Set<string>();
  #flushTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly name: string,
    readonly windowMs: number,
    readonly shared: SharedCounters | undefined,
    readonly now: () => number = Date.now,
    maxIds: number = MAX_IDS_PER_COUNTER,
  ) {
    this.#entries = new RecentIds<Entry>(maxIds);
  }

  /** The id's count in the window of `time`: asked of every request a key makes, mostly of a counter that holds nobody. */
  count(id: string, time: number = this.now()): number {
    if (this.#entries.size === 0) return 0;
    const entry = this.#entries.get(id);
    return entry && entry.window === Math.floor(time / this.windowMs) ? countOf(entry) : 0;
  }

  /** Milliseconds from `time` until its window ends. */
  resetMs(time: number = this.now()): number {
    return (Math.floor(time / this.windowMs) + 1) * this.windowMs - time;
  }

  /**
   * Counts one unless `max` are counted already, and answers the count before (a request budget's
   * take runs on every request a key makes: nothing made). With `holder`, the id's entry is kept
   * there and counted on again without a lookup while it is the id's entry in the current window
   * and the ids' current generation: a lookup would find that same entry and leave it where it is.
   */
  take(id: string, max: number, time: number = this.now(), holder?: CounterSlot): number {
    const held = holder?.counterSlot as Entry | undefined;
    let entry: Entry;
    if (
      held !== undefined &&
      held.id === id &&
      held.generation === this.#entries.generation &&
      held.window === Math.floor(time / this.windowMs)
    ) {
      entry = held;
    } else {
      entry = this.#current(id, time);
      if (holder !== undefined) holder.counterSlot = entry;
    }
    const count = countOf(entry);
    if (count < max) this.#countIn(id, entry);
    return count;
  }

  /** Counts one now, here; sent to the shared store with the next batch. */
  add(id: string): void {
    this.#countIn(id, this.#current(id));
  }

  #countIn(id: string, entry: Entry): void {
    if (!this.shared?.available) {
      entry.known += 1;
      return;
    }
    entry.pending += 1;
    this.#dirty.add(id);
    this.#flushTimer ??= setTimeout(() => void this.flush(), FLUSH_INTERVAL_MS).unref();
  }

  /**
   * Counts one and waits for the shared total, so that every instance sees a budget cross; at once
   * (undefined) when Redis is not in use now.
   */
  addNow(id: string): Promise<void> | undefined {
    const entry = this.#current(id);
    if (!this.shared?.available) {
      entry.known += 1;
      return undefined;
    }
    return this.#addShared(id, entry);
  }

  async #addShared(id: string, entry: Entry): Promise<void> {
    const window = entry.window;
    entry.sending += 1;
    const totals = await this.shared?.add([this.#increment(id, window, 1)]);
    entry.sending -= 1;
    entry.known = totals && entry.window === window ? Math.max(entry.known + 1, totals[0] as number) : entry.known + 1;
  }

  /** Sends what `add` counted since the last batch; counts it here when Redis cannot take it. */
  async flush(): Promise<void> {
    this.#flushTimer = undefined;
    const batch: { id: string; entry: Entry; window: number; by: number }[] = [];
    for (const id of this.#dirty) {
      const entry = this.#entries.peek(id);
      if (!entry || entry.pending === 0) continue;
      batch.push({ id, entry, window: entry.window, by: entry.pending });
      entry.sending += entry.pending;
      entry.pending = 0;
    }
    this.#dirty.clear();
    if (batch.length === 0) return;
    const totals = await this.shared?.add(batch.map(({ id, window, by }) => this.#increment(id, window, by)));
    batch.forEach(({ entry, window, by }, index) => {
      entry.sending -= by;
      if (entry.window !== window) return;
      const total = totals?.[index];
      entry.known = total === undefined ? entry.known + by : Math.max(entry.known + by, total);
    });
  }

  /** Stops the batch timer; what was not sent stays counted here. */
  close(): void {
    clearTimeout(this.#flushTimer);
    this.#flushTimer = undefined;
  }

  /** The id's entry in the window of `time`, made if need be; in the current generation of ids either way. */
  #current(id: string, time = this.now()): Entry {
    const window = Math.floor(time / this.windowMs);
    let entry = this.#entries.get(id);
    if (!entry || entry.window !== window) {
      entry = { id, window, generation: 0, known: 0, pending: 0, sending: 0 };
      this.#entries.set(id, entry);
    }
    entry.generation = this.#entries.generation;
    return entry;
  }

  #increment(id: string, window: number, by: number) {
    // The window's number in the key: a new window is a new counter, and the old one expires.
    return { key: `${this.name}:${id}:${window}`, by, ttlMs: this.windowMs + 5_000 };
  }
}
