import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NetworkSketch } from '../../src/activity/network-sketch.js';
import { loadConfig } from '../../src/config.js';
import { openStore } from '../../src/store/open-store.js';
import { activityPathOf } from '../../src/store/sqlite/sqlite-store.js';
import type { ActivityDay, Store } from '../../src/store/store.js';
import { activityDelta } from '../helpers/activity-delta.js';
import { turnsDuring } from '../helpers/event-loop-turns.js';
import { createTestDatabase, TEST_STORES, type TestDatabase } from '../helpers/test-database.js';

const day = (codeKey: string, date: string, hashes: readonly number[], validations = hashes.length): ActivityDay => {
  const sketch = new NetworkSketch();
  for (const hash of hashes) sketch.add(hash);
  const at = Date.parse(`${date}T12:00:00.000Z`);
  return {
    account: 'ann',
    codeKey,
    day: date,
    validations,
    firstSeen: at,
    lastSeen: at + 1,
    sketch: sketch.serialize(),
    networks: sketch.estimate(),
  };
};

describe.each(TEST_STORES)('the activity tables (%s)', (kind) => {
  let database: TestDatabase;
  let store: Store;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
    store = await openStore(loadConfig(database.env).store);
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  it('merge a day written twice: validations added, networks united, first and last seen widened', async () => {
    await store.recordActivity(
      [day('c1', '2026-03-01', [1, 2, 3]), day('c2', '2026-03-01', [9])].map((d) => activityDelta(d)),
    );
    await store.recordActivity(
      [day('c1', '2026-03-01', [3, 4], 5), day('c1', '2026-03-02', [1])].map((d) => activityDelta(d)),
    );
    const days = await store.activityDays('ann', ['c1', 'c2'], '2026-01-01');
    expect(days.map((d) => [d.codeKey, d.day, d.validations, d.networks])).toEqual([
      ['c1', '2026-03-02', 1, 1],
      ['c1', '2026-03-01', 8, 4],
      ['c2', '2026-03-01', 1, 1],
    ]);
    expect(await store.activitySummaries('ann', '2026-03-01')).toEqual(
      expect.arrayContaining([
        {
          codeKey: 'c1',
          validations: 9,
          networkDays: 5,
          busiestDay: 4,
          days: 2,
          firstSeen: Date.parse('2026-03-01T12:00:00.000Z'),
          lastSeen: Date.parse('2026-03-02T12:00:00.001Z'),
        },
      ]),
    );
    expect(await store.activitySummaries('bob', '2026-03-01')).toEqual([]);
    expect(await store.dropActivityBefore('2026-03-02')).toBe(2);
    expect((await store.activityDays('ann', ['c1', 'c2'], '0000-01-01')).map((d) => d.day)).toEqual(['2026-03-02']);
  });

  it('add each counts-only delta once: to its stored day, or written whole when its day is not stored', async () => {
    await store.recordActivity(
      [day('k1', '2026-03-07', [1, 2]), day('k3', '2026-03-07', [5])].map((d) => activityDelta(d)),
    );
    // Stored, not stored, stored, then a delta with networks of its own: one flush.
    await store.recordActivity([
      activityDelta(day('k1', '2026-03-07', [1], 3), true),
      activityDelta(day('k2', '2026-03-07', [7, 8], 2), true),
      activityDelta(day('k3', '2026-03-07', [5], 4), true),
      activityDelta(day('k4', '2026-03-07', [9], 1), false),
    ]);
    const days = await store.activityDays('ann', ['k1', 'k2', 'k3', 'k4'], '2026-03-07');
    expect(days.map((d) => [d.codeKey, d.validations, d.networks])).toEqual([
      ['k1', 5, 2],
      ['k2', 2, 2],
      ['k3', 5, 1],
      ['k4', 1, 1],
    ]);
  });
});

describe('the activity tables on SQLite', () => {
  let database: TestDatabase;
  let store: Store;
  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    store = await openStore(loadConfig(database.env).store);
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  it('move only the counts of a day whose networks are stored, and write a day that is not stored whole', async () => {
    await store.recordActivity([activityDelta(day('c4', '2026-03-04', [1, 2]))]);
    // The delta names a network the day lacks: told its networks are stored, the store trusts it.
    await store.recordActivity([
      activityDelta(day('c4', '2026-03-04', [3], 4), true),
      activityDelta(day('c5', '2026-03-04', [7, 8], 2), true),
    ]);
    const days = await store.activityDays('ann', ['c4', 'c5'], '2026-03-04');
    const at = Date.parse('2026-03-04T12:00:00.000Z');
    expect(days.map((d) => [d.codeKey, d.validations, d.networks, d.firstSeen, d.lastSeen])).toEqual([
      ['c4', 6, 2, at, at + 1],
      ['c5', 2, 2, at, at + 1],
    ]);
    const [c4] = days;
    expect(NetworkSketch.parse(c4?.sketch as string).estimate()).toBe(2);
  });

  it('add the counts of a stored day at the row the store named, and by key when that row holds another day', async () => {
    const told = new Map<string, number[]>();
    const deltaOf = (codeKey: string, validations: number, networksStored: boolean, storedRow?: number) => ({
      ...activityDelta(day(codeKey, '2026-03-06', [1], validations), networksStored),
      storedRow,
      rowStored: (row: number) => told.set(codeKey, [...(told.get(codeKey) ?? []), row]),
    });
    await store.recordActivity([deltaOf('c6', 1, false), deltaOf('c7', 1, false)]);
    const file = new BetterSqlite3(activityPathOf(join(database.dir, 'marketplace.db')), { readonly: true });
    try {
      const rowOf = (codeKey: string) =>
        file.prepare('SELECT rowid FROM purchase_activity WHERE code_key = ?').pluck().get(codeKey) as number;
      const [c6, c7] = [rowOf('c6'), rowOf('c7')];
      expect(told).toEqual(
        new Map([
          ['c6', [c6]],
          ['c7', [c7]],
        ]),
      );
      // Named at its own row, then at c7's: c6 is counted both times, c7 never.
      await store.recordActivity([deltaOf('c6', 2, true, c6)]);
      await store.recordActivity([deltaOf('c6', 4, true, c7)]);
      expect(told.get('c6')).toEqual([c6, c6, c6]);
      const counts = await store.activityDays('ann', ['c6', 'c7'], '2026-03-06');
      expect(counts.map((d) => [d.codeKey, d.validations])).toEqual([
        ['c6', 7],
        ['c7', 1],
      ]);
    } finally {
      file.close();
    }
  });

  it('let requests in while a long flush is written: the event loop gets turns before the flush ends, and every day is written', async () => {
    const deltas = Array.from({ length: 3_000 }, (_, n) => activityDelta(day(`turn-${n}`, '2026-03-05', [n, n + 1])));
    const { turns } = await turnsDuring(() => store.recordActivity(deltas));
    // One turn may come at the flush's first await (its transaction): more means rows were written between turns.
    expect(turns).toBeGreaterThan(1);
    const codes = deltas.map((delta) => delta.codeKey);
    expect((await store.activityDays('ann', codes, '2026-03-05')).length).toBe(3_000);
  });

  it('live in a file of their own beside the store’s (mode 0600), so writing them changes nothing other processes watch', async () => {
    const path = join(database.dir, 'marketplace.db');
    expect(activityPathOf(path)).toBe(join(database.dir, 'marketplace-activity.db'));
    expect(existsSync(activityPathOf(path))).toBe(true);
    expect(statSync(activityPathOf(path)).mode & 0o777).toBe(0o600);
    const other = new BetterSqlite3(path, { readonly: true });
    try {
      const version = () => other.pragma('data_version', { simple: true });
      const before = version();
      await store.recordActivity([day('c3', '2026-03-03', [5])].map((d) => activityDelta(d)));
      expect(version()).toBe(before);
      const tables = other.prepare("SELECT name FROM sqlite_master WHERE name = 'purchase_activity'").all();
      expect(tables).toEqual([]);
    } finally {
      other.close();
    }
  });
});
