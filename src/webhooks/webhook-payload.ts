import type { ItemRow, PurchaseRecord } from '../records/rows.js';
import { type MoneyView, serializeItem, serializePurchaseAroundItem } from '../records/serialize.js';
import type { WebhookEventRow } from '../store/webhooks/webhook-rows.js';
import type { VariantConfig } from '../variants/variant-config.js';

/** What a payload is written with: the variants' money and whether support dates are shown (SPEC 3). */
export interface PayloadContext {
  readonly variants: readonly VariantConfig[];
  readonly support: boolean;
  item(id: number): Promise<ItemRow | undefined>;
}

const text = JSON.stringify;

/** The variant an endpoint's payloads are written in: the first configured one of its language. */
export function payloadVariant(variants: readonly VariantConfig[], lang: string): MoneyView {
  return variants.find((variant) => variant.lang === lang) ?? (variants[0] as VariantConfig);
}

/**
 * The JSON body of one event, as the Standard Webhooks scheme suggests: `{"id", "type",
 * "timestamp", "account", "data"}`. A purchase event's `data` holds `purchase`, the contract's
 * Purchase object in the endpoint's variant, made by the very serialisers the validation endpoint
 * uses (its item as it is now, the purchase as the change left it), and `status` (`active`,
 * `refunded`, `cancelled`); `item` is null when the item is no longer the event's seller's.
 * `api_key.rotated` holds `old_key_works_until` (never a key); the activation events hold the
 * code, the activation and its count or why it ended (as stored).
 */
export async function webhookPayload(event: WebhookEventRow, lang: string, context: PayloadContext): Promise<string> {
  const head = `{"id":${text(event.id)},"type":${text(event.type)},"timestamp":${text(new Date(event.occurred_at).toISOString())},"account":${text(event.account)},"data":`;
  return `${head}${await eventData(event, lang, context)}}`;
}

async function eventData(event: WebhookEventRow, lang: string, context: PayloadContext): Promise<string> {
  if (!event.type.startsWith('purchase.')) return eventFields(event.data);
  const purchase = JSON.parse(event.data) as PurchaseRecord;
  const found = await context.item(purchase.item_id);
  // Only what the event's seller owns now: an item since moved to another seller (or deleted) is
  // null, its support end left out with it, on the first attempt as on a retry or a replay.
  const item = found !== undefined && found.account === event.account ? found : undefined;
  const money = payloadVariant(context.variants, lang);
  const [before, after] = serializePurchaseAroundItem(purchase, item?.supported === 1, money, context.support);
  const itemText = item === undefined ? 'null' : serializeItem(item, money);
  return `{"purchase":${before}${itemText}${after},"status":${text(purchase.status)}}`;
}

/** An account event's own fields, times as ISO 8601. */
function eventFields(data: string): string {
  const fields = JSON.parse(data) as Record<string, unknown>;
  const until = fields.old_key_works_until;
  if (typeof until === 'number') fields.old_key_works_until = new Date(until).toISOString();
  return JSON.stringify(fields);
}
