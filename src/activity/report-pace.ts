import { setTimeout as sleep } from 'node:timers/promises';
import type { ReportPace } from './activity-report.js';

export interface PaceClock {
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<unknown>;
}

const realClock: PaceClock = { now: () => performance.now(), sleep };

/**
 * A pace for one long report: each wait lasts as long as the work since the last one, times
 * (1 / share - 1), so the report (its thread, and the database connection serving its reads) is at
 * work at most `share` of the time it takes. A report over a long history then leaves most of the
 * machine to the requests answered meanwhile; its caller waits longer, and pays for it.
 */
export function reportPace(share: number, clock: PaceClock = realClock): ReportPace {
  const restPerWork = 1 / share - 1;
  let resumed = clock.now();
  return async () => {
    const worked = clock.now() - resumed;
    await clock.sleep(worked * restPerWork);
    resumed = clock.now();
  };
}
