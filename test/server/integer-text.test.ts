import { describe, expect, it } from 'vitest';
import { integerText } from '../../src/server/integer-text.js';

describe('integerText', () => {
  it('writes a whole number as String does, from 0 to past 2^53', () => {
    const numbers = [
      0,
      1,
      9,
      10,
      59,
      999,
      1_000,
      4_095,
      4_096,
      4_097,
      65_535,
      999_999_999,
      1_000_000_000,
      2 ** 31 - 1,
      2 ** 31,
      2 ** 32,
      Number.MAX_SAFE_INTEGER,
      2 ** 53 + 2,
      1e20,
    ];
    for (const n of numbers) expect(integerText(n)).toBe(String(n));
    // A budget counting down: every count its own text.
    const texts = Array.from({ length: 1_000 }, (_, at) => integerText(1_000_000_000 - at));
    expect(texts[0]).toBe('1000000000');
    expect(texts[999]).toBe('999999001');
    expect(new Set(texts).size).toBe(1_000);
  });
});
