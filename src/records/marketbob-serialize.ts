import { PREVIEW_FIELDS_BY_TYPE, type PreviewField } from '../domain/media.js';
import { type Rate, showMoney } from '../domain/money.js';
import {
  type MarketbobAccount,
  type MarketbobItem,
  type MarketbobPurchase,
  readMarketbob,
} from './marketbob-values.js';
import type { AccountRow, ItemRow, PurchaseRow } from './rows.js';
import type { MoneyView } from './serialize.js';

/**
 * Resources as MarketBob's own API answers them (docs/marketbob.md, "MarketBob's own answers"),
 * for a variant whose shape is `marketbob`: from the record's `marketbob` object when it has one
 * (a property left out there is NULL in MarketBob, so `null` here), else derived from the record.
 * Keys in the order MarketBob's code writes them; floats as PHP's json_encode writes them, which
 * is JSON.stringify's shortest round-trip spelling for every ordinary amount.
 */

const text = JSON.stringify;
const orNull = (value: string): string | null => (value === '' ? null : value);

/**
 * A stored UTC timestamp (`...T16:00:00.000Z`) as Carbon's JSON form, six decimals
 * (`...T16:00:00.000000Z`); null for none.
 */
export function marketbobDate(stored: string): string | null {
  if (stored === '') return null;
  const millis = /\.(\d{1,6})Z$/.exec(stored);
  if (millis) return `${stored.slice(0, millis.index)}.${(millis[1] as string).padEnd(6, '0')}Z`;
  return stored.endsWith('Z') ? `${stored.slice(0, -1)}.000000Z` : stored;
}

/**
 * An amount in the variant's currency: MarketBob's own float when the record has one (as it is
 * for a rate of 1; else times the rate as a double, to 15 significant digits, with no rounding
 * to cents, as MarketBob does none), else the stored minor units as the contract converts them.
 */
export function marketbobAmount(raw: number | undefined, minor: number, rate: Rate): number {
  if (raw === undefined) return showMoney(minor, rate);
  if (rate.numerator === rate.scale) return raw;
  return Number(((raw * Number(rate.numerator)) / Number(rate.scale)).toPrecision(15));
}

/** What MarketBob's API asks of an account beside its key: whether its profile is complete, and whether it is an author. */
export interface MarketbobAccess {
  /** Non-NULL firstname, lastname, username, email and password (account details answers only then). */
  readonly complete: boolean;
  /** Only authors have items and purchases to answer. */
  readonly isAuthor: boolean;
}

const DERIVED_AUTHOR: MarketbobAccess = { complete: true, isAuthor: true };

/** The account's access in MarketBob's terms: its object's, else derived (a complete name and email; an author). */
export function marketbobAccess(account: AccountRow): MarketbobAccess {
  const derivedComplete = account.firstname !== '' && account.lastname !== '' && account.email !== '';
  if (account.marketbob === '') return derivedComplete ? DERIVED_AUTHOR : { complete: false, isAuthor: true };
  const own = readMarketbob<MarketbobAccount>(account.marketbob) as MarketbobAccount;
  return { complete: own.complete ?? derivedComplete, isAuthor: own.is_author ?? true };
}

/** The stored `[network, link]` pairs as an object in their stored order, or null when there are none. */
function derivedSocialLinks(stored: string): string {
  const pairs = JSON.parse(stored) as [string, string][];
  if (pairs.length === 0) return 'null';
  return `{${pairs.map(([network, link]) => `${text(network)}:${text(link)}`).join(',')}}`;
}

/** The account-details `data` object. */
export function serializeMarketbobAccount(account: AccountRow, money: MoneyView): string {
  const own = readMarketbob<MarketbobAccount>(account.marketbob);
  const pick = (value: string | undefined, stored: string) => (own ? (value ?? null) : orNull(stored));
  const firstname = pick(own?.firstname, account.firstname);
  const lastname = pick(own?.lastname, account.lastname);
  const email = pick(own?.email, account.email);
  const fullName =
    firstname && lastname ? `${firstname} ${lastname}` : account.username || (email?.split('@')[0] ?? null);
  const socialLinks = own
    ? own.social_links === undefined
      ? 'null'
      : text(own.social_links)
    : derivedSocialLinks(account.social_links);
  const head = text({
    name: { firstname, lastname, full_name: fullName },
    username: account.username,
    email,
    balance: marketbobAmount(own?.balance, account.balance, money.rate),
    currency: money.currency,
  });
  const profileHead = text({
    heading: pick(own?.heading, account.heading),
    description: pick(own?.description, account.description),
    contact: { email: pick(own?.contact_email, account.contact_email) },
  });
  const media = text({ avatar: pick(own?.avatar, account.avatar), cover: pick(own?.cover, account.cover) });
  return (
    `${head.slice(0, -1)},"profile":${profileHead.slice(0, -1)},"social_links":${socialLinks},"media":${media}},` +
    `"registered_at":${text(marketbobDate(account.registered_at))}}`
  );
}

/** Screenshots as PHP encodes a list cast to an object: keyed "0", "1", ...; null when none. */
function screenshotsObject(urls: readonly string[] | undefined): string {
  if (urls === undefined || urls.length === 0) return 'null';
  return `{${urls.map((url, index) => `"${index}":${text(url)}`).join(',')}}`;
}

/** The item object MarketBob's three item-bearing answers carry. */
export function serializeMarketbobItem(item: ItemRow, money: MoneyView): string {
  const own = readMarketbob<MarketbobItem>(item.marketbob);
  const pick = (value: string | undefined, stored: string) => (own ? (value ?? null) : orNull(stored));
  let options: unknown;
  if (own) options = own.options ?? null;
  else {
    const list = JSON.parse(item.options) as string[];
    options = list.length === 0 ? null : list;
  }
  const tags = own?.tags ?? (JSON.parse(item.tags) as string[]).join(',');
  const preview = (field: PreviewField) => `,"${field}":${text(pick(own?.[field], item[field]))}`;
  let media = `{"thumbnail":${text(pick(own?.thumbnail, item.thumbnail))}`;
  for (const field of PREVIEW_FIELDS_BY_TYPE[item.preview_type]) media += preview(field);
  if (item.preview_type === 'image') {
    const urls = own ? own.screenshots : (JSON.parse(item.screenshots) as string[]);
    media += `,"screenshots":${screenshotsObject(urls)}`;
  }
  const price = {
    regular: marketbobAmount(own?.price_regular, item.price_regular, money.rate),
    extended: marketbobAmount(own?.price_extended, item.price_extended, money.rate),
  };
  return (
    `{"id":${item.id},"name":${text(item.name)},"description":${text(item.description)},` +
    `"category":${text(item.category)},"sub_category":${text(pick(own?.sub_category, item.sub_category))},` +
    `"options":${text(options)},"version":${text(pick(own?.version, item.version))},` +
    `"demo_link":${text(pick(own?.demo_link, item.demo_link))},"tags":${text(tags)},"media":${media}},` +
    `"price":${text(price)},"currency":${text(money.currency)},"published_at":${text(marketbobDate(item.published_at))}}`
  );
}

const LICENSE_NAMES = { regular: 'Regular', extended: 'Extended' } as const;

/**
 * A validated purchase as the JSON text before and after its item, which is spliced in between
 * as already serialised. `supported_until` shows as the record's object says (present only when
 * MarketBob would show it); without one, as the contract's rule says (support enabled, the item
 * supported, an end date).
 */
export function serializeMarketbobPurchaseAroundItem(
  purchase: PurchaseRow,
  itemSupported: boolean,
  money: MoneyView,
  support: boolean,
): readonly [before: string, after: string] {
  const own = readMarketbob<MarketbobPurchase>(purchase.marketbob);
  let until: string | undefined;
  if (own) until = own.supported_until;
  else if (support && itemSupported && purchase.supported_until !== '') until = purchase.supported_until;
  const supportedUntil = until === undefined ? '' : `"supported_until":${text(marketbobDate(until))},`;
  return [
    `{"purchase_code":${text(purchase.code)},"license_type":"${LICENSE_NAMES[purchase.license_type]}",` +
      `"price":${marketbobAmount(own?.price, purchase.price, money.rate)},"currency":${text(money.currency)},"item":`,
    `,${supportedUntil}"downloaded":${purchase.downloaded === 1},"date":${text(marketbobDate(purchase.date))}}`,
  ];
}
