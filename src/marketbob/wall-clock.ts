/**
 * MarketBob's dates are wall-clock texts in its APP_TIMEZONE (`2024-05-01 09:30:00`); our records
 * hold UTC ISO 8601. A zone's offset at an instant comes from Intl (the runtime's time zone data),
 * remembered per quarter hour: a full sync reads millions of dates, and zones change their offset
 * only on a quarter hour.
 */

const WALL_CLOCK = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(\.\d+)?$/;
const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const QUARTER_HOUR_MS = 15 * 60 * 1000;

/** Converts wall-clock texts of one zone to UTC. */
export interface WallClock {
  /** The instant as ISO 8601 UTC with milliseconds, or undefined for NULL, '', a zero date or an unreadable text. */
  toUtc(text: string | null | undefined): string | undefined;
  /** The zone's wall-clock text (`YYYY-MM-DD HH:MM:SS`) at the instant `at` (ms since the epoch). */
  wallClockAt(at: number): string;
}

export function createWallClock(zone: string): WallClock {
  const utc = zone === 'UTC' || zone === 'Etc/UTC' || zone === 'GMT';
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  });
  const offsets = new Map<number, number>();
  /** The zone's offset from UTC (ms) at the instant `at`. */
  const offsetAt = (at: number): number => {
    const bucket = Math.floor(at / QUARTER_HOUR_MS);
    let offset = offsets.get(bucket);
    if (offset === undefined) {
      const start = bucket * QUARTER_HOUR_MS;
      const parts: Record<string, number> = {};
      for (const part of format.formatToParts(start)) {
        if (part.type !== 'literal') parts[part.type] = Number(part.value);
      }
      const local = Date.UTC(
        parts.year as number,
        (parts.month as number) - 1,
        parts.day,
        parts.hour,
        parts.minute,
        parts.second,
      );
      offset = local - start;
      offsets.set(bucket, offset);
    }
    return offset;
  };
  return {
    wallClockAt(at) {
      const local = new Date(at + (utc ? 0 : offsetAt(at)));
      return local.toISOString().slice(0, 19).replace('T', ' ');
    },
    toUtc(text) {
      if (text === null || text === undefined) return undefined;
      const match = WALL_CLOCK.exec(text) ?? DATE_ONLY.exec(text);
      if (match === null) return undefined;
      const [, y, mo, d, h = '0', mi = '0', s = '0', fraction] = match;
      if (Number(y) === 0 || Number(mo) === 0 || Number(d) === 0) return undefined; // MySQL's zero date
      const ms = fraction === undefined ? 0 : Math.floor(Number(fraction) * 1000);
      const wall = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), ms);
      if (Number.isNaN(wall)) return undefined;
      if (utc) return new Date(wall).toISOString();
      // The offset at the guess, then at the instant it gives: right across a change of offset too
      // (a wall-clock time that a change skips or repeats is read with the offset after it).
      const instant = wall - offsetAt(wall - offsetAt(wall));
      return new Date(instant).toISOString();
    },
  };
}
