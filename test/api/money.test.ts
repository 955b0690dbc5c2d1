import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigFile } from '../../src/config.js';
import { createTestApp, TEST_STORES, type TestApp, type TestVariant, VARIANTS } from '../helpers/test-app.js';
import { expectJson, url } from './http-assertions.js';

/**
 * SPEC 3.4: shown amount = stored amount x rate, rounded half-to-even to two decimals, as a JSON
 * number with at most two decimals. Every expected value below was worked out by hand (and
 * checked with Python's Decimal, ROUND_HALF_EVEN); exact halves are marked.
 */
type RateText = '1' | '0.5' | '0.125' | '5.25' | '5.00';
const SHOWN: readonly { stored: string; shown: Record<RateText, number> }[] = [
  { stored: '0', shown: { '1': 0, '0.5': 0, '0.125': 0, '5.25': 0, '5.00': 0 } },
  // 0.005 (half) -> 0.00
  { stored: '0.01', shown: { '1': 0.01, '0.5': 0, '0.125': 0, '5.25': 0.05, '5.00': 0.05 } },
  // 0.00250 (half) -> 0.00; 0.1050 (half) -> 0.10
  { stored: '0.02', shown: { '1': 0.02, '0.5': 0.01, '0.125': 0, '5.25': 0.1, '5.00': 0.1 } },
  // 0.015 (half) -> 0.02
  { stored: '0.03', shown: { '1': 0.03, '0.5': 0.02, '0.125': 0, '5.25': 0.16, '5.00': 0.15 } },
  // 0.00500 (half) -> 0.00
  { stored: '0.04', shown: { '1': 0.04, '0.5': 0.02, '0.125': 0, '5.25': 0.21, '5.00': 0.2 } },
  // 0.025 (half) -> 0.02
  { stored: '0.05', shown: { '1': 0.05, '0.5': 0.02, '0.125': 0.01, '5.25': 0.26, '5.00': 0.25 } },
  // 0.3150 (half) -> 0.32
  { stored: '0.06', shown: { '1': 0.06, '0.5': 0.03, '0.125': 0.01, '5.25': 0.32, '5.00': 0.3 } },
  // 0.035 (half) -> 0.04
  { stored: '0.07', shown: { '1': 0.07, '0.5': 0.04, '0.125': 0.01, '5.25': 0.37, '5.00': 0.35 } },
  // 0.045 (half) -> 0.04
  { stored: '0.09', shown: { '1': 0.09, '0.5': 0.04, '0.125': 0.01, '5.25': 0.47, '5.00': 0.45 } },
  // 0.525 (half) -> 0.52
  { stored: '0.1', shown: { '1': 0.1, '0.5': 0.05, '0.125': 0.01, '5.25': 0.52, '5.00': 0.5 } },
  // 0.055 (half) -> 0.06
  { stored: '0.11', shown: { '1': 0.11, '0.5': 0.06, '0.125': 0.01, '5.25': 0.58, '5.00': 0.55 } },
  // 0.01500 (half) -> 0.02
  { stored: '0.12', shown: { '1': 0.12, '0.5': 0.06, '0.125': 0.02, '5.25': 0.63, '5.00': 0.6 } },
  // 0.0250 (half) -> 0.02
  { stored: '0.2', shown: { '1': 0.2, '0.5': 0.1, '0.125': 0.02, '5.25': 1.05, '5.00': 1 } },
  // 0.03500 (half) -> 0.04
  { stored: '0.28', shown: { '1': 0.28, '0.5': 0.14, '0.125': 0.04, '5.25': 1.47, '5.00': 1.4 } },
  // 0.125 (half) -> 0.12
  { stored: '1', shown: { '1': 1, '0.5': 0.5, '0.125': 0.12, '5.25': 5.25, '5.00': 5 } },
  // 0.505 (half) -> 0.50
  { stored: '1.01', shown: { '1': 1.01, '0.5': 0.5, '0.125': 0.13, '5.25': 5.3, '5.00': 5.05 } },
  // 0.375 (half) -> 0.38
  { stored: '3', shown: { '1': 3, '0.5': 1.5, '0.125': 0.38, '5.25': 15.75, '5.00': 15 } },
  // 104.475 (half) -> 104.48
  { stored: '19.9', shown: { '1': 19.9, '0.5': 9.95, '0.125': 2.49, '5.25': 104.48, '5.00': 99.5 } },
  // 9.995 (half) -> 10.00
  { stored: '19.99', shown: { '1': 19.99, '0.5': 10, '0.125': 2.5, '5.25': 104.95, '5.00': 99.95 } },
  { stored: '49.00', shown: { '1': 49, '0.5': 24.5, '0.125': 6.12, '5.25': 257.25, '5.00': 245 } },
  // 6172839.495 (half) -> 6172839.50
  {
    stored: '12345678.99',
    shown: { '1': 12345678.99, '0.5': 6172839.5, '0.125': 1543209.87, '5.25': 64814814.7, '5.00': 61728394.95 },
  },
];

const KEY = 'money_key_0123456789abcdef';
const thumbnail = 'https://cdn.example.com/m/t.png';
const audio = 'https://cdn.example.com/m/a.mp3';
const BASE_ID = 9000;

const LINES: object[] = [
  {
    type: 'account',
    username: 'money',
    email: 'money@example.com',
    firstname: 'Money',
    lastname: 'Penny',
    balance: '19.99',
    status: 'active',
    api_key: KEY,
    registered_at: '2020-01-01T00:00:00Z',
  },
  ...SHOWN.map((row, index) => ({
    type: 'item',
    id: BASE_ID + index,
    account: 'money',
    name: `Priced ${row.stored}`,
    description: '',
    category: '',
    sub_category: '',
    options: [],
    version: '1.0.0',
    demo_link: '',
    tags: [],
    preview_type: 'audio',
    thumbnail,
    preview_audio: audio,
    // Regular as a decimal string, extended as a JSON number: both are money (SPEC 5).
    price: { regular: row.stored, extended: Number(row.stored) },
    supported: true,
    status: 'approved',
    published_at: '2020-01-01T00:00:00Z',
  })),
  ...SHOWN.map((row, index) => ({
    type: 'purchase',
    code: `MONEY-${index}`,
    item_id: BASE_ID + index,
    license_type: 'regular',
    price: row.stored,
    downloaded: false,
    status: 'active',
    date: '2021-01-01T00:00:00Z',
  })),
];

function expectedItem(index: number, shown: number, variant: { currency: string }) {
  return {
    id: BASE_ID + index,
    name: `Priced ${SHOWN[index]?.stored}`,
    description: '',
    category: '',
    sub_category: '',
    options: [],
    version: '1.0.0',
    demo_link: '',
    tags: [],
    media: { thumbnail, preview_audio: audio },
    price: { regular: shown, extended: shown },
    currency: variant.currency,
    published_at: '2020-01-01T00:00:00.000Z',
  };
}

/** A shipped variant's words and base, with the currency and rate a case configures. */
type RateVariant = Omit<TestVariant, 'currency' | 'rate'> & { readonly currency: string; readonly rate: RateText };

interface RateCase {
  readonly name: string;
  readonly configFile: ConfigFile | undefined;
  readonly variants: readonly RateVariant[];
}

const [en, pt] = VARIANTS;
const CASES: readonly RateCase[] = [
  {
    name: 'the shipped config (en 1, pt 5.00)',
    configFile: undefined,
    variants: [
      { ...en, rate: '1' },
      { ...pt, rate: '5.00' },
    ],
  },
  {
    name: 'custom rates 0.5 and 0.125',
    configFile: {
      variants: [
        { lang: 'en', baseUrl: '/', currency: 'EUR', rate: '0.5' },
        { lang: 'pt', baseUrl: '/pt', currency: 'BRL', rate: '0.125' },
      ],
    },
    variants: [
      { ...en, currency: 'EUR', rate: '0.5' },
      { ...pt, rate: '0.125' },
    ],
  },
  {
    name: 'custom rates 5.25 and 0.5',
    configFile: {
      variants: [
        { lang: 'en', baseUrl: '/', currency: 'GBP', rate: '5.25' },
        { lang: 'pt', baseUrl: '/pt', currency: 'BRL', rate: '0.5' },
      ],
    },
    variants: [
      { ...en, currency: 'GBP', rate: '5.25' },
      { ...pt, rate: '0.5' },
    ],
  },
];

describe.each(TEST_STORES)('%s store', (kind) => {
  describe.each(CASES)('money with $name', ({ configFile, variants }) => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp(kind, { ...(configFile ? { configFile } : {}), lines: LINES });
    });
    afterAll(async () => {
      await t.close();
    });

    describe.each(variants)('$lang at rate $rate', (variant) => {
      const headers = { 'x-api-key': KEY };

      it.each(SHOWN.map((row, index) => [row.stored, row.shown[variant.rate], index] as const))(
        'shows an item priced %s as %d (both as a string and as a number on import)',
        async (_stored, shown, index) => {
          const response = await t.app.inject({
            method: 'GET',
            url: url(variant, '/api/items/item', [['item_id', String(BASE_ID + index)]]),
            headers,
          });
          expectJson(response, 200, { status: variant.ok, item: expectedItem(index, shown, variant) });
        },
      );

      it.each(SHOWN.map((row, index) => [row.stored, row.shown[variant.rate], index] as const))(
        'shows a purchase paid %s as %d',
        async (_stored, shown, index) => {
          const response = await t.app.inject({
            method: 'POST',
            url: url(variant, '/api/purchases/validation'),
            headers,
            payload: { purchase_code: `money-${index}` },
          });
          expect(response.statusCode).toBe(200);
          const purchase = JSON.parse(response.body).data.purchase;
          expect([purchase.price, purchase.currency]).toEqual([shown, variant.currency]);
          expect(response.body).toContain(`"price":${JSON.stringify(shown)},"currency":"${variant.currency}","item"`);
        },
      );

      it('shows the balance converted', async () => {
        const response = await t.app.inject({ method: 'GET', url: url(variant, '/api/account/details'), headers });
        const expected = SHOWN.find((row) => row.stored === '19.99')?.shown[variant.rate];
        expect(response.body).toContain(`"balance":${expected},"currency":"${variant.currency}"`);
      });

      it('writes amounts as JSON numbers with at most two decimals and no trailing zeros', async () => {
        const response = await t.app.inject({ method: 'GET', url: url(variant, '/api/items/all'), headers });
        expect(response.statusCode).toBe(200);
        const amounts = [...response.body.matchAll(/"(?:regular|extended)":([^,}]+)/g)].map((match) => match[1] ?? '');
        expect(amounts).toHaveLength(SHOWN.length * 2);
        for (const amount of amounts) expect(amount).toMatch(/^(0|[1-9]\d*)(\.\d?[1-9])?$/);
      });
    });
  });
});
