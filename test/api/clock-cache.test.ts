import { describe, expect, it } from 'vitest';
import { ClockCache } from '../../src/api/clock-cache.js';

interface Entry {
  readonly name: string;
  readonly size: number;
}
const sized = (maxSize: number, now?: () => number) =>
  new ClockCache<string, Entry>({ maxSize, sizeOf: (value) => value.size, now });
const entry = (name: string, size = 10): Entry => ({ name, size });
const names = (cache: ClockCache<string, Entry>, keys: string[]) => keys.map((key) => cache.get(key)?.name ?? null);

describe('ClockCache', () => {
  it('keeps what fits, and lets go of the oldest entry not read when the sizes go over', () => {
    const cache = sized(30);
    cache.set('a', entry('a'));
    cache.set('b', entry('b'));
    cache.set('c', entry('c'));
    expect(cache.calculatedSize).toBe(30);
    cache.set('d', entry('d'));
    expect(cache.size).toBe(3);
    expect(cache.calculatedSize).toBe(30);
    expect(names(cache, ['a', 'b', 'c', 'd'])).toEqual([null, 'b', 'c', 'd']);
  });

  it('gives an entry read since it joined the line a second chance', () => {
    const cache = sized(30);
    cache.set('a', entry('a'));
    cache.set('b', entry('b'));
    cache.set('c', entry('c'));
    expect(cache.get('a')?.name).toBe('a');
    cache.set('d', entry('d'));
    // a was read: it goes to the back of the line, marked as not read, and b goes.
    expect(names(cache, ['a', 'c', 'd'])).toEqual(['a', 'c', 'd']);
    expect(cache.get('b')).toBeUndefined();
  });

  it('keeps an entry read again and again through a flood of new keys', () => {
    const cache = sized(100);
    cache.set('hot', entry('hot'));
    for (let index = 0; index < 1000; index++) {
      cache.set(`cold-${index}`, entry(`cold-${index}`));
      expect(cache.get('hot')?.name).toBe('hot');
    }
    expect(cache.size).toBe(10);
    expect(cache.calculatedSize).toBe(100);
    expect(names(cache, ['cold-989', 'cold-990', 'cold-991', 'cold-999'])).toEqual([
      null,
      null,
      'cold-991',
      'cold-999',
    ]);
  });

  it('lets the old entries go, not the new ones, when a burst of new keys comes after every entry was read', () => {
    const cache = sized(100);
    const old = Array.from({ length: 10 }, (_, index) => `old-${index}`);
    const fresh = Array.from({ length: 10 }, (_, index) => `new-${index}`);
    for (const key of old) cache.set(key, entry(key));
    for (const key of old) cache.get(key);
    for (const key of fresh) cache.set(key, entry(key));
    expect(cache.size).toBe(10);
    // The first new key meets a line of read entries, each sent to the back: it is at the front
    // when the hand has passed them all, and goes. From then on, the old entries go, oldest first.
    expect(names(cache, fresh)).toEqual([null, ...fresh.slice(1)]);
    expect(names(cache, old)).toEqual([...old.slice(0, 9).map(() => null), 'old-9']);
  });

  it('lets go of as many entries as a large value needs, and keeps no value larger than the whole cache', () => {
    const cache = sized(30);
    cache.set('a', entry('a'));
    cache.set('b', entry('b'));
    cache.set('c', entry('c'));
    cache.set('big', entry('big', 25));
    expect(names(cache, ['a', 'b', 'c', 'big'])).toEqual([null, null, null, 'big']);
    expect(cache.calculatedSize).toBe(25);
    cache.set('big', entry('bigger', 31));
    expect(cache.get('big')).toBeUndefined();
    expect(cache.size).toBe(0);
    expect(cache.calculatedSize).toBe(0);
  });

  it('counts a value set again at its new size', () => {
    const cache = sized(30);
    cache.set('a', entry('a', 10));
    cache.set('a', entry('a2', 20));
    expect(cache.size).toBe(1);
    expect(cache.calculatedSize).toBe(20);
    cache.set('b', entry('b', 15));
    expect(names(cache, ['a', 'b'])).toEqual([null, 'b']);
    expect(cache.calculatedSize).toBe(15);
  });

  it('finds an entry set with a time to live until it is over, then not', () => {
    let now = 1_000;
    const cache = sized(100, () => now);
    cache.set('short', entry('short'), 500);
    cache.set('forever', entry('forever'));
    now = 1_499;
    expect(names(cache, ['short', 'forever'])).toEqual(['short', 'forever']);
    now = 1_500;
    expect(names(cache, ['short', 'forever'])).toEqual([null, 'forever']);
    expect(cache.size).toBe(1);
    expect(cache.calculatedSize).toBe(10);
  });

  it('forgets everything on clear, and fills again from nothing', () => {
    const cache = sized(30);
    cache.set('a', entry('a'));
    cache.set('b', entry('b'));
    cache.clear();
    expect(cache.size).toBe(0);
    expect(cache.calculatedSize).toBe(0);
    expect(cache.get('a')).toBeUndefined();
    for (const key of ['c', 'd', 'e', 'f']) cache.set(key, entry(key));
    expect(names(cache, ['c', 'd', 'e', 'f'])).toEqual([null, 'd', 'e', 'f']);
  });

  it('deletes one key and its size', () => {
    const cache = sized(30);
    cache.set('a', entry('a'));
    cache.set('b', entry('b', 15));
    expect(cache.delete('b')).toBe(true);
    expect(cache.delete('b')).toBe(false);
    expect(cache.calculatedSize).toBe(10);
    expect(names(cache, ['a', 'b'])).toEqual(['a', null]);
  });
});
