import { describe, expect, it } from 'vitest';
import { ReportCache } from '../../src/activity/report-cache.js';

/** A report being made, settled when the test says. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}

/**
 * The reports' reuse, on a clock the test moves: identical questions asked at once share one
 * computation, a made report is given again for `reuseMs`, and never after a write of its
 * seller's counts that came after it started.
 */
describe('ReportCache', () => {
  const setup = (maxEntries = 100) => {
    let clock = 1_000_000;
    const cache = new ReportCache({ reuseMs: 2_000, maxEntries, now: () => clock });
    const made: string[] = [];
    const ask = (account: string, key: string, answer: unknown) =>
      cache.get(account, key, async () => {
        made.push(key);
        return answer;
      });
    return { cache, made, ask, tick: (ms: number) => (clock += ms) };
  };

  it('shares one computation between identical questions asked while it is made', async () => {
    const { cache } = setup();
    const report = deferred<string>();
    let makes = 0;
    const make = () => {
      makes++;
      return report.promise;
    };
    const first = cache.get('alice', 'top-30-50', make);
    const second = cache.get('alice', 'top-30-50', make);
    expect(makes).toBe(1);
    report.resolve('the list');
    expect(await Promise.all([first, second])).toEqual(['the list', 'the list']);
  });

  it('gives a made report again for reuseMs, then makes it anew', async () => {
    const { made, ask, tick } = setup();
    expect(await ask('alice', 'k', 1)).toBe(1);
    tick(1_999);
    expect(await ask('alice', 'k', 2)).toBe(1);
    tick(1);
    expect(await ask('alice', 'k', 3)).toBe(3);
    expect(made).toEqual(['k', 'k']);
  });

  it('gives a report that took long to make again for costFactor times as long as it took', async () => {
    let clock = 1_000_000;
    const cache = new ReportCache({ reuseMs: 2_000, costFactor: 10, maxEntries: 100, now: () => clock });
    let makes = 0;
    const slow = deferred<string>();
    const first = cache.get('alice', 'top', () => {
      makes++;
      return slow.promise;
    });
    clock += 1_500;
    slow.resolve('made in 1.5 s');
    expect(await first).toBe('made in 1.5 s');
    clock += 14_999;
    expect(await cache.get('alice', 'top', async () => `made again (${++makes})`)).toBe('made in 1.5 s');
    clock += 1;
    expect(await cache.get('alice', 'top', async () => `made again (${++makes})`)).toBe('made again (2)');
    // A quick report is still given again for reuseMs, no less.
    clock += 1_999;
    expect(await cache.get('alice', 'top', async () => 'a third')).toBe('made again (2)');
  });

  it('keeps questions apart by key: another window, limit or seller is made on its own', async () => {
    const { made, ask } = setup();
    expect(await Promise.all([ask('alice', 'a', 1), ask('alice', 'b', 2), ask('bob', 'c', 3)])).toEqual([1, 2, 3]);
    expect(made).toEqual(['a', 'b', 'c']);
  });

  it('does not give a report again once its seller’s counts were written, and keeps other sellers’', async () => {
    const { cache, made, ask } = setup();
    await ask('alice', 'alice-top', 'old');
    await ask('bob', 'bob-top', 'bob');
    cache.wrote(['alice']);
    expect(await ask('alice', 'alice-top', 'new')).toBe('new');
    expect(await ask('bob', 'bob-top', 'other')).toBe('bob');
    // Made after the write: given again.
    expect(await ask('alice', 'alice-top', 'newer')).toBe('new');
    expect(made).toEqual(['alice-top', 'bob-top', 'alice-top']);
  });

  it('reads the written accounts only while a report is kept, and then only looks for those with one', async () => {
    const { cache, made, ask } = setup();
    const unread: Iterable<string> = {
      [Symbol.iterator]() {
        throw new Error('the accounts were read with no report kept');
      },
    };
    cache.wrote(unread);
    await ask('alice', 'alice-top', 'first');
    let read = 0;
    cache.wrote(
      (function* () {
        for (const account of ['carol', 'alice', 'dave']) {
          read++;
          yield account;
        }
      })(),
    );
    expect(read).toBe(3);
    expect(await ask('alice', 'alice-top', 'second')).toBe('second');
    expect(made).toEqual(['alice-top', 'alice-top']);
  });

  it('does not share a report being made with a question asked after a write it may have missed', async () => {
    const { cache } = setup();
    const before = deferred<string>();
    const first = cache.get('alice', 'k', () => before.promise);
    cache.wrote(['alice']);
    const second = cache.get('alice', 'k', async () => 'after the write');
    before.resolve('before the write');
    expect([await first, await second]).toEqual(['before the write', 'after the write']);
    // The later report is the one kept.
    expect(await cache.get('alice', 'k', async () => 'again')).toBe('after the write');
  });

  it('keeps no failure: the next question makes the report again', async () => {
    const { cache } = setup();
    await expect(cache.get('alice', 'k', () => Promise.reject(new Error('store unavailable')))).rejects.toThrow(
      'store unavailable',
    );
    expect(await cache.get('alice', 'k', async () => 'made')).toBe('made');
  });

  it('keeps at most maxEntries reports, letting the stale go first, then the oldest made', async () => {
    const { cache, ask, tick } = setup(3);
    await ask('alice', 'a', 1);
    tick(2_000);
    await ask('alice', 'b', 2);
    await ask('alice', 'c', 3);
    // Full: the stale `a` goes.
    await ask('alice', 'd', 4);
    expect(cache.size).toBe(3);
    // Full of fresh ones: the oldest made, `b`, goes.
    await ask('alice', 'e', 5);
    expect(cache.size).toBe(3);
    expect(await ask('alice', 'b', 'made again')).toBe('made again');
    expect(await ask('alice', 'e', 'not made')).toBe(5);
  });
});
