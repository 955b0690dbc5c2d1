import type { ActivityDelta, Store } from '../store/store.js';
import { forEachInTurns } from '../threads/event-loop-turns.js';
import { DAY_MS, dayOf, sketchWithStored, windowStart } from './activity-days.js';
import { FlushQueue, type Queueable } from './flush-queue.js';
import { NetworkSketch } from './network-sketch.js';

/** How often old days are looked for: the drop is cheap (an indexed delete), and days end daily. */
const EXPIRE_EVERY_MS = 3_600_000;
/** The first look, a minute after start: a server restarted more often than hourly still drops old days. */
const FIRST_EXPIRE_MS = 60_000;
/**
 * How stale the time a validation is counted at may be. Reading the clock is not free (on a
 * virtual machine's clock source least of all), a share of a validation worth saving; first and
 * last seen are shown to the minute.
 */
const CLOCK_TICK_MS = 100;

/**
 * How each seller's purchase codes are validated, gathered in memory on the hot path
 * (a map lookup, a count, and the client's network added to the code's sketch) and written in one
 * batch every `flushSeconds` and at close, as KeyUsage does: no request waits for a write. Every
 * process gathers its own; the store adds them up.
 *
 * A code's day stays in memory after it is written (up to KEPT_CODES of today's), with every
 * network this process saw it from: a code validated again from networks already written then
 * costs its flush one counts-only update, with no sketch read, merged or written. That is nearly
 * every code on a busy store, where each install validates from the network it did yesterday.
 */
export interface ActivityCounter {
  /**
   * A validation of `account`'s own code (valid, refunded or cancelled) from the client at `address`.
   * Answers the code's mark: given back with the code's next validation (the caller keeps it with
   * the cached purchase), it spares that validation the lookup among today's codes. A mark of
   * another day, account or code is ignored; undefined when nothing is counted.
   */
  validated(
    account: string,
    codeKey: string,
    address: string | undefined,
    mark?: ActivityMark,
  ): ActivityMark | undefined;
  /**
   * Writes what was gathered: all of it, or `account`'s alone (nothing when it has nothing
   * waiting), so a seller asking for its reports in a loop writes nobody else's counts. Flushes
   * run one after the other.
   */
  flush(account?: string): Promise<void>;
  /** Drops the stored days older than the retention period (it runs by itself a minute after start, then hourly); how many. */
  expire(): Promise<number>;
  /** Writes what is left and stops. */
  close(): Promise<void>;
}

/** What validated() answers, to be given back with the same code (see ActivityCounter.validated). */
export type ActivityMark = { readonly __activityMark: never };

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

/**
 * One code's validations on one day, as gathered, kept between flushes. While a flush writes it,
 * the entry is also that flush's delta: `validations` and `networksStored` say what the flush
 * took, while `counted` gathers the validations that come meanwhile. No object is made per code
 * for a flush: one that lived as long as a write takes outlived the young generation, and the old
 * generation collected it with pauses on the thread that answers requests.
 */
class GatheredDay implements ActivityDelta, Queueable<GatheredDay> {
  /** Counted since a flush last took the entry. */
  counted = 0;
  /** The first and last validation this process counted that day (min and max: written again, they change nothing). */
  firstSeen: number;
  lastSeen: number;
  /** Every network this process saw the code validated from that day. */
  readonly sketch = new NetworkSketch();
  /** The address of the last validation: the same client again (most are) changes no sketch. */
  lastAddress: string | undefined = undefined;
  /** Whether the sketch holds a network not written yet. */
  fresh = false;
  /** Whether this process wrote the day: its sketch then is in the stored one, as it was. */
  stored = false;
  /** Where the store said it keeps the day (see ActivityDelta.storedRow). */
  storedRow: number | undefined = undefined;
  /** Whether it waits for the next flush (see FlushQueue). */
  queued = false;
  nextQueued: GatheredDay | undefined = undefined;
  /** The validations the flush writing the entry took (the last flush's, once written). */
  validations = 0;
  /** Whether that flush found every network of the entry written already: it adds counts only. */
  networksStored = false;

  constructor(
    readonly account: string,
    readonly codeKey: string,
    readonly day: string,
    at: number,
  ) {
    this.firstSeen = at;
    this.lastSeen = at;
  }

  /** Taken by a flush: what it adds moves from `counted` to `validations`. */
  take(): void {
    this.validations = this.counted;
    this.networksStored = this.stored && !this.fresh;
    this.counted = 0;
    this.fresh = false;
    this.queued = false;
  }

  /** The flush's write failed: what it took is counted again, to be written with the next. */
  giveBack(): void {
    this.counted += this.validations;
    this.validations = 0;
    if (!this.networksStored) this.fresh = true;
  }

  rowStored(row: number): void {
    this.storedRow = row;
  }

  sketchWith(stored: string | undefined): { readonly sketch: string; readonly networks: number } {
    return sketchWithStored(this.sketch, stored);
  }
}

/**
 * Today's codes kept in memory, at most, once written: past it, half are let go, and those take a
 * whole write (sketch read and merged) when validated again.
 */
export const KEPT_CODES = 100_000;

/**
 * Codes written in one store call (one transaction) at most: a flush of more is written in parts,
 * so that what one write holds in memory (here, and in the writer thread it is sent to) is bounded
 * however many codes a flush gathered.
 */
export const FLUSH_PART = 10_000;

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
  /** By day, then by code (by account and code for a code counted for two sellers that day). */
  const days = new Map<string, Map<string, GatheredDay>>();
  const queue = new FlushQueue<GatheredDay>();
  /** Each full part of a flush, the same array every time (see FlushQueue). */
  const fullPart = new Array<GatheredDay>(FLUSH_PART);
  let today: Map<string, GatheredDay> | undefined;
  let currentDay = '';
  let dayEnds = 0;
  let closed = false;

  const dayMap = (day: string) => {
    let map = days.get(day);
    if (map === undefined) {
      map = new Map();
      days.set(day, map);
    }
    return map;
  };

  const gathered = (map: Map<string, GatheredDay>, account: string, codeKey: string, day: string, at: number) => {
    let entry = map.get(codeKey);
    if (entry !== undefined && entry.account === account) return entry;
    // The same code validated for another seller the same day: it changed hands (an import).
    const key = entry === undefined ? codeKey : `${account}\n${codeKey}`;
    entry = map.get(key);
    if (entry === undefined) {
      entry = new GatheredDay(account, codeKey, day, at);
      map.set(key, entry);
    }
    return entry;
  };

  /** Lets go of the days before today once written, and of written codes past KEPT_CODES. */
  const forget = () => {
    for (const [day, map] of days) {
      if (day === currentDay) {
        if (map.size <= KEPT_CODES) continue;
        for (const [key, entry] of map) {
          if (map.size <= KEPT_CODES / 2) break;
          if (!entry.queued) map.delete(key);
        }
      } else if (![...map.values()].some((entry) => entry.queued)) {
        days.delete(day);
      }
    }
  };

  /** Writes `part` of a flush in one store call: whether it was written (if not, all it held waits again). */
  const writePart = async (part: readonly GatheredDay[]): Promise<boolean> => {
    // Validations that come while the flush is written count towards the next one. Those that
    // come between two turns of this loop count towards this flush if their entry is not taken
    // yet (it is still marked queued, so nothing queues it again), the next one if it is. The
    // times they widen may reach this write: a validation's time written early changes nothing.
    await forEachInTurns(part, (entry) => entry.take());
    try {
      // One write transaction for up to FLUSH_PART codes (the store lets requests in between its
      // rows): written in transactions of a few hundred codes, each page of the day's rows went to
      // the write-ahead log again and again.
      await store.recordActivity(part);
    } catch (error) {
      // Nothing of it was written: everything it held goes back.
      for (const entry of part) {
        entry.giveBack();
        queue.push(entry);
      }
      onError(error);
      return false;
    }
    await forEachInTurns(part, (entry) => {
      entry.stored = true;
    });
    return true;
  };

  const writeGathered = async (account: string | undefined) => {
    const taken = queue.take(account);
    if (taken.remaining === 0) return;
    while (taken.remaining > 0) {
      if (await writePart(taken.nextPart(fullPart))) continue;
      // The parts after a failed one were not tried: they wait for the next flush, as it does.
      taken.forEachLeft((entry) => {
        entry.queued = false;
        queue.push(entry);
      });
      break;
    }
    // The part's array keeps no entry alive that the days let go of. A flush smaller than a part
    // (one seller's, before its report) left it empty (a part fills it from its start): nothing to clear.
    if (fullPart[0] !== undefined) fullPart.fill(undefined as unknown as GatheredDay);
    forget();
  };

  let flushing: Promise<void> = Promise.resolve();
  const flush = (account?: string) => {
    flushing = flushing.then(() => writeGathered(account));
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
      ? (account, codeKey, address, mark) => {
          if (closed) return undefined;
          const at = validationTime();
          if (at >= dayEnds || today === undefined) {
            currentDay = dayOf(at);
            dayEnds = Date.parse(`${currentDay}T00:00:00.000Z`) + DAY_MS;
            today = dayMap(currentDay);
          }
          // A marked entry let go of by `forget` is still counted and written: it is queued
          // below, and a flush writes what it holds whether or not the day's map still has it.
          let entry = mark as unknown as GatheredDay | undefined;
          if (
            entry === undefined ||
            entry.day !== currentDay ||
            entry.account !== account ||
            entry.codeKey !== codeKey
          ) {
            entry = gathered(today, account, codeKey, currentDay, at);
          }
          entry.counted++;
          if (at > entry.lastSeen) entry.lastSeen = at;
          if (at < entry.firstSeen) entry.firstSeen = at;
          if (address !== undefined && address !== entry.lastAddress) {
            entry.lastAddress = address;
            if (entry.sketch.add(networkHash(address))) entry.fresh = true;
          }
          queue.push(entry);
          return entry as unknown as ActivityMark;
        }
      : () => undefined,
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
