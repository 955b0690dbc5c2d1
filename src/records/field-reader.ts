import { Type } from '@sinclair/typebox';
import { parseMoney } from '../domain/money.js';
import { parseTimestamp } from '../domain/timestamp.js';

/** The largest item id: 15 digits, as the HTTP `item_id` parameter allows (SPEC 2.2). */
export const MAX_ITEM_ID = 999_999_999_999_999;

const ID_DIGITS = /^\d{1,15}$/;
const HTTP_PREFIX = /^https?:\/\//i;

/**
 * Reads the fields of one line whose shape the line's schema has already checked, turning them
 * into stored values and collecting what is wrong, so that a line reports every problem at
 * once. A value that fails gives a placeholder; the line is rejected as a whole anyway.
 *
 * Messages name the field and never repeat its value: a value may be a secret.
 */
export class FieldReader {
  readonly problems: string[] = [];

  problem(message: string): void {
    this.problems.push(message);
  }

  /** Money (a decimal string or number) as minor units. */
  money(field: string, value: string | number): number {
    const parsed = parseMoney(value);
    if (parsed.ok) return parsed.minor;
    this.problems.push(`${field} ${parsed.reason}`);
    return 0;
  }

  /** A timestamp as stored UTC text. */
  timestamp(field: string, value: string): string {
    const stored = parseTimestamp(value);
    if (stored !== undefined) return stored;
    this.problems.push(`${field} must be an ISO 8601 date-time with Z or an offset, such as 2024-05-01T12:00:00Z`);
    return '';
  }

  /** An http(s) URL. */
  url(field: string, value: string): string {
    if (!isHttpUrl(value)) this.problems.push(`${field} must be an http:// or https:// URL`);
    return value;
  }

  /** An http(s) URL, or '' for none. */
  optionalUrl(field: string, value: string | undefined): string {
    return value === undefined || value === '' ? '' : this.url(field, value);
  }

  /** An item id: a whole number from 1 to 15 digits, given as a JSON number or a string of digits ("007" is 7). */
  itemId(field: string, value: string | number): number {
    const id = parseItemId(value);
    if (id !== undefined) return id;
    this.problems.push(`${field} must be a whole number from 1 to ${MAX_ITEM_ID} (a number or a string of digits)`);
    return 0;
  }
}

/** An item id as a number, or undefined when the value is not one. */
export function parseItemId(value: unknown): number | undefined {
  let id: number;
  if (typeof value === 'number') id = value;
  else if (typeof value === 'string' && ID_DIGITS.test(value)) id = Number(value);
  else return undefined;
  return Number.isInteger(id) && id >= 1 && id <= MAX_ITEM_ID ? id : undefined;
}

/** True for an absolute http:// or https:// URL that parses. */
export function isHttpUrl(value: string): boolean {
  return HTTP_PREFIX.test(value) && URL.canParse(value);
}

/** Money in a line: a decimal string ("19.99") or a JSON number (19.99). */
export const MoneySchema = Type.Union([Type.String(), Type.Number()], {
  description: 'At most two decimals, not negative',
});

/** An item id in a line: a JSON number or a string of digits. */
export const ItemIdSchema = Type.Union([Type.Number(), Type.String()], {
  description: `A whole number from 1 to ${MAX_ITEM_ID}`,
});

/** What reading one line gives: the stored values, or every problem found. */
export type LineReading<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly problems: string[] };

/** The reading of a line once all its fields have been read. */
export function reading<T>(reader: FieldReader, value: T): LineReading<T> {
  return reader.problems.length === 0 ? { ok: true, value } : { ok: false, problems: reader.problems };
}
