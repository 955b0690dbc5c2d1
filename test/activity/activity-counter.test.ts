import { describe, expect, it } from 'vitest';
import { createActivityCounter } from '../../src/activity/activity-counter.js';
import { mergeActivityDays } from '../../src/activity/activity-days.js';
import type { ActivityDay, ActivityMerge } from '../../src/store/store.js';

/** A store's two activity writes, in memory, that can be told to fail. */
function memoryStore() {
  const days = new Map<string, ActivityDay>();
  const state = { failing: false, writes: 0 };
  return {
    state,
    days,
    async recordActivity(gathered: readonly ActivityDay[], merge: ActivityMerge) {
      if (state.failing) throw Object.assign(new Error('connection refused'), { code: 'ECONNREFUSED' });
      state.writes++;
      for (const day of gathered) {
        const key = `${day.account}/${day.codeKey}/${day.day}`;
        const stored = days.get(key);
        days.set(key, stored === undefined ? day : merge(stored, day));
      }
    },
    async dropActivityBefore() {
      return 0;
    },
  };
}

describe('ActivityCounter', () => {
  it('gathers in memory, writes nothing per validation, and one row per code and UTC day at flush', async () => {
    const store = memoryStore();
    let now = Date.parse('2026-03-01T23:59:59.000Z');
    const errors: unknown[] = [];
    const counter = createActivityCounter(store, {
      enabled: true,
      flushSeconds: 300,
      retentionDays: 90,
      networkHash: (address) => Number(address.split('.')[2]),
      onError: (error) => errors.push(error),
      now: () => now,
    });
    counter.validated('ann', 'code-1', '198.51.1.1');
    counter.validated('ann', 'code-1', '198.51.2.1');
    counter.validated('ann', 'code-2', undefined);
    now += 2000;
    counter.validated('ann', 'code-1', '198.51.1.9');
    expect(store.state.writes).toBe(0);
    await counter.flush();
    expect(store.state.writes).toBe(1);
    const summary = [...store.days.values()].map((day) => [day.codeKey, day.day, day.validations, day.networks]);
    expect(summary).toEqual([
      ['code-1', '2026-03-01', 2, 2],
      ['code-2', '2026-03-01', 1, 0],
      ['code-1', '2026-03-02', 1, 1],
    ]);
    await counter.close();
    expect(errors).toEqual([]);
  });

  it('keeps what a failed flush took and writes it with what came since at the next', async () => {
    const store = memoryStore();
    const errors: unknown[] = [];
    const counter = createActivityCounter(store, {
      enabled: true,
      flushSeconds: 300,
      retentionDays: 90,
      networkHash: (address) => Number(address.split('.')[2]),
      onError: (error) => errors.push(error),
      now: () => Date.parse('2026-03-01T10:00:00.000Z'),
    });
    counter.validated('ann', 'code-1', '198.51.1.1');
    store.state.failing = true;
    await counter.flush();
    expect(errors).toHaveLength(1);
    counter.validated('ann', 'code-1', '198.51.2.1');
    store.state.failing = false;
    await counter.close();
    expect([...store.days.values()].map((day) => [day.validations, day.networks])).toEqual([[2, 2]]);
  });

  it('merges a stored day it cannot read as empty rather than failing every later flush', () => {
    const gathered: ActivityDay = {
      account: 'ann',
      codeKey: 'code-1',
      day: '2026-03-01',
      validations: 2,
      firstSeen: 10,
      lastSeen: 20,
      sketch: Buffer.from([1, 0, 0, 0, 7]).toString('base64'),
      networks: 1,
    };
    const merged = mergeActivityDays({ ...gathered, sketch: 'damaged', validations: 5, firstSeen: 5 }, gathered);
    expect([merged.validations, merged.networks, merged.firstSeen, merged.lastSeen]).toEqual([7, 1, 5, 20]);
  });
});
