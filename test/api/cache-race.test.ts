import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { importNdjson } from '../../src/importer/import-ndjson.js';
import { rotateAccountKey } from '../../src/operations/account-keys.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { createTestApp, TEST_STORES, type TestApp } from '../helpers/test-app.js';
import { accountLine, itemLine, purchaseLine } from './store-lines.js';

/**
 * A lookup that misses the cache, waits on the store, and lands after the app heard of a change
 * must not put what it read back into the cache (SPEC 2.2.1 allows no stale window). Each case
 * holds one real store query after it has run, commits a change through another handle on the
 * store (as the CLI or another instance does), waits until the app has heard the change signal,
 * then lets the held query finish.
 */

type Gated = 'accountByKeyDigest' | 'purchase';

/** The real store, one of whose lookups can be held after it ran, until the test lets it go. */
class GatedStore {
  private armed: { method: Gated; caught: () => void; release: Promise<void> } | undefined;
  private changeSeen: (() => void) | undefined;

  constructor(readonly real: Store) {}

  /**
   * The next call of `method` runs the real query, then waits: `caught` resolves once it has
   * read, and the call returns what it read when `release` is called.
   */
  hold(method: Gated): { caught: Promise<void>; release: () => void } {
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const caught = new Promise<void>((resolve) => {
      this.armed = { method, caught: resolve, release: released };
    });
    return { caught, release };
  }

  /** Resolves when the app next asks the store for changes and is told there were some. */
  nextChangeSeen(): Promise<void> {
    return new Promise((resolve) => {
      this.changeSeen = resolve;
    });
  }

  /** The store the app is given. */
  view(): Store {
    return new Proxy(this.real, {
      get: (target, property, receiver) => {
        if (property === 'changesSinceLastCheck') {
          return (now?: number) => {
            const changes = target.changesSinceLastCheck(now);
            if (changes) this.changeSeen?.();
            return changes;
          };
        }
        if (property === 'accountByKeyDigest' || property === 'purchase') {
          return async (key: string) => {
            const row = await target[property](key);
            const armed = this.armed;
            if (armed?.method === property) {
              this.armed = undefined;
              armed.caught();
              await armed.release;
            }
            return row;
          };
        }
        const value = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  }
}

const ITEM = itemLine(701, 'seller', { name: 'Raced item' });
const purchase = (fields: object = {}) => purchaseLine('RACE-CODE-1', 701, fields);
const SELLER_KEY = 'race-seller-key-0123456789abcdef';
const ROTATED_KEY = 'race-rotated-key-0123456789abcdef';
const SUSPENDED_KEY = 'race-suspended-key-0123456789abc';

describe.each(TEST_STORES)('a lookup racing a change on %s', (kind) => {
  let t: TestApp;
  let gated: GatedStore;
  let other: Store;

  beforeAll(async () => {
    t = await createTestApp(kind, {
      lines: [
        accountLine('seller', SELLER_KEY),
        accountLine('rotated', ROTATED_KEY),
        accountLine('suspended', SUSPENDED_KEY),
        ITEM,
        purchase(),
      ],
      wrapStore: (store) => {
        gated = new GatedStore(store);
        return gated.view();
      },
    });
    other = await openStore(loadConfig(t.env).store);
  });
  afterAll(async () => {
    await other.close();
    await t.close();
  });

  const details = (key: string) => t.app.inject({ url: '/api/account/details', headers: { 'x-api-key': key } });
  const validate = (key: string, code = 'race-code-1') =>
    t.app.inject({
      method: 'POST',
      url: '/api/purchases/validation',
      headers: { 'x-api-key': key },
      payload: { purchase_code: code },
    });
  const importElsewhere = async (lines: object[]) => {
    const result = await importNdjson(other, t.keys, Readable.from([lines.map((l) => JSON.stringify(l)).join('\n')]));
    expect(result.ok).toBe(true);
  };
  /**
   * Sends requests (with a key no case changes, so that none counts as a failed attempt) until one
   * of them has made the app hear a change: each request asks the store once, at its start.
   */
  const untilChangeSeen = async () => {
    let seen = false;
    const heard = gated.nextChangeSeen().then(() => {
      seen = true;
    });
    while (!seen) {
      expect((await details(SELLER_KEY)).statusCode).toBe(200);
      // A cached answer never touches a socket: let the event loop read the change signal's connection.
      await new Promise((resolve) => setImmediate(resolve));
    }
    await heard;
  };
  /** Holds `method`'s next lookup, made by `ask`, across `change`; returns the held request's answer. */
  const raced = async (method: Gated, ask: () => Promise<{ statusCode: number }>, change: () => Promise<void>) => {
    const held = gated.hold(method);
    const answer = ask();
    await held.caught;
    await change();
    await untilChangeSeen();
    held.release();
    return answer;
  };

  it('answers 401 to a key rotated while its first lookup was in flight, and 200 to the new key', async () => {
    let newKey: string | undefined;
    const inFlight = await raced(
      'accountByKeyDigest',
      () => details(ROTATED_KEY),
      async () => {
        newKey = (await rotateAccountKey(other, t.keys, 'rotated'))?.key;
      },
    );
    // It read the account before the rotation committed.
    expect(inFlight.statusCode).toBe(200);
    if (newKey === undefined) throw new Error('rotation failed');
    expect((await details(ROTATED_KEY)).statusCode).toBe(401);
    expect((await details(newKey)).statusCode).toBe(200);
  });

  it('answers 401 to an account suspended while its first lookup was in flight', async () => {
    const inFlight = await raced(
      'accountByKeyDigest',
      () => details(SUSPENDED_KEY),
      () => importElsewhere([accountLine('suspended', SUSPENDED_KEY, { status: 'suspended' })]),
    );
    expect(inFlight.statusCode).toBe(200);
    expect((await details(SUSPENDED_KEY)).statusCode).toBe(401);
  });

  it('answers 404 to a code refunded while its first lookup was in flight', async () => {
    const inFlight = await raced(
      'purchase',
      () => validate(SELLER_KEY),
      () => importElsewhere([purchase({ status: 'refunded' })]),
    );
    expect(inFlight.statusCode).toBe(200);
    expect((await validate(SELLER_KEY)).statusCode).toBe(404);
  });

  it('answers 200 to a code imported while its unknown lookup was in flight (no stale "unknown" either)', async () => {
    const later = () => validate(SELLER_KEY, 'race-code-later');
    const inFlight = await raced('purchase', later, () => importElsewhere([purchase({ code: 'RACE-CODE-LATER' })]));
    expect(inFlight.statusCode).toBe(404);
    expect((await later()).statusCode).toBe(200);
  });

  it('answers 200 to a key given while its unknown lookup was in flight (no stale "unknown" either)', async () => {
    const later = 'race-later-key-0123456789abcdef';
    const inFlight = await raced(
      'accountByKeyDigest',
      () => details(later),
      () => importElsewhere([accountLine('later', later)]),
    );
    expect(inFlight.statusCode).toBe(401);
    expect((await details(later)).statusCode).toBe(200);
  });
});
