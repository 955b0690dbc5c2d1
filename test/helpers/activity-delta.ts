import { readSketch } from '../../src/activity/activity-days.js';
import type { ActivityDay, ActivityDelta } from '../../src/store/store.js';

/**
 * A whole gathered day as what a flush adds (see ActivityDelta): its networks merged into the
 * stored day's, or with `networksStored`, its counts alone when the day is stored.
 */
export function activityDelta(day: ActivityDay, networksStored = false): ActivityDelta {
  return {
    account: day.account,
    codeKey: day.codeKey,
    day: day.day,
    validations: day.validations,
    firstSeen: day.firstSeen,
    lastSeen: day.lastSeen,
    networksStored,
    sketchWith(stored) {
      const sketch = readSketch(day.sketch);
      if (stored !== undefined) sketch.merge(readSketch(stored));
      return { sketch: sketch.serialize(), networks: sketch.estimate() };
    },
  };
}
