import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivityCounter } from '../../src/activity/activity-counter.js';
import { DAY_MS, dayOf } from '../../src/activity/activity-days.js';
import { NetworkSketch } from '../../src/activity/network-sketch.js';
import { ALL_LINES, KEYS, PURCHASES } from '../api/fixtures.js';
import { expectError, expectJson, expectParamError, url } from '../api/http-assertions.js';
import { activityDelta } from '../helpers/activity-delta.js';
import { createTestApp, TEST_STORES, type TestApp, type TestVariant, VARIANTS } from '../helpers/test-app.js';

/**
 * Purchase-code activity through the door (issue 24): validations counted per code, distinct
 * client networks from X-Forwarded-For behind a trusted proxy (inject's peer is 127.0.0.1), the
 * activity and top-list endpoints in both variants, and codes that are not the seller's answering
 * exactly as validation does. The networks are documentation and benchmarking ranges
 * (198.51.100.0/24, 203.0.113.0/24, 198.18.0.0/15, 2001:db8::/32): header text only, no traffic.
 */

const [en, pt] = VARIANTS;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The 198.18.0.0/15 benchmarking range's /24 number `n` (0 to 511), host `host`. */
const benchmarkAddress = (n: number, host: number) => `198.${18 + (n >> 8)}.${n & 255}.${host}`;

describe.each(TEST_STORES)('purchase-code activity (%s)', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind, { configFile: { trustProxy: ['127.0.0.1'] }, lines: ALL_LINES });
  });
  afterAll(async () => {
    await t?.close();
  });

  const validate = (code: string, forwardedFor?: string, key: string = KEYS.alice, variant: TestVariant = en) =>
    t.app.inject({
      method: 'POST',
      url: url(variant, '/api/purchases/validation'),
      headers: { 'x-api-key': key, ...(forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor }) },
      payload: { purchase_code: code },
    });
  const activity = (code: string, variant: TestVariant = en, key: string = KEYS.alice) =>
    t.app.inject({
      method: 'GET',
      url: url(variant, '/api/purchases/activity', [['purchase_code', code]]),
      headers: { 'x-api-key': key },
    });
  const top = (
    variant: TestVariant = en,
    query: readonly (readonly [string, string])[] = [],
    key: string = KEYS.alice,
  ) =>
    t.app.inject({
      method: 'GET',
      url: url(variant, '/api/purchases/activity/top', query),
      headers: { 'x-api-key': key },
    });
  const activityOf = (response: LightMyRequestResponse) =>
    (JSON.parse(response.body) as { data: { activity: Record<string, unknown> } }).data.activity;

  it('counts every validation and each client network once: 50 networks, then 30 more validations from them', async () => {
    const before = Date.now();
    for (let n = 0; n < 50; n++)
      expect((await validate('ALICE-REG-0001', benchmarkAddress(n, 7))).statusCode).toBe(200);
    for (let n = 0; n < 30; n++) {
      // The client is the last address before the trusted proxy: what it claims further left does not count.
      expect((await validate('alice-reg-0001', `192.0.2.1, ${benchmarkAddress(n, 200)}`)).statusCode).toBe(200);
    }
    const after = Date.now();
    for (const variant of [en, pt] as const) {
      const response = await activity('alice-REG-0001', variant);
      const answer = activityOf(response);
      expectJson(response, 200, {
        status: variant.ok,
        data: {
          activity: {
            purchase_code: 'ALICE-REG-0001',
            validations: 80,
            networks: 50,
            first_seen: answer.first_seen,
            last_seen: answer.last_seen,
            days: answer.days,
          },
        },
      });
      const first = Date.parse(answer.first_seen as string);
      const last = Date.parse(answer.last_seen as string);
      expect([answer.first_seen, answer.last_seen]).toEqual([expect.stringMatching(ISO), expect.stringMatching(ISO)]);
      // Counted at the counter's clock, read every 100 ms (later on a busy machine): never ahead of the wall clock.
      expect(before - 60_000 <= first && first <= last && last <= after).toBe(true);
      if (dayOf(before) === dayOf(after)) {
        expect(answer.days).toEqual([{ date: dayOf(before), validations: 80, networks: 50 }]);
      }
    }
  });

  it('takes the client from X-Forwarded-For behind a trusted proxy: IPv4 by /24, IPv6 by /48, mapped IPv4 as IPv4', async () => {
    const clients = [
      '198.51.100.1',
      '198.51.100.254',
      '203.0.113.5',
      '::ffff:203.0.113.77',
      '2001:db8:1:2::1',
      '2001:db8:1:ffff::9',
      '2001:0db8:0001::7',
      '2001:db8:2::1',
    ];
    for (const client of clients) expect((await validate('Alice-Ext-0002', client)).statusCode).toBe(200);
    const answer = activityOf(await activity('ALICE-EXT-0002'));
    expect([answer.validations, answer.networks]).toEqual([8, 4]);
  });

  it('counts refunded and cancelled codes of the seller (validation answered 404), not another seller’s', async () => {
    expectError(await validate('ALICE-REFUNDED-4', '203.0.113.9'), en, 404, en.messages.invalidPurchaseCode);
    expectError(await validate('ALICE-CANCELLED-5', '198.51.100.9'), en, 404, en.messages.invalidPurchaseCode);
    expectError(await validate('ALICE-CANCELLED-5', '198.51.100.10'), en, 404, en.messages.invalidPurchaseCode);
    // Alice validating Bob's code: not hers, so counted for nobody.
    expectError(await validate('BOB-0001', '203.0.113.9'), en, 404, en.messages.invalidPurchaseCode);
    expect([activityOf(await activity('ALICE-REFUNDED-4')).validations]).toEqual([1]);
    const cancelled = activityOf(await activity('ALICE-CANCELLED-5'));
    expect([cancelled.validations, cancelled.networks]).toEqual([2, 1]);
    const bobs = activityOf(await activity('BOB-0001', en, KEYS.bob));
    expect([bobs.validations, bobs.networks]).toEqual([0, 0]);
  });

  it.each(VARIANTS)('answers zeros and nulls for a code of the seller never validated ($lang)', async (variant) => {
    expectJson(await activity('  alice_NOSUPPORT_3 ', variant), 200, {
      status: variant.ok,
      data: {
        activity: {
          purchase_code: 'alice_nosupport_3',
          validations: 0,
          networks: 0,
          first_seen: null,
          last_seen: null,
          days: [],
        },
      },
    });
  });

  it.each(VARIANTS)(
    "answers another seller's code, an unknown code and a malformed one exactly as validation does ($lang)",
    async (variant) => {
      for (const code of ['BOB-0001', 'NO-SUCH-CODE-42', 'not a code!', 'x'.repeat(101)]) {
        const asked = await activity(code, variant);
        const validated = await validate(code, undefined, KEYS.alice, variant);
        expectError(asked, variant, 404, variant.messages.invalidPurchaseCode);
        expect([asked.statusCode, asked.body, asked.headers['x-error-code']]).toEqual([
          validated.statusCode,
          validated.body,
          validated.headers['x-error-code'],
        ]);
      }
    },
  );

  it.each(VARIANTS)('asks for the code and the key like the other endpoints ($lang)', async (variant) => {
    const missing = await t.app.inject({
      method: 'GET',
      url: url(variant, '/api/purchases/activity'),
      headers: { 'x-api-key': KEYS.alice },
    });
    expectParamError(missing, variant, 'purchase_code');
    expectError(
      await activity('ALICE-REG-0001', variant, 'no-such-key-0123456789'),
      variant,
      401,
      variant.messages.invalidRequest,
    );
  });

  it.each(VARIANTS)('lists the codes seen from the most networks first ($lang)', async (variant) => {
    const response = await top(variant);
    const body = JSON.parse(response.body) as { data: { days: number; codes: Record<string, unknown>[] } };
    expect(response.statusCode).toBe(200);
    expect(body.data.days).toBe(30);
    expect(
      body.data.codes.map((code) => [code.purchase_code, code.purchase_status, code.validations, code.networks]),
    ).toEqual([
      ['ALICE-REG-0001', 'active', 80, 50],
      ['Alice-Ext-0002', 'active', 8, 4],
      ['ALICE-CANCELLED-5', 'cancelled', 2, 1],
      ['ALICE-REFUNDED-4', 'refunded', 1, 1],
    ]);
    expect(body.data.codes[0]).toEqual({
      purchase_code: 'ALICE-REG-0001',
      item_id: 101,
      purchase_status: 'active',
      validations: 80,
      networks: 50,
      first_seen: expect.stringMatching(ISO),
      last_seen: expect.stringMatching(ISO),
    });
    const limited = JSON.parse(
      (
        await top(variant, [
          ['days', '7'],
          ['limit', '2'],
        ])
      ).body,
    );
    expect(limited.data.days).toBe(7);
    expect(limited.data.codes.map((code: { purchase_code: string }) => code.purchase_code)).toEqual([
      'ALICE-REG-0001',
      'Alice-Ext-0002',
    ]);
    // Bob's list holds none of Alice's codes (and his own code was never validated by him).
    expectJson(await top(variant, [], KEYS.bob), 200, { status: variant.ok, data: { days: 30, codes: [] } });
  });

  it("answers a list asked again with the same bytes, and a code's new status once the store says it changed", async () => {
    const first = await top(en);
    expect((await top(en)).body).toBe(first.body);
    const statusOf = (response: LightMyRequestResponse, code: string) =>
      (
        JSON.parse(response.body) as { data: { codes: { purchase_code: string; purchase_status: string }[] } }
      ).data.codes.find((entry) => entry.purchase_code === code)?.purchase_status;
    expect(statusOf(first, 'Alice-Ext-0002')).toBe('active');
    await t.store.setPurchaseStatus('alice-ext-0002', 'refunded');
    // Heard with the next request on SQLite; on PostgreSQL once its notification has come.
    const deadline = Date.now() + 5_000;
    let changed = await top(en);
    while (statusOf(changed, 'Alice-Ext-0002') !== 'refunded' && Date.now() < deadline) changed = await top(en);
    expect(statusOf(changed, 'Alice-Ext-0002')).toBe('refunded');
    expect(changed.body).toBe(
      first.body.replace(
        '"purchase_code":"Alice-Ext-0002","item_id":102,"purchase_status":"active"',
        '"purchase_code":"Alice-Ext-0002","item_id":102,"purchase_status":"refunded"',
      ),
    );
    await t.store.setPurchaseStatus('alice-ext-0002', 'active');
  });

  it.each(VARIANTS)('refuses a window or a limit out of bounds, naming the bounds ($lang)', async (variant) => {
    for (const [name, value] of [
      ['days', '0'],
      ['days', '91'],
      ['days', 'week'],
      ['limit', '0'],
      ['limit', '101'],
      ['limit', '-1'],
    ] as const) {
      const message = expectParamError(await top(variant, [[name, value]]), variant, name);
      expect(message).toContain(name === 'days' ? '90' : '100');
    }
  });

  it('keeps 90 days: older days are dropped, and the totals count the days kept', async () => {
    const now = Date.now();
    const old = (daysAgo: number) => {
      const sketch = new NetworkSketch();
      sketch.add(0x1234_5678 + daysAgo);
      const at = now - daysAgo * DAY_MS;
      return {
        account: 'alice',
        codeKey: 'alice-pending-item-6',
        day: dayOf(at),
        validations: 5,
        firstSeen: at,
        lastSeen: at,
        sketch: sketch.serialize(),
        networks: 1,
      };
    };
    await t.store.recordActivity([old(89), old(90), old(120)].map((d) => activityDelta(d)));
    const counter = createActivityCounter(t.store, {
      enabled: true,
      flushSeconds: 300,
      retentionDays: 90,
      networkHash: () => 0,
      onError: (error) => {
        throw error;
      },
    });
    try {
      expect(await counter.expire()).toBe(2);
    } finally {
      await counter.close();
    }
    const answer = activityOf(await activity('ALICE-PENDING-ITEM-6'));
    expect([answer.validations, answer.networks, answer.days]).toEqual([
      5,
      1,
      [{ date: dayOf(now - 89 * DAY_MS), validations: 5, networks: 1 }],
    ]);
    expect(await t.store.activityDays('alice', ['alice-pending-item-6'], '0000-01-01')).toHaveLength(1);
  });
});

describe('purchase-code activity without a trusted proxy', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ lines: ALL_LINES });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('counts the peer, whatever X-Forwarded-For claims', async () => {
    for (const forwarded of ['198.51.100.1', '203.0.113.1', '2001:db8::1']) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/purchases/validation',
        headers: { 'x-api-key': KEYS.alice, 'x-forwarded-for': forwarded },
        payload: { purchase_code: PURCHASES.regular.line.code },
      });
      expect(response.statusCode).toBe(200);
    }
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/purchases/activity?purchase_code=ALICE-REG-0001',
      headers: { 'x-api-key': KEYS.alice },
    });
    const answer = (JSON.parse(response.body) as { data: { activity: { validations: number; networks: number } } }).data
      .activity;
    expect([answer.validations, answer.networks]).toEqual([3, 1]);
  });
});

describe('purchase-code activity turned off (activity.enabled false)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ configFile: { activity: { enabled: false } }, lines: ALL_LINES });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('counts nothing, and still answers', async () => {
    const validated = await t.app.inject({
      method: 'POST',
      url: '/api/purchases/validation',
      headers: { 'x-api-key': KEYS.alice },
      payload: { purchase_code: 'ALICE-REG-0001' },
    });
    expect(validated.statusCode).toBe(200);
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/purchases/activity?purchase_code=ALICE-REG-0001',
      headers: { 'x-api-key': KEYS.alice },
    });
    expectJson(response, 200, {
      status: 'success',
      data: {
        activity: {
          purchase_code: 'ALICE-REG-0001',
          validations: 0,
          networks: 0,
          first_seen: null,
          last_seen: null,
          days: [],
        },
      },
    });
  });
});
