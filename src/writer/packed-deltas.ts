import { readSketch, sketchWithStored } from '../activity/activity-days.js';
import type { ActivityDelta } from '../store/store.js';
import { forEachInTurns, ITEMS_PER_TURN } from '../threads/event-loop-turns.js';
import type { PackedDeltas } from './writer-messages.js';

/**
 * Numbers per delta in `PackedDeltas.numbers`, in this order: its account and day (places in
 * their lists), validations, first and last seen, the stored row (NaN: none), whether its networks
 * are stored (1 or 0), its own networks' estimate (NaN when its sketch is not sent), and where its
 * code key ends in `PackedDeltas.codeKeys`.
 */
const FIELDS = 9;

/** The UTF-8 bytes a code key may take at most: three per UTF-16 unit. */
const MAX_BYTES_PER_UNIT = 3;
/** What a flush's code keys take at first, per delta: a purchase code's key fits. */
const KEY_BYTES_GUESS = 48;

/**
 * A flush's deltas as the writer thread is sent them, packed a thousand at a time between turns
 * of the event loop. Posted as one object each, 10,000 deltas held the thread that answers
 * requests for several milliseconds in the structured clone alone; packed, what is posted is the
 * code keys' bytes, one array of numbers and the few sketches sent. The sellers and days repeated
 * by nearly every delta go once. The code keys go as bytes outside the JavaScript heap: as
 * strings, kept for as long as a flush is packed, they outlived the young generation and were
 * garbage for the old one. A delta's own sketch goes only when the store is to merge it (or when
 * `withSketch`): a counts-only delta, nearly every one on a busy store, costs no sketch written out.
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
  let keys = Buffer.allocUnsafeSlow(Math.max(deltas.length * KEY_BYTES_GUESS, 1));
  let keysEnd = 0;
  const sketches: string[] = [];
  let turnSketches: string[] = [];
  const endTurn = () => {
    if (turnSketches.length > 0) sketches.push(JSON.stringify(turnSketches));
    turnSketches = [];
  };
  // Validations that come between two turns change no delta: a delta's values are its own.
  await forEachInTurns(deltas, (delta, at) => {
    const own = !delta.networksStored || withSketch ? delta.sketchWith(undefined) : undefined;
    const room = delta.codeKey.length * MAX_BYTES_PER_UNIT;
    if (keysEnd + room > keys.length) {
      const larger = Buffer.allocUnsafeSlow(Math.max(keys.length * 2, keysEnd + room));
      keys.copy(larger, 0, 0, keysEnd);
      keys = larger;
    }
    // With room for the key's longest encoding, it is written whole.
    keysEnd += keys.write(delta.codeKey, keysEnd, 'utf8');
    const base = at * FIELDS;
    numbers[base] = placeIn(accounts, delta.account);
    numbers[base + 1] = placeIn(days, delta.day);
    numbers[base + 2] = delta.validations;
    numbers[base + 3] = delta.firstSeen;
    numbers[base + 4] = delta.lastSeen;
    numbers[base + 5] = delta.storedRow ?? Number.NaN;
    numbers[base + 6] = delta.networksStored ? 1 : 0;
    numbers[base + 7] = own?.networks ?? Number.NaN;
    numbers[base + 8] = keysEnd;
    if (own !== undefined) turnSketches.push(own.sketch);
    if ((at + 1) % ITEMS_PER_TURN === 0) endTurn();
  });
  endTurn();
  return {
    count: deltas.length,
    accounts: JSON.stringify([...accounts.keys()]),
    days: [...days.keys()],
    // Only the bytes written go: a view would post its whole buffer.
    codeKeys: new Uint8Array(keys.subarray(0, keysEnd)),
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
 * A delta as the writer thread unpacks it: its own fields, and the sketch sent (if any) and where
 * to say its day is kept, on its prototype's methods rather than in closures of its own.
 */
class UnpackedDelta implements ActivityDelta {
  constructor(
    readonly account: string,
    readonly codeKey: string,
    readonly day: string,
    readonly validations: number,
    readonly firstSeen: number,
    readonly lastSeen: number,
    readonly storedRow: number | undefined,
    readonly networksStored: boolean,
    private readonly sketch: string | undefined,
    private readonly networks: number,
    private readonly rows: Float64Array,
    private readonly at: number,
  ) {}

  sketchWith(stored: string | undefined): { readonly sketch: string; readonly networks: number } {
    if (this.sketch === undefined) throw new SketchesNeededError();
    if (stored === undefined) return { sketch: this.sketch, networks: this.networks };
    return sketchWithStored(readSketch(this.sketch), stored);
  }

  rowStored(row: number): void {
    this.rows[this.at] = row;
  }
}

/**
 * The packed deltas as the store takes them, in the writer thread: where each day is kept goes
 * to `rows` at the delta's place (NaN: not said).
 */
export function unpackDeltas(packed: PackedDeltas, rows: Float64Array): ActivityDelta[] {
  const accounts = JSON.parse(packed.accounts) as string[];
  const { days, numbers } = packed;
  const keys = Buffer.from(packed.codeKeys.buffer, packed.codeKeys.byteOffset, packed.codeKeys.byteLength);
  const sketches = packed.sketches.flatMap((text) => JSON.parse(text) as string[]).values();
  const deltas: ActivityDelta[] = new Array(packed.count);
  let keyStart = 0;
  for (let at = 0; at < packed.count; at++) {
    const base = at * FIELDS;
    const storedRow = numbers[base + 5] as number;
    const networks = numbers[base + 7] as number;
    const keyEnd = numbers[base + 8] as number;
    deltas[at] = new UnpackedDelta(
      accounts[numbers[base] as number] as string,
      keys.toString('utf8', keyStart, keyEnd),
      days[numbers[base + 1] as number] as string,
      numbers[base + 2] as number,
      numbers[base + 3] as number,
      numbers[base + 4] as number,
      Number.isNaN(storedRow) ? undefined : storedRow,
      numbers[base + 6] === 1,
      Number.isNaN(networks) ? undefined : (sketches.next().value as string),
      networks,
      rows,
      at,
    );
    keyStart = keyEnd;
  }
  if (keyStart !== keys.length || !sketches.next().done) {
    throw new Error('a packed activity flush lost deltas on its way');
  }
  return deltas;
}
