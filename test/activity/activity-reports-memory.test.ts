import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivityReports } from '../../src/activity/activity-reports.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { activityDelta } from '../helpers/activity-delta.js';
import { hashRange, historyDay } from '../helpers/activity-history.js';

/**
 * The reports over an in-memory SQLite store, which no other connection can see: made on the
 * calling thread, from the store itself, and reused until the seller's counts are written.
 */
describe('activity reports over an in-memory SQLite store', () => {
  let store: Store;
  const now = Date.now();
  beforeAll(async () => {
    store = await openStore({ kind: 'sqlite', path: ':memory:' });
    await store.recordActivity([activityDelta(historyDay('ann', 'code-a', now, 1, hashRange(0, 5), 5))]);
  });
  afterAll(async () => {
    await store?.close();
  });

  it('makes them on this thread, gives one again until the seller’s counts are written, then makes it anew', async () => {
    const reports = createActivityReports({
      location: { kind: 'sqlite', path: ':memory:' },
      store,
      reuseMs: 60_000,
      now: () => now,
    });
    try {
      const first = await reports.top('ann', 30, 10);
      expect(first.map((code) => [code.codeKey, code.validations, code.networks])).toEqual([['code-a', 5, 5]]);
      // Written by another process (no `wrote` here): the report of a moment ago is given again.
      await store.recordActivity([activityDelta(historyDay('ann', 'code-b', now, 0, hashRange(10, 17), 7))]);
      expect(await reports.top('ann', 30, 10)).toEqual(first);
      // Written by this process's flush: made anew.
      reports.wrote(['ann']);
      const second = await reports.top('ann', 30, 10);
      expect(second.map((code) => [code.codeKey, code.validations, code.networks])).toEqual([
        ['code-b', 7, 7],
        ['code-a', 5, 5],
      ]);
      const activity = await reports.ofCode('ann', 'code-b', 90);
      expect([activity.validations, activity.networks, activity.days.length]).toEqual([7, 7, 1]);
    } finally {
      await reports.close();
    }
  });
});
