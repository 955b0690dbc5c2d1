import type { CounterStore, CounterTake, TakeAnswer } from './counter-store.js';
import { RecentIds } from './recent-ids.js';

/** How many ids one counter remembers: a flood of new clients pushes out the least recently seen. */
export const MAX_IDS_PER_COUNTER = 50_000;
/** How often requests granted to this process and left unused are given back to the shared counter. */
export const FLUSH_INTERVAL_MS = 200;
/** The most requests one process takes from a shared counter at a time (see #grantSize). */
export const MAX_GRANT = 64;

interface Entry {
  readonly id: string;
  readonly window: number;
  /** The RecentIds generation it was last found or put in (see CounterSlot). */
  generation: number;
  /**
   * The shared total last seen (it holds the requests granted to this process and not yet used),
   * or this process's own count while no shared counter can be used.
   */
  known: number;
  /** Requests granted to this process by the shared counter and not yet used. */
  granted: number;
  /** Whether a granted request was used since the last flush. */
  used: boolean;
  /**
   * Until when (ms) the shared counter's last answer, that the budget is spent, stands: requests
   * granted to other processes and not used there come back, so it is asked again after that.
   */
  spentUntil: number;
  /** A grant asked of the shared counter and not yet answered. */
  asking: Promise<void> | undefined;
}

/** What an entry has counted: what this process knows of the total, less what it holds unused. */
const countOf = (entry: Entry) => entry.known - entry.granted;

/**
 * Where a caller that counts the same id again and again keeps that id's entry, to count on it
 * without a lookup while it is still the id's entry in the current window and generation.
 */
export interface CounterSlot {
  counterSlot: unknown;
}

/**
 * Counts per id in fixed windows aligned on the clock (`windowMs` long), so every process and
 * instance puts the same request in the same window and the shared counter's key names it. In
 * memory, bounded. With a shared store (Redis, or the primary of `WORKERS`), every count is taken
 * there atomically against its max, so that no two processes can pass it together: failures one
 * at a time (`takeNow`, `addNow`), requests in grants of several (`take`), so that a request rarely waits.
 */
export class WindowCounter {
  readonly #entries: RecentIds<Entry>;
  /** Entries holding granted requests: what was not used by the next flush goes back. */
  readonly #holding = new Set<Entry>();
  #flushTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly name: string,
    readonly windowMs: number,
    readonly shared: CounterStore | undefined,
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
   * With a shared store, a request is counted on what this process was granted; a promise only
   * when it must wait for a grant (the first request of an id in a window, or a budget nearly spent).
   */
  take(id: string, max: number, time: number = this.now(), holder?: CounterSlot): number | Promise<number> {
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
    if (entry.granted > 0) return this.#useGranted(entry, max);
    const count = countOf(entry);
    if (!this.shared?.available) {
      if (count < max) entry.known += 1;
      return count;
    }
    if (entry.spentUntil > time) return Math.max(count, max);
    return this.#takeShared(entry, max);
  }

  #useGranted(entry: Entry, max: number): number {
    const count = countOf(entry);
    entry.granted -= 1;
    entry.used = true;
    // Asked before the last is used, so that a steady stream of requests does not wait; not
    // near the budget, where a grant held here would be one the other processes cannot use.
    const size = this.#grantSize(entry, max);
    if (size > 1 && entry.granted <= size / 2 && entry.asking === undefined && entry.spentUntil <= this.now()) {
      entry.asking = this.#grant(entry, max);
    }
    return count;
  }

  async #takeShared(entry: Entry, max: number): Promise<number> {
    for (;;) {
      if (entry.granted > 0) return this.#useGranted(entry, max);
      if (entry.spentUntil > this.now()) return Math.max(countOf(entry), max);
      entry.asking ??= this.#grant(entry, max);
      await entry.asking;
    }
  }

  /**
   * How many requests to ask for at once: a few when far from the budget (a request rarely waits),
   * one at a time near it, so that requests granted to one process and not used there never hold
   * back much of the budget from the others.
   */
  #grantSize(entry: Entry, max: number): number {
    return Math.max(1, Math.min(MAX_GRANT, Math.floor((max - entry.known) / 16)));
  }

  async #grant(entry: Entry, max: number): Promise<void> {
    const wanted = this.#grantSize(entry, max);
    try {
      // A store that fails (never expected: each answers undefined instead) counts here like one away.
      const answer = await this.shared
        ?.take([this.#take(entry, wanted, max)], { partial: true })
        .catch(() => undefined);
      if (answer === undefined) {
        // No shared counter right now: this process counts on its own.
        const granted = Math.max(0, Math.min(wanted, max - entry.known));
        entry.known += granted;
        entry.granted += granted;
        if (granted === 0) entry.spentUntil = Number.POSITIVE_INFINITY;
      } else {
        const granted = answer.moved[0] as number;
        entry.known = Math.max(entry.known + granted, answer.totals[0] as number);
        entry.granted += granted;
        if (granted === 0) entry.spentUntil = this.now() + FLUSH_INTERVAL_MS;
      }
      if (entry.granted > 0) this.#hold(entry);
    } finally {
      entry.asking = undefined;
    }
  }

  #hold(entry: Entry): void {
    this.#holding.add(entry);
    this.#flushTimer ??= setTimeout(() => void this.flush(), FLUSH_INTERVAL_MS).unref();
  }

  /** Counts one now, here: no shared store in use. */
  add(id: string): void {
    this.#current(id).known += 1;
  }

  /**
   * Counts one in the shared store and waits for its total, so that every process sees a budget
   * cross; at once (undefined) when no shared store is in use now.
   */
  addNow(id: string): Promise<void> | undefined {
    const entry = this.#current(id);
    if (!this.shared?.available) {
      entry.known += 1;
      return undefined;
    }
    return this.#addShared(entry);
  }

  /**
   * Counts one failure unless `max` are counted already, and answers the count before (`max` or
   * more: refused, nothing counted). With a shared store, taken there atomically against `max`, so
   * that no two processes or instances can pass it together: the caller waits for the answer (a
   * failure is the guessing path: it may wait, a request may not). At once when none is in use.
   */
  takeNow(id: string, max: number): number | Promise<number> {
    const entry = this.#current(id);
    if (!this.shared?.available) return this.#countHere(entry, max);
    return this.#takeNowShared(entry, max);
  }

  #countHere(entry: Entry, max: number): number {
    const count = countOf(entry);
    if (count < max) entry.known += 1;
    return count;
  }

  async #takeNowShared(entry: Entry, max: number): Promise<number> {
    // Patient as a login is: one counted elsewhere than the others would not see them.
    const answer = await this.shared?.take([this.#take(entry, 1, max)], { patient: true }).catch(() => undefined);
    if (answer === undefined) return this.#countHere(entry, max);
    const total = answer.totals[0] as number;
    entry.known = total + entry.granted;
    return answer.taken ? total - 1 : Math.max(total, max);
  }

  async #addShared(entry: Entry): Promise<void> {
    const answer = await this.shared?.take([this.#take(entry, 1, Number.MAX_SAFE_INTEGER)]).catch(() => undefined);
    entry.known = answer ? Math.max(entry.known + 1, answer.totals[0] as number) : entry.known + 1;
  }

  /** The id's count as the shared store holds it now (this process's own when none is in use). */
  read(id: string): number | Promise<number> {
    const entry = this.#current(id);
    if (!this.shared?.available) return countOf(entry);
    return this.shared.take([this.#take(entry, 0, Number.MAX_SAFE_INTEGER)], { patient: true }).then((answer) => {
      if (answer !== undefined) entry.known = (answer.totals[0] as number) + entry.granted;
      return countOf(entry);
    });
  }

  /** The counter of `id` in the current window, as a store's take names it. */
  takeOf(id: string, by: number, max: number): { readonly take: CounterTake; readonly entry: unknown } {
    const entry = this.#current(id);
    return { take: this.#take(entry, by, max), entry };
  }

  /** After a take made with takeOf (or none: counted here), what this process knows of the total. */
  noteTotal(entry: unknown, answer: TakeAnswer | undefined, index: number, by: number): void {
    const counted = entry as Entry;
    counted.known =
      answer === undefined
        ? Math.max(0, counted.known + by)
        : Math.max(0, (answer.totals[index] as number) + counted.granted);
  }

  /** This process's own count of the entry of takeOf (no shared store in use). */
  countOfEntry(entry: unknown): number {
    return countOf(entry as Entry);
  }

  /** Gives back what was granted to this process and not used since the last flush (tests; it runs by itself every 200 ms). */
  async flush(all = false): Promise<void> {
    this.#flushTimer = undefined;
    const returned: Entry[] = [];
    const window = Math.floor(this.now() / this.windowMs);
    for (const entry of this.#holding) {
      // A past window's counter expires by itself.
      if (entry.window !== window || entry.granted === 0) this.#holding.delete(entry);
      else if (all || !entry.used) returned.push(entry);
      entry.used = false;
    }
    await Promise.all(
      returned.map(async (entry) => {
        const back = entry.granted;
        if (back === 0) return;
        entry.granted = 0;
        entry.known -= back;
        this.#holding.delete(entry);
        await this.shared?.take([this.#take(entry, -back, 0)]);
      }),
    );
    if (this.#holding.size > 0) this.#flushTimer ??= setTimeout(() => void this.flush(), FLUSH_INTERVAL_MS).unref();
  }

  /** Gives back every grant not used and stops the timer. */
  async close(): Promise<void> {
    clearTimeout(this.#flushTimer);
    await this.flush(true);
    clearTimeout(this.#flushTimer);
    this.#flushTimer = undefined;
  }

  /** The id's entry in the window of `time`, made if need be; in the current generation of ids either way. */
  #current(id: string, time = this.now()): Entry {
    const window = Math.floor(time / this.windowMs);
    let entry = this.#entries.get(id);
    if (!entry || entry.window !== window) {
      entry = { id, window, generation: 0, known: 0, granted: 0, used: false, spentUntil: 0, asking: undefined };
      this.#entries.set(id, entry);
    }
    entry.generation = this.#entries.generation;
    return entry;
  }

  #take(entry: Entry, by: number, max: number): CounterTake {
    // The window's number in the key: a new window is a new counter, and the old one expires.
    return { key: `${this.name}:${entry.id}:${entry.window}`, by, max, ttlMs: this.windowMs + 5_000 };
  }
}
