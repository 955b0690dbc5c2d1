import { PREVIEW_FIELDS_BY_TYPE } from '../domain/media.js';
import { type Rate, showMoney } from '../domain/money.js';
import type { AccountRow, ItemRow, ItemTailFields, PurchaseRow } from './rows.js';

/** What a serialiser needs to know of the variant it answers in. */
export interface MoneyView {
  readonly currency: string;
  readonly rate: Rate;
}

/**
 * Resources are serialised to JSON text here, keys in contract order (SPEC 3). Routes splice
 * these texts into their envelopes, so an item serialised once can be reused in every answer.
 */

/** `social_links` keeps the stored (alphabetical) order even for keys a JS object would reorder. */
function socialLinksJson(stored: string): string {
  const pairs = JSON.parse(stored) as [string, string][];
  return `{${pairs.map(([network, link]) => `${JSON.stringify(network)}:${JSON.stringify(link)}`).join(',')}}`;
}

export function serializeAccount(account: AccountRow, money: MoneyView): string {
  const name = JSON.stringify({
    firstname: account.firstname,
    lastname: account.lastname,
    full_name: `${account.firstname} ${account.lastname}`.trim(),
  });
  const head = JSON.stringify({
    username: account.username,
    email: account.email,
    balance: showMoney(account.balance, money.rate),
    currency: money.currency,
  });
  const profileHead = JSON.stringify({
    heading: account.heading,
    description: account.description,
    contact: { email: account.contact_email },
  });
  const media = JSON.stringify({ avatar: account.avatar, cover: account.cover });
  return (
    `{"name":${name},${head.slice(1, -1)},"profile":{${profileHead.slice(1, -1)},` +
    `"social_links":${socialLinksJson(account.social_links)},"media":${media}},` +
    `"registered_at":${JSON.stringify(account.registered_at)}}`
  );
}

const text = JSON.stringify;

/** How the store holds an item without screenshots; such an item's media lists none. */
export const NO_SCREENSHOTS = '[]';

/**
 * Built by concatenation: the list columns are stored as JSON text already (written by
 * JSON.stringify on import), so they are spliced in as they are, not parsed and re-encoded.
 */
export function serializeItem(item: ItemRow, money: MoneyView): string {
  return `${serializeItemHead(item)}${serializeItemTail(item, money)}`;
}

/**
 * The part of an item's JSON no variant changes, from `{"id":` to the end of `media`. A long list
 * has the store make this part (itemHeadSql, which must give the very same text): thousands of
 * items then cost one string each to read, not eighteen, and no work here.
 */
export function serializeItemHead(item: ItemRow): string {
  let media = `{"thumbnail":${text(item.thumbnail)}`;
  for (const field of PREVIEW_FIELDS_BY_TYPE[item.preview_type]) media += `,"${field}":${text(item[field])}`;
  if (item.screenshots !== NO_SCREENSHOTS) media += `,"screenshots":${item.screenshots}`;
  return (
    `{"id":${item.id},"name":${text(item.name)},"description":${text(item.description)},` +
    `"category":${text(item.category)},"sub_category":${text(item.sub_category)},"options":${item.options},` +
    `"version":${text(item.version)},"demo_link":${text(item.demo_link)},"tags":${item.tags},"media":${media}}`
  );
}

/** The rest of an item's JSON after its head: prices in the variant's currency, and the date. */
export function serializeItemTail(item: ItemTailFields, money: MoneyView): string {
  return (
    `,"price":{"regular":${showMoney(item.price_regular, money.rate)},"extended":${showMoney(item.price_extended, money.rate)}},` +
    `"currency":${text(money.currency)},"published_at":${text(item.published_at)}}`
  );
}

const LICENSE_NAMES = { regular: 'Regular', extended: 'Extended' } as const;

/**
 * A purchase as the JSON text before and after its item, which is spliced in between as already
 * serialised (and cached). `supported_until` shows only when support is enabled, the item is
 * supported, and the purchase has an end date.
 */
export function serializePurchaseAroundItem(
  purchase: PurchaseRow,
  itemSupported: boolean,
  money: MoneyView,
  support: boolean,
): readonly [before: string, after: string] {
  const supportedUntil =
    support && itemSupported && purchase.supported_until !== ''
      ? `"supported_until":${text(purchase.supported_until)},`
      : '';
  return [
    `{"purchase_code":${text(purchase.code)},"license_type":"${LICENSE_NAMES[purchase.license_type]}",` +
      `"price":${showMoney(purchase.price, money.rate)},"currency":${text(money.currency)},"item":`,
    `,${supportedUntil}"downloaded":${purchase.downloaded === 1},"date":${text(purchase.date)}}`,
  ];
}
