import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfigFile } from '../../src/config.js';
import { createTestApp, TEST_STORES, type TestApp, type TestVariant, VARIANTS } from '../helpers/test-app.js';
import { freePort, type OwnRedis, randomRedisPrefix, startOwnRedis, TEST_REDIS_URL } from '../helpers/test-redis.js';
import { ALL_LINES, KEYS, UNKNOWN_KEY } from './fixtures.js';
import { expectError, resetsBetween } from './http-assertions.js';
import { type RawAnswer, rawExchange } from './raw-exchange.js';

/**
 * Issue 10, item 4: failure budgets per client and per key+client, the request budget (per key
 * and client since issue 20, item 2), RateLimit-* headers (the budget closest to running out since
 * issue 20, item 12), trustProxy, IPv6 /64, and the counters shared through Redis.
 */

/** Long windows: a test never straddles two (windows are aligned on the clock, at midnight UTC for a day). */
const DAY = 86_400;

const GUESSER = '127.0.0.1';
const NEIGHBOUR = '127.0.0.2';

type Call = InjectOptions & { method: 'GET' | 'POST'; url: string };

const details = (variant: TestVariant, key: string = KEYS.alice): Call => ({
  method: 'GET',
  url: `${variant.base}/api/account/details`,
  headers: { 'x-api-key': key },
});
const validation = (variant: TestVariant, code: string, key: string = KEYS.alice): Call => ({
  method: 'POST',
  url: `${variant.base}/api/purchases/validation`,
  headers: { 'x-api-key': key },
  payload: { purchase_code: code },
});

/** A successful call of each endpoint, with alice's key. */
const everyEndpoint = (variant: TestVariant): readonly Call[] => [
  details(variant),
  { method: 'GET', url: `${variant.base}/api/items/all`, headers: { 'x-api-key': KEYS.alice } },
  { method: 'GET', url: `${variant.base}/api/items/item?item_id=101`, headers: { 'x-api-key': KEYS.alice } },
  validation(variant, 'ALICE-REG-0001'),
];

/** Sends and checks the RateLimit-* headers: the limit and remaining exactly, the reset to the second. */
async function expectBudget(
  app: TestApp,
  call: InjectOptions,
  expected: { status: number; limit: number; remaining: number; windowSeconds: number; retryAfter?: boolean },
): Promise<LightMyRequestResponse> {
  const before = Date.now();
  const response = await app.app.inject(call);
  const after = Date.now();
  expect(response.statusCode, response.body).toBe(expected.status);
  expect([response.headers['ratelimit-limit'], response.headers['ratelimit-remaining']]).toEqual([
    String(expected.limit),
    String(expected.remaining),
  ]);
  const resets = resetsBetween(before, after, expected.windowSeconds);
  expect(resets).toContain(response.headers['ratelimit-reset']);
  if (expected.retryAfter) expect(response.headers['retry-after']).toBe(response.headers['ratelimit-reset']);
  else expect(response.headers['retry-after']).toBeUndefined();
  return response;
}

const countLines = (app: TestApp, pattern: RegExp) => app.logs.filter((line) => pattern.test(line)).length;

/** Resolves once `times` captured log lines match (polls the capture; the app writes lines as things happen). */
async function logLine(app: TestApp, pattern: RegExp, times = 1, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (countLines(app, pattern) < times) {
    if (Date.now() > deadline) throw new Error(`no log line matching ${pattern}:\n${app.logs.join('')}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * Resolves once the app's counters are shared through Redis. Its first connection may fail on a
 * loaded machine (a 1 s connect timeout) and succeed on the retry: then "is back" is the line it
 * logs, so the state is asked, not the first line.
 */
async function sharedThroughRedis(app: TestApp, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!app.app.limits.shared) {
    if (Date.now() > deadline) throw new Error(`counters never shared through Redis:\n${app.logs.join('')}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const LOST = /"level":40,.*"msg":"limits: Redis unavailable; counting in this process only until it is back"/;
const BACK = /"msg":"limits: Redis is back; counters are shared again"/;

describe.each(TEST_STORES)('limits (%s)', (kind) => {
  describe('one guesser does not lock out the other clients of the same key', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp(kind, {
        configFile: { limits: { keyClientFailures: { max: 5, windowSeconds: DAY } } },
        lines: ALL_LINES,
      });
    });
    afterAll(async () => {
      await t.close();
    });

    describe.each(VARIANTS)('$lang', (variant) => {
      const guesser = variant.lang === 'en' ? GUESSER : '127.0.0.3';
      it('the guesser gets 429 after 5 invalid codes; another address with the same key gets 200s', async () => {
        for (let n = 1; n <= 5; n += 1) {
          const guess = await t.app.inject({ ...validation(variant, `GUESS-${n}`), remoteAddress: guesser });
          expectError(guess, variant, 404, variant.messages.invalidPurchaseCode);
          const neighbour = await t.app.inject({ ...validation(variant, 'ALICE-REG-0001'), remoteAddress: NEIGHBOUR });
          expect(neighbour.statusCode).toBe(200);
        }
        for (const call of [validation(variant, 'GUESS-6'), validation(variant, 'ALICE-REG-0001'), details(variant)]) {
          const refused = await t.app.inject({ ...call, remoteAddress: guesser });
          expectError(refused, variant, 429, variant.messages.tooManyRequests);
          expect(refused.headers['retry-after']).toMatch(/^[1-9]\d*$/);
          expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(DAY);
        }
        for (const call of everyEndpoint(variant)) {
          expect((await t.app.inject({ ...call, remoteAddress: NEIGHBOUR })).statusCode).toBe(200);
        }
        // Another key from the guesser's address is not refused either: the budget is the key's and client's.
        expect((await t.app.inject({ ...details(variant, KEYS.bob), remoteAddress: guesser })).statusCode).toBe(200);
      });
    });
  });

  describe('who the client is: X-Forwarded-For from trusted proxies only, IPv6 per /64', () => {
    let t: TestApp;
    let plain: TestApp;
    const max = 100;
    beforeAll(async () => {
      const limits = { clientFailures: { max, windowSeconds: DAY } };
      t = await createTestApp(kind, { configFile: { trustProxy: ['10.0.0.0/8'], limits }, lines: ALL_LINES });
      plain = await createTestApp(kind, { configFile: { limits }, lines: ALL_LINES });
    });
    afterAll(async () => {
      await t.close();
      await plain.close();
    });

    const variant = VARIANTS[0];
    /** An unknown key from `remoteAddress`: its answer's RateLimit-Remaining says which client was counted. */
    const fail = (app: TestApp, remoteAddress: string, forwardedFor?: string) =>
      app.app.inject({
        ...details(variant, UNKNOWN_KEY),
        remoteAddress,
        headers: { 'x-api-key': UNKNOWN_KEY, ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}) },
      });
    const remaining = (response: LightMyRequestResponse) => Number(response.headers['ratelimit-remaining']);

    it('believes X-Forwarded-For from a trusted proxy: the client it names is counted', async () => {
      expect(remaining(await fail(t, '10.1.2.3', '198.51.100.7'))).toBe(max - 1);
      expect(remaining(await fail(t, '10.9.9.9', '198.51.100.7'))).toBe(max - 2);
      // The nearest untrusted address is the client: what the client wrote before it is not believed.
      expect(remaining(await fail(t, '10.1.2.3', '203.0.113.1, 198.51.100.7'))).toBe(max - 3);
      expect(remaining(await fail(t, '10.1.2.3', '198.51.100.8'))).toBe(max - 1);
      // The proxy's own address was never counted.
      expect(remaining(await fail(t, '10.1.2.3'))).toBe(max - 1);
    });

    it('ignores X-Forwarded-For from anyone else', async () => {
      expect(remaining(await fail(t, '192.0.2.44', '198.51.100.7'))).toBe(max - 1);
      expect(remaining(await fail(t, '192.0.2.44', '198.51.100.9'))).toBe(max - 2);
      expect(remaining(await fail(t, '198.51.100.9'))).toBe(max - 1);
      // Without trustProxy, a proxy's header is ignored too.
      expect(remaining(await fail(plain, '10.1.2.3', '198.51.100.7'))).toBe(max - 1);
      expect(remaining(await fail(plain, '10.1.2.3', '198.51.100.8'))).toBe(max - 2);
    });

    it('counts IPv6 clients per /64, and an IPv4-mapped address as the IPv4 one', async () => {
      expect(remaining(await fail(plain, '2001:db8:aa:bb::1'))).toBe(max - 1);
      expect(remaining(await fail(plain, '2001:db8:aa:bb:ffff:ffff:ffff:fffe'))).toBe(max - 2);
      expect(remaining(await fail(plain, '2001:db8:aa:bc::1'))).toBe(max - 1);
      expect(remaining(await fail(plain, '192.0.2.77'))).toBe(max - 1);
      expect(remaining(await fail(plain, '::ffff:192.0.2.77'))).toBe(max - 2);
    });

    it('a client past its budget is refused until the window ends, IPv6 neighbours in its /64 included', async () => {
      const small = await createTestApp(kind, {
        configFile: { limits: { clientFailures: { max: 2, windowSeconds: DAY } } },
        lines: ALL_LINES,
      });
      try {
        await fail(small, '2001:db8:cc::1');
        await fail(small, '2001:db8:cc::2');
        const refused = await small.app.inject({ ...details(variant), remoteAddress: '2001:db8:cc::3' });
        expectError(refused, variant, 429, variant.messages.tooManyRequests);
        expect((await small.app.inject({ ...details(variant), remoteAddress: '2001:db8:cd::1' })).statusCode).toBe(200);
      } finally {
        await small.close();
      }
    });
  });
});

/**
 * Issue 20, item 2: a seller's key ships inside their software, so anyone may hold it. A flood made
 * with it from one client must not refuse the seller's other installs: over a real server (the
 * fast lane), from two loopback addresses, with the shipped budgets. On SQLite only: every answer
 * here comes from the account cache, never from the store.
 */
describe('a flood with one key from one client, under the shipped budgets', () => {
  const FLOODER = '127.0.0.40';
  const INSTALL = '127.0.0.41';
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await createTestApp({ lines: ALL_LINES, logLevel: 'info' });
    const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
    port = Number(new URL(address).port);
  });
  afterAll(async () => {
    await t.close();
  });

  const DETAILS = `GET /api/account/details HTTP/1.1\r\nHost: localhost\r\nX-Api-Key: ${KEYS.alice}\r\n\r\n`;
  /** `count` requests pipelined on one connection from `localAddress`: their answers, in order (the last one closes). */
  const pipelined = async (localAddress: string, count: number) => {
    const { answers } = await rawExchange(port, [DETAILS.repeat(count)], { localAddress });
    expect(answers).toHaveLength(count + 1);
    return answers.slice(0, count);
  };

  it('refuses the flooding client, while another client with the same key keeps getting 200', async () => {
    const max = defaultConfigFile.limits.keyRequests.max;
    // Under the server's maxRequestsPerSocket (10,000), so that no connection is cut mid-batch.
    const batch = 5_000;
    let refusal: RawAnswer | undefined;
    // Windows are aligned on the clock and one may turn mid-flood: the flood goes on until refused,
    // which the next window does after `max` more at the latest.
    for (let sent = 0; refusal === undefined && sent <= 2 * max; sent += batch) {
      const answers = await pipelined(FLOODER, batch);
      for (const answer of answers) expect([200, 429]).toContain(answer.status);
      refusal = answers.find((answer) => answer.status === 429);
      const [served] = await pipelined(INSTALL, 1);
      expect(served?.status).toBe(200);
    }
    expect(refusal?.headers['ratelimit-limit']).toBe(String(max));
    expect(refusal?.headers['ratelimit-remaining']).toBe('0');
    expect(Number(refusal?.headers['retry-after'])).toBeGreaterThan(0);
    const [served] = await pipelined(INSTALL, 1);
    expect(served?.status).toBe(200);
    expect(JSON.parse(served?.body ?? '')).toMatchObject({ status: 'success' });
  });
});

/** In each process, and (with TEST_REDIS_URL) shared through Redis under a prefix of the test's own. */
const COUNTERS: readonly { name: string; env: () => Record<string, string> }[] = [
  { name: 'in memory', env: () => ({}) },
  ...(TEST_REDIS_URL
    ? [
        {
          name: 'through Redis',
          env: () => ({ REDIS_URL: TEST_REDIS_URL as string, REDIS_KEY_PREFIX: randomRedisPrefix() }),
        },
      ]
    : []),
];

describe.each(COUNTERS)('RateLimit headers, exact on every endpoint ($name)', ({ env }) => {
  const limits = {
    clientFailures: { max: 4, windowSeconds: 60 },
    keyClientFailures: { max: 3, windowSeconds: 600 },
    keyRequests: { max: 9, windowSeconds: DAY },
  };
  let t: TestApp;
  afterEach(async () => {
    await t.close();
  });
  const open = async (overrides: Partial<typeof limits> = {}) => {
    t = await createTestApp({ configFile: { limits: { ...limits, ...overrides } }, lines: ALL_LINES, env: env() });
    if (env().REDIS_URL) await sharedThroughRedis(t);
  };
  const from = (call: Call, remoteAddress = GUESSER): InjectOptions => ({ ...call, remoteAddress });

  describe.each(VARIANTS)('$lang', (variant) => {
    it('a valid key: its request budget per client, on answers and refusals of every endpoint', async () => {
      // Failure budgets far from spent: the request budget is the one closest to running out.
      await open({
        clientFailures: { max: 100, windowSeconds: 60 },
        keyClientFailures: { max: 100, windowSeconds: 600 },
      });
      const keyBudget = { limit: 9, windowSeconds: DAY };
      let remaining = 9;
      for (const call of everyEndpoint(variant)) {
        remaining -= 1;
        await expectBudget(t, from(call), { status: 200, remaining, ...keyBudget });
      }
      // Failures with the key take from it too.
      for (const call of [
        validation(variant, 'NOT-A-CODE'),
        {
          method: 'GET' as const,
          url: `${variant.base}/api/items/item?item_id=999`,
          headers: { 'x-api-key': KEYS.alice },
        },
      ]) {
        remaining -= 1;
        await expectBudget(t, from(call), { status: 404, remaining, ...keyBudget });
      }
      for (const call of everyEndpoint(variant).slice(0, 3)) {
        remaining -= 1;
        await expectBudget(t, from(call), { status: 200, remaining, ...keyBudget });
      }
      expect(remaining).toBe(0);
      for (const call of everyEndpoint(variant)) {
        const refused = await expectBudget(t, from(call), {
          status: 429,
          remaining: 0,
          retryAfter: true,
          ...keyBudget,
        });
        expectError(refused, variant, 429, variant.messages.tooManyRequests);
      }
      // The budget is the key's and this client's: the same key from another client, and another
      // key from this client, each have a budget of their own.
      const calls = everyEndpoint(variant);
      for (const [index, call] of calls.entries()) {
        await expectBudget(t, from(call, NEIGHBOUR), { status: 200, remaining: 8 - index, ...keyBudget });
      }
      // The key's two clients in turns: each request counts against its own client's budget only.
      const [first = details(variant, KEYS.alice)] = calls;
      let neighbourLeft = 8 - calls.length;
      for (let turn = 0; turn < 2; turn++) {
        await expectBudget(t, from(first), { status: 429, remaining: 0, retryAfter: true, ...keyBudget });
        await expectBudget(t, from(first, NEIGHBOUR), { status: 200, remaining: neighbourLeft, ...keyBudget });
        neighbourLeft -= 1;
      }
      await expectBudget(t, from(details(variant, KEYS.bob)), { status: 200, remaining: 8, ...keyBudget });
    });

    it('invalid codes: the key and client’s failure budget counts down to 0, then the 429 shows it', async () => {
      await open();
      const failureBudget = { limit: 3, windowSeconds: 600 };
      // Before any failure, the failure budget (3 left) is closer to running out than the request budget (8 left).
      await expectBudget(t, from(details(variant)), { status: 200, remaining: 3, ...failureBudget });
      for (let remaining = 2; remaining >= 0; remaining -= 1) {
        await expectBudget(t, from(validation(variant, `GUESS-${remaining}`)), {
          status: 404,
          remaining,
          ...failureBudget,
        });
      }
      for (const call of [validation(variant, 'GUESS-X'), ...everyEndpoint(variant)]) {
        const refused = await expectBudget(t, from(call), {
          status: 429,
          remaining: 0,
          retryAfter: true,
          ...failureBudget,
        });
        expectError(refused, variant, 429, variant.messages.tooManyRequests);
      }
      // Another client of the same key still has both its budgets.
      await expectBudget(t, from(details(variant), NEIGHBOUR), { status: 200, remaining: 3, ...failureBudget });
    });

    it('invalid codes under a smaller request budget: that one counts down to 0, then the 429 shows it', async () => {
      await open({ keyRequests: { max: 2, windowSeconds: DAY } });
      const requestBudget = { limit: 2, windowSeconds: DAY };
      await expectBudget(t, from(validation(variant, 'GUESS-1')), { status: 404, remaining: 1, ...requestBudget });
      await expectBudget(t, from(validation(variant, 'GUESS-2')), { status: 404, remaining: 0, ...requestBudget });
      const refused = await expectBudget(t, from(validation(variant, 'GUESS-3')), {
        status: 429,
        remaining: 0,
        retryAfter: true,
        ...requestBudget,
      });
      expectError(refused, variant, 429, variant.messages.tooManyRequests);
    });

    it('a valid key’s answers show the client’s failure budget once it is the closest, down to its 429', async () => {
      await open();
      const clientBudget = { limit: 4, windowSeconds: 60 };
      for (let remaining = 3; remaining >= 1; remaining -= 1) {
        await expectBudget(t, from(details(variant, UNKNOWN_KEY)), { status: 401, remaining, ...clientBudget });
      }
      // 1 left of the client's failures, 3 of the key's, 8 of its requests: the client's shows.
      await expectBudget(t, from(details(variant)), { status: 200, remaining: 1, ...clientBudget });
      await expectBudget(t, from(details(variant, UNKNOWN_KEY)), { status: 401, remaining: 0, ...clientBudget });
      const refused = await expectBudget(t, from(details(variant)), {
        status: 429,
        remaining: 0,
        retryAfter: true,
        ...clientBudget,
      });
      expectError(refused, variant, 429, variant.messages.tooManyRequests);
    });

    it('no valid key: the client’s failure budget, on 400, 401, 413, 415 and the 429 past it', async () => {
      await open();
      const clientBudget = { limit: 4, windowSeconds: 60 };
      const noKey = { method: 'GET' as const, url: `${variant.base}/api/items/all`, remoteAddress: GUESSER };
      // A 400 before any key is read spends nothing.
      await expectBudget(t, noKey, { status: 400, remaining: 4, ...clientBudget });
      await expectBudget(
        t,
        { ...details(variant, UNKNOWN_KEY), remoteAddress: GUESSER },
        { status: 401, remaining: 3, ...clientBudget },
      );
      await expectBudget(
        t,
        {
          ...validation(variant, 'X', UNKNOWN_KEY),
          payload: 'x',
          headers: { 'x-api-key': UNKNOWN_KEY, 'content-type': 'text/csv' },
          remoteAddress: GUESSER,
        },
        { status: 415, remaining: 3, ...clientBudget },
      );
      await expectBudget(
        t,
        {
          ...validation(variant, 'X', UNKNOWN_KEY),
          payload: { purchase_code: 'x'.repeat(70 * 1024) },
          remoteAddress: GUESSER,
        },
        { status: 413, remaining: 3, ...clientBudget },
      );
      for (let remaining = 2; remaining >= 0; remaining -= 1) {
        await expectBudget(
          t,
          { ...validation(variant, 'ANY', UNKNOWN_KEY), remoteAddress: GUESSER },
          { status: 401, remaining, ...clientBudget },
        );
      }
      for (const call of everyEndpoint(variant)) {
        await expectBudget(
          t,
          { ...call, remoteAddress: GUESSER },
          {
            status: 429,
            remaining: 0,
            retryAfter: true,
            ...clientBudget,
          },
        );
      }
      // Another client still has its whole budget, and the key its own: the key's failure budget is
      // the closest there (3 left, against 4 and 8).
      await expectBudget(
        t,
        { ...details(variant), remoteAddress: NEIGHBOUR },
        { status: 200, limit: 3, remaining: 3, windowSeconds: 600 },
      );
    });
  });
});

describe.runIf(TEST_REDIS_URL !== undefined)('two instances on one Redis enforce one budget', () => {
  let a: TestApp;
  let b: TestApp;
  const limits = {
    clientFailures: { max: 4, windowSeconds: DAY },
    keyClientFailures: { max: 4, windowSeconds: DAY },
    keyRequests: { max: 10, windowSeconds: DAY },
  };
  beforeAll(async () => {
    const env = { REDIS_URL: TEST_REDIS_URL as string, REDIS_KEY_PREFIX: randomRedisPrefix() };
    a = await createTestApp({ configFile: { limits }, lines: ALL_LINES, env });
    b = await createTestApp({ configFile: { limits }, lines: ALL_LINES, env });
    await Promise.all([sharedThroughRedis(a), sharedThroughRedis(b)]);
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });
  const variant = VARIANTS[0];
  const guess = (app: TestApp, n: number) =>
    app.app.inject({ ...validation(variant, `GUESS-${n}`), remoteAddress: GUESSER });

  it('a guesser spreading its guesses over two instances is stopped at the shared budget', async () => {
    expect((await guess(a, 1)).statusCode).toBe(404);
    expect((await guess(b, 2)).statusCode).toBe(404);
    expect((await guess(a, 3)).statusCode).toBe(404);
    expect((await guess(b, 4)).statusCode).toBe(404);
    // B took the last place: it refuses at once.
    expectError(await guess(b, 5), variant, 429, variant.messages.tooManyRequests);
    // A has not heard yet: its guess is looked up, but its failure finds no place left, and is
    // answered as the budget's refusal; then A refuses at once too.
    const late = await guess(a, 6);
    expectError(late, variant, 429, variant.messages.tooManyRequests);
    expect([late.headers['ratelimit-remaining'], late.headers['retry-after']]).toEqual([
      '0',
      late.headers['ratelimit-reset'],
    ]);
    expectError(await guess(a, 7), variant, 429, variant.messages.tooManyRequests);
    // The neighbour with the same key is served by both.
    for (const app of [a, b]) {
      expect((await app.app.inject({ ...details(variant), remoteAddress: NEIGHBOUR })).statusCode).toBe(200);
    }
  });

  it('unknown keys spread over two instances are stopped at the shared budget', async () => {
    const client = '198.51.100.20';
    const unknown = (app: TestApp) => app.app.inject({ ...details(variant, UNKNOWN_KEY), remoteAddress: client });
    expect((await unknown(a)).headers['ratelimit-remaining']).toBe('3');
    expect((await unknown(b)).headers['ratelimit-remaining']).toBe('2');
    expect((await unknown(a)).headers['ratelimit-remaining']).toBe('1');
    expect((await unknown(b)).headers['ratelimit-remaining']).toBe('0');
    expectError(await unknown(b), variant, 429, variant.messages.tooManyRequests);
  });
});

describe.runIf(TEST_REDIS_URL !== undefined)('two instances on one Redis count one request budget', () => {
  let a: TestApp;
  let b: TestApp;
  // Failure budgets far from spent: the request budget is the one the headers show.
  const limits = {
    clientFailures: { max: 100, windowSeconds: DAY },
    keyClientFailures: { max: 100, windowSeconds: DAY },
    keyRequests: { max: 10, windowSeconds: DAY },
  };
  beforeAll(async () => {
    const env = { REDIS_URL: TEST_REDIS_URL as string, REDIS_KEY_PREFIX: randomRedisPrefix() };
    a = await createTestApp({ configFile: { limits }, lines: ALL_LINES, env });
    b = await createTestApp({ configFile: { limits }, lines: ALL_LINES, env });
    await Promise.all([sharedThroughRedis(a), sharedThroughRedis(b)]);
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });
  const variant = VARIANTS[0];

  it('requests of one key and client are counted once across instances, against the shared total', async () => {
    const call = { ...details(variant, KEYS.bob), remoteAddress: NEIGHBOUR };
    for (let n = 1; n <= 6; n += 1)
      expect((await a.app.inject(call)).headers['ratelimit-remaining']).toBe(String(10 - n));
    // A budget this small is taken one request at a time: B counts on from A's six at once.
    expect((await b.app.inject(call)).headers['ratelimit-remaining']).toBe('3');
    expect((await a.app.inject(call)).headers['ratelimit-remaining']).toBe('2');
    expect((await b.app.inject(call)).headers['ratelimit-remaining']).toBe('1');
    expect((await b.app.inject(call)).headers['ratelimit-remaining']).toBe('0');
    expectError(await b.app.inject(call), variant, 429, variant.messages.tooManyRequests);
    expectError(await a.app.inject(call), variant, 429, variant.messages.tooManyRequests);
    // Another client of the same key is served by both.
    for (const app of [a, b]) {
      expect((await app.app.inject({ ...call, remoteAddress: GUESSER })).statusCode).toBe(200);
    }
  });
});

describe.runIf(TEST_REDIS_URL !== undefined)('Redis going away and coming back', () => {
  // The shipped budgets over day-long windows: counts taken a minute apart would otherwise land in
  // two windows whenever a run straddles a minute's turn (seen once in CI).
  const limits = Object.fromEntries(
    Object.entries(defaultConfigFile.limits).map(([name, budget]) => [name, { ...budget, windowSeconds: DAY }]),
  );
  let own: OwnRedis | undefined;
  let t: TestApp | undefined;
  afterAll(async () => {
    await t?.close();
    await own?.kill();
  });

  it('keeps answering while Redis is down (logged once), and shares the counters again once it is back', async () => {
    const port = await freePort();
    own = await startOwnRedis(port);
    const prefix = randomRedisPrefix();
    t = await createTestApp({
      configFile: { limits },
      lines: ALL_LINES,
      env: { REDIS_URL: own.url, REDIS_KEY_PREFIX: prefix },
    });
    const app = t;
    await sharedThroughRedis(app);
    // A first connection that failed on a loaded machine logged its own loss and return: count after them.
    const lostBefore = countLines(app, LOST);
    const backBefore = countLines(app, BACK);
    const variant = VARIANTS[0];
    const answers = async () =>
      Promise.all([
        app.app.inject({ ...details(variant), remoteAddress: GUESSER }),
        app.app.inject({ ...validation(variant, 'NO-SUCH-CODE'), remoteAddress: GUESSER }),
        app.app.inject({ ...details(variant, UNKNOWN_KEY), remoteAddress: NEIGHBOUR }),
      ]).then((responses) => responses.map((response) => response.statusCode));
    expect(await answers()).toEqual([200, 404, 401]);

    await own.kill();
    await logLine(app, LOST, lostBefore + 1);
    for (let round = 0; round < 5; round += 1) expect(await answers()).toEqual([200, 404, 401]);
    // Twice: what this process was granted and did not use since the first goes back (to nowhere now).
    await app.app.limits.flush();
    await app.app.limits.flush();
    expect(countLines(app, LOST)).toBe(lostBefore + 1);

    own = await startOwnRedis(port);
    await logLine(app, BACK, backBefore + 1);
    expect(await answers()).toEqual([200, 404, 401]);
    await app.app.limits.flush();
    await app.app.limits.flush();
    const redis = new Redis(own.url);
    try {
      // The new server started empty: what it holds was counted since it came back.
      expect(await redis.get((await redis.keys(`${prefix}limits:clientFailures:${NEIGHBOUR}:*`))[0] as string)).toBe(
        '1',
      );
      expect(await redis.get((await redis.keys(`${prefix}limits:keyRequests:${GUESSER} alice:*`))[0] as string)).toBe(
        '2',
      );
    } finally {
      redis.disconnect();
    }
    expect(countLines(app, LOST)).toBe(lostBefore + 1);
    expect(countLines(app, BACK)).toBe(backBefore + 1);
    expect(app.logs.join('')).not.toContain(own.url);
  });

  it('a Redis that stops answering holds no request long: a grant gives up after 250 ms, a failure after 2 s', async () => {
    const port = await freePort();
    const frozen = await startOwnRedis(port);
    const app = await createTestApp({
      configFile: { limits },
      lines: ALL_LINES,
      env: { REDIS_URL: frozen.url, REDIS_KEY_PREFIX: randomRedisPrefix() },
    });
    try {
      await sharedThroughRedis(app);
      frozen.pause();
      const variant = VARIANTS[1];
      // The test's own timeout is what "hang" would hit: each answer must simply come.
      for (let n = 0; n < 3; n += 1) {
        expect((await app.app.inject({ ...details(variant), remoteAddress: GUESSER })).statusCode).toBe(200);
        const failed = await app.app.inject({ ...validation(variant, `FROZEN-${n}`), remoteAddress: GUESSER });
        expectError(failed, variant, 404, variant.messages.invalidPurchaseCode);
        // The key and client's failure budget is the closest to running out: 1,000 less each failure.
        expect(failed.headers['ratelimit-remaining']).toBe(String(1000 - (n + 1)));
      }
      await app.app.limits.flush();
    } finally {
      frozen.resume();
      await app.close();
      await frozen.kill();
    }
  });
});
