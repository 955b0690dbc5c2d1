import { describe, expect, it } from 'vitest';
import { convertMinor, minorToJsonNumber, parseMoney, parseRate, showMoney } from '../../src/domain/money.js';

describe('parseMoney', () => {
  it.each([
    ['19.99', 1999],
    ['19.9', 1990],
    ['19', 1900],
    ['0', 0],
    ['0.05', 5],
    [' 7.50 ', 750],
    [19.99, 1999],
    [0.07, 7],
    [120, 12000],
    ['90071992547409.91', 9007199254740991],
  ])('reads %j as %d minor units', (input, minor) => {
    expect(parseMoney(input)).toEqual({ ok: true, minor });
  });

  it.each([
    ['1.999', 'must have at most two decimals'],
    [1.999, 'must have at most two decimals'],
    ['-1', 'must not be negative'],
    [-0.5, 'must not be negative'],
    ['abc', 'must be a decimal amount such as "19.99"'],
    ['1e3', 'must be a decimal amount such as "19.99"'],
    ['', 'must be a decimal amount such as "19.99"'],
    [null, 'must be a decimal string or number'],
    [Number.NaN, 'must be a decimal string or number'],
    ['90071992547409.92', 'is too large'],
  ])('refuses %j: %s', (input, reason) => {
    expect(parseMoney(input)).toEqual({ ok: false, reason });
  });
});

describe('conversion', () => {
  const half = parseRate('0.5');
  if (!half) throw new Error('rate');

  it('rounds exact halves to even', () => {
    expect(convertMinor(1, half)).toBe(0n); // 0.005 -> 0.00
    expect(convertMinor(3, half)).toBe(2n); // 0.015 -> 0.02
    expect(convertMinor(5, half)).toBe(2n); // 0.025 -> 0.02
    expect(convertMinor(7, half)).toBe(4n); // 0.035 -> 0.04
  });

  it('rounds non-halves to nearest', () => {
    const rate = parseRate('1.234');
    if (!rate) throw new Error('rate');
    expect(convertMinor(100, rate)).toBe(123n); // 1.234
    expect(convertMinor(1000, rate)).toBe(1234n);
    expect(convertMinor(1, rate)).toBe(1n); // 0.01234
  });

  it('shows amounts as JSON numbers with at most two decimals', () => {
    expect(minorToJsonNumber(1999n)).toBe(19.99);
    expect(minorToJsonNumber(1990n)).toBe(19.9);
    expect(minorToJsonNumber(4900n)).toBe(49);
    expect(minorToJsonNumber(5n)).toBe(0.05);
    expect(JSON.stringify(showMoney(1999, parseRate('5.00') ?? half))).toBe('99.95');
  });

  it('parses rates exactly and refuses zero or junk', () => {
    expect(parseRate('5.25')).toEqual({ numerator: 525n, scale: 100n });
    expect(parseRate('0')).toBeUndefined();
    expect(parseRate('0.000')).toBeUndefined();
    expect(parseRate('-1')).toBeUndefined();
    expect(parseRate('1e2')).toBeUndefined();
  });
});

describe('showMoney agrees with exact bigint arithmetic', () => {
  it('for random amounts and rates, halves included', () => {
    const rates = ['1', '5.00', '0.5', '0.125', '5.25', '1.005', '0.0001', '3.14159', '1000'].map((text) => {
      const rate = parseRate(text);
      if (!rate) throw new Error(text);
      return rate;
    });
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed;
    };
    for (let n = 0; n < 20_000; n++) {
      const minor = n < 1000 ? n : next() * (n % 3 === 0 ? 4096 : 1);
      for (const rate of rates) {
        expect(showMoney(minor, rate)).toBe(minorToJsonNumber(convertMinor(minor, rate)));
      }
    }
  });

  it('at the edge of what numbers hold exactly', () => {
    const one = parseRate('1');
    const five = parseRate('5.00');
    if (!one || !five) throw new Error('rate');
    for (const minor of [2 ** 45 - 1, 2 ** 45, 2 ** 45 + 1, 2 ** 53 - 1]) {
      expect(showMoney(minor, one)).toBe(minorToJsonNumber(BigInt(minor)));
      expect(showMoney(minor, five)).toBe(minorToJsonNumber(convertMinor(minor, five)));
    }
  });
});
