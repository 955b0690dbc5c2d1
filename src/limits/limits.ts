import { type CounterStore, type TakeAnswer, UNANSWERED } from './counter-store.js';
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
   * Counts one failure of `id`. With shared counters (Redis, or the primary of `WORKERS`), waits
   * for the shared total (a Redis command times out after 250 ms and then counts in the machine's
   * counters), so that every process sees the budget cross. Without them, counted at once: undefined.
   */
  recordFailure(id: string): Promise<void> | undefined;
  /**
   * Takes one failure's place in `id`'s budget, before the failure is answered: `retryAfter` 0 and
   * the state after it when taken; when the budget is spent, nothing is taken and `retryAfter` says
   * when to come back (the failure is then answered as a refusal). With shared counters, taken
   * there atomically (waiting for them as a login does), so that exactly `max` are taken across
   * every process and instance; at once, in memory, without them. Undefined when the budget is off.
   */
  takeFailure(id: string): TakenRequest | undefined | Promise<TakenRequest>;
  /** `id`'s count as the shared counters hold it now: this process's own when none are in use. */
  current(id: string): number | Promise<number>;
  /** Undefined when the budget is off. `at`: the time (ms since the epoch) when the caller has read it already. */
  state(id: string, at?: number): BudgetState | undefined;
}

/** A request budget's take, or a failure's (FailureBudget.takeFailure): `retryAfter` 0 when it was counted. */
export type TakenRequest = BudgetState & { readonly retryAfter: number };

/**
 * Requests allowed per id. With shared counters, taken from them in grants of several (one at a
 * time near the budget), so that no two processes can pass it together and a request rarely waits.
 */
export interface RequestBudget {
  /**
   * Takes one request from `id`'s budget: `retryAfter` 0 and the state after it when allowed;
   * when spent, nothing is taken and `retryAfter` says when to come back. Undefined when off. A
   * promise only while this process waits for a grant of the shared counter.
   * `holder` keeps the id's counter between takes (see WindowCounter.take).
   */
  take(id: string, at?: number, holder?: CounterSlot): TakenRequest | undefined | Promise<TakenRequest>;
}

/** One place to take in a failure budget: `max` in place of the budget's own (a smaller one, say). */
export interface PlaceTake {
  readonly budget: FailureBudget;
  readonly id: string;
  readonly max?: number;
}

/** Places taken together: given back together (an attempt that did not fail). */
export interface TakenPlaces {
  readonly taken: true;
  /** Each budget's count with this place, in the order asked. */
  readonly counts: readonly number[];
  giveBack(): Promise<void> | undefined;
}

export interface RefusedPlaces {
  readonly taken: false;
  /** Which of the takes was at its max (the first, when the shared counters did not answer). */
  readonly refused: number;
  /** Seconds until that budget's window ends. */
  readonly retryAfter: number;
}

/**
 * Budgets counted in this process, or shared by every instance through Redis. Each budget's name
 * is part of its counters' keys: two surfaces must not use the same name for different things.
 */
export interface Limits {
  failureBudget(name: string, budget: Budget): FailureBudget;
  requestBudget(name: string, budget: Budget): RequestBudget;
  /**
   * Counts one in every budget of `takes` (as a failure, ahead of the outcome) unless one of them
   * is at its max, atomically: with shared counters, no two processes or instances can pass a
   * max together. Places taken before the outcome is known count while in flight. Places the
   * shared counters, still connected, did not answer in time are refused (retryAfter 1), never
   * counted elsewhere.
   */
  takePlaces(takes: readonly PlaceTake[]): Promise<TakenPlaces | RefusedPlaces>;
  /** Whether counters are shared through Redis right now. */
  readonly shared: boolean;
  /** Gives back the requests granted to this process and not used (tests; it runs by itself every 200 ms). */
  flush(): Promise<void>;
  close(): Promise<void>;
}

export interface LimitsOptions {
  /** Share the counters through this Redis; in this process only when undefined. */
  readonly redisUrl?: string | undefined;
  /** Prefix of every Redis key (a deployment's own, or a test's). */
  readonly redisKeyPrefix?: string;
  /**
   * The counters of this machine's `WORKERS`, held by the primary (cluster-counters.ts): used
   * without Redis, and while Redis is away. Undefined in a process that serves alone.
   */
  readonly machineCounters?: (CounterStore & { close(): void }) | undefined;
  readonly logger: LimitsLogger;
  /** The clock (tests). */
  readonly now?: () => number;
}

/** Logins wait for the shared counters longer than the API's path does (see TakeOptions). */
const PATIENT = { patient: true } as const;
/** A login's places: waited for, and never counted outside the shared counters while they are connected. */
const PLACES = { patient: true, sharedOnly: true } as const;
/**
 * When to come back after places the shared counters did not answer in time: they are connected,
 * only slow, and the next attempt is likely answered.
 */
const UNANSWERED_RETRY_SECONDS = 1;

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/**
 * Redis while it can be used, else the machine's counters: a take Redis cannot answer goes to the
 * machine's (undefined without workers: the caller counts in its own process).
 */
function routeCounters(redis: SharedCounters | undefined, machine: CounterStore | undefined): CounterStore | undefined {
  if (redis === undefined) return machine;
  return {
    get available() {
      return redis.available || (machine?.available ?? false);
    },
    async take(takes, options) {
      if (redis.available) {
        const answer = await redis.take(takes, options);
        if (answer !== undefined) return answer;
      }
      return machine?.take(takes, options);
    },
  };
}

export function createLimits({
  redisUrl,
  redisKeyPrefix = 'marketplace:',
  logger,
  now,
  machineCounters,
}: LimitsOptions): Limits {
  const redis: SharedCounters | undefined =
    redisUrl === undefined
      ? undefined
      : createSharedCounters(
          redisUrl,
          `${redisKeyPrefix}limits:`,
          logger,
          machineCounters === undefined ? 'process' : 'machine',
        );
  const shared = routeCounters(redis, machineCounters);
  const counters: WindowCounter[] = [];
  const counterOf = new WeakMap<FailureBudget, { counter: WindowCounter; max: number }>();
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
      if (budget.max === 0) {
        return {
          retryAfter: () => 0,
          recordFailure: () => undefined,
          takeFailure: () => undefined,
          state: () => undefined,
          current: () => 0,
        };
      }
      const counter = counterFor(name, budget);
      // Most ids have no failure at all: their state is the same object until the second changes.
      let untouched: BudgetState = { limit: budget.max, remaining: budget.max, resetSeconds: 0 };
      /** A failure's take answered (the count before it): one reading of the clock for both headers. */
      const taken = (count: number): TakenRequest => {
        const resetSeconds = seconds(counter.resetMs());
        if (count >= budget.max) return { limit: budget.max, remaining: 0, resetSeconds, retryAfter: resetSeconds };
        return { limit: budget.max, remaining: budget.max - count - 1, resetSeconds, retryAfter: 0 };
      };
      const failures: FailureBudget = {
        retryAfter(id) {
          return counter.count(id) >= budget.max ? seconds(counter.resetMs()) : 0;
        },
        recordFailure: (id) => counter.addNow(id),
        takeFailure(id) {
          const count = counter.takeNow(id, budget.max);
          return count instanceof Promise ? count.then(taken) : taken(count);
        },
        current: (id) => counter.read(id),
        state(id, at) {
          const time = at ?? counter.now();
          const count = counter.count(id, time);
          const resetSeconds = seconds(counter.resetMs(time));
          if (count > 0) return { limit: budget.max, remaining: Math.max(0, budget.max - count), resetSeconds };
          if (untouched.resetSeconds !== resetSeconds) untouched = { ...untouched, resetSeconds };
          return untouched;
        },
      };
      counterOf.set(failures, { counter, max: budget.max });
      return failures;
    },
    requestBudget(name, budget) {
      if (budget.max === 0) return { take: () => undefined };
      const counter = counterFor(name, budget);
      const answer = (count: number, time: number): TakenRequest => {
        const resetSeconds = seconds(counter.resetMs(time));
        if (count >= budget.max) return { limit: budget.max, remaining: 0, resetSeconds, retryAfter: resetSeconds };
        return { limit: budget.max, remaining: budget.max - count - 1, resetSeconds, retryAfter: 0 };
      };
      return {
        take(id, at, holder) {
          const time = at ?? counter.now();
          const count = counter.take(id, budget.max, time, holder);
          return count instanceof Promise ? count.then((counted) => answer(counted, time)) : answer(count, time);
        },
      };
    },
    async takePlaces(takes) {
      const places = takes.map(({ budget, id, max }) => {
        const known = counterOf.get(budget);
        if (known === undefined) throw new Error('limits: a place can only be taken in a failure budget that is on');
        const ceiling = max ?? known.max;
        return { counter: known.counter, max: ceiling, ...known.counter.takeOf(id, 1, ceiling) };
      });
      const answer = shared?.available
        ? await shared.take(
            places.map(({ take }) => take),
            PLACES,
          )
        : undefined;
      if (answer === UNANSWERED) return { taken: false, refused: 0, retryAfter: UNANSWERED_RETRY_SECONDS };
      /** What each counter knows after `answer` (none: counted here, `by` each). */
      const note = (after: TakeAnswer | undefined, by: number) => {
        for (const [index, { counter, entry }] of places.entries()) counter.noteTotal(entry, after, index, by);
      };
      // Without shared counters, this process's own counts are checked and counted at once.
      const before = places.map(({ counter, entry }, index) =>
        answer === undefined ? counter.countOfEntry(entry) : (answer.totals[index] as number) - (answer.taken ? 1 : 0),
      );
      const over = places.findIndex(({ max }, index) => (before[index] as number) + 1 > max);
      const refused = answer !== undefined && !answer.taken ? Math.max(0, over) : over;
      if (refused >= 0) {
        if (answer !== undefined) note(answer, 0);
        const { counter } = places[refused] as (typeof places)[number];
        return { taken: false, refused, retryAfter: seconds(counter.resetMs()) };
      }
      note(answer, 1);
      let given = false;
      return {
        taken: true,
        counts: before.map((count) => count + 1),
        giveBack() {
          if (given) return undefined;
          given = true;
          // Given back where it was taken: to the shared counters, or here.
          if (answer === undefined) {
            note(undefined, -1);
            return undefined;
          }
          return shared
            ?.take(
              places.map(({ take }) => ({ ...take, by: -1 })),
              PATIENT,
            )
            .then((after) => note(after, -1));
        },
      };
    },
    get shared() {
      return redis?.available ?? false;
    },
    async flush() {
      await Promise.all(counters.map((counter) => counter.flush()));
    },
    async close() {
      // Requests granted here and not used go back for the other processes.
      await Promise.all(counters.map((counter) => counter.close()));
      await redis?.close();
      machineCounters?.close();
    },
  };
}
