import { describe, expect, it } from 'vitest';
import { reportPace } from '../../src/activity/report-pace.js';

describe('reportPace', () => {
  it('waits as long as the work since the last wait, scaled by the share of time the report may work', async () => {
    let clock = 0;
    const slept: number[] = [];
    const fakeClock = { now: () => clock, sleep: async (ms: number) => void slept.push(ms) };
    const half = reportPace(0.5, fakeClock);
    clock += 30;
    await half();
    clock += 12;
    await half();
    const quarter = reportPace(0.25, fakeClock);
    clock += 10;
    await quarter();
    expect(slept).toEqual([30, 12, 30]);
  });
});
