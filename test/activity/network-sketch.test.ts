import { describe, expect, it } from 'vitest';
import { EXACT_LIMIT, NetworkSketch, SketchFormatError } from '../../src/activity/network-sketch.js';

/** MurmurHash3's finaliser: distinct 32-bit inputs to well-spread distinct 32-bit hashes, as the keyed HMAC gives. */
function mix(value: number): number {
  let h = value >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85eb_ca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2_ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A sketch of the networks numbered [from, to), each added `times` times. */
function sketchOf(from: number, to: number, times = 1): NetworkSketch {
  const sketch = new NetworkSketch();
  for (let round = 0; round < times; round++) for (let n = from; n < to; n++) sketch.add(mix(n));
  return sketch;
}

const relativeError = (estimate: number, truth: number) => Math.abs(estimate - truth) / truth;

describe('NetworkSketch', () => {
  it('counts exactly up to its exact limit, however often a network comes back', () => {
    for (const count of [0, 1, 2, 50, 63, 64, 65, 500, EXACT_LIMIT]) {
      const sketch = sketchOf(0, count, 3);
      expect([sketch.estimate(), sketch.exact]).toEqual([count, true]);
    }
  });

  it.each([EXACT_LIMIT + 1, 2_000, 10_000, 100_000, 163_840, 1_000_000])(
    'estimates %i networks within 2 % once it holds registers',
    (count) => {
      const sketch = sketchOf(0, count);
      expect(sketch.exact).toBe(false);
      expect(relativeError(sketch.estimate(), count)).toBeLessThan(0.02);
    },
  );

  it('says whether an added network changed it: one network, then a second, then one more than the exact limit', () => {
    const sketch = new NetworkSketch();
    expect([sketch.add(5), sketch.add(5), sketch.estimate()]).toEqual([true, false, 1]);
    expect([sketch.add(6), sketch.add(5), sketch.estimate()]).toEqual([true, false, 2]);
    for (let hash = 7; hash < EXACT_LIMIT + 10; hash++) sketch.add(hash);
    expect(sketch.exact).toBe(false);
    // Registers: a hash already counted, or one that raises no register, changes nothing.
    expect(sketch.add(5)).toBe(false);
    expect(sketch.add(0xffff_ffff)).toBe(true);
    expect(sketch.add(0xffff_ffff)).toBe(false);
  });

  it('merges as a union: overlapping halves count their networks once, sparse or dense, either way round', () => {
    for (const [size, overlap] of [
      [40, 10],
      [900, 300],
      [30_000, 5_000],
    ] as const) {
      const truth = 2 * size - overlap;
      const left = sketchOf(0, size);
      left.merge(sketchOf(size - overlap, truth));
      const right = sketchOf(size - overlap, truth);
      right.merge(sketchOf(0, size));
      expect(left.estimate()).toBe(right.estimate());
      if (truth <= EXACT_LIMIT) expect(left.estimate()).toBe(truth);
      else expect(relativeError(left.estimate(), truth)).toBeLessThan(0.02);
    }
  });

  it('gives the same sketch back from its stored text, small or large', () => {
    for (const count of [0, 7, EXACT_LIMIT, 5_000]) {
      const sketch = sketchOf(0, count);
      const text = sketch.serialize();
      const back = NetworkSketch.parse(text);
      expect([back.estimate(), back.exact, back.serialize()]).toEqual([sketch.estimate(), sketch.exact, text]);
    }
    // Small ones stay small: a format byte and four bytes a network.
    expect(Buffer.from(sketchOf(0, 3).serialize(), 'base64')).toHaveLength(13);
  });

  it('refuses stored text it cannot read', () => {
    for (const text of ['', Buffer.from([9, 1, 2]).toString('base64'), Buffer.from([2, 1, 2, 3]).toString('base64')]) {
      expect(() => NetworkSketch.parse(text)).toThrow(SketchFormatError);
    }
  });
});
