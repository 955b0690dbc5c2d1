import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigFile } from '../../src/config.js';
import { createNamedKey } from '../../src/operations/named-keys.js';
import { createTestApp, TEST_STORES, type TestApp } from '../helpers/test-app.js';
import { MB_CODES, MB_KEYS, MB_LINES } from './marketbob-fixtures.js';

/**
 * A `validate` named key on a variant in MarketBob's shape: refused in that shape's envelope, in
 * the variant's language, with the same 403 and `X-Error-Code` as the contract's; it validates as
 * the account's own (MarketBob's) key does.
 */
const CONFIG: ConfigFile = {
  variants: [
    { lang: 'en', baseUrl: '/', currency: 'USD', rate: '1' },
    { lang: 'en', baseUrl: '/mb', currency: 'USD', rate: '1', shape: 'marketbob' },
    { lang: 'pt', baseUrl: '/mbpt', currency: 'BRL', rate: '5', shape: 'marketbob' },
  ],
};
const REFUSALS = {
  '/mb': '{"status":"error","msg":"This API key may not call this endpoint"}',
  '/mbpt': '{"status":"error","msg":"Esta chave de API não pode chamar este endpoint"}',
} as const;

describe.each(TEST_STORES)('a validate key in the marketbob shape (%s)', (kind) => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp(kind, { configFile: CONFIG, lines: MB_LINES });
    const made = await createNamedKey(t.store, t.keys, 'maker', 'Installer', 'validate');
    if (!made) throw new Error('no maker account');
    key = made.key;
  });
  afterAll(() => t?.close());

  it.each(['/mb', '/mbpt'] as const)('refuses details and items, 403 key_scope, and validates (%s)', async (base) => {
    for (const path of ['/api/account/details', '/api/items/all', '/api/items/item?item_id=1001']) {
      const response = await t.app.inject({ url: `${base}${path}`, headers: { 'x-api-key': key } });
      expect([path, response.statusCode, response.body, response.headers['x-error-code']]).toEqual([
        path,
        403,
        REFUSALS[base],
        'key_scope',
      ]);
    }
    const validate = (apiKey: string) =>
      t.app.inject({
        method: 'POST',
        url: `${base}/api/purchases/validation`,
        payload: { api_key: apiKey, purchase_code: MB_CODES.made },
      });
    const named = await validate(key);
    expect(named.statusCode).toBe(200);
    expect(named.body).toBe((await validate(MB_KEYS.maker)).body);
  });

  it("opens only an active account: a banned user's named key is an unknown key, where its own key still validates", async () => {
    const made = await createNamedKey(t.store, t.keys, 'banned', 'Installer', 'validate');
    if (!made) throw new Error('no banned account');
    const validate = (apiKey: string) =>
      t.app.inject({
        method: 'POST',
        url: '/mb/api/purchases/validation',
        payload: { api_key: apiKey, purchase_code: MB_CODES.banned },
      });
    expect((await validate(MB_KEYS.banned)).statusCode).toBe(200);
    const named = await validate(made.key);
    expect([named.statusCode, named.body]).toEqual([404, '{"status":"error","msg":"Invalid purchase code"}']);
  });
});
