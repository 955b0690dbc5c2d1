import { afterAll, beforeAll, describe, it } from 'vitest';
import { createTestApp, TEST_STORES, type TestApp, type TestVariant, VARIANTS } from '../helpers/test-app.js';
import { ACCOUNTS, ALL_LINES, expectedItem, expectedPurchase, ITEMS, KEYS, PURCHASES } from './fixtures.js';
import { expectJson, url } from './http-assertions.js';

/**
 * The app makes an account's or item's JSON for a variant only when an answer in that variant
 * first needs it, next to what it already holds for the other. Asking the same resources in
 * turns, starting with either variant on an empty cache, must answer each in its own variant.
 */
const [en, pt] = VARIANTS;

describe.each(TEST_STORES)('%s store', (kind) => {
  for (const order of [
    [en, pt, en, pt],
    [pt, en, pt, en],
  ] as const) {
    describe(`variants asked in turns, ${order.map((v) => v.lang).join(' → ')}`, () => {
      let t: TestApp;
      beforeAll(async () => {
        t = await createTestApp(kind, { lines: ALL_LINES });
      });
      afterAll(async () => {
        await t.close();
      });
      const get = (variant: TestVariant, path: string, query: [string, string][] = []) =>
        t.app.inject({ method: 'GET', url: url(variant, path, query), headers: { 'x-api-key': KEYS.alice } });

      it('answers account details in each variant', async () => {
        for (const variant of order) {
          expectJson(await get(variant, '/api/account/details'), 200, {
            status: variant.ok,
            data: ACCOUNTS.alice.expected[variant.lang],
          });
        }
      });

      it('answers one item in each variant', async () => {
        for (const variant of order) {
          expectJson(await get(variant, '/api/items/item', [['item_id', '101']]), 200, {
            status: variant.ok,
            item: expectedItem(ITEMS.i101, variant),
          });
        }
      });

      it('answers a validated purchase, item included, in each variant', async () => {
        for (const variant of order) {
          const response = await t.app.inject({
            method: 'POST',
            url: url(variant, '/api/purchases/validation'),
            headers: { 'x-api-key': KEYS.alice },
            payload: { purchase_code: PURCHASES.regular.line.code },
          });
          expectJson(response, 200, {
            status: variant.ok,
            data: { purchase: expectedPurchase(PURCHASES.regular, variant) },
          });
        }
      });
    });
  }
});
