/** One counter to change in a store of counters shared by several processes. */
export interface CounterTake {
  readonly key: string;
  /** Added to the counter; negative gives places back (a counter never goes below 0). */
  readonly by: number;
  /** A positive `by` may not take the counter past this. */
  readonly max: number;
  /** How long the counter outlives its last write (its window and a little more). */
  readonly ttlMs: number;
}

/**
 * What a store answered: `taken` when every counter moved (each by its `by`, or with `partial` by
 * what was left of it up to its max); `totals` are the counters after, or as they stand when
 * nothing was taken; `moved` what each was changed by.
 */
export interface TakeAnswer {
  readonly taken: boolean;
  readonly totals: readonly number[];
  readonly moved: readonly number[];
}

export interface TakeOptions {
  /** A counter that cannot take all of its `by` takes what is left up to its max. */
  readonly partial?: boolean;
  /**
   * Waits longer before giving up (a login, not the API's hot path): a busy machine must not make
   * an attempt count elsewhere than the others, where it would not see them.
   */
  readonly patient?: boolean;
  /**
   * Never counted elsewhere while the shared counters are connected: a take they did not answer
   * in time may have counted there, and counted in the machine's or the process's counters too,
   * the two would each let their own max through. Answered UNANSWERED instead (a login's places:
   * refused rather than let past the budget).
   */
  readonly sharedOnly?: boolean;
}

/**
 * How long a `sharedOnly` take waits for the shared counters: given up on, it is refused, and it
 * may still count where it was sent (on a machine slow enough to keep the answer from it, a place
 * spent for nothing), so it waits longer than any other take.
 */
export const SHARED_ONLY_TIMEOUT_MS = 5_000;

/** A `sharedOnly` take that the shared counters, still connected, did not answer in time. */
export const UNANSWERED: TakeAnswer = Object.freeze({ taken: false, totals: [], moved: [] });

/**
 * Counters every process using it sees alike, changed atomically: a take checks every max and
 * counts, all or nothing, in one step, so that concurrent takes can never pass a max together.
 * Redis (shared-counters.ts) or the primary process of `WORKERS` (cluster-counters.ts). Answers
 * undefined when it cannot be used right now: the caller then counts in its own process.
 */
export interface CounterStore {
  readonly available: boolean;
  take(takes: readonly CounterTake[], options?: TakeOptions): Promise<TakeAnswer | undefined>;
}

/** How many counters a process holding them for others keeps: past it, the oldest written go first. */
const MAX_COUNTERS = 500_000;

/**
 * The counters of one machine, in the process that holds them for the others (the primary of
 * `WORKERS`): the same rules as the Redis script, in memory, bounded. Synchronous.
 */
export class LocalCounterStore {
  readonly #counters = new Map<string, { value: number; expiresAt: number }>();

  constructor(readonly now: () => number = Date.now) {}

  take(takes: readonly CounterTake[], { partial = false }: TakeOptions = {}): TakeAnswer {
    const time = this.now();
    const totals = takes.map(({ key }) => {
      const counter = this.#counters.get(key);
      return counter === undefined || counter.expiresAt <= time ? 0 : counter.value;
    });
    const moved = takes.map(({ by, max }, index) => {
      const current = totals[index] as number;
      if (by <= 0 || current + by <= max) return by;
      return partial ? Math.max(0, max - current) : Number.NaN;
    });
    if (moved.some(Number.isNaN)) return { taken: false, totals, moved: takes.map(() => 0) };
    takes.forEach(({ key, ttlMs }, index) => {
      const by = moved[index] as number;
      if (by === 0) return;
      const value = Math.max(0, (totals[index] as number) + by);
      moved[index] = value - (totals[index] as number);
      totals[index] = value;
      // Written again, it goes last: the first in the map is the one written longest ago.
      this.#counters.delete(key);
      this.#counters.set(key, { value, expiresAt: time + ttlMs });
    });
    this.#prune(time);
    return { taken: true, totals, moved };
  }

  get size(): number {
    return this.#counters.size;
  }

  #prune(time: number): void {
    for (const [key, counter] of this.#counters) {
      if (this.#counters.size <= MAX_COUNTERS && counter.expiresAt > time) return;
      this.#counters.delete(key);
    }
  }
}
