import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, TEST_STORES, type TestApp, VARIANTS } from '../helpers/test-app.js';
import { ALL_LINES, expectedItem, ITEMS, KEYS, UNKNOWN_KEY } from './fixtures.js';
import { expectError, expectJson, expectParamError, url } from './http-assertions.js';

const PATH = '/api/items/item';

describe.each(TEST_STORES)('%s store', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind, { lines: ALL_LINES });
  });
  afterAll(async () => {
    await t.close();
  });

  describe.each(VARIANTS)('GET /api/items/item ($lang)', (variant) => {
    const one = (itemId: string, key: string = KEYS.alice) =>
      t.app.inject({ method: 'GET', url: url(variant, PATH, [['item_id', itemId]]), headers: { 'x-api-key': key } });

    it.each([
      ['image with screenshots', ITEMS.i101],
      ['image without screenshots, empty texts', ITEMS.i7],
      ['video without screenshots', ITEMS.i102],
      ['video with screenshots', ITEMS.i104],
      ['audio with screenshots', ITEMS.i103],
      ['audio without screenshots', ITEMS.i108],
    ])('answers the approved item: %s', async (_name, fixture) => {
      expectJson(await one(String(fixture.line.id)), 200, { status: variant.ok, item: expectedItem(fixture, variant) });
    });

    it('answers the one approved item of a seller that has exactly one', async () => {
      expectJson(await one('301', KEYS.solo), 200, { status: variant.ok, item: expectedItem(ITEMS.i301, variant) });
    });

    it.each([
      ['007', ITEMS.i7],
      ['  7  ', ITEMS.i7],
      ['000000000000101', ITEMS.i101],
      ['\t101\n', ITEMS.i101],
    ])('reads item_id %j as a trimmed positive integer', async (itemId, fixture) => {
      expectJson(await one(itemId), 200, { status: variant.ok, item: expectedItem(fixture, variant) });
    });

    it.each([
      '0',
      '000',
      '-1',
      '1.5',
      '7.0',
      '+7',
      '1e2',
      '0x7',
      'abc',
      '7abc',
      '7 7',
      '1234567890123456',
      '0000000000000007',
      '９',
    ])('answers 400 naming item_id for item_id %j', async (itemId) => {
      expectParamError(await one(itemId), variant, 'item_id');
    });

    it.each(['', '   '])('answers 400 naming item_id when item_id is %j (blank counts as missing)', async (itemId) => {
      expectParamError(await one(itemId), variant, 'item_id');
    });

    it('answers 400 naming item_id when item_id is missing', async () => {
      expectParamError(
        await t.app.inject({ method: 'GET', url: url(variant, PATH), headers: { 'x-api-key': KEYS.alice } }),
        variant,
        'item_id',
      );
    });

    it('takes item_id sent twice with one value, and answers 400 naming item_id for two values', async () => {
      const twice = (first: string, second: string) =>
        t.app.inject({
          method: 'GET',
          url: url(variant, PATH, [
            ['item_id', first],
            ['item_id', second],
          ]),
          headers: { 'x-api-key': KEYS.alice },
        });
      expectJson(await twice('7', ' 7 '), 200, { status: variant.ok, item: expectedItem(ITEMS.i7, variant) });
      expectParamError(await twice('7', '101'), variant, 'item_id');
    });

    it('accepts the largest 15-digit id (and finds nothing there)', async () => {
      expectError(await one('999999999999999'), variant, 404, variant.messages.itemNotFound);
    });

    it('answers the same 404 for a nonexistent id, another seller’s item, and an item not approved', async () => {
      const nonexistent = await one('999');
      expectError(nonexistent, variant, 404, variant.messages.itemNotFound);
      for (const itemId of ['201', '301', '501', '105', '106', '107']) {
        const response = await one(itemId);
        expect({ id: itemId, status: response.statusCode, body: response.body }).toEqual({
          id: itemId,
          status: 404,
          body: nonexistent.body,
        });
      }
    });

    it('does not show an item of a suspended seller to anyone, nor to the seller', async () => {
      expectError(await one('501', KEYS.sam), variant, 401, variant.messages.invalidRequest);
      expectError(await one('501', KEYS.bob), variant, 404, variant.messages.itemNotFound);
    });

    it('answers 401 for an unknown key before looking for the item', async () => {
      expectError(await one('101', UNKNOWN_KEY), variant, 401, variant.messages.invalidRequest);
      expectError(await one('999', UNKNOWN_KEY), variant, 401, variant.messages.invalidRequest);
    });

    it('checks item_id (400) before the key (401)', async () => {
      expectParamError(await one('abc', UNKNOWN_KEY), variant, 'item_id');
    });
  });
});
