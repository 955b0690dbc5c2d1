import { describe, expect, it } from 'vitest';
import { createActivityCounter, FLUSH_PART, KEPT_CODES } from '../../src/activity/activity-counter.js';
import { NetworkSketch } from '../../src/activity/network-sketch.js';
import type { ActivityDay, ActivityDelta } from '../../src/store/store.js';
import { activityDelta } from '../helpers/activity-delta.js';

/**
 * A store's two activity writes, in memory, that can be told to fail: a delta whose networks are
 * stored moves the counts alone, as the stores do (`countsOnly` says how many did).
 */
function memoryStore() {
  const days = new Map<string, ActivityDay>();
  const state = { failing: false, writes: 0, countsOnly: 0 };
  return {
    state,
    days,
    async recordActivity(deltas: readonly ActivityDelta[]) {
      if (state.failing) throw Object.assign(new Error('connection refused'), { code: 'ECONNREFUSED' });
      state.writes++;
      for (const delta of deltas) {
        const key = `${delta.account}/${delta.codeKey}/${delta.day}`;
        const stored = days.get(key);
        const counts = {
          account: delta.account,
          codeKey: delta.codeKey,
          day: delta.day,
          validations: (stored?.validations ?? 0) + delta.validations,
          firstSeen: Math.min(stored?.firstSeen ?? delta.firstSeen, delta.firstSeen),
          lastSeen: Math.max(stored?.lastSeen ?? delta.lastSeen, delta.lastSeen),
        };
        if (delta.networksStored && stored !== undefined) {
          state.countsOnly++;
          days.set(key, { ...stored, ...counts });
        } else {
          days.set(key, { ...counts, ...delta.sketchWith(stored?.sketch) });
        }
      }
    },
    async dropActivityBefore() {
      return 0;
    },
  };
}

const sketchOf = (...hashes: number[]) => {
  const sketch = new NetworkSketch();
  for (const hash of hashes) sketch.add(hash);
  return sketch.serialize();
};

/**
 * A counter over `store` whose clock is `now`, with the third octet of an address as its network's
 * hash; errors are thrown unless `onError` keeps them.
 */
function counterOver(
  store: Parameters<typeof createActivityCounter>[0],
  now: () => number,
  onError: (error: unknown) => void = (error) => {
    throw error;
  },
) {
  return createActivityCounter(store, {
    enabled: true,
    flushSeconds: 300,
    retentionDays: 90,
    networkHash: (address) => Number(address.split('.')[2]),
    onError,
    now,
  });
}

describe('ActivityCounter', () => {
  it('gathers in memory, writes nothing per validation, and one row per code and UTC day at flush', async () => {
    const store = memoryStore();
    let now = Date.parse('2026-03-01T23:59:59.000Z');
    const errors: unknown[] = [];
    const counter = counterOver(
      store,
      () => now,
      (error) => errors.push(error),
    );
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

  it('writes a flush of many codes in one call to the store (one transaction)', async () => {
    const store = memoryStore();
    const counter = counterOver(store, () => Date.parse('2026-03-01T12:00:00.000Z'));
    for (let n = 0; n < 1_200; n++) counter.validated('ann', `code-${n}`, '198.51.1.1');
    await counter.flush();
    expect(store.state.writes).toBe(1);
    expect(store.days.size).toBe(1_200);
    await counter.close();
  });

  it("writes one seller's gathered counts alone when asked for that seller, and nothing when it has none waiting", async () => {
    const store = memoryStore();
    const counter = counterOver(store, () => Date.parse('2026-03-01T12:00:00.000Z'));
    counter.validated('ann', 'code-1', '198.51.1.1');
    counter.validated('bob', 'code-2', '198.51.2.1');
    counter.validated('ann', 'code-3', '198.51.3.1');
    await counter.flush('carol');
    expect(store.state.writes).toBe(0);
    await counter.flush('ann');
    expect(store.state.writes).toBe(1);
    expect([...store.days.keys()]).toEqual(['ann/code-1/2026-03-01', 'ann/code-3/2026-03-01']);
    await counter.flush('ann');
    expect(store.state.writes).toBe(1);
    counter.validated('ann', 'code-1', '198.51.1.1');
    await counter.flush();
    expect(store.state.writes).toBe(2);
    expect([...store.days.entries()].map(([key, day]) => [key, day.validations])).toEqual([
      ['ann/code-1/2026-03-01', 2],
      ['ann/code-3/2026-03-01', 1],
      ['bob/code-2/2026-03-01', 1],
    ]);
    await counter.close();
  });

  it('writes a flush of more than FLUSH_PART codes in parts, and after a failed part writes the rest exactly once', async () => {
    const store = memoryStore();
    const errors: unknown[] = [];
    const counter = counterOver(
      store,
      () => Date.parse('2026-03-01T12:00:00.000Z'),
      (error) => errors.push(error),
    );
    const codes = FLUSH_PART * 2 + 5;
    for (let n = 0; n < codes; n++) counter.validated('ann', `code-${n}`, '198.51.1.1');
    const realRecord = store.recordActivity;
    const parts: number[] = [];
    store.recordActivity = async (deltas) => {
      parts.push(deltas.length);
      // The second part fails once.
      if (parts.length === 2) throw Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' });
      await realRecord(deltas);
    };
    await counter.flush();
    expect(parts).toEqual([FLUSH_PART, FLUSH_PART]);
    expect(errors).toHaveLength(1);
    expect(store.days.size).toBe(FLUSH_PART);
    counter.validated('ann', 'code-0', '198.51.1.1');
    await counter.flush();
    expect(parts).toEqual([FLUSH_PART, FLUSH_PART, FLUSH_PART, 6]);
    expect(store.days.size).toBe(codes);
    const validations = [...store.days.values()].map((day) => day.validations);
    expect(validations.reduce((sum, n) => sum + n, 0)).toBe(codes + 1);
    expect(store.days.get('ann/code-0/2026-03-01')?.validations).toBe(2);
    await counter.close();
  });

  it('keeps what a failed flush took and writes it with what came since at the next', async () => {
    const store = memoryStore();
    const errors: unknown[] = [];
    const counter = counterOver(
      store,
      () => Date.parse('2026-03-01T10:00:00.000Z'),
      (error) => errors.push(error),
    );
    counter.validated('ann', 'code-1', '198.51.1.1');
    store.state.failing = true;
    await counter.flush();
    expect(errors).toHaveLength(1);
    counter.validated('ann', 'code-1', '198.51.2.1');
    store.state.failing = false;
    await counter.close();
    expect([...store.days.values()].map((day) => [day.validations, day.networks])).toEqual([[2, 2]]);
  });

  it('merges a stored day it cannot read as empty rather than failing every later flush', async () => {
    const store = memoryStore();
    const at = Date.parse('2026-03-01T10:00:00.000Z');
    store.days.set('ann/code-1/2026-03-01', {
      account: 'ann',
      codeKey: 'code-1',
      day: '2026-03-01',
      validations: 5,
      firstSeen: at - 5,
      lastSeen: at - 1,
      sketch: 'damaged',
      networks: 3,
    });
    const counter = counterOver(store, () => at);
    counter.validated('ann', 'code-1', '198.51.7.1');
    counter.validated('ann', 'code-1', '198.51.7.2');
    await counter.close();
    const [merged] = [...store.days.values()];
    expect([merged?.validations, merged?.networks, merged?.firstSeen, merged?.lastSeen]).toEqual([7, 1, at - 5, at]);
  });

  it('once a day is written, moves only its counts while no new network comes, and merges again when one does', async () => {
    const store = memoryStore();
    let now = Date.parse('2026-03-01T10:00:00.000Z');
    const counter = counterOver(store, () => now);
    const flushed = async () => {
      await counter.flush();
      const day = store.days.get('ann/code-1/2026-03-01');
      return [day?.validations, day?.networks, day?.lastSeen, store.state.countsOnly];
    };
    counter.validated('ann', 'code-1', '198.51.1.1');
    expect(await flushed()).toEqual([1, 1, now, 0]);
    now += 1000;
    counter.validated('ann', 'code-1', '198.51.1.2');
    counter.validated('ann', 'code-1', '198.51.1.3');
    expect(await flushed()).toEqual([3, 1, now, 1]);
    now += 1000;
    counter.validated('ann', 'code-1', '198.51.2.1');
    expect(await flushed()).toEqual([4, 2, now, 1]);
    // Another process wrote a network of its own to the day: a counts-only write keeps it.
    const stored = store.days.get('ann/code-1/2026-03-01') as ActivityDay;
    store.days.set('ann/code-1/2026-03-01', {
      ...stored,
      ...activityDelta({ ...stored, sketch: sketchOf(1, 2, 9) }).sketchWith(undefined),
    });
    counter.validated('ann', 'code-1', '198.51.2.1');
    expect(await flushed()).toEqual([5, 3, now, 2]);
    // Nothing validated: nothing written.
    const writes = store.state.writes;
    await counter.flush();
    expect(store.state.writes).toBe(writes);
    await counter.close();
  });

  it("counts a validation given the code's mark on the entry it marks, and ignores a mark of another code, account or day", async () => {
    const store = memoryStore();
    let now = Date.parse('2026-03-01T23:59:58.000Z');
    const counter = counterOver(store, () => now);
    const mark = counter.validated('ann', 'code-1', '198.51.1.1');
    expect(counter.validated('ann', 'code-1', '198.51.1.1', mark)).toBe(mark);
    // Marks handed to the wrong code or account count where the validation belongs.
    const other = counter.validated('ann', 'code-2', '198.51.2.1', mark);
    expect(other).not.toBe(mark);
    counter.validated('bob', 'code-1', '198.51.3.1', mark);
    now += 2000;
    // Past midnight the mark is yesterday's: the validation counts for the new day.
    const nextDay = counter.validated('ann', 'code-1', '198.51.1.1', mark);
    expect(nextDay).not.toBe(mark);
    await counter.close();
    const summary = [...store.days.values()].map((day) => [day.account, day.codeKey, day.day, day.validations]);
    expect(summary).toEqual([
      ['ann', 'code-1', '2026-03-01', 2],
      ['ann', 'code-2', '2026-03-01', 1],
      ['bob', 'code-1', '2026-03-01', 1],
      ['ann', 'code-1', '2026-03-02', 1],
    ]);
  });

  it('counts every network when a code alternates between clients (the last one is not counted twice, nor a return missed)', async () => {
    const store = memoryStore();
    const counter = counterOver(store, () => Date.parse('2026-03-01T10:00:00.000Z'));
    let mark: ReturnType<typeof counter.validated>;
    for (const address of ['198.51.1.1', '198.51.1.1', '198.51.2.1', '198.51.1.1', '198.51.3.1', '198.51.3.1']) {
      mark = counter.validated('ann', 'code-1', address, mark);
    }
    await counter.close();
    expect([...store.days.values()].map((day) => [day.validations, day.networks])).toEqual([[6, 3]]);
  });

  it("writes what a marked entry gathered after today's codes let go of it", async () => {
    const store = memoryStore();
    const counter = counterOver(store, () => Date.parse('2026-03-01T10:00:00.000Z'));
    const mark = counter.validated('ann', 'code-0', '198.51.1.1');
    // Past KEPT_CODES written codes, half are let go of, the oldest first: code-0 among them.
    for (let n = 1; n <= KEPT_CODES; n++) counter.validated('ann', `code-${n}`, '198.51.1.1');
    await counter.flush();
    counter.validated('ann', 'code-0', '198.51.2.1', mark);
    await counter.close();
    const day = store.days.get('ann/code-0/2026-03-01');
    expect([day?.validations, day?.networks]).toEqual([2, 2]);
  });
});
