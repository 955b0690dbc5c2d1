import { describe, expect, it } from 'vitest';
import { RecentIds } from '../../src/limits/recent-ids.js';

describe('RecentIds', () => {
  it('keeps at most max ids, and lets the least recent go first', () => {
    const ids = new RecentIds<number>(4);
    for (const [id, value] of [
      ['a', 1],
      ['b', 2],
    ] as const)
      ids.set(id, value);
    // A second generation starts: a and b are the older one.
    ids.set('c', 3);
    expect(ids.get('a')).toBe(1);
    // The current generation (c, a) is full: it becomes the older, and b, not asked for, goes.
    ids.set('d', 4);
    ids.set('e', 5);
    expect([ids.peek('a'), ids.peek('b'), ids.peek('c'), ids.peek('d'), ids.peek('e')]).toEqual([
      1,
      undefined,
      3,
      4,
      5,
    ]);
    expect(ids.size).toBeLessThanOrEqual(4);
  });

  it('finds an id set again with its new value, never an older one', () => {
    const ids = new RecentIds<string>(4);
    ids.set('a', 'first');
    ids.set('b', 'b');
    ids.set('c', 'c');
    ids.set('a', 'second');
    expect(ids.get('a')).toBe('second');
    ids.set('d', 'd');
    ids.set('e', 'e');
    expect(ids.peek('a')).toBe('second');
  });

  it('peeks without keeping an id as recent', () => {
    const ids = new RecentIds<number>(2);
    ids.set('a', 1);
    ids.set('b', 2);
    expect(ids.peek('a')).toBe(1);
    ids.set('c', 3);
    // a was only peeked at, so it went with its generation.
    expect(ids.peek('a')).toBeUndefined();
    expect(ids.get('b')).toBe(2);
  });
});
