import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalCounterStore } from '../../src/limits/counter-store.js';
import { createLimits, type Limits, type TakenRequest } from '../../src/limits/limits.js';
import { recordingLogger } from '../helpers/log-lines.js';
import { freePort, type OwnRedis, randomRedisPrefix, startOwnRedis, TEST_REDIS_URL } from '../helpers/test-redis.js';

/** Either line means shared: a first connection that fails on a loaded machine logs "is back" when its retry succeeds. */
const CONNECTED = /^info limits: (counters shared through Redis|Redis is back; counters are shared again)$/;
const LOST = /^warn limits: Redis unavailable; counting in this process only until it is back$/;
const BACK = /^info limits: Redis is back; counters are shared again$/;
const LOST_TO_MACHINE =
  /^warn limits: Redis unavailable; counting across this machine's workers only until it is back$/;

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

  /** Limits as a worker of `WORKERS` has them (the machine's counters beside), connected to a Redis of the test's own. */
  async function asWorkerOnOwnRedis() {
    const redis = await startOwnRedis(await freePort());
    own = redis;
    const logger = recordingLogger();
    const machine = new LocalCounterStore();
    const limits = createLimits({
      redisUrl: redis.url,
      redisKeyPrefix: randomRedisPrefix(),
      logger,
      machineCounters: { available: true, take: async (takes, options) => machine.take(takes, options), close() {} },
    });
    opened.push(limits);
    await logger.waitFor(CONNECTED);
    return { redis, limits, logger, machine };
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

  it('two instances taking failures at once: exactly the budget is taken, the rest refused', async () => {
    const prefix = randomRedisPrefix();
    const a = await connected(TEST_REDIS_URL as string, prefix);
    const b = await connected(TEST_REDIS_URL as string, prefix);
    const onA = a.limits.failureBudget('guesses', { max: 5, windowSeconds: 86_400 });
    const onB = b.limits.failureBudget('guesses', { max: 5, windowSeconds: 86_400 });
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, n) => (n % 2 === 0 ? onA : onB).takeFailure('client')),
    );
    const taken = answers.filter((answer) => answer?.retryAfter === 0);
    // Each taken place saw the total with it: the remaining shown are all different.
    expect(taken.map((answer) => answer?.remaining).sort()).toEqual([0, 1, 2, 3, 4]);
    expect(answers.filter((answer) => (answer?.retryAfter ?? 0) > 0 && answer?.remaining === 0)).toHaveLength(15);
    // Both know the budget is spent: the next request is refused at admission.
    expect([onA.retryAfter('client') > 0, onB.retryAfter('client') > 0]).toEqual([true, true]);
  });

  it('two instances taking requests at once never pass the budget together', async () => {
    const prefix = randomRedisPrefix();
    const a = await connected(TEST_REDIS_URL as string, prefix);
    const b = await connected(TEST_REDIS_URL as string, prefix);
    const onA = a.limits.requestBudget('calls', { max: 10, windowSeconds: 86_400 });
    const onB = b.limits.requestBudget('calls', { max: 10, windowSeconds: 86_400 });
    const answers = await Promise.all(Array.from({ length: 30 }, (_, n) => (n % 2 === 0 ? onA : onB).take('key')));
    expect(answers.filter((answer) => answer?.retryAfter === 0)).toHaveLength(10);
    expect(answers.filter((answer) => (answer?.retryAfter ?? 0) > 0)).toHaveLength(20);
  });

  it('requests are taken in grants; what an instance holds and does not use goes back to the others', async () => {
    const prefix = randomRedisPrefix();
    const a = await connected(TEST_REDIS_URL as string, prefix);
    const b = await connected(TEST_REDIS_URL as string, prefix);
    const onA = a.limits.requestBudget('calls', { max: 1_000, windowSeconds: 86_400 });
    const onB = b.limits.requestBudget('calls', { max: 1_000, windowSeconds: 86_400 });
    const holder = { counterSlot: undefined };
    expect((await onA.take('key', undefined, holder))?.remaining).toBe(999);
    // The next ones are counted on A's grant, at once.
    for (let n = 2; n <= 5; n += 1)
      expect((onA.take('key', undefined, holder) as TakenRequest).remaining).toBe(1_000 - n);
    const redis = new Redis(TEST_REDIS_URL as string);
    try {
      const [key] = await redis.keys(`${prefix}limits:calls:key:*`);
      // A grant of 62 (a sixteenth of what was left) is counted in Redis as taken.
      expect(await redis.get(key as string)).toBe('62');
      expect(await redis.pttl(key as string)).toBeGreaterThan(86_400_000);
      // B sees A's grant as taken.
      expect((await onB.take('key'))?.remaining).toBe(1_000 - 62 - 1);
      // Used since the last flush, A keeps its grant; unused through one more, it gives it back.
      await a.limits.flush();
      await a.limits.flush();
      await b.limits.flush();
      await b.limits.flush();
      expect(await redis.get(key as string)).toBe('6');
    } finally {
      redis.disconnect();
    }
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
    await requests.take('key');
    await limits.flush();
    expect(limits.shared).toBe(true);

    await own.kill();
    await logger.waitFor(LOST, lostBefore + 1);
    expect(limits.shared).toBe(false);
    for (let n = 0; n < 4; n += 1) await failures.recordFailure('client');
    expect(failures.retryAfter('client')).toBeGreaterThan(0);
    expect((await requests.take('key'))?.remaining).toBe(98);
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

  it("a login's places that Redis, connected, leaves unanswered are refused and counted nowhere else", async () => {
    const { redis, limits, machine } = await asWorkerOnOwnRedis();
    const logins = limits.failureBudget('logins', { max: 5, windowSeconds: 900 });
    const guesses = limits.failureBudget('guesses', { max: 5, windowSeconds: 900 });
    redis.pause();
    try {
      // Counted in the machine's counters as well, a place could pass the budget Redis holds.
      expect(await limits.takePlaces([{ budget: logins, id: 'client' }])).toEqual({
        taken: false,
        refused: 0,
        retryAfter: 1,
      });
      expect(machine.size).toBe(0);
      // A failure on the API's path is answered all the same, counted across the machine meanwhile.
      expect((await guesses.takeFailure('client'))?.retryAfter).toBe(0);
      expect(machine.size).toBe(1);
    } finally {
      redis.resume();
    }
    const places = await limits.takePlaces([{ budget: logins, id: 'client' }]);
    expect(places.taken).toBe(true);
    expect(machine.size).toBe(1);
  });

  it("a worker, whose machine's counters the primary holds, says it counts across the machine's workers", async () => {
    const { redis, limits, logger, machine } = await asWorkerOnOwnRedis();
    await redis.kill();
    await logger.waitFor(LOST_TO_MACHINE);
    expect(logger.lines.filter((line) => LOST.test(line))).toEqual([]);
    // Counted in the machine's counters meanwhile.
    const failures = limits.failureBudget('guesses', { max: 1, windowSeconds: 86_400 });
    expect((await failures.takeFailure('client'))?.retryAfter).toBe(0);
    expect((await failures.takeFailure('client'))?.retryAfter).toBeGreaterThan(0);
    expect(machine.size).toBe(1);
  });
});
