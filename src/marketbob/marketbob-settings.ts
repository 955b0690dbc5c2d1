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
  /** `actions.api`: whether MarketBob's own API is on (informational: we serve regardless). */
  readonly apiOn: boolean | undefined;
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
  return {
    supportOn: isOn(settingValue(rows, 'item.support_status')),
    currencyCode: currency === '' ? undefined : currency,
    defaultAvatar: text(settingValue(rows, 'profile.default_avatar')),
    defaultCover: text(settingValue(rows, 'profile.default_cover')),
    apiOn: api === undefined ? undefined : isOn(api),
  };
}
