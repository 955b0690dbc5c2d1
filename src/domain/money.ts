/**
 * Money is kept as integer minor units (cents) of the store currency. Decimal strings are parsed
 * and converted with bigint arithmetic so that no float ever touches an amount.
 */

const DECIMAL = /^(\d+)(?:\.(\d{1,2}))?$/;

/** The largest amount we accept, in minor units: it must survive the trip through a JS number. */
export const MAX_MINOR_UNITS = BigInt(Number.MAX_SAFE_INTEGER);

export type MoneyParseResult = { ok: true; minor: number } | { ok: false; reason: string };

/**
 * Parses an amount given as a decimal string ("19.99") or a JSON number (19.99) into minor units.
 * A JSON number is read through its shortest decimal spelling, which is the text it was written
 * as for any amount with up to 15 significant digits.
 */
export function parseMoney(value: unknown): MoneyParseResult {
  let text: string;
  if (typeof value === 'string') text = value.trim();
  else if (typeof value === 'number' && Number.isFinite(value)) text = String(value);
  else return { ok: false, reason: 'must be a decimal string or number' };
  if (text.startsWith('-')) return { ok: false, reason: 'must not be negative' };
  const match = DECIMAL.exec(text);
  if (!match) {
    return /^\d+\.\d{3,}$/.test(text)
      ? { ok: false, reason: 'must have at most two decimals' }
      : { ok: false, reason: 'must be a decimal amount such as "19.99"' };
  }
  const minor = BigInt(match[1] as string) * 100n + BigInt((match[2] ?? '').padEnd(2, '0') || '0');
  if (minor > MAX_MINOR_UNITS) return { ok: false, reason: 'is too large' };
  return { ok: true, minor: Number(minor) };
}

/** A conversion rate held exactly: value = numerator / scale, scale a power of ten. */
export interface Rate {
  readonly numerator: bigint;
  readonly scale: bigint;
}

const RATE = /^(\d+)(?:\.(\d+))?$/;

/** Parses a rate such as "5.25"; undefined when the text is not a positive decimal. */
export function parseRate(text: string): Rate | undefined {
  const match = RATE.exec(text);
  if (!match) return undefined;
  const fraction = match[2] ?? '';
  const numerator = BigInt((match[1] as string) + fraction);
  if (numerator === 0n) return undefined;
  return { numerator, scale: 10n ** BigInt(fraction.length) };
}

/** Divides and rounds half to even (banker's rounding); both operands non-negative. */
function divideHalfEven(dividend: bigint, divisor: bigint): bigint {
  const quotient = dividend / divisor;
  const twiceRemainder = (dividend % divisor) * 2n;
  if (twiceRemainder > divisor) return quotient + 1n;
  if (twiceRemainder < divisor) return quotient;
  return quotient % 2n === 0n ? quotient : quotient + 1n;
}

/** Converts stored minor units into the variant's minor units: amount x rate, half to even. */
export function convertMinor(minor: number, rate: Rate): bigint {
  return divideHalfEven(BigInt(minor) * rate.numerator, rate.scale);
}

/**
 * The amount as a JSON number: at most two decimals, no trailing zeros (19.9, 19, 0.05),
 * which is exactly how JSON.stringify spells the same value.
 */
export function minorToJsonNumber(minor: bigint): number {
  const whole = minor / 100n;
  const cents = minor % 100n;
  const text = cents === 0n ? `${whole}` : `${whole}.${cents.toString().padStart(2, '0')}`;
  return Number(text);
}

/** Below this many minor units, minor / 100 is exactly the two-decimal amount as a double. */
const EXACT_CENTS_LIMIT = 2 ** 45;

/**
 * Stored amount shown in a variant's currency. The common case (the product fits a double
 * exactly) is done in plain numbers, which lists of thousands of items notice; the rest in bigint.
 */
export function showMoney(minor: number, rate: Rate): number {
  const numerator = Number(rate.numerator);
  const scale = Number(rate.scale);
  const product = minor * numerator;
  if (!Number.isSafeInteger(product) || !Number.isSafeInteger(numerator) || !Number.isSafeInteger(scale)) {
    return minorToJsonNumber(convertMinor(minor, rate));
  }
  const quotient = Math.floor(product / scale);
  const twiceRemainder = (product - quotient * scale) * 2;
  const rounded = twiceRemainder > scale || (twiceRemainder === scale && quotient % 2 === 1) ? quotient + 1 : quotient;
  return rounded < EXACT_CENTS_LIMIT ? rounded / 100 : minorToJsonNumber(BigInt(rounded));
}
