/**
 * MarketBob's `settings` rows (`key`, JSON `value`) as the author API reads them. A name such as
 * `item.support_status` is looked up as a row of that key, or as the field `support_status` of the
 * JSON object in the row `item` (Laravel's dotted settings): both layouts are in use.
 */
export interface MarketbobSettings {
  /** `item.support_status`: support end dates are shown only when it is on. */
  readonly supportOn: boolean;
  /** `currency.code`, such as USD; undefined when not set. */
  readonly currencyCode: string | undefined;
  /** `profile.default_avatar` and `profile.default_cover`: storage paths (or URLs), '' when unset. */
  readonly defaultAvatar: string;
  readonly defaultCover: string;
  /** `actions.api`: whether MarketBob's own API is on; undefined when no row says. */
  readonly apiOn: boolean | undefined;
  /** `general.timezone`: the zone MarketBob writes its dates in; undefined when unset or unknown to us. */
  readonly timezone: string | undefined;
}

/** A zone the runtime knows (Intl throws a RangeError for any other). */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** Where the zone the bridge reads dates in comes from. */
export type TimezoneSource = 'config' | 'settings' | 'default';

/**
 * The zone MarketBob's dates are read in: the config's (`MARKETBOB_TIMEZONE` / `marketbob.timezone`)
 * overrides the settings' `general.timezone`, else UTC (Laravel's own default).
 */
export function effectiveTimezone(
  configured: string | undefined,
  settings: Pick<MarketbobSettings, 'timezone'>,
): { readonly zone: string; readonly source: TimezoneSource } {
  if (configured !== undefined) return { zone: configured, source: 'config' };
  if (settings.timezone !== undefined) return { zone: settings.timezone, source: 'settings' };
  return { zone: 'UTC', source: 'default' };
}

/**
 * The settings the follower reports (`FollowerOptions.onSettings`): at its start and whenever one
 * changes in MarketBob.
 */
export interface FollowedSettings {
  /** `actions.api`: MarketBob's API is on (on when no row says). */
  readonly apiEnabled: boolean;
  /** `currency.code`, upper case; undefined when not set. */
  readonly currencyCode: string | undefined;
  /** The zone dates are read in, and where it comes from. */
  readonly timezone: string;
  readonly timezoneSource: TimezoneSource;
  /** `item.support_status`. */
  readonly supportOn: boolean;
  /** `profile.default_avatar` / `profile.default_cover` as URLs ('' when unset). */
  readonly defaultAvatarUrl: string;
  readonly defaultCoverUrl: string;
}

export interface SettingRow {
  readonly key: string;
  readonly value: string | null;
}

function parseJson(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A setting's value by its dotted name, or undefined when no row gives it. */
export function settingValue(rows: readonly SettingRow[], name: string): unknown {
  const byKey = new Map(rows.map((row) => [row.key, row.value]));
  if (byKey.has(name)) return parseJson(byKey.get(name) ?? null);
  const dot = name.indexOf('.');
  if (dot === -1) return undefined;
  const group = parseJson(byKey.get(name.slice(0, dot)) ?? null);
  if (group === null || typeof group !== 'object' || Array.isArray(group)) return undefined;
  return (group as Record<string, unknown>)[name.slice(dot + 1)];
}

/** On for 1, true, "1", "true", "on", "yes", "enabled" (any case); off for anything else. */
export function isOn(value: unknown): boolean {
  if (value === true || value === 1) return true;
  return typeof value === 'string' && ['1', 'true', 'on', 'yes', 'enabled'].includes(value.trim().toLowerCase());
}

const text = (value: unknown): string => (typeof value === 'string' ? value.trim() : '');

export function readSettings(rows: readonly SettingRow[]): MarketbobSettings {
  const api = settingValue(rows, 'actions.api');
  const currency = text(settingValue(rows, 'currency.code')).toUpperCase();
  const zone = text(settingValue(rows, 'general.timezone'));
  return {
    supportOn: isOn(settingValue(rows, 'item.support_status')),
    currencyCode: currency === '' ? undefined : currency,
    defaultAvatar: text(settingValue(rows, 'profile.default_avatar')),
    defaultCover: text(settingValue(rows, 'profile.default_cover')),
    apiOn: api === undefined ? undefined : isOn(api),
    timezone: zone !== '' && isTimeZone(zone) ? zone : undefined,
  };
}
