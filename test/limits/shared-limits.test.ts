import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { createLimits, type Limits } from '../../src/limits/limits.js';
import { recordingLogger } from '../helpers/log-lines.js';
import { freePort, type OwnRedis, randomRedisPrefix, startOwnRedis, TEST_REDIS_URL } from '../helpers/test-redis.js';

/** Either line means shared: a first connection that fails on a loaded machine logs "is back" when its retry succeeds. */
const CONNECTED = /^info limits: (counters shared through Redis|Redis is back; counters are shared again)$/;
const LOST = /^warn limits: Redis unavailable; counting in this process only until it is back$/;
const BACK = /^info limits: Redis is back; counters are shared again$/;

describe.runIf(TEST_REDIS_URL !== undefined)('limits shared through Redis', () => {
  const opened: Limits[] = [];
  let own: OwnRedis | undefined;
  afterEach(async () => {
    for (const limits of opened.splice(0)) await limits.close();
    await own?.kill();
    own = undefined;
  });

  async function connected(redisUrl: string, redisKeyPrefix: string) {
    const logger = recordingLogger();
    const limits = createLimits({ redisUrl, redisKeyPrefix, logger });
    opened.push(limits);
    await logger.waitFor(CONNECTED);
    return { limits, logger };
  }

  it('two instances enforce one failure budget: the failure that crosses it is seen where it happens', async () => {
    const prefix = randomRedisPrefix();
    const a = await connected(TEST_REDIS_URL as string, prefix);
    const b = await connected(TEST_REDIS_URL as string, prefix);
    const onA = a.limits.failureBudget('guesses', { max: 3, windowSeconds: 86_400 });
    const onB = b.limits.failureBudget('guesses', { max: 3, windowSeconds: 86_400 });
    await onA.recordFailure('client');
    await onA.recordFailure('client');
    expect(onA.retryAfter('client')).toBe(0);
    expect(onB.retryAfter('client')).toBe(0);
    await onB.recordFailure('client');
    expect(onB.retryAfter('client')).toBeGreaterThan(0);
    expect(onB.state('client')?.remaining).toBe(0);
    // A has not heard yet; its next failure tells it the shared total.
    expect(onA.state('client')?.remaining).toBe(1);
    await onA.recordFailure('client');
    expect(onA.retryAfter('client')).toBeGreaterThan(0);
    expect(onA.retryAfter('another')).toBe(0);
  });

  it('requests are counted without waiting and shared in batches', async () => {
    const prefix = randomRedisPrefix();
    const a = await connected(TEST_REDIS_URL as string, prefix);
    const b = await connected(TEST_REDIS_URL as string, prefix);
    const onA = a.limits.requestBudget('calls', { max: 100, windowSeconds: 86_400 });
    const onB = b.limits.requestBudget('calls', { max: 100, windowSeconds: 86_400 });
    for (let n = 1; n <= 10; n += 1) expect(onA.take('key')?.remaining).toBe(100 - n);
    await a.limits.flush();
    expect(onB.take('key')?.remaining).toBe(99);
    await b.limits.flush();
    const redis = new Redis(TEST_REDIS_URL as string);
    try {
      // Read before B takes again: a batch of its own goes by itself every 200 ms.
      const keys = await redis.keys(`${prefix}limits:calls:key:*`);
      expect(keys).toHaveLength(1);
      expect(await redis.get(keys[0] as string)).toBe('11');
      expect(await redis.pttl(keys[0] as string)).toBeGreaterThan(86_400_000);
    } finally {
      redis.disconnect();
    }
    expect(onB.take('key')?.remaining).toBe(88);
  });

  it('requests counted through a holder are sent in the batch like any other', async () => {
    const prefix = randomRedisPrefix();
    const a = await connected(TEST_REDIS_URL as string, prefix);
    const b = await connected(TEST_REDIS_URL as string, prefix);
    const onA = a.limits.requestBudget('calls', { max: 100, windowSeconds: 86_400 });
    const onB = b.limits.requestBudget('calls', { max: 100, windowSeconds: 86_400 });
    const holder = { counterSlot: undefined };
    for (let n = 1; n <= 5; n += 1) expect(onA.take('key', undefined, holder)?.remaining).toBe(100 - n);
    await a.limits.flush();
    // B learns the shared total with its own batch's reply: A's five, and its own one.
    expect(onB.take('key')?.remaining).toBe(99);
    await b.limits.flush();
    expect(onB.take('key')?.remaining).toBe(93);
  });

  it('when Redis goes away, counts go on in the process (logged once); when it is back, they are shared again', async () => {
    const port = await freePort();
    own = await startOwnRedis(port);
    const prefix = randomRedisPrefix();
    const { limits, logger } = await connected(own.url, prefix);
    const count = (pattern: RegExp) => logger.lines.filter((line) => pattern.test(line)).length;
    const lostBefore = count(LOST);
    const backBefore = count(BACK);
    const failures = limits.failureBudget('guesses', { max: 5, windowSeconds: 86_400 });
    const requests = limits.requestBudget('calls', { max: 100, windowSeconds: 86_400 });
    await failures.recordFailure('client');
    requests.take('key');
    await limits.flush();
    expect(limits.shared).toBe(true);

    await own.kill();
    await logger.waitFor(LOST, lostBefore + 1);
    expect(limits.shared).toBe(false);
    for (let n = 0; n < 4; n += 1) await failures.recordFailure('client');
    expect(failures.retryAfter('client')).toBeGreaterThan(0);
    expect(requests.take('key')?.remaining).toBe(98);
    await limits.flush();

    own = await startOwnRedis(port);
    await logger.waitFor(BACK, backBefore + 1);
    expect(limits.shared).toBe(true);
    await failures.recordFailure('other');
    const redis = new Redis(own.url);
    try {
      const keys = await redis.keys(`${prefix}limits:guesses:other:*`);
      expect(keys).toHaveLength(1);
      expect(await redis.get(keys[0] as string)).toBe('1');
    } finally {
      redis.disconnect();
    }
    expect(count(LOST)).toBe(lostBefore + 1);
    expect(count(BACK)).toBe(backBefore + 1);
    expect(logger.lines.join('\n')).not.toContain(String(port));
  });
});
