import { createHash } from 'node:crypto';
import { API_KEY_PATTERN } from '../domain/api-key-format.js';
import { PREVIEW_FIELDS_BY_TYPE } from '../domain/media.js';
import { passwordHashProblem } from '../domain/password-hash-format.js';
import { purchaseCodeKey } from '../domain/purchase-code.js';
import { isUsername } from '../records/account-table.js';
import { isHttpUrl } from '../records/field-reader.js';
import type { MarketbobAccount, MarketbobItem, MarketbobPurchase } from '../records/marketbob-values.js';
import type { AccountStatus, ItemStatus, PurchaseStatus } from '../records/rows.js';
import { mediaUrl } from './media-url.js';
import { accountSource, itemSource, marketbobApiPrices, purchaseSource } from './source-fields.js';
import type { ItemRow, MappingContext, PurchaseRow, UserRow } from './source-rows.js';
import type { WallClock } from './wall-clock.js';

/**
 * MarketBob's rows made into our import lines (SPEC 5), so that a sync goes through the same
 * checks and writes as an NDJSON import. Each function gives the line, with notes on what it
 * changed or left out (reported, the row is kept), or why the row is skipped. docs/marketbob.md
 * lists every decision with the row it comes from and the answer it gives.
 */

export { mediaUrl } from './media-url.js';
export { marketbobApiPrices } from './source-fields.js';
export type { ItemRow, MappingContext, PurchaseRow, UserRow } from './source-rows.js';

/** What a row gives: a line (with notes), or a reason to skip it. Notes and reasons never hold a key or a hash. */
export type Mapped<L> =
  | { readonly ok: true; readonly line: L; readonly notes: readonly string[] }
  | { readonly ok: false; readonly reason: string };

// ---- Lines (the import's own shapes) -----------------------------------------------------------

export interface AccountLineOut {
  readonly type: 'account';
  readonly username: string;
  readonly email: string;
  readonly firstname: string;
  readonly lastname: string;
  readonly balance: string;
  readonly status: AccountStatus;
  readonly registered_at: string;
  readonly profile: {
    readonly heading: string;
    readonly description: string;
    readonly contact_email: string;
    readonly social_links: Record<string, string>;
    readonly avatar: string;
    readonly cover: string;
  };
  /** MarketBob's own values, for a variant in its shape. */
  readonly marketbob: MarketbobAccount;
}

/** An account line and what goes beside it: the key and the password hash, never in a note. */
export interface AccountMapped {
  readonly line: AccountLineOut;
  /** MarketBob's plaintext key when it is one our import takes; undefined: the account has no key here. */
  readonly apiKey: string | undefined;
  /** MarketBob's password hash when it is one our workspace takes. */
  readonly passwordHash: string | undefined;
  /**
   * SHA-256 (hex) of MarketBob's `password` as it is ('' for NULL), taken or not: what tells the
   * bridge MarketBob's password changed (see `passwordChanges`).
   */
  readonly passwordDigest: string;
}

export interface ItemLineOut {
  readonly type: 'item';
  readonly id: number;
  readonly account: string;
  readonly name: string;
  readonly description: string;
  readonly category: string;
  readonly sub_category: string;
  readonly options: string[];
  readonly version: string;
  readonly demo_link: string;
  readonly tags: string[];
  readonly preview_type: 'image' | 'video' | 'audio';
  readonly thumbnail: string;
  readonly preview_image?: string;
  readonly preview_video?: string;
  readonly preview_audio?: string;
  readonly screenshots: string[];
  readonly price: { readonly regular: string; readonly extended: string };
  readonly supported: boolean;
  readonly status: ItemStatus;
  readonly published_at: string;
  /** MarketBob's own values, for a variant in its shape. */
  readonly marketbob: MarketbobItem;
}

export interface PurchaseLineOut {
  readonly type: 'purchase';
  readonly code: string;
  readonly item_id: number;
  readonly license_type: 'regular' | 'extended';
  readonly price: string;
  readonly supported_until: string;
  readonly downloaded: boolean;
  readonly status: PurchaseStatus;
  readonly date: string;
  /** MarketBob's own values, for a variant in its shape. */
  readonly marketbob: MarketbobPurchase;
}

// ---- Statuses ----------------------------------------------------------------------------------

/** users.status: 0 banned, 1 active. */
export const ACCOUNT_STATUSES: Readonly<Record<number, AccountStatus>> = { 0: 'suspended', 1: 'active' };
/** items.status: 1 pending, 2 soft rejected, 3 resubmitted, 4 approved, 5 hard rejected, 6 deleted. */
export const ITEM_STATUSES: Readonly<Record<number, ItemStatus>> = {
  1: 'pending',
  2: 'rejected',
  3: 'pending',
  4: 'approved',
  5: 'rejected',
  6: 'removed',
};
/** purchases.status: 1 active, 2 refunded, 3 cancelled. */
export const PURCHASE_STATUSES: Readonly<Record<number, PurchaseStatus>> = {
  1: 'active',
  2: 'refunded',
  3: 'cancelled',
};
/** license_type: 1 regular, 2 extended. */
export const LICENSE_TYPES: Readonly<Record<number, 'regular' | 'extended'>> = { 1: 'regular', 2: 'extended' };

function lookUp<T>(table: Readonly<Record<number, T>>, value: number | null): T | undefined {
  return value === null ? undefined : table[Number(value)];
}

// ---- Small readers -----------------------------------------------------------------------------

const text = (value: string | null | undefined): string => value ?? '';

/** A MarketBob amount (a double) as whole cents, or undefined when not a finite amount of at least 0. */
export function toCents(value: number | string | null | undefined): number | undefined {
  if (value === null || value === undefined || value === '') return undefined;
  const amount = Number(value);
  if (!Number.isFinite(amount) || amount < 0) return undefined;
  // Rounded to the cent: a double such as 19.99 is 19.989999...; a third decimal is rounded away.
  return Math.round(amount * 100);
}

/** Cents as the import's decimal text. */
export function centsText(cents: number): string {
  return `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
}

const VERSION_START = /^\s*v?(\d+)(?:\.(\d+))?(?:\.(\d+))?/i;

/**
 * A version as `major.minor.patch`: `1.2.3` as is; `1`, `1.2` and `v1.2` padded with zeros;
 * `1.2.3.4` and `1.2.3-beta` cut to their first three numbers; NULL or no leading number: 0.0.0.
 */
export function normalizeVersion(version: string | null): string {
  const match = VERSION_START.exec(version ?? '');
  if (match === null) return '0.0.0';
  return `${Number(match[1])}.${Number(match[2] ?? 0)}.${Number(match[3] ?? 0)}`;
}

/** Tags from MarketBob's comma-separated text: each trimmed, the empty ones dropped, in order. */
export function splitTags(tags: string | null): string[] {
  return (tags ?? '')
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag !== '');
}

function parseJson(value: string | null | undefined): unknown {
  if (value === null || value === undefined || value.trim() === '') return undefined;
  try {
    return JSON.parse(value);
  } catch {
    return Symbol.for('invalid');
  }
}

const INVALID = Symbol.for('invalid');

/**
 * `options` (`{name: value or [values]}`) as the contract's array of strings: the values, in the
 * object's order, an array's values in their order; numbers and booleans as text; null and empty
 * values left out. A name is not shown (the contract lists values only, as `["Responsive"]`).
 */
export function optionValues(options: string | null, notes: string[]): string[] {
  const parsed = parseJson(options);
  if (parsed === undefined || parsed === null) return [];
  if (parsed === INVALID || typeof parsed !== 'object') {
    notes.push('options is not a JSON object: served as []');
    return [];
  }
  const values: string[] = [];
  const add = (value: unknown) => {
    if (typeof value === 'string' && value.trim() !== '') values.push(value.trim());
    else if (typeof value === 'number' || typeof value === 'boolean') values.push(String(value));
  };
  for (const value of Array.isArray(parsed) ? parsed : Object.values(parsed as object)) {
    if (Array.isArray(value)) value.forEach(add);
    else add(value);
  }
  return values;
}

/** `screenshots` (a JSON array of storage paths) as URLs; anything else is []. */
export function screenshotUrls(base: string, screenshots: string | null, notes: string[]): string[] {
  const parsed = parseJson(screenshots);
  if (parsed === undefined || parsed === null) return [];
  if (!Array.isArray(parsed)) {
    notes.push('screenshots is not a JSON array: served as []');
    return [];
  }
  return parsed.flatMap((path) => {
    const url = typeof path === 'string' ? mediaUrl(base, path) : '';
    return url === '' ? [] : [url];
  });
}

/** The two prices our answers serve: MarketBob API's, rounded to the cent (0 for a negative amount). */
export function itemPrices(row: ItemRow): { regular: number; extended: number } {
  const prices = marketbobApiPrices(row);
  return { regular: toCents(prices.regular) ?? 0, extended: toCents(prices.extended) ?? 0 };
}

/** Social links (`{network: link}`): the http(s) links, keyed by network; others are left out with a note. */
function socialLinks(json: string | null, notes: string[]): Record<string, string> {
  const parsed = parseJson(json);
  if (parsed === undefined || parsed === null) return {};
  if (parsed === INVALID || typeof parsed !== 'object' || Array.isArray(parsed)) {
    notes.push('profile_social_links is not a JSON object: served as {}');
    return {};
  }
  const links: Record<string, string> = {};
  for (const [network, link] of Object.entries(parsed as Record<string, unknown>)) {
    if (link === null || link === '') continue;
    if (network.trim() !== '' && typeof link === 'string' && isHttpUrl(link.trim())) links[network] = link.trim();
    else notes.push(`profile_social_links.${network} is not an http(s) link: left out`);
  }
  return links;
}

/** The epoch: the date of a row that has none at all (see `createdAt`). */
export const NO_DATE = '1970-01-01T00:00:00.000Z';

/**
 * A row's creation date in UTC: `created_at`; when NULL (Laravel always sets it, a hand-made row
 * may not), `updated_at`; when that is NULL too, the epoch. Noted either way: a row is not left
 * out for want of a date, since leaving out a user or an item would leave out every purchase
 * that hangs from it.
 */
function createdAt(row: { created_at: string | null; updated_at?: string | null }, clock: WallClock, notes: string[]) {
  const created = clock.toUtc(row.created_at);
  if (created !== undefined) return created;
  const updated = clock.toUtc(row.updated_at);
  notes.push(`created_at is NULL or not a date: served as ${updated === undefined ? 'the epoch' : 'updated_at'}`);
  return updated ?? NO_DATE;
}

// ---- Rows to lines -----------------------------------------------------------------------------

export function mapUser(row: UserRow, context: MappingContext): Mapped<AccountMapped> {
  const notes: string[] = [];
  const username = row.username ?? '';
  if (username === '') return { ok: false, reason: 'username is NULL or empty (our accounts are keyed by it)' };
  if (!isUsername(username)) return { ok: false, reason: 'username has white space around it' };
  const status = lookUp(ACCOUNT_STATUSES, row.status);
  if (status === undefined) return { ok: false, reason: `status ${row.status} is not 0 (banned) or 1 (active)` };
  const registeredAt = createdAt(row, context.clock, notes);
  let balance = toCents(row.balance);
  if (balance === undefined) {
    notes.push('balance is not an amount of at least 0: served as 0');
    balance = 0;
  }
  const apiKey = row.api_key?.trim() || undefined;
  let key: string | undefined;
  if (apiKey !== undefined) {
    if (API_KEY_PATTERN.test(apiKey)) key = apiKey;
    else notes.push('api_key is not 16 to 128 characters of A-Za-z0-9_-: no key here');
  }
  const givenPassword = row.password?.trim() || undefined;
  const passwordDigest = givenPassword === undefined ? '' : createHash('sha256').update(givenPassword).digest('hex');
  let passwordHash = givenPassword;
  if (passwordHash !== undefined && passwordHashProblem(passwordHash) !== undefined) {
    notes.push('password is not a bcrypt hash of cost 12 at most: not carried over (no workspace login)');
    passwordHash = undefined;
  }
  const { mediaBaseUrl, settings } = context;
  const avatar = mediaUrl(mediaBaseUrl, row.avatar) || mediaUrl(mediaBaseUrl, settings.defaultAvatar);
  const cover = mediaUrl(mediaBaseUrl, row.profile_cover) || mediaUrl(mediaBaseUrl, settings.defaultCover);
  return {
    ok: true,
    notes,
    line: {
      line: {
        type: 'account',
        username,
        email: text(row.email),
        firstname: text(row.firstname),
        lastname: text(row.lastname),
        balance: centsText(balance),
        status,
        registered_at: registeredAt,
        profile: {
          heading: text(row.profile_heading),
          description: text(row.profile_description),
          contact_email: text(row.profile_contact_email),
          social_links: socialLinks(row.profile_social_links, notes),
          avatar,
          cover,
        },
        marketbob: accountSource(row, context),
      },
      apiKey: key,
      passwordHash,
      passwordDigest,
    },
  };
}

/** An item's line; `account` is its author's username (the sync knows it from the users it took). */
export function mapItem(row: ItemRow, account: string, context: MappingContext): Mapped<ItemLineOut> {
  const notes: string[] = [];
  const status = lookUp(ITEM_STATUSES, row.status);
  if (status === undefined) return { ok: false, reason: `status ${row.status} is not one of 1 to 6` };
  const previewType = row.preview_type ?? 'image';
  if (previewType !== 'image' && previewType !== 'video' && previewType !== 'audio') {
    return { ok: false, reason: `preview_type ${JSON.stringify(previewType)} is not image, video or audio` };
  }
  const { mediaBaseUrl } = context;
  // MarketBob's API shows `preview_image` for a NULL or empty `thumbnail`.
  let thumbnail = mediaUrl(mediaBaseUrl, row.thumbnail) || mediaUrl(mediaBaseUrl, row.preview_image);
  if (thumbnail === '') {
    // What MarketBob shows when neither is set: the storage URL of an empty path.
    thumbnail = `${mediaBaseUrl}/`;
    notes.push('thumbnail and preview_image are NULL or empty: served as the media base URL');
  }
  const publishedAt = createdAt(row, context.clock, notes);
  if (row.name === null || row.name === '') return { ok: false, reason: 'name is NULL or empty' };
  const version = normalizeVersion(row.version);
  if (version !== row.version) notes.push(`version ${JSON.stringify(row.version)} served as ${version}`);
  const prices = itemPrices(row);
  const price = { regular: centsText(prices.regular), extended: centsText(prices.extended) };
  let demoLink = (row.demo_link ?? '').trim();
  if (demoLink !== '' && !isHttpUrl(demoLink)) {
    notes.push('demo_link is not an http(s) URL: served as ""');
    demoLink = '';
  }
  const media: Partial<Record<'preview_image' | 'preview_video' | 'preview_audio', string>> = {};
  for (const field of PREVIEW_FIELDS_BY_TYPE[previewType]) {
    const url = mediaUrl(mediaBaseUrl, row[field]);
    if (url !== '') media[field] = url;
  }
  return {
    ok: true,
    notes,
    line: {
      type: 'item',
      id: row.id,
      account,
      name: row.name,
      description: text(row.description),
      category: text(row.category_name),
      sub_category: text(row.sub_category_name),
      options: optionValues(row.options, notes),
      version,
      demo_link: demoLink,
      tags: splitTags(row.tags),
      preview_type: previewType,
      thumbnail,
      ...media,
      screenshots: screenshotUrls(mediaBaseUrl, row.screenshots, notes),
      price,
      supported: Number(row.is_supported) === 1,
      status,
      published_at: publishedAt,
      marketbob: itemSource(row, context),
    },
  };
}

export function mapPurchase(row: PurchaseRow, context: MappingContext): Mapped<PurchaseLineOut> {
  const code = (row.code ?? '').trim();
  if (code === '') return { ok: false, reason: 'code is NULL or empty' };
  if (purchaseCodeKey(code) === undefined) {
    return { ok: false, reason: 'code is not 1 to 100 characters of A-Za-z0-9_- (no client could send it)' };
  }
  const status = lookUp(PURCHASE_STATUSES, row.status);
  if (status === undefined) return { ok: false, reason: `status ${row.status} is not 1, 2 or 3` };
  const licenseType = lookUp(LICENSE_TYPES, row.license_type);
  if (licenseType === undefined) return { ok: false, reason: `license_type ${row.license_type} is not 1 or 2` };
  const notes: string[] = [];
  let price = toCents(row.sale_price);
  if (price === undefined) {
    // The code still validates: that is what the seller's software asks.
    notes.push('its sale is missing, or its price is not an amount: price served as 0');
    price = 0;
  }
  const date = createdAt(row, context.clock, notes);
  const supportedUntil = context.settings.supportOn ? (context.clock.toUtc(row.support_expiry_at) ?? '') : '';
  return {
    ok: true,
    notes,
    line: {
      type: 'purchase',
      code,
      item_id: row.item_id,
      license_type: licenseType,
      price: centsText(price),
      supported_until: supportedUntil,
      downloaded: Number(row.is_downloaded) === 1,
      status,
      date,
      marketbob: purchaseSource(row, context),
    },
  };
}
