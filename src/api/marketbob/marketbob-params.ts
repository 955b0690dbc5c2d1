import { MAX_ITEM_ID } from '../../records/field-reader.js';
import type { VariantTexts } from '../../variants/variant-texts.js';
import { ApiError, type OrRefusal } from '../api-error.js';
import { requiredParam } from '../params.js';

/** Laravel's `integer` rule (PHP's FILTER_VALIDATE_INT): an optional sign, no leading zeros, within 64 bits. */
const PHP_INTEGER = /^[+-]?(0|[1-9]\d{0,18})$/;
const PHP_INT_MAX = 9_223_372_036_854_775_807n;

/**
 * `item_id` as MarketBob's validator takes it: 400 when missing or not an integer; an integer no
 * item can have (zero, negative, past 15 digits) is 0, which finds no item (404, as MarketBob).
 */
export function marketbobItemIdParam(sources: readonly unknown[], texts: VariantTexts): OrRefusal<number> {
  const text = requiredParam('item_id', sources, texts);
  if (text instanceof ApiError) return text;
  const integer = PHP_INTEGER.test(text) ? BigInt(text) : undefined;
  if (integer === undefined || integer > PHP_INT_MAX || integer < -PHP_INT_MAX - 1n) {
    return new ApiError('badParameter', texts.parameter.malformed('item_id', texts.expectations.positiveInteger));
  }
  return integer >= 1n && integer <= BigInt(MAX_ITEM_ID) ? Number(integer) : 0;
}
