import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dayOf } from '../../src/activity/activity-days.js';
import type { Store } from '../../src/store/store.js';
import { ALL_LINES, KEYS } from '../api/fixtures.js';
import { expectJson, url } from '../api/http-assertions.js';
import { activityDelta } from '../helpers/activity-delta.js';
import { hashRange, historyDay } from '../helpers/activity-history.js';
import { createTestApp, TEST_STORES, type TestApp, VARIANTS } from '../helpers/test-app.js';

/**
 * The activity endpoints' reports are made off the serving thread, on a store connection of the
 * reports' own: the app is given a store whose activity reads fail, and still answers exactly.
 * A process's own validations show at once, though the report of a moment ago is kept for reuse.
 * On PostgreSQL, a report held up by the store leaves other requests answered meanwhile.
 */

const [en] = VARIANTS;

/** The store the app is given: the real one, but its activity reads fail, so only another connection can make a report. */
function withoutActivityReads(store: Store): Store {
  return new Proxy(store, {
    get(target, name, receiver) {
      if (name === 'activityDays' || name === 'activitySummaries') {
        return () => Promise.reject(new Error('an activity report was made on the serving thread'));
      }
      const value = Reflect.get(target, name, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

describe.each(TEST_STORES)('activity reports off the serving thread (%s)', (kind) => {
  let t: TestApp;
  const now = Date.now();
  // ALICE-REG-0001 on five days: ten networks every day and one of the day's own (15 in all,
  // 55 added up); Alice-Ext-0002 on one day from twenty networks.
  const reg = [0, 1, 2, 3, 4].map((ago) =>
    historyDay('alice', 'alice-reg-0001', now, ago, [...hashRange(1, 11), 100 + ago], 3),
  );
  const ext = historyDay('alice', 'alice-ext-0002', now, 2, hashRange(200, 220), 20);
  const iso = (at: number) => new Date(at).toISOString();

  beforeAll(async () => {
    t = await createTestApp(kind, {
      configFile: { trustProxy: ['127.0.0.1'] },
      lines: ALL_LINES,
      wrapStore: withoutActivityReads,
    });
    await t.store.recordActivity([...reg, ext].map((day) => activityDelta(day)));
  });
  afterAll(async () => {
    await t?.close();
  });

  const top = (query: readonly (readonly [string, string])[] = [], key: string = KEYS.alice) =>
    t.app.inject({
      method: 'GET',
      url: url(en, '/api/purchases/activity/top', query),
      headers: { 'x-api-key': key },
    });
  const activity = (code: string) =>
    t.app.inject({
      method: 'GET',
      url: url(en, '/api/purchases/activity', [['purchase_code', code]]),
      headers: { 'x-api-key': KEYS.alice },
    });
  const validate = (code: string, forwardedFor: string, key: string = KEYS.alice) =>
    t.app.inject({
      method: 'POST',
      url: url(en, '/api/purchases/validation'),
      headers: { 'x-api-key': key, 'x-forwarded-for': forwardedFor },
      payload: { purchase_code: code },
    });
  const extEntry = {
    purchase_code: 'Alice-Ext-0002',
    item_id: 102,
    purchase_status: 'active',
    validations: 20,
    networks: 20,
    first_seen: iso(ext.firstSeen),
    last_seen: iso(ext.lastSeen),
  };

  it('answers the top list and a code’s activity exactly, with the serving store’s activity reads failing', async () => {
    const regEntry = {
      purchase_code: 'ALICE-REG-0001',
      item_id: 101,
      purchase_status: 'active',
      validations: 15,
      networks: 15,
      first_seen: iso((reg[4] as (typeof reg)[number]).firstSeen),
      last_seen: iso((reg[0] as (typeof reg)[number]).lastSeen),
    };
    expectJson(await top(), 200, { status: en.ok, data: { days: 30, codes: [extEntry, regEntry] } });
    expectJson(await top([['days', '2']]), 200, {
      status: en.ok,
      data: {
        days: 2,
        codes: [
          {
            ...regEntry,
            validations: 6,
            networks: 12,
            first_seen: iso((reg[1] as (typeof reg)[number]).firstSeen),
          },
        ],
      },
    });
    expectJson(await activity('alice-reg-0001'), 200, {
      status: en.ok,
      data: {
        activity: {
          purchase_code: 'ALICE-REG-0001',
          validations: 15,
          networks: 15,
          first_seen: regEntry.first_seen,
          last_seen: regEntry.last_seen,
          days: reg.map((day) => ({ date: day.day, validations: 3, networks: 11 })),
        },
      },
    });
  });

  it('shows this process’s own validations at once, though the same list was made a moment ago', async () => {
    const before = JSON.parse((await top([['limit', '1']])).body);
    expect(before.data.codes[0]).toEqual(extEntry);
    // Five validations of Alice-Ext-0002 from five new networks: 25 validations, 25 networks.
    for (let n = 0; n < 5; n++)
      expect((await validate('Alice-Ext-0002', `198.51.100.${n}, 203.0.${n}.9`)).statusCode).toBe(200);
    const after = JSON.parse((await top([['limit', '1']])).body);
    expect([after.data.codes[0].validations, after.data.codes[0].networks]).toEqual([25, 25]);
    const code = JSON.parse((await activity('ALICE-EXT-0002')).body);
    expect([code.data.activity.validations, code.data.activity.networks]).toEqual([25, 25]);
    expect(code.data.activity.days[0]).toEqual({ date: dayOf(Date.now()), validations: 5, networks: 5 });
  });
});

describe.runIf(TEST_STORES.includes('postgres'))('an activity report held up by PostgreSQL', () => {
  let t: TestApp;
  /** The lock's holder, and an observer (in a transaction, pg_stat_activity would not change). */
  let client: pg.Client;
  let observer: pg.Client;
  beforeAll(async () => {
    t = await createTestApp('postgres', { lines: ALL_LINES });
    client = new pg.Client({ connectionString: t.env.DATABASE_URL });
    observer = new pg.Client({ connectionString: t.env.DATABASE_URL });
    await Promise.all([client.connect(), observer.connect()]);
  });
  afterAll(async () => {
    await Promise.all([client?.end(), observer?.end()]);
    await t?.close();
  });

  /** Backends of the reports' own pool waiting for a lock. */
  const reportsWaiting = async () =>
    (
      await observer.query<{ waiting: number }>(
        `SELECT count(*)::int AS waiting FROM pg_stat_activity
         WHERE datname = current_database() AND application_name = 'marketplace-api:reports' AND wait_event_type = 'Lock'`,
      )
    ).rows[0]?.waiting ?? 0;

  it('is made on the reports’ own connection while the serving thread answers other requests', async () => {
    await client.query('BEGIN');
    await client.query('LOCK TABLE purchase_activity IN ACCESS EXCLUSIVE MODE');
    let answered = false;
    const held = t.app
      .inject({ method: 'GET', url: '/api/purchases/activity/top', headers: { 'x-api-key': KEYS.bob } })
      .finally(() => {
        answered = true;
      });
    // Waits until the report's query is held by the lock: on the reports' connection, not the app's.
    while ((await reportsWaiting()) === 0) expect(answered).toBe(false);
    const details = await t.app.inject({
      method: 'GET',
      url: '/api/account/details',
      headers: { 'x-api-key': KEYS.alice },
    });
    expect(details.statusCode).toBe(200);
    expect(answered).toBe(false);
    await client.query('ROLLBACK');
    expectJson(await held, 200, { status: 'success', data: { days: 30, codes: [] } });
  });
});
