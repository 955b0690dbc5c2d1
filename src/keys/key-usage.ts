import { setImmediate } from 'node:timers/promises';
import type { KeyUse, NamedKeyUse, Store } from '../store/store.js';

/** How often the uses gathered in memory are written: "last used" is shown to the minute. */
const FLUSH_EVERY_MS = 60_000;
/**
 * Uses written per statement, requests answered between two: SQLite writes synchronously, and the
 * uses of every key in one statement held every request for as long as it ran, once a minute.
 */
const USES_PER_WRITE = 250;

/**
 * When each account's key was last used, gathered in memory on the API's hot path (one map write,
 * at most every 10 s per account: see authenticate) and written to the store in one batch a minute
 * and at close, so that no request waits for a write. Several processes each write theirs; the
 * store keeps the latest.
 */
export interface KeyUsage {
  /** The account's key answered a request now, or at `at` (ms since the epoch) when the caller has read the clock already. */
  used(username: string, at?: number): void;
  /** A named key (migration 0014) answered a request now, or at `at`: its own last use, not its account's key's. */
  usedNamed(keyId: string, at?: number): void;
  /** Writes what was gathered (tests; it goes by itself every minute). */
  flush(): Promise<void>;
  /** Writes what is left and stops. */
  close(): Promise<void>;
}

export function createKeyUsage(
  store: Pick<Store, 'recordKeyUses' | 'recordNamedKeyUses'>,
  onError: (error: unknown) => void,
  now: () => number = Date.now,
): KeyUsage {
  let pending = new Map<string, number>();
  let pendingNamed = new Map<string, number>();
  const flush = async () => {
    if (pending.size === 0 && pendingNamed.size === 0) return;
    const uses: KeyUse[] = [...pending].map(([username, at]) => ({ username, at }));
    const namedUses: NamedKeyUse[] = [...pendingNamed].map(([keyId, at]) => ({ keyId, at }));
    pending = new Map();
    pendingNamed = new Map();
    try {
      for (let start = 0; start < uses.length; start += USES_PER_WRITE) {
        if (start > 0) await setImmediate();
        await store.recordKeyUses(uses.slice(start, start + USES_PER_WRITE));
      }
      for (let start = 0; start < namedUses.length; start += USES_PER_WRITE) {
        await setImmediate();
        await store.recordNamedKeyUses(namedUses.slice(start, start + USES_PER_WRITE));
      }
    } catch (error) {
      // Lost for this minute only: the next use records the time again.
      onError(error);
    }
  };
  const timer = setInterval(() => void flush(), FLUSH_EVERY_MS);
  timer.unref();
  return {
    used(username, at = now()) {
      pending.set(username, at);
    },
    usedNamed(keyId, at = now()) {
      pendingNamed.set(keyId, at);
    },
    flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}
