import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { WallClock } from '../../src/server/wall-clock.js';

describe('WallClock', () => {
  it('answers Date.now() for the moment a performance.now() reading was taken, in whole milliseconds', () => {
    const clock = new WallClock();
    const before = Date.now();
    const at = clock.at(performance.now());
    const after = Date.now();
    expect(Number.isInteger(at)).toBe(true);
    expect(at).toBeGreaterThanOrEqual(before - 1);
    expect(at).toBeLessThanOrEqual(after + 1);
  });

  it('keeps its offset within a second, and reads the wall clock again after one', () => {
    const clock = new WallClock();
    const now = performance.now();
    const first = clock.at(now);
    // Half a second later by the reading given: the same offset, so half a second later on the wall.
    expect(clock.at(now + 500) - first).toBeGreaterThanOrEqual(499);
    expect(clock.at(now + 500) - first).toBeLessThanOrEqual(501);
    // A reading past the second resynchronises: a reading from the future is placed at the wall clock's now.
    const before = Date.now();
    const resynced = clock.at(now + 5_000);
    expect(resynced).toBeGreaterThanOrEqual(before - 1);
    expect(resynced).toBeLessThanOrEqual(Date.now() + 1);
  });
});
