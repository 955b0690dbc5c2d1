import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type { ConfigFile } from '../../src/config.js';
import { createTestApp, TEST_STORES, type TestApp, type TestVariant, VARIANTS } from '../helpers/test-app.js';
import { randomRedisPrefix, TEST_REDIS_URL } from '../helpers/test-redis.js';
import { ALL_LINES, KEYS } from './fixtures.js';
import { expectError, resetsBetween } from './http-assertions.js';

/**
 * The key's report budget (`limits.keyReports`): the two activity report endpoints take one place
 * each call from one budget per key, whichever client and variant asks; a named key has its own,
 * as another seller does; the key's other endpoints do not spend it; `max: 0` turns it off; and
 * two instances over one Redis pass exactly `max` together.
 */

/** Long windows: a test never straddles two (windows are aligned on the clock, at midnight UTC for a day). */
const DAY = 86_400;
const MAX = 3;
const TOKEN = 'admin-token-0123456789abcdef';
const [en, pt] = VARIANTS;

interface Client {
  readonly remoteAddress: string;
  readonly headers?: Readonly<Record<string, string>>;
}
/** Three clients: two connecting directly, one behind the trusted proxy (the address it forwards). */
const CLIENTS: readonly [Client, Client, Client] = [
  { remoteAddress: '192.0.2.10' },
  { remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': '198.51.100.7' } },
  { remoteAddress: '203.0.113.20' },
];
const [first, second, third] = CLIENTS;

const withClient = (call: InjectOptions & { headers: Record<string, string> }, client: Client): InjectOptions => ({
  ...call,
  remoteAddress: client.remoteAddress,
  headers: { ...call.headers, ...client.headers },
});
const top = (variant: TestVariant, client: Client, key: string = KEYS.alice) =>
  withClient(
    { method: 'GET', url: `${variant.base}/api/purchases/activity/top`, headers: { 'x-api-key': key } },
    client,
  );
const activity = (variant: TestVariant, client: Client, code = 'ALICE-REG-0001', key: string = KEYS.alice) =>
  withClient(
    {
      method: 'GET',
      url: `${variant.base}/api/purchases/activity?purchase_code=${code}`,
      headers: { 'x-api-key': key },
    },
    client,
  );
const validation = (variant: TestVariant, client: Client, key: string = KEYS.alice) =>
  withClient(
    {
      method: 'POST',
      url: `${variant.base}/api/purchases/validation`,
      headers: { 'x-api-key': key },
      payload: { purchase_code: 'ALICE-REG-0001' },
    },
    client,
  );

/**
 * Sends and checks the report budget's RateLimit-* headers (the limit and remaining exactly, the
 * reset to the second), and on a 429 its body, error code and Retry-After (equal to the reset).
 */
async function expectReports(
  app: TestApp,
  call: InjectOptions,
  variant: TestVariant,
  expected: { status: number; remaining: number; limit?: number },
): Promise<LightMyRequestResponse> {
  const before = Date.now();
  const response = await app.app.inject(call);
  const after = Date.now();
  expect(response.statusCode, response.body).toBe(expected.status);
  expect([response.headers['ratelimit-limit'], response.headers['ratelimit-remaining']]).toEqual([
    String(expected.limit ?? MAX),
    String(expected.remaining),
  ]);
  expect(resetsBetween(before, after, DAY)).toContain(response.headers['ratelimit-reset']);
  if (expected.status === 429) {
    expectError(response, variant, 429, variant.messages.tooManyRequests);
    expect(response.headers['x-error-code']).toBe('rate_limited');
    expect(response.headers['retry-after']).toBe(response.headers['ratelimit-reset']);
  } else {
    expect(response.headers['retry-after']).toBeUndefined();
  }
  return response;
}

/** The value of one sample of the Prometheus text, by its exact name and labels. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe.each(TEST_STORES)('the key report budget (%s)', (kind) => {
  let t: TestApp;
  afterEach(async () => {
    await t.close();
  });
  const open = async (keyReports: { max: number; windowSeconds: number } = { max: MAX, windowSeconds: DAY }) => {
    const configFile: ConfigFile = { trustProxy: ['127.0.0.1'], limits: { keyReports } };
    t = await createTestApp(kind, { configFile, lines: ALL_LINES, env: { ADMIN_TOKEN: TOKEN } });
  };
  const refusals = async (limiter: string) => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/admin/v1/metrics',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    return sample(response.body, `marketplace_limiter_refusals_total{limiter="${limiter}"}`);
  };

  it('three top lists from three clients and both variants, then 429 for every client, in its envelope', async () => {
    await open();
    await expectReports(t, top(en, first), en, { status: 200, remaining: 2 });
    await expectReports(t, top(pt, second), pt, { status: 200, remaining: 1 });
    await expectReports(t, top(en, third), en, { status: 200, remaining: 0 });
    for (const client of CLIENTS) {
      for (const variant of VARIANTS)
        await expectReports(t, top(variant, client), variant, { status: 429, remaining: 0 });
    }
    // A client the key never called from before is refused too: the budget is the key's.
    await expectReports(t, top(en, { remoteAddress: '192.0.2.99' }), en, { status: 429, remaining: 0 });
    expect(await refusals('report')).toBe(7);
    expect(await refusals('key')).toBe(0);
  });

  it('the one-code activity takes from the same budget, a code not the seller’s too', async () => {
    await open();
    await expectReports(t, top(en, first), en, { status: 200, remaining: 2 });
    await expectReports(t, activity(pt, second), pt, { status: 200, remaining: 1 });
    // Answered as validation answers it, and its place taken before the code was looked up.
    const notTheirs = await expectReports(t, activity(en, third, 'NOT-A-CODE'), en, { status: 404, remaining: 0 });
    expectError(notTheirs, en, 404, en.messages.invalidPurchaseCode);
    await expectReports(t, activity(en, first), en, { status: 429, remaining: 0 });
    await expectReports(t, activity(pt, third, 'NOT-A-CODE'), pt, { status: 429, remaining: 0 });
    await expectReports(t, top(pt, second), pt, { status: 429, remaining: 0 });
  });

  it('another seller and a named key of the same seller have budgets of their own; validation is not refused', async () => {
    await open();
    const made = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/accounts/alice/api-keys',
      headers: { authorization: `Bearer ${TOKEN}` },
      payload: { name: 'Dashboard', scope: 'full' },
    });
    expect(made.statusCode, made.body).toBe(201);
    const dashboard = (made.json() as { key: string }).key;

    for (let remaining = MAX - 1; remaining >= 0; remaining -= 1) {
      await expectReports(t, top(en, first), en, { status: 200, remaining });
    }
    await expectReports(t, top(en, first), en, { status: 429, remaining: 0 });
    await expectReports(t, top(en, first, dashboard), en, { status: 200, remaining: 2 });
    await expectReports(t, activity(pt, second, 'ALICE-REG-0001', dashboard), pt, { status: 200, remaining: 1 });
    await expectReports(t, top(pt, third, KEYS.bob), pt, { status: 200, remaining: 2 });
    // The spent key validates, from the same client, in both variants; its headers show another budget.
    for (const variant of VARIANTS) {
      const validated = await t.app.inject(validation(variant, first));
      expect(validated.statusCode, validated.body).toBe(200);
      expect(validated.headers['ratelimit-limit']).toBe('1000');
      expect(validated.headers['retry-after']).toBeUndefined();
    }
    // The named key spends its own to the end; the account's own key stays refused, bob's is untouched.
    await expectReports(t, top(en, third, dashboard), en, { status: 200, remaining: 0 });
    await expectReports(t, top(en, third, dashboard), en, { status: 429, remaining: 0 });
    await expectReports(t, activity(en, second), en, { status: 429, remaining: 0 });
    await expectReports(t, top(en, first, KEYS.bob), en, { status: 200, remaining: 1 });
  });

  it('max 0 turns it off: the report endpoints answer as the other endpoints do', async () => {
    await open({ max: 0, windowSeconds: 60 });
    const calls = CLIENTS.flatMap((client) =>
      VARIANTS.flatMap((variant) => [top(variant, client), activity(variant, client)]),
    );
    for (const call of calls) {
      const response = await t.app.inject(call);
      // The closest budget left is the client's failures (1,000 a minute, none spent).
      expect(response.statusCode, response.body).toBe(200);
      expect([response.headers['ratelimit-limit'], response.headers['ratelimit-remaining']]).toEqual(['1000', '1000']);
    }
    expect(await refusals('report')).toBe(0);
  });
});

/** Resolves once the app's counters are shared through Redis (its first connection may be retried). */
async function sharedThroughRedis(app: TestApp, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!app.app.limits.shared) {
    if (Date.now() > deadline) throw new Error(`counters never shared through Redis:\n${app.logs.join('')}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe.runIf(TEST_REDIS_URL !== undefined)('two instances on one Redis count one report budget', () => {
  const max = 5;
  let a: TestApp;
  let b: TestApp;
  afterEach(async () => {
    await a.close();
    await b.close();
  });

  it('reports of one key asked from several clients of both instances: exactly `max` answered', async () => {
    const env = { REDIS_URL: TEST_REDIS_URL as string, REDIS_KEY_PREFIX: randomRedisPrefix() };
    const configFile: ConfigFile = { trustProxy: ['127.0.0.1'], limits: { keyReports: { max, windowSeconds: DAY } } };
    a = await createTestApp({ configFile, lines: ALL_LINES, env });
    b = await createTestApp({ configFile, lines: ALL_LINES, env });
    await Promise.all([sharedThroughRedis(a), sharedThroughRedis(b)]);
    const turns = [a, b, a, a, b, b, a, b, a, b];
    const statuses: number[] = [];
    for (const [n, app] of turns.entries()) {
      const call = n % 2 === 0 ? top(en, CLIENTS[n % 3]) : activity(pt, CLIENTS[n % 3]);
      const response = await app.app.inject(call);
      statuses.push(response.statusCode);
      // A budget this small is taken one place at a time: each instance counts on from the other's.
      if (response.statusCode === 200) expect(response.headers['ratelimit-remaining']).toBe(String(max - n - 1));
      else expectError(response, n % 2 === 0 ? en : pt, 429, (n % 2 === 0 ? en : pt).messages.tooManyRequests);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429, 429, 429]);
    // And a burst over both at once afterwards: none answered.
    const burst = await Promise.all(
      Array.from({ length: 6 }, (_, n) => (n % 2 === 0 ? a : b).app.inject(top(en, CLIENTS[n % 3]))),
    );
    expect(burst.map((response) => response.statusCode)).toEqual([429, 429, 429, 429, 429, 429]);
  });

  it('a burst spread over both instances at once passes exactly `max`', async () => {
    const env = { REDIS_URL: TEST_REDIS_URL as string, REDIS_KEY_PREFIX: randomRedisPrefix() };
    const configFile: ConfigFile = { trustProxy: ['127.0.0.1'], limits: { keyReports: { max, windowSeconds: DAY } } };
    a = await createTestApp({ configFile, lines: ALL_LINES, env });
    b = await createTestApp({ configFile, lines: ALL_LINES, env });
    await Promise.all([sharedThroughRedis(a), sharedThroughRedis(b)]);
    // Each instance has more calls waiting than the budget: every place granted to it is used there.
    const burst = await Promise.all(
      Array.from({ length: 4 * max }, (_, n) =>
        (n % 2 === 0 ? a : b).app.inject(top(n % 4 < 2 ? en : pt, CLIENTS[n % 3])),
      ),
    );
    const statuses = burst.map((response) => response.statusCode);
    expect(statuses.filter((status) => status === 200)).toHaveLength(max);
    expect(statuses.filter((status) => status === 429)).toHaveLength(3 * max);
  });
});
