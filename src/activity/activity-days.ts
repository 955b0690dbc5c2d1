import type { ActivityDay } from '../store/store.js';
import { NetworkSketch, SketchFormatError } from './network-sketch.js';

export const DAY_MS = 86_400_000;

/** The UTC day of a time (ms since the epoch), `YYYY-MM-DD`. */
export function dayOf(at: number): string {
  return new Date(at).toISOString().slice(0, 10);
}

/** The first of the `days` days that end today (UTC): what a window of that many days starts from. */
export function windowStart(now: number, days: number): string {
  return dayOf(now - (days - 1) * DAY_MS);
}

/** A stored sketch, or an empty one when it cannot be read: a damaged row must not stop every later flush. */
export function readSketch(text: string): NetworkSketch {
  try {
    return NetworkSketch.parse(text);
  } catch (error) {
    if (error instanceof SketchFormatError) return new NetworkSketch();
    throw error;
  }
}

/** `own` with the stored day's sketch (its text, none when the day is new) merged in: the text to store and its estimate. */
export function sketchWithStored(
  own: NetworkSketch,
  stored: string | undefined,
): { readonly sketch: string; readonly networks: number } {
  if (stored === undefined) return { sketch: own.serialize(), networks: own.estimate() };
  const sketch = readSketch(stored);
  sketch.merge(own);
  return { sketch: sketch.serialize(), networks: sketch.estimate() };
}

/** A stored day and the same code's gathered day as one: validations added, networks merged, times widened. */
export function mergeActivityDays(stored: ActivityDay, gathered: ActivityDay): ActivityDay {
  const sketch = readSketch(stored.sketch);
  sketch.merge(readSketch(gathered.sketch));
  return {
    account: stored.account,
    codeKey: stored.codeKey,
    day: stored.day,
    validations: stored.validations + gathered.validations,
    firstSeen: Math.min(stored.firstSeen, gathered.firstSeen),
    lastSeen: Math.max(stored.lastSeen, gathered.lastSeen),
    sketch: sketch.serialize(),
    networks: sketch.estimate(),
  };
}
