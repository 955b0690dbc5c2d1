import { setImmediate } from 'node:timers/promises';
import type { ActivityDay, Store } from '../store/store.js';
import { DAY_MS, dayOf, mergeActivityDays, windowStart } from './activity-days.js';
import { NetworkSketch } from './network-sketch.js';

/** How often old days are looked for: the drop is cheap (an indexed delete), and days end daily. */
const EXPIRE_EVERY_MS = 3_600_000;
/** The first look, a minute after start: a server restarted more often than hourly still drops old days. */
const FIRST_EXPIRE_MS = 60_000;
/**
 * How stale the time a validation is counted at may be. Reading the clock costs 0.2–0.4 µs on
 * these machines (a virtual clock source), a share of a validation worth saving; first and last
 * seen are shown to the minute.
 */
const CLOCK_TICK_MS = 100;

/**
 * How each seller's purchase codes are validated (issue 24), gathered in memory on the hot path
 * (a map lookup, a count, and the client's network added to the code's sketch) and written in one
 * batch every `flushSeconds` and at close, as KeyUsage does: no request waits for a write. Every
 * process gathers its own; the store adds them up.
 */
export interface ActivityCounter {
  /** A validation of `account`'s own code (valid, refunded or cancelled) from the client at `address`. */
  validated(account: string, codeKey: string, address: string | undefined): void;
  /** Writes what was gathered; flushes run one after the other. */
  flush(): Promise<void>;
  /** Drops the stored days older than the retention period (it runs by itself a minute after start, then hourly); how many. */
  expire(): Promise<number>;
  /** Writes what is left and stops. */
  close(): Promise<void>;
}

export interface ActivityCounterOptions {
  /** False: nothing is counted (flush and expire still work). */
  readonly enabled: boolean;
  readonly flushSeconds: number;
  readonly retentionDays: number;
  /** A client address to its network's keyed hash (createNetworkHasher). */
  readonly networkHash: (address: string) => number;
  /** A flush or a drop that failed: what was gathered is kept for the next flush. */
  readonly onError: (error: unknown) => void;
  readonly now?: () => number;
}

/** One code's validations on one day, as gathered. */
interface Gathered {
  readonly account: string;
  readonly codeKey: string;
  readonly day: string;
  validations: number;
  firstSeen: number;
  lastSeen: number;
  readonly sketch: NetworkSketch;
}

/** How many codes' days one flush transaction writes before it lets requests in. */
const FLUSH_BATCH = 500;

/** A gathered day as the store keeps it. */
function storedDay(entry: Gathered): ActivityDay {
  return {
    account: entry.account,
    codeKey: entry.codeKey,
    day: entry.day,
    validations: entry.validations,
    firstSeen: entry.firstSeen,
    lastSeen: entry.lastSeen,
    sketch: entry.sketch.serialize(),
    networks: entry.sketch.estimate(),
  };
}

export function createActivityCounter(
  store: Pick<Store, 'recordActivity' | 'dropActivityBefore'>,
  options: ActivityCounterOptions,
): ActivityCounter {
  const { networkHash, onError } = options;
  const now = options.now ?? Date.now;
  // An injected clock (tests) is read at each validation; the wall clock is read every tick.
  let ticked = now();
  const clockTimer = options.now === undefined ? setInterval(() => (ticked = now()), CLOCK_TICK_MS) : undefined;
  clockTimer?.unref();
  const validationTime = options.now ?? (() => ticked);
  /** By day, then by code key (or account and code key, for a code that changed hands that day). */
  let pending = new Map<string, Map<string, Gathered>>();
  let today: Map<string, Gathered> | undefined;
  let currentDay = '';
  let dayEnds = 0;
  let closed = false;

  const dayMap = (day: string) => {
    let map = pending.get(day);
    if (map === undefined) {
      map = new Map();
      pending.set(day, map);
    }
    return map;
  };

  const gathered = (map: Map<string, Gathered>, account: string, codeKey: string, day: string, at: number) => {
    let entry = map.get(codeKey);
    if (entry !== undefined && entry.account === account) return entry;
    // The same code validated for another seller the same day: it changed hands (an import).
    const key = entry === undefined ? codeKey : `${account}\n${codeKey}`;
    entry = map.get(key);
    if (entry === undefined) {
      entry = { account, codeKey, day, validations: 0, firstSeen: at, lastSeen: at, sketch: new NetworkSketch() };
      map.set(key, entry);
    }
    return entry;
  };

  /** Puts back what a failed flush took, merged with what came in since. */
  const restore = (taken: Iterable<Gathered>) => {
    for (const entry of taken) {
      const into = gathered(dayMap(entry.day), entry.account, entry.codeKey, entry.day, entry.firstSeen);
      into.validations += entry.validations;
      into.firstSeen = Math.min(into.firstSeen, entry.firstSeen);
      into.lastSeen = Math.max(into.lastSeen, entry.lastSeen);
      into.sketch.merge(entry.sketch);
    }
  };

  const writeGathered = async () => {
    if (pending.size === 0) return;
    const taken = pending;
    pending = new Map();
    today = undefined;
    const entries: Gathered[] = [];
    for (const byCode of taken.values()) for (const entry of byCode.values()) entries.push(entry);
    // In batches, each its own transaction, with the event loop free between them: one write of
    // every code validated in the last seconds (tens of thousands on a busy store) held SQLite,
    // and with it every request of this process, for hundreds of milliseconds.
    for (let start = 0; start < entries.length; start += FLUSH_BATCH) {
      const batch = entries.slice(start, start + FLUSH_BATCH);
      try {
        await store.recordActivity(batch.map(storedDay), mergeActivityDays);
      } catch (error) {
        // What this batch and the ones after it held goes back; the batches written stay written.
        restore(entries.slice(start));
        onError(error);
        return;
      }
      if (start + FLUSH_BATCH < entries.length) await setImmediate();
    }
  };

  let flushing: Promise<void> = Promise.resolve();
  const flush = () => {
    flushing = flushing.then(writeGathered);
    return flushing;
  };

  const expire = async () => {
    try {
      return await store.dropActivityBefore(windowStart(now(), options.retentionDays));
    } catch (error) {
      onError(error);
      return 0;
    }
  };

  const flushTimer = setInterval(() => void flush(), options.flushSeconds * 1000);
  flushTimer.unref();
  const expireTimer = setInterval(() => void expire(), EXPIRE_EVERY_MS);
  expireTimer.unref();
  const firstExpire = setTimeout(() => void expire(), FIRST_EXPIRE_MS);
  firstExpire.unref();

  return {
    validated: options.enabled
      ? (account, codeKey, address) => {
          if (closed) return;
          const at = validationTime();
          if (at >= dayEnds || today === undefined) {
            currentDay = dayOf(at);
            dayEnds = Date.parse(`${currentDay}T00:00:00.000Z`) + DAY_MS;
            today = dayMap(currentDay);
          }
          const entry = gathered(today, account, codeKey, currentDay, at);
          entry.validations++;
          if (at > entry.lastSeen) entry.lastSeen = at;
          if (address !== undefined) entry.sketch.add(networkHash(address));
        }
      : () => {},
    flush,
    expire,
    async close() {
      closed = true;
      clearInterval(clockTimer);
      clearInterval(flushTimer);
      clearInterval(expireTimer);
      clearTimeout(firstExpire);
      await flush();
    },
  };
}
