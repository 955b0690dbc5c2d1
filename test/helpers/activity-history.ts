import { DAY_MS, dayOf } from '../../src/activity/activity-days.js';
import { NetworkSketch } from '../../src/activity/network-sketch.js';
import type { ActivityDay } from '../../src/store/store.js';

/**
 * One stored day of a code `daysAgo` days before `now`: `hashes` as its networks, `validations`
 * validations, first and last seen a second and two into the day.
 */
export function historyDay(
  account: string,
  codeKey: string,
  now: number,
  daysAgo: number,
  hashes: readonly number[],
  validations: number,
): ActivityDay {
  const sketch = new NetworkSketch();
  for (const hash of hashes) sketch.add(hash);
  const date = dayOf(now - daysAgo * DAY_MS);
  const start = Date.parse(`${date}T00:00:00.000Z`);
  return {
    account,
    codeKey,
    day: date,
    validations,
    firstSeen: start + 1_000,
    lastSeen: start + 2_000,
    sketch: sketch.serialize(),
    networks: sketch.estimate(),
  };
}

/** Hashes `from` to `to - 1`. */
export const hashRange = (from: number, to: number) => Array.from({ length: to - from }, (_, n) => from + n);
