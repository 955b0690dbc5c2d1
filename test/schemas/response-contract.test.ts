import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_LINES, KEYS, PURCHASES } from '../api/fixtures.js';
import { url } from '../api/http-assertions.js';
import { createTestApp, TEST_STORES, type TestApp, VARIANTS } from '../helpers/test-app.js';

type Json = Record<string, unknown>;

/** A copy of an answer with one change made to its parsed body, re-encoded as it was. */
function altered(response: { body: string; statusCode: number }, change: (body: Json) => Json) {
  return { ...response, body: JSON.stringify(change(JSON.parse(response.body) as Json)) } as never;
}

const purchaseOf = (body: Json) => (body.data as Json).purchase as Json;

describe.each(TEST_STORES)('%s store: every answer is checked against its schema', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind, { lines: ALL_LINES });
  });
  afterAll(async () => {
    await t.close();
  });

  describe.each(VARIANTS)('$lang', (variant) => {
    const request = {
      method: 'POST' as const,
      url: url(variant, '/api/purchases/validation'),
      headers: { 'x-api-key': KEYS.alice },
      payload: { purchase_code: PURCHASES.regular.line.code as string },
    };

    it('checks the answers inject returns (a passing answer counts)', async () => {
      const before = t.contract.checked;
      const response = await t.app.inject(request);
      expect(response.statusCode).toBe(200);
      expect(t.contract.checked).toBe(before + 1);
    });

    it('rejects an answer whose bytes drift from the schema', async () => {
      const response = await t.app.inject(request);
      const check = (change: (body: Json) => Json) => () => t.contract.check(request, altered(response, change));
      expect(check((body) => body)).not.toThrow();
      // A key renamed.
      expect(
        check((body) => {
          const { purchase_code, ...rest } = purchaseOf(body);
          return { ...body, data: { purchase: { code: purchase_code, ...rest } } };
        }),
      ).toThrow(/purchase_code|additional properties/);
      // Two keys swapped: still valid JSON Schema, but out of the contract's order.
      expect(
        check((body) => {
          const { purchase_code, license_type, ...rest } = purchaseOf(body);
          return { ...body, data: { purchase: { license_type, purchase_code, ...rest } } };
        }),
      ).toThrow(/\/data\/purchase: keys license_type,purchase_code/);
      // An extra key, deep inside.
      expect(
        check((body) => {
          const purchase = purchaseOf(body);
          return { ...body, data: { purchase: { ...purchase, item: { ...(purchase.item as Json), extra: 1 } } } };
        }),
      ).toThrow(/additional properties/);
      // Three decimals, a timestamp without milliseconds, the other variant's status word.
      expect(check((body) => ({ ...body, data: { purchase: { ...purchaseOf(body), price: 19.999 } } }))).toThrow(
        /decimals/,
      );
      expect(
        check((body) => ({ ...body, data: { purchase: { ...purchaseOf(body), date: '2024-02-01T10:00:00Z' } } })),
      ).toThrow(/date must match pattern/);
      const otherWord = VARIANTS.find((other) => other.lang !== variant.lang)?.ok;
      expect(check((body) => ({ ...body, status: otherWord }))).toThrow(/status must be equal to constant/);
      // Media a preview type never has: an image item with an audio preview.
      expect(
        check((body) => {
          const purchase = purchaseOf(body);
          const item = purchase.item as Json;
          const media = { ...(item.media as Json), preview_audio: 'https://cdn.example.com/a.mp3' };
          return { ...body, data: { purchase: { ...purchase, item: { ...item, media } } } };
        }),
      ).toThrow(/media/);
      // Empty screenshots are left out, never [].
      expect(
        check((body) => {
          const purchase = purchaseOf(body);
          const item = purchase.item as Json;
          const media = { ...(item.media as Json), screenshots: [] };
          return { ...body, data: { purchase: { ...purchase, item: { ...item, media } } } };
        }),
      ).toThrow(/media/);
    });

    it('rejects an error answer with another message or a status the route never answers', async () => {
      const response = await t.app.inject({ ...request, payload: { purchase_code: 'NO-SUCH-CODE' } });
      expect(response.statusCode).toBe(404);
      expect(() =>
        t.contract.check(
          request,
          altered(response, (body) => ({ ...body, msg: 'Item Not Found' })),
        ),
      ).toThrow(/msg must be equal to one of the allowed values/);
      expect(() => t.contract.check(request, { ...response, statusCode: 418 } as never)).toThrow(
        /no answer with this status/,
      );
    });
  });
});
