import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeActivity, topCodes } from '../../src/activity/activity-report.js';
import { ActivityReportsBusyError, createReportThread } from '../../src/activity/report-thread.js';
import { loadConfig } from '../../src/config.js';
import { openStore } from '../../src/store/open-store.js';
import { type Store, StoreUnavailableError } from '../../src/store/store.js';
import type { StoreLocation } from '../../src/store/store-location.js';
import { activityDelta } from '../helpers/activity-delta.js';
import { hashRange, historyDay } from '../helpers/activity-history.js';
import { createTestDatabase, TEST_STORES, type TestDatabase } from '../helpers/test-database.js';

/**
 * The activity reports' worker thread over a real store: its own connection (read-only SQLite,
 * a pool of its own on PostgreSQL) answers exactly what the same report made on this thread
 * answers; questions past the waiting bounds are refused at once, and a store it cannot reach
 * is "unavailable" (503), as the serving store's failures are.
 */
const OPTIONS = { maxWaiting: 6, maxWaitingPerAccount: 4, idleMs: 60_000 };

describe.each(TEST_STORES)('the activity report thread (%s)', (kind) => {
  let database: TestDatabase;
  let store: Store;
  let location: StoreLocation;
  const now = Date.now();
  beforeAll(async () => {
    database = await createTestDatabase(kind);
    location = loadConfig(database.env).store;
    store = await openStore(location);
    // Forty codes over five days: each day the same ten networks and one of its own, so that the
    // window's networks (union) are fewer than the days' added up, and sketches must be read.
    const days = [];
    for (let code = 0; code < 40; code++) {
      for (let ago = 0; ago < 5; ago++) {
        const hashes = [...hashRange(code * 100, code * 100 + 10 + code), 1_000_000 + code * 10 + ago];
        days.push(historyDay('ann', `code-${code}`, now, ago, hashes, code + ago));
      }
    }
    await store.recordActivity(days.map((day) => activityDelta(day)));
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  it('answers exactly what the report made on this thread answers: a top list and a code’s activity', async () => {
    const thread = createReportThread(location, OPTIONS);
    try {
      for (const [days, limit] of [
        [30, 50],
        [3, 7],
        [1, 100],
      ] as const) {
        const top = await thread.ask({ type: 'top', account: 'ann', days, limit, now });
        expect(top).toEqual(await topCodes(store, 'ann', days, limit, now));
        expect(top.length).toBe(Math.min(limit, 40));
      }
      expect((await thread.ask({ type: 'top', account: 'ann', days: 30, limit: 2, now }))[0]).toEqual({
        codeKey: 'code-39',
        validations: 39 * 5 + 10,
        networks: 10 + 39 + 5,
        firstSeen: historyDay('ann', 'code-39', now, 4, [], 0).firstSeen,
        lastSeen: historyDay('ann', 'code-39', now, 0, [], 0).lastSeen,
      });
      const activity = await thread.ask({ type: 'code', account: 'ann', codeKey: 'code-3', retentionDays: 90, now });
      expect(activity).toEqual(await codeActivity(store, 'ann', 'code-3', 90, now));
      expect([activity.validations, activity.networks, activity.days.length]).toEqual([3 * 5 + 10, 10 + 3 + 5, 5]);
      const never = await thread.ask({ type: 'code', account: 'ann', codeKey: 'code-x', retentionDays: 90, now });
      expect(never).toEqual({ validations: 0, networks: 0, firstSeen: undefined, lastSeen: undefined, days: [] });
    } finally {
      await thread.close();
    }
  });

  it('refuses a question past the waiting bounds at once: per seller, then in all; answers those it took', async () => {
    const thread = createReportThread(location, OPTIONS);
    try {
      const ask = (account: string, limit: number) => thread.ask({ type: 'top', account, days: 30, limit, now });
      const taken = [1, 2, 3, 4].map((limit) => ask('ann', limit));
      await expect(ask('ann', 5)).rejects.toBeInstanceOf(ActivityReportsBusyError);
      // Another seller's questions are still taken, up to the bound in all.
      const others = [ask('bea', 1), ask('bea', 2)];
      await expect(ask('cid', 1)).rejects.toBeInstanceOf(ActivityReportsBusyError);
      const answers = await Promise.all(taken);
      expect(answers.map((top) => top.length)).toEqual([1, 2, 3, 4]);
      expect(await Promise.all(others)).toEqual([[], []]);
      // Answered, they wait no more.
      expect((await ask('ann', 5)).length).toBe(5);
    } finally {
      await thread.close();
    }
  });

  it('starts again after ending idle, and refuses questions once closed', async () => {
    const thread = createReportThread(location, { ...OPTIONS, idleMs: 0 });
    const top = () => thread.ask({ type: 'top', account: 'ann', days: 30, limit: 1, now });
    expect((await top())[0]?.codeKey).toBe('code-39');
    expect((await top())[0]?.codeKey).toBe('code-39');
    await thread.close();
    await expect(top()).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  it('says the store is unavailable when its connection cannot be had', async () => {
    const unreachable: StoreLocation =
      location.kind === 'sqlite'
        ? { kind: 'sqlite', path: `${database.dir}/no-such-dir/marketplace.db` }
        : { ...location, url: 'postgres://postgres@127.0.0.1:1/nowhere', connectTimeoutMs: 1_000 };
    const thread = createReportThread(unreachable, OPTIONS);
    try {
      await expect(thread.ask({ type: 'top', account: 'ann', days: 30, limit: 1, now })).rejects.toBeInstanceOf(
        StoreUnavailableError,
      );
    } finally {
      await thread.close();
    }
  });
});
