import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { judgeSourceHealth, readSourceHealth, STANDBY, UNKNOWN } from '../../src/marketbob/source-health.js';
import { registerSourceMetrics } from '../../src/metrics/source-metrics.js';

const NOW = Date.parse('2026-11-26T12:00:00.000Z');
const ago = (seconds: number) => NOW - seconds * 1000;

describe('judgeSourceHealth', () => {
  it('following: caught up within behindSeconds, the last attempt fine', () => {
    expect(judgeSourceHealth({ failures: 0, caughtUpAt: ago(1.5), startedAt: ago(100) }, 30, NOW)).toEqual({
      state: 'following',
      lagSeconds: 1.5,
    });
    expect(judgeSourceHealth({ failures: 0, caughtUpAt: ago(30), startedAt: ago(100) }, 30, NOW).state).toBe(
      'following',
    );
  });

  it('behind: slower than behindSeconds, the first sync unfinished, or the last attempt failed (at once)', () => {
    expect(judgeSourceHealth({ failures: 0, caughtUpAt: ago(31), startedAt: ago(100) }, 30, NOW)).toEqual({
      state: 'behind',
      lagSeconds: 31,
      reason: 'slow',
    });
    // Before the first catch-up the lag counts from the start: at least that much.
    expect(judgeSourceHealth({ failures: 0, caughtUpAt: undefined, startedAt: ago(4) }, 30, NOW)).toEqual({
      state: 'behind',
      lagSeconds: 4,
      reason: 'first_sync',
    });
    expect(judgeSourceHealth({ failures: 1, caughtUpAt: ago(2), startedAt: ago(100) }, 30, NOW)).toEqual({
      state: 'behind',
      lagSeconds: 2,
      reason: 'source_unreachable',
    });
    expect(judgeSourceHealth({ failures: 3, caughtUpAt: undefined, startedAt: ago(9) }, 30, NOW)).toEqual({
      state: 'behind',
      lagSeconds: 9,
      reason: 'source_unreachable',
    });
  });

  it('reads what crosses the cluster channel, and anything else as unknown', () => {
    expect(readSourceHealth({ state: 'behind', lagSeconds: 3, reason: 'slow' })).toEqual({
      state: 'behind',
      lagSeconds: 3,
      reason: 'slow',
    });
    expect(readSourceHealth(STANDBY)).toEqual({ state: 'standby', lagSeconds: null });
    expect(readSourceHealth({ state: 'asleep', lagSeconds: 3 })).toBe(UNKNOWN);
    expect(readSourceHealth({ state: 'behind', lagSeconds: '3' })).toBe(UNKNOWN);
    expect(readSourceHealth({ state: 'behind', lagSeconds: 3, reason: 'bored' })).toBe(UNKNOWN);
    expect(readSourceHealth(undefined)).toBe(UNKNOWN);
  });
});

describe('the source gauges', () => {
  it('read the follower at each scrape: the lag in seconds, and 1 while behind; NaN standing by', async () => {
    const registry = new Registry();
    let health = judgeSourceHealth({ failures: 0, caughtUpAt: Date.now() - 1250, startedAt: 0 }, 30);
    registerSourceMetrics(registry, () => health);
    const sample = async (name: string) => {
      const line = (await registry.metrics()).split('\n').find((text) => text.startsWith(`${name} `));
      return Number(line?.slice(name.length + 1));
    };
    expect(await sample('marketbob_source_lag_seconds')).toBeGreaterThanOrEqual(1.25);
    expect(await sample('marketbob_source_behind')).toBe(0);
    health = { state: 'behind', lagSeconds: 42.5, reason: 'source_unreachable' };
    expect(await sample('marketbob_source_lag_seconds')).toBe(42.5);
    expect(await sample('marketbob_source_behind')).toBe(1);
    health = STANDBY;
    expect(await sample('marketbob_source_lag_seconds')).toBeNaN();
    expect(await sample('marketbob_source_behind')).toBe(0);
    expect(await registry.metrics()).toContain('# TYPE marketbob_source_lag_seconds gauge');
  });
});
