import { deflateRawSync, inflateRawSync } from 'node:zlib';

/**
 * The distinct networks a purchase code was validated from, without the networks: a set of 32-bit
 * keyed hashes while it is small (exact), then a HyperLogLog of 2^16 registers (Ertl's improved
 * estimator: a standard error of 1.04/256 = 0.41 %, so 2 % is five of them). Written here rather
 * than taken from npm: see docs/decisions.md (purchase-code activity).
 */

/** Index bits: 2^16 registers. */
const P = 16;
const REGISTERS = 1 << P;
/** Hash bits left after the index; a register holds their leading zeros + 1, so 1 to Q + 1. */
const Q = 32 - P;
const LOW_BITS = (1 << Q) - 1;
/**
 * Hashes kept one by one up to this many (4 bytes each, exact); one more and the sketch turns
 * into registers. 1,024 sit in 4 KiB, about what the registers take once deflated.
 */
export const EXACT_LIMIT = 1024;
const ALPHA_INFINITY = 1 / (2 * Math.log(2));

/** No network yet: hashes are unsigned 32-bit, so -1 is none of them. */
const NONE = -1;

const SPARSE_FORMAT = 1;
const DENSE_FORMAT = 2;

/** A sketch whose stored text cannot be read (cut short, another format). */
export class SketchFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SketchFormatError';
  }
}

export class NetworkSketch {
  /**
   * The one network seen while there is only one (NONE before the first): most codes are validated
   * from one network, and a Set per code, made by the tens of thousands between two flushes, was
   * most of what counting cost the validation path.
   */
  private single = NONE;
  private hashes: Set<number> | undefined;
  private registers: Uint8Array | undefined;

  /** Adds one network, given as its 32-bit keyed hash (see createNetworkHasher); true when the sketch changed. */
  add(hash: number): boolean {
    const value = hash >>> 0;
    const { hashes, registers } = this;
    if (registers !== undefined) return addToRegisters(registers, value);
    if (hashes !== undefined) {
      if (hashes.has(value)) return false;
      hashes.add(value);
      if (hashes.size > EXACT_LIMIT) this.densify();
      return true;
    }
    if (this.single === NONE) {
      this.single = value;
      return true;
    }
    if (this.single === value) return false;
    this.hashes = new Set([this.single, value]);
    this.single = NONE;
    return true;
  }

  /** Adds every network of `other` (the union of both). */
  merge(other: NetworkSketch): void {
    if (other.registers === undefined) {
      for (const hash of other.exactHashes()) this.add(hash);
      return;
    }
    const mine = this.registers ?? this.densify();
    const theirs = other.registers;
    for (let index = 0; index < REGISTERS; index++) {
      if ((theirs[index] as number) > (mine[index] as number)) mine[index] = theirs[index] as number;
    }
  }

  /** The hashes of an exact sketch (none of a dense one). */
  private exactHashes(): Iterable<number> {
    if (this.hashes !== undefined) return this.hashes;
    return this.single === NONE || this.registers !== undefined ? [] : [this.single];
  }

  /** How many distinct networks: exact up to EXACT_LIMIT, then within 2 % (five standard errors). */
  estimate(): number {
    if (this.registers !== undefined) return estimateRegisters(this.registers);
    if (this.hashes !== undefined) return this.hashes.size;
    return this.single === NONE ? 0 : 1;
  }

  /** True while the sketch counts exactly. */
  get exact(): boolean {
    return this.registers === undefined;
  }

  /** The stored form, as text (base64): a format byte, then the sorted hashes or the deflated registers. */
  serialize(): string {
    if (this.registers === undefined) {
      const sorted = Uint32Array.from(this.exactHashes()).sort();
      const bytes = Buffer.allocUnsafe(1 + sorted.length * 4);
      bytes[0] = SPARSE_FORMAT;
      for (let at = 0; at < sorted.length; at++) bytes.writeUInt32BE(sorted[at] as number, 1 + at * 4);
      return bytes.toString('base64');
    }
    const registers = this.registers as Uint8Array;
    return Buffer.concat([Buffer.from([DENSE_FORMAT]), deflateRawSync(registers)]).toString('base64');
  }

  static parse(text: string): NetworkSketch {
    const bytes = Buffer.from(text, 'base64');
    const sketch = new NetworkSketch();
    if (bytes[0] === SPARSE_FORMAT && (bytes.length - 1) % 4 === 0) {
      for (let at = 1; at < bytes.length; at += 4) sketch.add(bytes.readUInt32BE(at));
      return sketch;
    }
    if (bytes[0] === DENSE_FORMAT) {
      let registers: Buffer;
      try {
        registers = inflateRawSync(bytes.subarray(1));
      } catch {
        throw new SketchFormatError('a stored network sketch is damaged');
      }
      if (registers.length !== REGISTERS) throw new SketchFormatError('a stored network sketch has the wrong size');
      sketch.registers = new Uint8Array(registers);
      return sketch;
    }
    throw new SketchFormatError('a stored network sketch is of an unknown format');
  }

  private densify(): Uint8Array {
    const registers = new Uint8Array(REGISTERS);
    for (const hash of this.exactHashes()) addToRegisters(registers, hash);
    this.hashes = undefined;
    this.single = NONE;
    this.registers = registers;
    return registers;
  }
}

/** True when the hash raised its register. */
function addToRegisters(registers: Uint8Array, hash: number): boolean {
  const index = hash >>> Q;
  const rest = hash & LOW_BITS;
  // Leading zeros of the Q low bits, plus one; Q + 1 when they are all zero.
  const value = rest === 0 ? Q + 1 : Math.clz32(rest) - P + 1;
  if (value <= (registers[index] as number)) return false;
  registers[index] = value;
  return true;
}

/**
 * Ertl's improved estimator ("New cardinality estimation algorithms for HyperLogLog sketches",
 * 2017, algorithm 6): no bias correction tables and no switch to linear counting, with the
 * standard error of the raw estimator over the whole range.
 */
function estimateRegisters(registers: Uint8Array): number {
  const counts = new Array<number>(Q + 2).fill(0);
  for (let index = 0; index < REGISTERS; index++) counts[registers[index] as number]++;
  let z = REGISTERS * tau(1 - (counts[Q + 1] as number) / REGISTERS);
  for (let k = Q; k >= 1; k--) z = 0.5 * (z + (counts[k] as number));
  z += REGISTERS * sigma((counts[0] as number) / REGISTERS);
  return Math.round((ALPHA_INFINITY * REGISTERS * REGISTERS) / z);
}

function sigma(x: number): number {
  if (x === 1) return Number.POSITIVE_INFINITY;
  let y = 1;
  let z = x;
  let previous: number;
  let power = x;
  do {
    power *= power;
    previous = z;
    z += power * y;
    y += y;
  } while (z !== previous);
  return z;
}

function tau(x: number): number {
  if (x === 0 || x === 1) return 0;
  let y = 1;
  let z = 1 - x;
  let previous: number;
  let root = x;
  do {
    root = Math.sqrt(root);
    previous = z;
    y *= 0.5;
    z -= (1 - root) ** 2 * y;
  } while (z !== previous);
  return z / 3;
}
