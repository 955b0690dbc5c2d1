import type { MarketbobAccount, MarketbobItem, MarketbobPurchase } from '../records/marketbob-values.js';
import { mediaUrl } from './media-url.js';
import type { ItemRow, MappingContext, PurchaseRow, UserRow } from './source-rows.js';

/**
 * MarketBob's own values of a row, kept beside our record (its `marketbob` line field) so that a
 * variant in MarketBob's shape answers exactly what MarketBob's API answers: the raw tag string,
 * the options object, NULLs, unrounded floats. A property left out stands for NULL there.
 * What MarketBob's API does with each is in docs/marketbob.md ("MarketBob's own answers").
 */

/** A JSON text decoded, or undefined for NULL, blank or unreadable text (MarketBob's own decoding gives null). */
function decoded(json: string | null | undefined): unknown {
  if (json === null || json === undefined || json.trim() === '') return undefined;
  try {
    return JSON.parse(json) ?? undefined;
  } catch {
    return undefined;
  }
}

/** Only the properties that hold a value: what is left out reads as NULL. */
function present<T extends object>(object: T): T {
  for (const [name, value] of Object.entries(object)) {
    if (value === undefined || value === null) delete (object as Record<string, unknown>)[name];
  }
  return object;
}

const amount = (value: number | string | null | undefined): number => {
  const number = Number(value ?? 0);
  return Number.isFinite(number) ? number : 0;
};

const url = (base: string, path: string | null | undefined): string | undefined => mediaUrl(base, path) || undefined;

export function accountSource(row: UserRow, context: MappingContext): MarketbobAccount {
  const { mediaBaseUrl, settings } = context;
  const links = decoded(row.profile_social_links);
  return present({
    firstname: row.firstname ?? undefined,
    lastname: row.lastname ?? undefined,
    email: row.email ?? undefined,
    complete:
      row.firstname !== null &&
      row.lastname !== null &&
      row.username !== null &&
      row.email !== null &&
      row.password !== null,
    balance: amount(row.balance),
    heading: row.profile_heading ?? undefined,
    description: row.profile_description ?? undefined,
    contact_email: row.profile_contact_email ?? undefined,
    social_links:
      links !== undefined && typeof links === 'object' && !Array.isArray(links)
        ? (links as Record<string, unknown>)
        : undefined,
    avatar: url(mediaBaseUrl, row.avatar) ?? url(mediaBaseUrl, settings.defaultAvatar),
    cover: url(mediaBaseUrl, row.profile_cover) ?? url(mediaBaseUrl, settings.defaultCover),
    // A database without the column (none known) is taken as one of authors: MarketBob's default is 0,
    // but every user the author API serves has it set.
    is_author: row.is_author === undefined ? true : Number(row.is_author) === 1,
  });
}

/**
 * The item's two prices as MarketBob's own API computes them, unrounded (PHP adds doubles as
 * JavaScript does): the item's `regular_price` and `extended_price`, or, while its row of
 * `item_discounts` has `status` 1, the discount's `regular_price` and (when not NULL) its
 * `extended_price`; each plus the category's buyer fee of that license. `validity_prices` play no
 * part: MarketBob's API ignores them, so an item priced only by validity period (its legacy
 * columns 0) shows the fees alone, while its storefront charges the period's price.
 */
export function marketbobApiPrices(row: ItemRow): { regular: number; extended: number } {
  const discounted = Number(row.discount_status) === 1 && row.discount_regular_price != null;
  const regular = discounted ? amount(row.discount_regular_price) : amount(row.regular_price);
  const extended =
    discounted && row.discount_extended_price != null
      ? amount(row.discount_extended_price)
      : amount(row.extended_price);
  return {
    regular: regular + amount(row.regular_buyer_fee),
    extended: extended + amount(row.extended_buyer_fee),
  };
}

export function itemSource(row: ItemRow, context: MappingContext): MarketbobItem {
  const prices = marketbobApiPrices(row);
  const base = context.mediaBaseUrl;
  const screenshots = decoded(row.screenshots);
  const screenshotUrls = Array.isArray(screenshots)
    ? screenshots.flatMap((path) => (typeof path === 'string' ? (url(base, path) ?? []) : []))
    : [];
  return present({
    sub_category: row.sub_category_name ?? undefined,
    options: decoded(row.options),
    version: row.version ?? undefined,
    demo_link: row.demo_link ?? undefined,
    tags: row.tags ?? '',
    thumbnail: url(base, row.thumbnail) ?? url(base, row.preview_image),
    preview_image: url(base, row.preview_image),
    preview_video: url(base, row.preview_video),
    preview_audio: url(base, row.preview_audio),
    screenshots: screenshotUrls.length === 0 ? undefined : screenshotUrls,
    price_regular: prices.regular,
    price_extended: prices.extended,
  });
}

export function purchaseSource(row: PurchaseRow, context: MappingContext): MarketbobPurchase {
  return present({
    price: amount(row.sale_price),
    supported_until: context.settings.supportOn ? context.clock.toUtc(row.support_expiry_at) : undefined,
  });
}
