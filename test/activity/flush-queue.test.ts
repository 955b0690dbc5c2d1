import { describe, expect, it } from 'vitest';
import { FlushQueue, type Queueable, SELLERS_COUNTED } from '../../src/activity/flush-queue.js';

class Entry implements Queueable<Entry> {
  queued = false;
  nextQueued: Entry | undefined = undefined;
  constructor(
    readonly account: string,
    readonly name: string,
  ) {}
}

const names = (entries: readonly Entry[]) => entries.map((entry) => entry.name);

/** Every entry of a taken run, in parts of `partSize`, as the flush reads them. */
function partsOf(taken: ReturnType<FlushQueue<Entry>['take']>, partSize: number): string[][] {
  const reused = new Array<Entry>(partSize);
  const parts: string[][] = [];
  while (taken.remaining > 0) {
    const part = taken.nextPart(reused);
    parts.push(names(part));
    for (const entry of part) entry.queued = false;
  }
  return parts;
}

describe('the queue of entries waiting for a flush', () => {
  it('hands out every entry once, in the order queued, in parts: full ones in the array kept for them', () => {
    const queue = new FlushQueue<Entry>();
    const entries = Array.from({ length: 7 }, (_, at) => new Entry(at % 2 === 0 ? 'ann' : 'bob', `e${at}`));
    for (const entry of entries) queue.push(entry);
    // Queued already: not twice.
    queue.push(entries[3] as Entry);
    const taken = queue.take();
    expect(taken.remaining).toBe(7);
    const reused = new Array<Entry>(3);
    const first = taken.nextPart(reused);
    expect(first).toBe(reused);
    expect(names(first)).toEqual(['e0', 'e1', 'e2']);
    expect(taken.remaining).toBe(4);
    expect(names(taken.nextPart(reused))).toEqual(['e3', 'e4', 'e5']);
    const last = taken.nextPart(reused);
    expect(last).not.toBe(reused);
    expect(names(last)).toEqual(['e6']);
    expect(taken.remaining).toBe(0);
    // The queue is empty, and an entry handed to its write (no longer queued) queues again.
    expect(queue.take().remaining).toBe(0);
    (entries[5] as Entry).queued = false;
    queue.push(entries[5] as Entry);
    expect(partsOf(queue.take(), 3)).toEqual([['e5']]);
  });

  it('takes one seller’s entries alone, the others kept in their order, and counts both right', () => {
    const queue = new FlushQueue<Entry>();
    const entries = ['ann', 'bob', 'bob', 'ann', 'cid', 'bob'].map((account, at) => new Entry(account, `e${at}`));
    for (const entry of entries) queue.push(entry);
    expect(queue.take('dan').remaining).toBe(0);
    expect(partsOf(queue.take('bob'), 10)).toEqual([['e1', 'e2', 'e5']]);
    expect(queue.take('bob').remaining).toBe(0);
    // Queued after the take: behind the kept ones.
    const late = new Entry('bob', 'late');
    queue.push(late);
    expect(partsOf(queue.take('ann'), 10)).toEqual([['e0', 'e3']]);
    expect(partsOf(queue.take(), 10)).toEqual([['e4', 'late']]);
  });

  it('keeps the taken chain whole while entries handed out queue again, and gives the rest back in order', () => {
    const queue = new FlushQueue<Entry>();
    const entries = Array.from({ length: 5 }, (_, at) => new Entry('ann', `e${at}`));
    for (const entry of entries) queue.push(entry);
    const taken = queue.take();
    const part = taken.nextPart(new Array<Entry>(2));
    // Handed to its write, then validated again: it queues for the next flush.
    for (const entry of part) entry.queued = false;
    queue.push(entries[0] as Entry);
    // Not handed out yet: still queued, so not queued twice, and the chain holds.
    queue.push(entries[3] as Entry);
    const left: string[] = [];
    taken.forEachLeft((entry) => {
      left.push(entry.name);
      entry.queued = false;
      queue.push(entry);
    });
    expect(left).toEqual(['e2', 'e3', 'e4']);
    expect(taken.remaining).toBe(0);
    expect(partsOf(queue.take(), 10)).toEqual([['e0', 'e2', 'e3', 'e4']]);
  });

  it('counts each seller afresh after a whole take, keeping the sellers seen up to a bound', () => {
    const queue = new FlushQueue<Entry>();
    const first = ['ann', 'bob', 'ann'].map((account, at) => new Entry(account, `e${at}`));
    for (const entry of first) queue.push(entry);
    expect(partsOf(queue.take(), 10)).toEqual([['e0', 'e1', 'e2']]);
    // Both sellers stay counted, at nothing waiting.
    expect(queue.sellersCounted).toBe(2);
    expect(queue.take('ann').remaining).toBe(0);
    expect(queue.take('bob').remaining).toBe(0);
    const second = ['bob', 'ann', 'bob'].map((account, at) => new Entry(account, `f${at}`));
    for (const entry of second) queue.push(entry);
    const bob = queue.take('bob');
    expect(bob.remaining).toBe(2);
    expect(partsOf(bob, 10)).toEqual([['f0', 'f2']]);
    expect(partsOf(queue.take('ann'), 10)).toEqual([['f1']]);
    expect(queue.take().remaining).toBe(0);

    // Past the bound, the sellers counted start again from none.
    for (let at = 0; at <= SELLERS_COUNTED; at++) queue.push(new Entry(`seller${at}`, `s${at}`));
    expect(queue.sellersCounted).toBe(SELLERS_COUNTED + 3);
    expect(queue.take().remaining).toBe(SELLERS_COUNTED + 1);
    expect(queue.sellersCounted).toBe(0);
    const late = new Entry('ann', 'late');
    queue.push(late);
    expect(queue.sellersCounted).toBe(1);
    expect(partsOf(queue.take('ann'), 10)).toEqual([['late']]);
  });
});
