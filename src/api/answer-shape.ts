import {
  serializeMarketbobAccount,
  serializeMarketbobItem,
  serializeMarketbobPurchaseAroundItem,
} from '../records/marketbob-serialize.js';
import type { AccountRow, ItemRow, PurchaseRow } from '../records/rows.js';
import { type MoneyView, serializeAccount, serializeItem, serializePurchaseAroundItem } from '../records/serialize.js';
import type { VariantRuntime } from '../variants/variant-runtime.js';

/**
 * How a variant's answers serialise the resources: the published contract's shape, or
 * MarketBob's own (`shape` in the variant's config). Asked only when an answer is made for the
 * cache, never per request: a cached answer is already in its variant's shape.
 */
export interface AnswerShape {
  account(row: AccountRow, money: MoneyView): string;
  item(row: ItemRow, money: MoneyView): string;
  purchaseAroundItem(
    row: PurchaseRow,
    itemSupported: boolean,
    money: MoneyView,
    support: boolean,
  ): readonly [before: string, after: string];
  /** Where a validation answer puts the purchase, after the status word. */
  readonly validationHead: string;
  /** What closes the validation answer's own objects after the purchase (the envelope's brace aside). */
  readonly validationClose: string;
}

export const CONTRACT_SHAPE: AnswerShape = {
  account: serializeAccount,
  item: serializeItem,
  purchaseAroundItem: serializePurchaseAroundItem,
  validationHead: '"data":{"purchase":',
  validationClose: '}',
};

/** MarketBob's validation answers the purchase as a top-level `item`. */
export const MARKETBOB_SHAPE: AnswerShape = {
  account: serializeMarketbobAccount,
  item: serializeMarketbobItem,
  purchaseAroundItem: serializeMarketbobPurchaseAroundItem,
  validationHead: '"item":',
  validationClose: '',
};

export function answerShapeOf(variant: VariantRuntime): AnswerShape {
  return variant.config.shape === 'marketbob' ? MARKETBOB_SHAPE : CONTRACT_SHAPE;
}
