import { afterEach, describe, expect, it } from 'vitest';
import { createLimits, type Limits } from '../../src/limits/limits.js';
import { MAX_IDS_PER_COUNTER } from '../../src/limits/window-counter.js';

/** A clock the test moves, starting at the start of a minute (windows are aligned on the clock). */
function clock(start = 1_000_000_020_000) {
  let time = start;
  return {
    now: () => time,
    advance(ms: number) {
      time += ms;
    },
  };
}

const silent = { info: () => {}, warn: () => {} };

describe('limits in one process', () => {
  let limits: Limits;
  afterEach(async () => {
    await limits.close();
  });

  it('a failure budget refuses an id past its max until its window ends, and no other id', async () => {
    const time = clock();
    limits = createLimits({ logger: silent, now: time.now });
    const budget = limits.failureBudget('login', { max: 3, windowSeconds: 60 });
    expect(budget.state('a')).toEqual({ limit: 3, remaining: 3, resetSeconds: 60 });
    for (let n = 0; n < 3; n += 1) {
      expect(budget.retryAfter('a')).toBe(0);
      await budget.recordFailure('a');
    }
    expect(budget.state('a')).toEqual({ limit: 3, remaining: 0, resetSeconds: 60 });
    expect(budget.retryAfter('a')).toBe(60);
    expect(budget.retryAfter('b')).toBe(0);
    time.advance(59_001);
    expect(budget.retryAfter('a')).toBe(1);
    time.advance(999);
    expect(budget.retryAfter('a')).toBe(0);
    expect(budget.state('a')).toEqual({ limit: 3, remaining: 3, resetSeconds: 60 });
  });

  it('a request budget takes one per request and refuses without taking once spent', () => {
    const time = clock();
    limits = createLimits({ logger: silent, now: time.now });
    const budget = limits.requestBudget('calls', { max: 2, windowSeconds: 10 });
    time.advance(2_500);
    expect(budget.take('k')).toEqual({ limit: 2, remaining: 1, resetSeconds: 8, retryAfter: 0 });
    expect(budget.take('k')).toEqual({ limit: 2, remaining: 0, resetSeconds: 8, retryAfter: 0 });
    expect(budget.take('k')).toEqual({ limit: 2, remaining: 0, resetSeconds: 8, retryAfter: 8 });
    expect(budget.take('other')).toEqual({ limit: 2, remaining: 1, resetSeconds: 8, retryAfter: 0 });
    time.advance(7_500);
    expect(budget.take('k')).toEqual({ limit: 2, remaining: 1, resetSeconds: 10, retryAfter: 0 });
  });

  it('a failure takes its place at once, in memory; past the max it is refused and nothing is counted', () => {
    const time = clock();
    limits = createLimits({ logger: silent, now: time.now });
    const budget = limits.failureBudget('guesses', { max: 2, windowSeconds: 60 });
    time.advance(15_000);
    expect(budget.takeFailure('a')).toEqual({ limit: 2, remaining: 1, resetSeconds: 45, retryAfter: 0 });
    expect(budget.takeFailure('a')).toEqual({ limit: 2, remaining: 0, resetSeconds: 45, retryAfter: 0 });
    expect(budget.takeFailure('a')).toEqual({ limit: 2, remaining: 0, resetSeconds: 45, retryAfter: 45 });
    expect(budget.state('a')).toEqual({ limit: 2, remaining: 0, resetSeconds: 45 });
    expect(budget.takeFailure('b')).toEqual({ limit: 2, remaining: 1, resetSeconds: 45, retryAfter: 0 });
    expect(limits.failureBudget('off', { max: 0, windowSeconds: 60 }).takeFailure('a')).toBeUndefined();
  });

  it('max 0 turns a budget off', async () => {
    limits = createLimits({ logger: silent });
    const failures = limits.failureBudget('off', { max: 0, windowSeconds: 60 });
    for (let n = 0; n < 10; n += 1) await failures.recordFailure('a');
    expect(failures.retryAfter('a')).toBe(0);
    expect(failures.state('a')).toBeUndefined();
    expect(limits.requestBudget('off2', { max: 0, windowSeconds: 60 }).take('a')).toBeUndefined();
  });

  it('refuses two budgets of one name', () => {
    limits = createLimits({ logger: silent });
    limits.failureBudget('same', { max: 1, windowSeconds: 1 });
    expect(() => limits.requestBudget('same', { max: 1, windowSeconds: 1 })).toThrow(
      'limits: a budget named same exists already',
    );
  });

  it('remembers a bounded number of ids: a flood of new ones pushes out the least recent', async () => {
    limits = createLimits({ logger: silent });
    const budget = limits.failureBudget('flood', { max: 1, windowSeconds: 60 });
    await budget.recordFailure('first');
    expect(budget.retryAfter('first')).toBeGreaterThan(0);
    for (let n = 0; n < MAX_IDS_PER_COUNTER; n += 1) await budget.recordFailure(`client-${n}`);
    expect(budget.retryAfter(`client-${MAX_IDS_PER_COUNTER - 1}`)).toBeGreaterThan(0);
    expect(budget.retryAfter('first')).toBe(0);
  });
});
