import { PREVIEW_FIELDS_BY_TYPE } from '../domain/media.js';
import type { AccountLine } from '../importer/account-line.js';
import type { ItemLine } from '../importer/item-line.js';
import type { PurchaseLine } from '../importer/purchase-line.js';
import type { AccountRow, ItemRow, PurchaseRow } from '../records/rows.js';
import type { ActivationRow } from '../store/activations/activation-store.js';

/**
 * Stored rows back as import lines (SPEC 5): the shapes are the importer's own schemas, so that
 * an exported file imports into any store as the same rows.
 */

/** Minor units as the decimal text the importer reads ("19.99"), exact for any safe integer. */
export function minorToDecimal(minor: number): string {
  const digits = String(minor).padStart(3, '0');
  return `${digits.slice(0, -2)}.${digits.slice(-2)}`;
}

const parseList = (json: string) => JSON.parse(json) as string[];

/**
 * An account line, with its key in clear so that it keeps working in the store it is imported into
 * (none for an account without a key: imported elsewhere, it gets a fresh one), and its password
 * hash (never a password) when it has one.
 */
export function accountLine(
  row: AccountRow,
  apiKey: string | undefined,
  passwordHash?: string,
  namedKeys?: NonNullable<AccountLine['api_keys']>,
): AccountLine {
  const links = JSON.parse(row.social_links) as [string, string][];
  const line: AccountLine = {
    type: 'account',
    username: row.username,
    email: row.email,
    firstname: row.firstname,
    lastname: row.lastname,
    balance: minorToDecimal(row.balance),
    status: row.status,
    ...(apiKey === undefined ? {} : { api_key: apiKey }),
    registered_at: row.registered_at,
    profile: {
      heading: row.heading,
      description: row.description,
      contact_email: row.contact_email,
      social_links: Object.fromEntries(links),
      avatar: row.avatar,
      cover: row.cover,
    },
  };
  if (passwordHash !== undefined) line.password_hash = passwordHash;
  // In clear, as its own key: they keep working in the store the file is imported into.
  if (namedKeys !== undefined && namedKeys.length > 0) line.api_keys = namedKeys;
  if (row.marketbob !== '') line.marketbob = JSON.parse(row.marketbob);
  return line;
}

/** An item line, with its activation limit when it has one. */
export function itemLine(row: ItemRow, activationLimit?: number): ItemLine {
  const line: ItemLine = {
    type: 'item',
    id: row.id,
    account: row.account,
    name: row.name,
    description: row.description,
    category: row.category,
    sub_category: row.sub_category,
    options: parseList(row.options),
    version: row.version,
    demo_link: row.demo_link,
    tags: parseList(row.tags),
    preview_type: row.preview_type,
    thumbnail: row.thumbnail,
    screenshots: parseList(row.screenshots),
    price: { regular: minorToDecimal(row.price_regular), extended: minorToDecimal(row.price_extended) },
    supported: row.supported === 1,
    status: row.status,
    published_at: row.published_at,
  };
  // Only the preview fields the type takes, and only those with a value: the importer refuses the others.
  for (const field of PREVIEW_FIELDS_BY_TYPE[row.preview_type]) if (row[field] !== '') line[field] = row[field];
  if (row.marketbob !== '') line.marketbob = JSON.parse(row.marketbob);
  if (activationLimit !== undefined) line.activation_limit = activationLimit;
  return line;
}

const isoOf = (at: number) => new Date(at).toISOString();

/** A purchase line, with the instances its code holds when it holds any. */
export function purchaseLine(row: PurchaseRow, activations?: readonly ActivationRow[]): PurchaseLine {
  const line: PurchaseLine = {
    type: 'purchase',
    code: row.code,
    item_id: row.item_id,
    license_type: row.license_type,
    price: minorToDecimal(row.price),
    downloaded: row.downloaded === 1,
    status: row.status,
    date: row.date,
  };
  if (row.supported_until !== '') line.supported_until = row.supported_until;
  if (row.marketbob !== '') line.marketbob = JSON.parse(row.marketbob);
  if (activations !== undefined && activations.length > 0) {
    line.activations = activations.map((activation) => ({
      id: activation.id,
      instance: activation.instance,
      created_at: isoOf(activation.created_at),
      ...(activation.last_validated_at === 0 ? {} : { last_validated_at: isoOf(activation.last_validated_at) }),
    }));
  }
  return line;
}
