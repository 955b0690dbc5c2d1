/**
 * Timestamps are stored as ISO 8601 UTC text with milliseconds ("2024-05-01T12:00:00.000Z"):
 * the form every response uses, sortable as text, and the same in SQLite and PostgreSQL.
 */

const ISO = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?([Zz]|[+-]\d{2}:\d{2})$/;

/**
 * Parses an ISO 8601 date-time with `Z` or an offset into the stored UTC form.
 * Digits past the millisecond are dropped. Undefined when the text is not a real date-time.
 */
export function parseTimestamp(text: string): string | undefined {
  const match = ISO.exec(text);
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s, fraction = '', zone] = match as unknown as string[];
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day > daysInMonth) return undefined;
  let offsetMinutes = 0;
  if (zone !== 'Z' && zone !== 'z') {
    const sign = zone?.startsWith('-') ? -1 : 1;
    const oh = Number(zone?.slice(1, 3));
    const om = Number(zone?.slice(4, 6));
    if (oh > 23 || om > 59) return undefined;
    offsetMinutes = sign * (oh * 60 + om);
  }
  const millis = Number(fraction.slice(0, 3).padEnd(3, '0'));
  const utc = new Date(0);
  utc.setUTCFullYear(year, month - 1, day);
  utc.setUTCHours(hour, minute - offsetMinutes, second, millis);
  // Stay within four-digit years so the stored text keeps one shape.
  const utcYear = utc.getUTCFullYear();
  if (utcYear < 0 || utcYear > 9999) return undefined;
  return utc.toISOString();
}
