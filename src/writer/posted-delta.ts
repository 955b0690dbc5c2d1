import { readSketch } from '../activity/activity-days.js';
import type { ActivityDelta } from '../store/store.js';
import type { PostedDelta } from './writer-messages.js';

/**
 * A delta as the writer thread is sent it. Its own sketch goes as text only when the store is to
 * merge it (or when `withSketch`): a counts-only delta, nearly every one on a busy store, costs
 * the API's thread no sketch written out.
 */
export function postedDelta(delta: ActivityDelta, withSketch: boolean): PostedDelta {
  const own = !delta.networksStored || withSketch ? delta.sketchWith(undefined) : undefined;
  return {
    account: delta.account,
    codeKey: delta.codeKey,
    day: delta.day,
    validations: delta.validations,
    firstSeen: delta.firstSeen,
    lastSeen: delta.lastSeen,
    networksStored: delta.networksStored,
    storedRow: delta.storedRow,
    sketch: own?.sketch,
    networks: own?.networks,
  };
}

/**
 * Thrown in the writer thread by a counts-only delta whose day is not stored after all (its file
 * replaced, say): the flush's transaction is rolled back, and the flush is sent again with every
 * delta's sketch.
 */
export class SketchesNeededError extends Error {
  constructor() {
    super('a counts-only activity delta found no stored day');
    this.name = 'SketchesNeededError';
  }
}

/** The posted delta as the store takes it, in the writer thread: where its day is kept goes to `rows[at]`. */
export function receivedDelta(posted: PostedDelta, rows: (number | undefined)[], at: number): ActivityDelta {
  return {
    ...posted,
    sketchWith(stored) {
      const { sketch, networks } = posted;
      if (sketch === undefined || networks === undefined) throw new SketchesNeededError();
      if (stored === undefined) return { sketch, networks };
      const merged = readSketch(stored);
      merged.merge(readSketch(sketch));
      return { sketch: merged.serialize(), networks: merged.estimate() };
    },
    rowStored(row) {
      rows[at] = row;
    },
  };
}
