import { describe, expect, it } from 'vitest';
import { type CounterStore, LocalCounterStore } from '../../src/limits/counter-store.js';
import { type CounterSlot, WindowCounter } from '../../src/limits/window-counter.js';

const MINUTE = 60_000;
/** The start of a minute: windows are aligned on the clock. */
const START = 1_000_000_020_000;

describe('WindowCounter.take with a holder', () => {
  it('counts on the held entry as a lookup would: the counts are one, with or without the holder', () => {
    const counter = new WindowCounter('calls', MINUTE, undefined, () => START);
    const holder: CounterSlot = { counterSlot: undefined };
    expect([0, 1, 2].map(() => counter.take('a', 10, START, holder))).toEqual([0, 1, 2]);
    expect(counter.take('a', 10, START)).toBe(3);
    expect(counter.take('a', 10, START, holder)).toBe(4);
    expect(counter.count('a', START)).toBe(5);
    // Past the max nothing more is taken, held or not.
    for (let n = 0; n < 10; n += 1) counter.take('a', 10, START, holder);
    expect(counter.count('a', START)).toBe(10);
  });

  it('starts again at 0 in the next window, and moves the holder to the new entry', () => {
    const counter = new WindowCounter('calls', MINUTE, undefined, () => START);
    const holder: CounterSlot = { counterSlot: undefined };
    counter.take('a', 10, START, holder);
    counter.take('a', 10, START, holder);
    const held = holder.counterSlot;
    expect(counter.take('a', 10, START + MINUTE, holder)).toBe(0);
    expect(holder.counterSlot).not.toBe(held);
    expect(counter.take('a', 10, START + MINUTE, holder)).toBe(1);
    expect(counter.count('a', START + MINUTE)).toBe(2);
  });

  it('never counts one id on another id held before', () => {
    const counter = new WindowCounter('calls', MINUTE, undefined, () => START);
    const holder: CounterSlot = { counterSlot: undefined };
    counter.take('a', 10, START, holder);
    expect(counter.take('b', 10, START, holder)).toBe(0);
    expect(counter.take('b', 10, START, holder)).toBe(1);
    expect([counter.count('a', START), counter.count('b', START)]).toEqual([1, 2]);
  });

  it('keeps a held id through a flood of new ids: its count is never lost nor counted on a forgotten entry', () => {
    // Four ids at most: generations of two.
    const counter = new WindowCounter('calls', MINUTE, undefined, () => START, 4);
    const holder: CounterSlot = { counterSlot: undefined };
    let taken = 0;
    for (let round = 0; round < 20; round += 1) {
      expect(counter.take('held', 1_000, START, holder)).toBe(taken);
      taken += 1;
      // Two new ids each round: each fills a generation and pushes the older one out.
      counter.take(`new-${round}-1`, 1_000, START);
      counter.take(`new-${round}-2`, 1_000, START);
    }
    // Read once, at the end: a read is a lookup, which would itself keep the id among the recent.
    expect(counter.count('held', START)).toBe(taken);
  });
});

/** The primary's counters, answered asynchronously as a worker gets them. */
function machineCounters(store = new LocalCounterStore(() => START)): CounterStore {
  return { available: true, take: async (takes, options) => store.take(takes, options) };
}

describe('counters shared by several processes', () => {
  it('a take is all or nothing, and never passes a max; a partial take gets what is left', () => {
    const store = new LocalCounterStore(() => START);
    const take = (key: string, by: number, max: number) => ({ key, by, max, ttlMs: MINUTE });
    expect(store.take([take('a', 1, 2), take('b', 1, 1)])).toEqual({ taken: true, totals: [1, 1], moved: [1, 1] });
    // b is at its max: a is not counted either.
    expect(store.take([take('a', 1, 2), take('b', 1, 1)])).toEqual({ taken: false, totals: [1, 1], moved: [0, 0] });
    expect(store.take([take('a', 5, 4)], { partial: true })).toEqual({ taken: true, totals: [4], moved: [3] });
    // Given back, never below 0.
    expect(store.take([take('b', -3, 0)])).toEqual({ taken: true, totals: [0], moved: [-1] });
  });

  it('two processes taking requests at once serve exactly the budget between them', async () => {
    const shared = machineCounters();
    const one = new WindowCounter('calls', MINUTE, shared, () => START);
    const other = new WindowCounter('calls', MINUTE, shared, () => START);
    const counts = await Promise.all(
      Array.from({ length: 90 }, (_, n) => (n % 3 === 0 ? one : other).take('a', 40, START)),
    );
    expect(counts.filter((count) => count < 40)).toHaveLength(40);
    await Promise.all([one.close(), other.close()]);
  });

  it('requests granted to one process and left unused go back to the others', async () => {
    const shared = machineCounters();
    const one = new WindowCounter('calls', MINUTE, shared, () => START);
    const other = new WindowCounter('calls', MINUTE, shared, () => START);
    // A grant of 62 (a sixteenth of what is left): one is used.
    expect(await one.take('a', 1_000, START)).toBe(0);
    expect(await other.take('a', 1_000, START)).toBe(62);
    // Used since the last flush, a grant stays; unused through one more, it goes back.
    await one.flush();
    await one.flush();
    expect(one.count('a', START)).toBe(1);
    await other.flush();
    await other.flush();
    expect(await one.read('a')).toBe(2);
  });
});
