import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigFile } from '../../src/config.js';
import { createTestApp, TEST_STORES, type TestApp } from '../helpers/test-app.js';
import { expectJson } from './http-assertions.js';
import {
  BUYER_DETAILS,
  ITEM_1001,
  ITEM_1002,
  ITEM_1003,
  ITEM_2001,
  ITEM_4001,
  ITEM_4002,
  inCurrency,
  MAKER_DETAILS,
  MB_CODES,
  MB_KEYS,
  MB_LINES,
  MB_UNKNOWN_KEY,
  PLAIN_DETAILS,
  PURCHASE_BANNED,
  PURCHASE_MADE,
  PURCHASE_NO_SUPPORT,
  PURCHASE_PLAIN,
  PURCHASE_PLAIN_UNSUPPORTED,
} from './marketbob-fixtures.js';

/**
 * A `marketbob` variant beside `contract` ones in one server: MarketBob's own answers, byte for
 * byte (docs/marketbob.md, "MarketBob's own answers"), and the contract's unchanged.
 */
const CONFIG: ConfigFile = {
  variants: [
    { lang: 'en', baseUrl: '/', currency: 'USD', rate: '1' },
    { lang: 'en', baseUrl: '/mb', currency: 'USD', rate: '1', shape: 'marketbob' },
    { lang: 'pt', baseUrl: '/mbpt', currency: 'BRL', rate: '5', shape: 'marketbob' },
    // One base, two hosts, two shapes.
    { lang: 'en', baseUrl: 'https://shop.example.com/shared', currency: 'USD', rate: '1', shape: 'marketbob' },
    { lang: 'en', baseUrl: '/shared', currency: 'USD', rate: '1' },
  ],
};

const MB = '/mb';
const ok = (member: string, value: unknown) => ({ status: 'success', [member]: value });
const error = (msg: string) => ({ status: 'error', msg });

describe.each(TEST_STORES)('the marketbob shape (%s store)', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind, { configFile: CONFIG, lines: MB_LINES });
  });
  afterAll(async () => {
    await t?.close();
  });

  const get = (path: string, key?: string, query: Record<string, string> = {}, base = MB) => {
    const search = new URLSearchParams(query).toString();
    return t.app.inject({
      method: 'GET',
      url: `${base}${path}${search ? `?${search}` : ''}`,
      headers: key === undefined ? {} : { 'x-api-key': key },
    });
  };
  const validate = (code: string | undefined, key?: string, base = MB) =>
    t.app.inject({
      method: 'POST',
      url: `${base}/api/purchases/validation`,
      headers: { 'content-type': 'application/json', ...(key === undefined ? {} : { authorization: `Bearer ${key}` }) },
      payload: JSON.stringify(code === undefined ? {} : { purchase_code: code }),
    });

  describe('GET /api/account/details', () => {
    it('answers an author from its marketbob object, found by its key in upper case', async () => {
      const response = await get('/api/account/details', MB_KEYS.maker.toUpperCase());
      expectJson(response, 200, ok('data', MAKER_DETAILS));
      expect(response.body).toContain('"balance":1259.4995,');
    });

    it('answers a buyer (not an author): account details ask no is_author', async () => {
      expectJson(await get('/api/account/details', MB_KEYS.buyer), 200, ok('data', BUYER_DETAILS));
    });

    it('derives every value from a plain line', async () => {
      expectJson(await get('/api/account/details', MB_KEYS.plain), 200, ok('data', PLAIN_DETAILS));
    });

    it.each([
      ['a banned (suspended) account', MB_KEYS.banned],
      ['an incomplete profile (no password: social login)', MB_KEYS.halfway],
      ['an unknown key', MB_UNKNOWN_KEY],
    ])('answers 401 Invalid request for %s', async (_name, key) => {
      const response = await get('/api/account/details', key);
      expectJson(response, 401, error('Invalid request'));
      expect(response.headers['x-error-code']).toBe('invalid_api_key');
    });

    it('answers 400 for a missing or empty key, in MarketBob words', async () => {
      expectJson(await get('/api/account/details'), 400, error('The api key field is required.'));
      expectJson(await get('/api/account/details', '   '), 400, error('The api key field is required.'));
    });

    it('takes the key from every transport: header, bearer, query', async () => {
      const byBearer = await t.app.inject({
        method: 'GET',
        url: `${MB}/api/account/details`,
        headers: { authorization: `Bearer ${MB_KEYS.plain}` },
      });
      expectJson(byBearer, 200, ok('data', PLAIN_DETAILS));
      expectJson(
        await get('/api/account/details', undefined, { api_key: ` ${MB_KEYS.plain} ` }),
        200,
        ok('data', PLAIN_DETAILS),
      );
    });
  });

  describe('GET /api/items/all', () => {
    it("answers an author's approved items, newest first (the pending one left out)", async () => {
      expectJson(await get('/api/items/all', MB_KEYS.maker), 200, ok('items', [ITEM_1003, ITEM_1002, ITEM_1001]));
    });

    it("answers a banned author's one item as a list of one (MarketBob's own code answers 404)", async () => {
      expectJson(await get('/api/items/all', MB_KEYS.banned), 200, ok('items', [ITEM_2001]));
    });

    it('derives every value from plain lines', async () => {
      expectJson(await get('/api/items/all', MB_KEYS.plain), 200, ok('items', [ITEM_4002, ITEM_4001]));
    });

    it.each([
      ['a buyer (not an author)', MB_KEYS.buyer],
      ['an unknown key', MB_UNKNOWN_KEY],
    ])('answers 404 No items found for %s', async (_name, key) => {
      const response = await get('/api/items/all', key);
      expectJson(response, 404, error('No items found'));
      expect(response.headers['x-error-code']).toBe('no_items');
    });

    it('answers 400 for a missing key', async () => {
      expectJson(await get('/api/items/all'), 400, error('The api key field is required.'));
    });
  });

  describe('GET /api/items/item', () => {
    it.each([
      ['an image item with an options object, tags with spaces, NULL version, float prices', ITEM_1001],
      ['a video item with NULL sub-category and options', ITEM_1002],
      ['an audio item (no preview_image, no screenshots)', ITEM_1003],
    ])('answers %s', async (_name, expected) => {
      expectJson(
        await get('/api/items/item', MB_KEYS.maker, { item_id: String(expected.id) }),
        200,
        ok('item', expected),
      );
    });

    it("answers a banned author's item", async () => {
      expectJson(await get('/api/items/item', MB_KEYS.banned, { item_id: '2001' }), 200, ok('item', ITEM_2001));
    });

    it.each([
      ['4001', ITEM_4001],
      [' 4002 ', ITEM_4002],
      ['+4002', ITEM_4002],
    ])('derives every value from plain lines (item_id %j)', async (itemId, expected) => {
      expectJson(await get('/api/items/item', MB_KEYS.plain, { item_id: itemId }), 200, ok('item', expected));
    });

    it.each([
      ['a pending item', MB_KEYS.maker, '1004'],
      ["another author's item", MB_KEYS.maker, '4001'],
      ['no such item', MB_KEYS.maker, '999'],
      ['an integer no item has (0)', MB_KEYS.maker, '0'],
      ['a negative integer', MB_KEYS.maker, '-5'],
      ['a buyer (not an author)', MB_KEYS.buyer, '1001'],
      ['an unknown key', MB_UNKNOWN_KEY, '1001'],
    ])('answers 404 Item Not Found for %s', async (_name, key, itemId) => {
      const response = await get('/api/items/item', key, { item_id: itemId });
      expectJson(response, 404, error('Item Not Found'));
      expect(response.headers['x-error-code']).toBe('item_not_found');
    });

    it('answers 400 for a missing item id, and one that is no integer', async () => {
      expectJson(await get('/api/items/item', MB_KEYS.maker), 400, error('The item id field is required.'));
      expectJson(
        await get('/api/items/item', MB_KEYS.maker, { item_id: ' ' }),
        400,
        error('The item id field is required.'),
      );
      for (const itemId of ['abc', '1.5', '007', '1e3', '99999999999999999999']) {
        expectJson(
          await get('/api/items/item', MB_KEYS.maker, { item_id: itemId }),
          400,
          error('The item id field must be an integer.'),
        );
      }
      expectJson(
        await get('/api/items/item', undefined, { item_id: '1001' }),
        400,
        error('The api key field is required.'),
      );
    });
  });

  describe('POST /api/purchases/validation', () => {
    it.each([
      ['a purchase with support shown', MB_CODES.made, MB_KEYS.maker, PURCHASE_MADE],
      [
        'a code in upper case, with the key in upper case',
        MB_CODES.made.toUpperCase(),
        MB_KEYS.maker.toUpperCase(),
        PURCHASE_MADE,
      ],
      ['a purchase MarketBob shows no support for', MB_CODES.noSupport, MB_KEYS.maker, PURCHASE_NO_SUPPORT],
      ["a banned author's purchase (still validates)", MB_CODES.banned, MB_KEYS.banned, PURCHASE_BANNED],
      ['a plain purchase (derived)', MB_CODES.plain, MB_KEYS.plain, PURCHASE_PLAIN],
      ['a plain purchase of an unsupported item', MB_CODES.plainUnsupported, MB_KEYS.plain, PURCHASE_PLAIN_UNSUPPORTED],
    ])('answers %s under a top-level item', async (_name, code, key, expected) => {
      expectJson(await validate(code, key), 200, ok('item', expected));
    });

    it.each([
      ['a refunded purchase', MB_CODES.refunded, MB_KEYS.maker],
      ["another author's code", MB_CODES.plain, MB_KEYS.maker],
      ['no such code', 'c0ffee00-0000-4000-8000-00000000ffff', MB_KEYS.maker],
      ['a buyer (not an author)', MB_CODES.made, MB_KEYS.buyer],
      ['an unknown key', MB_CODES.made, MB_UNKNOWN_KEY],
    ])('answers 404 Invalid purchase code for %s', async (_name, code, key) => {
      const response = await validate(code, key);
      expectJson(response, 404, error('Invalid purchase code'));
      expect(response.headers['x-error-code']).toBe('invalid_purchase_code');
    });

    it('answers 400 for a missing code or key, in MarketBob words', async () => {
      expectJson(await validate(undefined, MB_KEYS.maker), 400, error('The purchase code field is required.'));
      expectJson(await validate('  ', MB_KEYS.maker), 400, error('The purchase code field is required.'));
      expectJson(await validate(MB_CODES.made), 400, error('The api key field is required.'));
    });

    it('takes the key and code from a form body and the query string', async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: `${MB}/api/purchases/validation?purchase_code=${MB_CODES.made}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `api_key=${MB_KEYS.maker}`,
      });
      expectJson(response, 200, ok('item', PURCHASE_MADE));
    });
  });

  describe('a Portuguese variant in MarketBob shape', () => {
    const PT = '/mbpt';
    const times5: Record<number, number> = { 29.999: 149.995, 150: 750, 19.99: 99.95, 49: 245, 1259.4995: 6297.4975 };
    const inBrl = <T>(value: T) => inCurrency(value, 'BRL', (amount) => times5[amount] as number);

    it('answers in BRL at its rate, status words unchanged', async () => {
      expectJson(
        await get('/api/items/item', MB_KEYS.maker, { item_id: '1001' }, PT),
        200,
        ok('item', inBrl(ITEM_1001)),
      );
      expectJson(
        await get('/api/items/item', MB_KEYS.plain, { item_id: '4001' }, PT),
        200,
        ok('item', inBrl(ITEM_4001)),
      );
      expectJson(await get('/api/account/details', MB_KEYS.maker, {}, PT), 200, ok('data', inBrl(MAKER_DETAILS)));
    });

    it('says every error in Portuguese', async () => {
      const cases: [Promise<{ statusCode: number; body: string }>, number, string][] = [
        [get('/api/account/details', undefined, {}, PT), 400, 'O campo api key é obrigatório.'],
        [get('/api/account/details', MB_KEYS.banned, {}, PT), 401, 'Requisição inválida'],
        [get('/api/items/all', MB_KEYS.buyer, {}, PT), 404, 'Nenhum item encontrado'],
        [get('/api/items/item', MB_KEYS.maker, {}, PT), 400, 'O campo item id é obrigatório.'],
        [
          get('/api/items/item', MB_KEYS.maker, { item_id: 'x' }, PT),
          400,
          'O campo item id deve ser um número inteiro.',
        ],
        [get('/api/items/item', MB_KEYS.maker, { item_id: '4001' }, PT), 404, 'Item não encontrado'],
        [validate(undefined, MB_KEYS.maker, PT), 400, 'O campo purchase code é obrigatório.'],
        [validate(MB_CODES.refunded, MB_KEYS.maker, PT), 404, 'Código de compra inválido'],
      ];
      for (const [answer, status, msg] of cases) {
        const response = await answer;
        expect({ status: response.statusCode, body: response.body }).toEqual({
          status,
          body: JSON.stringify(error(msg)),
        });
      }
    });
  });

  describe('the contract variant beside it', () => {
    it('answers in the contract shape, the marketbob objects ignored', async () => {
      const response = await get('/api/items/item', MB_KEYS.plain, { item_id: '4002' }, '');
      expectJson(response, 200, {
        status: 'success',
        item: {
          id: 4002,
          name: 'Item 4002',
          description: '<p>Item 4002</p>',
          category: 'Music',
          sub_category: 'Loops',
          options: [],
          version: '1.0.0',
          demo_link: '',
          tags: [],
          media: { thumbnail: 'https://cdn.example.com/t.png', preview_audio: 'https://cdn.example.com/4002.mp3' },
          price: { regular: 0.5, extended: 5 },
          currency: 'USD',
          published_at: '2024-01-02T03:04:05.000Z',
        },
      });
      expectJson(await validate(MB_CODES.banned, MB_KEYS.banned, ''), 401, error('Invalid request'));
      const made = await validate(MB_CODES.made, MB_KEYS.maker, '');
      expect(made.statusCode).toBe(200);
      expect(JSON.parse(made.body)).toMatchObject({
        status: 'success',
        data: { purchase: { purchase_code: MB_CODES.made, price: 30, item: { tags: ['admin', 'dashboard'] } } },
      });
      expectJson(await get('/api/account/details', MB_KEYS.maker.toUpperCase(), {}, ''), 401, error('Invalid request'));
      expectJson(await get('/api/items/all', MB_KEYS.banned, {}, ''), 401, error('Invalid request'));
    });

    it('keeps the activity endpoints for the contract only', async () => {
      const contract = await get('/api/purchases/activity', MB_KEYS.maker, { purchase_code: MB_CODES.made }, '');
      expect(contract.statusCode).toBe(200);
      expectJson(
        await get('/api/purchases/activity', MB_KEYS.maker, { purchase_code: MB_CODES.made }),
        404,
        error('Not Found'),
      );
    });

    it('keeps the activation endpoints for the contract only (404 in the marketbob shape)', async () => {
      const activate = (path: string, base: string) =>
        t.app.inject({
          method: 'POST',
          url: `${base}${path}`,
          headers: { 'x-api-key': MB_KEYS.maker },
          payload: { purchase_code: MB_CODES.made, instance: 'shape.example.com' },
        });
      expect((await activate('/api/purchases/activations', '')).statusCode).toBe(201);
      expect((await activate('/api/purchases/deactivation', '')).statusCode).toBe(200);
      for (const path of ['/api/purchases/activations', '/api/purchases/deactivation']) {
        expectJson(await activate(path, MB), 404, error('Not Found'));
      }
    });

    it('answers each shape by host where two hosts share a base', async () => {
      const shared = (host: string) =>
        t.app.inject({
          method: 'GET',
          url: '/shared/api/items/item?item_id=1001',
          headers: { host, 'x-api-key': MB_KEYS.maker },
        });
      expectJson(await shared('shop.example.com'), 200, ok('item', ITEM_1001));
      const contract = await shared('other.example.com');
      expect(JSON.parse(contract.body).item.tags).toEqual(['admin', 'dashboard']);
      const activity = await t.app.inject({
        method: 'GET',
        url: `/shared/api/purchases/activity?purchase_code=${MB_CODES.made}`,
        headers: { host: 'shop.example.com', 'x-api-key': MB_KEYS.maker },
      });
      expectJson(activity, 404, error('Not Found'));
    });
  });

  describe("MarketBob's actions.api switch", () => {
    it('answers 404 on every endpoint of the marketbob shape while off, the contract unchanged', async () => {
      await t.store.setSourceSetting('api_enabled', '0');
      for (const response of [
        await get('/api/account/details', MB_KEYS.maker),
        await get('/api/items/all'),
        await get('/api/items/item', MB_KEYS.maker, { item_id: 'x' }),
        await validate(MB_CODES.made, MB_KEYS.maker),
      ]) {
        expectJson(response, 404, error('Not Found'));
        expect(response.headers['x-error-code']).toBe('not_found');
      }
      expect((await get('/api/items/item', MB_KEYS.maker, { item_id: '1001' }, '')).statusCode).toBe(200);
      await t.store.setSourceSetting('api_enabled', '1');
      expectJson(await get('/api/items/item', MB_KEYS.maker, { item_id: '1001' }), 200, ok('item', ITEM_1001));
      expect(await t.store.sourceSetting('api_enabled')).toBe('1');
    });
  });
});
