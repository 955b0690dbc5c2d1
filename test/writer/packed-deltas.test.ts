import { describe, expect, it } from 'vitest';
import { NetworkSketch } from '../../src/activity/network-sketch.js';
import type { ActivityDay, ActivityDelta } from '../../src/store/store.js';
import { ITEMS_PER_TURN } from '../../src/threads/event-loop-turns.js';
import { packDeltas, SketchesNeededError, unpackDeltas } from '../../src/writer/packed-deltas.js';
import { activityDelta } from '../helpers/activity-delta.js';

/** Sellers named as a store may name them: quotes, separators and letters beyond ASCII included. */
const ACCOUNTS = ['jdoe', 'a "quoted"\tseller\n', 'loja-são-joão', 'emoji-🙂'];
const DAYS = ['2026-11-28', '2026-11-29'];

/** `count` gathered days: every third one counts-only, every fifth with a stored row. */
function gatheredDays(count: number): { day: ActivityDay; delta: ActivityDelta }[] {
  return Array.from({ length: count }, (_, at) => {
    const sketch = new NetworkSketch();
    for (let hash = 1; hash <= (at % 4) + 1; hash++) sketch.add(hash * 7919 + at);
    const day: ActivityDay = {
      account: ACCOUNTS[at % ACCOUNTS.length] as string,
      codeKey: `code-${at}_${(at % 7 === 0 ? 'ç🙂' : 'x').repeat(at % 90)}`,
      day: DAYS[at % DAYS.length] as string,
      validations: (at % 13) + 1,
      firstSeen: 1_795_900_000_000 + at,
      lastSeen: 1_795_900_000_000 + at * 2,
      sketch: sketch.serialize(),
      networks: sketch.estimate(),
    };
    const delta: ActivityDelta = { ...activityDelta(day, at % 3 === 0), storedRow: at % 5 === 0 ? at * 10 : undefined };
    return { day, delta };
  });
}

const fieldsOf = (delta: ActivityDelta) => ({
  account: delta.account,
  codeKey: delta.codeKey,
  day: delta.day,
  validations: delta.validations,
  firstSeen: delta.firstSeen,
  lastSeen: delta.lastSeen,
  networksStored: delta.networksStored,
  storedRow: delta.storedRow,
});

describe('a flush packed for the writer thread', () => {
  it('comes out as it went in: every field, the sketches sent, and where each day is kept', async () => {
    const gathered = gatheredDays(2 * ITEMS_PER_TURN + 345);
    const packed = structuredClone(
      await packDeltas(
        gathered.map(({ delta }) => delta),
        false,
      ),
    );
    // The keys go as their UTF-8 bytes, one after the other, and nothing more (past the first guess of their size).
    expect(Buffer.from(packed.codeKeys).toString('utf8')).toBe(gathered.map(({ delta }) => delta.codeKey).join(''));
    expect(packed.codeKeys.byteLength).toBeGreaterThan(48 * gathered.length);
    expect(JSON.parse(packed.accounts)).toEqual(ACCOUNTS);
    const rows = new Float64Array(packed.count).fill(Number.NaN);
    const unpacked = unpackDeltas(packed, rows);

    expect(unpacked.map(fieldsOf)).toEqual(gathered.map(({ delta }) => fieldsOf(delta)));
    unpacked.forEach((delta, at) => {
      const { day } = gathered[at] as { day: ActivityDay };
      // A counts-only delta's sketch is not sent: asking for it says the flush must be sent again with it.
      if (delta.networksStored) expect(() => delta.sketchWith(undefined)).toThrow(SketchesNeededError);
      else expect(delta.sketchWith(undefined)).toEqual({ sketch: day.sketch, networks: day.networks });
    });
    unpacked[7]?.rowStored?.(70_007);
    unpacked[2344]?.rowStored?.(12);
    expect([...rows.entries()].filter(([, row]) => !Number.isNaN(row))).toEqual([
      [7, 70_007],
      [2344, 12],
    ]);
  });

  it('carries every sketch when asked to, merged with the stored one in the writer thread', async () => {
    const gathered = gatheredDays(10);
    const unpacked = unpackDeltas(
      structuredClone(
        await packDeltas(
          gathered.map(({ delta }) => delta),
          true,
        ),
      ),
      new Float64Array(10),
    );
    const stored = new NetworkSketch();
    stored.add(424242);
    unpacked.forEach((delta, at) => {
      const { day, delta: original } = gathered[at] as { day: ActivityDay; delta: ActivityDelta };
      expect(delta.sketchWith(undefined)).toEqual({ sketch: day.sketch, networks: day.networks });
      expect(delta.sketchWith(stored.serialize())).toEqual(original.sketchWith(stored.serialize()));
    });
  });

  it('lets requests in while it packs: the event loop takes a turn every thousand deltas', async () => {
    const turns: number[] = [];
    let packing = true;
    const tick = () => {
      if (!packing) return;
      turns.push(turns.length);
      setImmediate(tick);
    };
    setImmediate(tick);
    await packDeltas(
      gatheredDays(3 * ITEMS_PER_TURN).map(({ delta }) => delta),
      false,
    );
    packing = false;
    expect(turns.length).toBeGreaterThanOrEqual(2);
  });
});
