import { createSharedCounters, type LimitsLogger, type SharedCounters } from './shared-counters.js';
import { type CounterSlot, WindowCounter } from './window-counter.js';

/** A budget: at most `max` in each window of `windowSeconds`; `max` 0 turns it off. */
export interface Budget {
  readonly max: number;
  readonly windowSeconds: number;
}

/** Where an id stands against a budget, as the RateLimit-* headers show it. */
export interface BudgetState {
  readonly limit: number;
  readonly remaining: number;
  /** Whole seconds until the window ends (at least 1). */
  readonly resetSeconds: number;
}

/** Failures allowed per id (a client, an account and a client, ...) before that id is refused. */
export interface FailureBudget {
  /**
   * Seconds until `id` may try again, or 0 while it is within its budget. Answered from this
   * process's view of the shared count: it never waits, so it may run on every request.
   */
  retryAfter(id: string): number;
  /**
   * Counts one failure of `id`. With Redis, waits for the shared total (a command times out
   * after 250 ms and then counts here), so that every instance sees the budget cross. Without
   * Redis in use, counted at once: undefined.
   */
  recordFailure(id: string): Promise<void> | undefined;
  /** Undefined when the budget is off. `at`: the time (ms since the epoch) when the caller has read it already. */
  state(id: string, at?: number): BudgetState | undefined;
}

/** Requests allowed per id; counted without waiting, shared in batches. */
export interface RequestBudget {
  /**
   * Takes one request from `id`'s budget: `retryAfter` 0 and the state after it when allowed;
   * when spent, nothing is taken and `retryAfter` says when to come back. Undefined when off.
   * `holder` keeps the id's counter between takes (see WindowCounter.take).
   */
  take(id: string, at?: number, holder?: CounterSlot): (BudgetState & { readonly retryAfter: number }) | undefined;
}

/**
 * Budgets counted in this process, or shared by every instance through Redis. Each budget's name
 * is part of its counters' keys: two surfaces must not use the same name for different things.
 */
export interface Limits {
  failureBudget(name: string, budget: Budget): FailureBudget;
  requestBudget(name: string, budget: Budget): RequestBudget;
  /** Whether counters are shared through Redis right now. */
  readonly shared: boolean;
  /** Sends every count not yet sent (tests; a batch goes by itself every 200 ms). */
  flush(): Promise<void>;
  close(): Promise<void>;
}

export interface LimitsOptions {
  /** Share the counters through this Redis; in this process only when undefined. */
  readonly redisUrl?: string | undefined;
  /** Prefix of every Redis key (a deployment's own, or a test's). */
  readonly redisKeyPrefix?: string;
  readonly logger: LimitsLogger;
  /** The clock (tests). */
  readonly now?: () => number;
}

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

export function createLimits({ redisUrl, redisKeyPrefix = 'marketplace:', logger, now }: LimitsOptions): Limits {
  const shared: SharedCounters | undefined =
    redisUrl === undefined ? undefined : createSharedCounters(redisUrl, `${redisKeyPrefix}limits:`, logger);
  const counters: WindowCounter[] = [];
  const names = new Set<string>();
  const counterFor = (name: string, budget: Budget) => {
    if (names.has(name)) throw new Error(`limits: a budget named ${name} exists already`);
    names.add(name);
    const counter = new WindowCounter(name, budget.windowSeconds * 1000, shared, now);
    counters.push(counter);
    return counter;
  };

  return {
    failureBudget(name, budget) {
      if (budget.max === 0) return { retryAfter: () => 0, recordFailure: () => undefined, state: () => undefined };
      const counter = counterFor(name, budget);
      // Most ids have no failure at all: their state is the same object until the second changes.
      let untouched: BudgetState = { limit: budget.max, remaining: budget.max, resetSeconds: 0 };
      return {
        retryAfter(id) {
          return counter.count(id) >= budget.max ? seconds(counter.resetMs()) : 0;
        },
        recordFailure: (id) => counter.addNow(id),
        state(id, at) {
          const time = at ?? counter.now();
          const count = counter.count(id, time);
          const resetSeconds = seconds(counter.resetMs(time));
          if (count > 0) return { limit: budget.max, remaining: Math.max(0, budget.max - count), resetSeconds };
          if (untouched.resetSeconds !== resetSeconds) untouched = { ...untouched, resetSeconds };
          return untouched;
        },
      };
    },
    requestBudget(name, budget) {
      if (budget.max === 0) return { take: () => undefined };
      const counter = counterFor(name, budget);
      return {
        take(id, at, holder) {
          const time = at ?? counter.now();
          const count = counter.take(id, budget.max, time, holder);
          const resetSeconds = seconds(counter.resetMs(time));
          if (count >= budget.max) return { limit: budget.max, remaining: 0, resetSeconds, retryAfter: resetSeconds };
          return { limit: budget.max, remaining: budget.max - count - 1, resetSeconds, retryAfter: 0 };
        },
      };
    },
    get shared() {
      return shared?.available ?? false;
    },
    async flush() {
      await Promise.all(counters.map((counter) => counter.flush()));
    },
    async close() {
      // What was counted and not yet sent still counts for the other instances.
      await Promise.all(counters.map((counter) => counter.flush()));
      for (const counter of counters) counter.close();
      await shared?.close();
    },
  };
}
