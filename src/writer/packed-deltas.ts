import { readSketch, sketchWithStored } from '../activity/activity-days.js';
import type { ActivityDelta } from '../store/store.js';
import { forEachInTurns, ITEMS_PER_TURN } from '../threads/event-loop-turns.js';
import type { PackedDeltas } from './writer-messages.js';

/**
 * Numbers per delta in `PackedDeltas.numbers`, in this order: its account and day (places in
 * their lists), validations, first and last seen, the stored row (NaN: none), whether its networks
 * are stored (1 or 0), and its own networks' estimate (NaN when its sketch is not sent).
 */
const FIELDS = 8;

/**
 * A flush's deltas as the writer thread is sent them, packed a thousand at a time between turns
 * of the event loop. Posted as one object each, 10,000 deltas held the thread that answers
 * requests for several milliseconds in the structured clone alone; packed, what is posted is a
 * few strings (each thousand's code keys and sketches as JSON arrays) and one array of numbers.
 * The sellers and days repeated by nearly every delta go once. A delta's own sketch goes only when
 * the store is to merge it (or when `withSketch`): a counts-only delta, nearly every one on a busy
 * store, costs no sketch written out.
 */
export async function packDeltas(deltas: readonly ActivityDelta[], withSketch: boolean): Promise<PackedDeltas> {
  const accounts = new Map<string, number>();
  const days = new Map<string, number>();
  const placeIn = (map: Map<string, number>, value: string) => {
    let place = map.get(value);
    if (place === undefined) {
      place = map.size;
      map.set(value, place);
    }
    return place;
  };
  const numbers = new Float64Array(deltas.length * FIELDS);
  const codeKeys: string[] = [];
  const sketches: string[] = [];
  let turnKeys: string[] = [];
  let turnSketches: string[] = [];
  const endTurn = () => {
    codeKeys.push(JSON.stringify(turnKeys));
    sketches.push(JSON.stringify(turnSketches));
    turnKeys = [];
    turnSketches = [];
  };
  // Validations that come between two turns change no delta: a delta's values are its own.
  await forEachInTurns(deltas, (delta, at) => {
    const own = !delta.networksStored || withSketch ? delta.sketchWith(undefined) : undefined;
    const base = at * FIELDS;
    numbers[base] = placeIn(accounts, delta.account);
    numbers[base + 1] = placeIn(days, delta.day);
    numbers[base + 2] = delta.validations;
    numbers[base + 3] = delta.firstSeen;
    numbers[base + 4] = delta.lastSeen;
    numbers[base + 5] = delta.storedRow ?? Number.NaN;
    numbers[base + 6] = delta.networksStored ? 1 : 0;
    numbers[base + 7] = own?.networks ?? Number.NaN;
    turnKeys.push(delta.codeKey);
    if (own !== undefined) turnSketches.push(own.sketch);
    if (turnKeys.length === ITEMS_PER_TURN) endTurn();
  });
  if (turnKeys.length > 0) endTurn();
  return {
    count: deltas.length,
    accounts: JSON.stringify([...accounts.keys()]),
    days: [...days.keys()],
    codeKeys,
    numbers,
    sketches,
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

/**
 * The packed deltas as the store takes them, in the writer thread: where each day is kept goes
 * to `rows` at the delta's place (NaN: not said).
 */
export function unpackDeltas(packed: PackedDeltas, rows: Float64Array): ActivityDelta[] {
  const accounts = JSON.parse(packed.accounts) as string[];
  const { days, numbers } = packed;
  const deltas: ActivityDelta[] = [];
  packed.codeKeys.forEach((keysText, turn) => {
    const sketches = (JSON.parse(packed.sketches[turn] as string) as string[]).values();
    for (const codeKey of JSON.parse(keysText) as string[]) {
      const at = deltas.length;
      const base = at * FIELDS;
      const storedRow = numbers[base + 5] as number;
      const networks = numbers[base + 7] as number;
      const sketch = Number.isNaN(networks) ? undefined : (sketches.next().value as string);
      deltas.push({
        account: accounts[numbers[base] as number] as string,
        codeKey,
        day: days[numbers[base + 1] as number] as string,
        validations: numbers[base + 2] as number,
        firstSeen: numbers[base + 3] as number,
        lastSeen: numbers[base + 4] as number,
        storedRow: Number.isNaN(storedRow) ? undefined : storedRow,
        networksStored: numbers[base + 6] === 1,
        sketchWith(stored) {
          if (sketch === undefined) throw new SketchesNeededError();
          return stored === undefined ? { sketch, networks } : sketchWithStored(readSketch(sketch), stored);
        },
        rowStored(row) {
          rows[at] = row;
        },
      });
    }
  });
  if (deltas.length !== packed.count) throw new Error('a packed activity flush lost deltas on its way');
  return deltas;
}
