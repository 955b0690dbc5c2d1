import { buildMedia } from './media.js';
import { type Rate, showMoney } from './money.js';
import type { AccountRow, ItemRow, PurchaseRow } from './records.js';

/** What a serialiser needs to know of the variant it answers in. */
export interface MoneyView {
  readonly currency: string;
  readonly rate: Rate;
}

/**
 * Resources are serialised to JSON text here, keys in contract order (SPEC 3). Routes splice
 * these texts into their envelopes, so an item serialised once can be reused in every answer.
 */

function parseList(json: string): string[] {
  return JSON.parse(json) as string[];
}

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

export function serializeItem(item: ItemRow, money: MoneyView): string {
  return JSON.stringify({
    id: item.id,
    name: item.name,
    description: item.description,
    category: item.category,
    sub_category: item.sub_category,
    options: parseList(item.options),
    version: item.version,
    demo_link: item.demo_link,
    tags: parseList(item.tags),
    media: buildMedia({ ...item, screenshots: parseList(item.screenshots) }),
    price: {
      regular: showMoney(item.price_regular, money.rate),
      extended: showMoney(item.price_extended, money.rate),
    },
    currency: money.currency,
    published_at: item.published_at,
  });
}

const LICENSE_NAMES = { regular: 'Regular', extended: 'Extended' } as const;

/**
 * A purchase around its already serialised item. `supported_until` shows only when support is
 * enabled, the item is supported, and the purchase has an end date.
 */
export function serializePurchase(
  purchase: PurchaseRow,
  item: ItemRow,
  itemJson: string,
  money: MoneyView,
  support: boolean,
): string {
  const head = JSON.stringify({
    purchase_code: purchase.code,
    license_type: LICENSE_NAMES[purchase.license_type],
    price: showMoney(purchase.price, money.rate),
    currency: money.currency,
  });
  const supportedUntil =
    support && item.supported === 1 && purchase.supported_until !== ''
      ? `"supported_until":${JSON.stringify(purchase.supported_until)},`
      : '';
  return (
    `${head.slice(0, -1)},"item":${itemJson},${supportedUntil}` +
    `"downloaded":${purchase.downloaded === 1},"date":${JSON.stringify(purchase.date)}}`
  );
}
