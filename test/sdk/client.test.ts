import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, MarketplaceApiError } from '../../sdk/dist/index.js';
import {
  ACCOUNTS,
  ALICE_APPROVED_NEWEST_FIRST,
  ALL_LINES,
  expectedItem,
  expectedPurchase,
  ITEMS,
  KEYS,
  PURCHASES,
  UNKNOWN_KEY,
} from '../api/fixtures.js';
import { createTestApp, TEST_STORES, type TestApp, VARIANTS } from '../helpers/test-app.js';

/** What a call threw, for assertions on the error's fields. */
async function thrown(call: Promise<unknown>): Promise<MarketplaceApiError> {
  const error = await call.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(MarketplaceApiError);
  return error as MarketplaceApiError;
}

/** The SDK as shipped (sdk/dist), against the real server on a real port. */
describe.each(TEST_STORES)('%s store: the SDK against the real server', (kind) => {
  let t: TestApp;
  let origin: string;
  beforeAll(async () => {
    t = await createTestApp(kind, { lines: ALL_LINES });
    origin = await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await t.close();
  });

  describe.each(VARIANTS)('$lang', (variant) => {
    const client = (apiKey: string = KEYS.alice) => createClient({ baseUrl: `${origin}${variant.base}`, apiKey });

    it('reads the account', async () => {
      expect(await client().account()).toEqual(ACCOUNTS.alice.expected[variant.lang]);
    });

    it('lists the items, newest first; [] for a seller with none', async () => {
      expect(await client().items()).toEqual(ALICE_APPROVED_NEWEST_FIRST.map((item) => expectedItem(item, variant)));
      expect(await client(KEYS.cleo).items()).toEqual([]);
    });

    it("reads one item; null for a missing one or another seller's", async () => {
      expect(await client().item(101)).toEqual(expectedItem(ITEMS.i101, variant));
      expect(await client().item(999_999)).toBeNull();
      expect(await client().item(ITEMS.i201.line.id as number)).toBeNull();
    });

    it('validates a code (trimmed, any case); null for an invalid one', async () => {
      const code = PURCHASES.regular.line.code as string;
      expect(await client().validatePurchase(code)).toEqual(expectedPurchase(PURCHASES.regular, variant));
      expect(await client().validatePurchase(`  ${code.toLowerCase()} `)).toEqual(
        expectedPurchase(PURCHASES.regular, variant),
      );
      expect(await client().validatePurchase('NO-SUCH-CODE')).toBeNull();
      expect(await client().validatePurchase('bad code!')).toBeNull();
    });

    it('throws every other answer as one error: HTTP status, status word, msg; never the key', async () => {
      const unknown = await thrown(client(UNKNOWN_KEY).account());
      expect({ ...unknown, message: unknown.message }).toEqual({
        name: 'MarketplaceApiError',
        httpStatus: 401,
        status: variant.error,
        msg: variant.messages.invalidRequest,
        retryAfter: undefined,
        message: `401 ${variant.messages.invalidRequest}`,
      });
      expect(JSON.stringify({ ...unknown, stack: unknown.stack })).not.toContain(UNKNOWN_KEY);
      const blank = await thrown(client().validatePurchase('   '));
      expect([blank.httpStatus, blank.status]).toEqual([400, variant.error]);
      expect(blank.msg).toContain('purchase_code');
      const zero = await thrown(client().item(0));
      expect([zero.httpStatus, zero.status]).toEqual([400, variant.error]);
    });

    it('throws a 404 that is not "none" (a wrong base URL) instead of answering []', async () => {
      const wrongBase = createClient({ baseUrl: `${origin}${variant.base}/v2`, apiKey: KEYS.alice });
      const error = await thrown(wrongBase.items());
      expect([error.httpStatus, error.status, error.msg]).toEqual([404, variant.error, variant.messages.notFound]);
    });
  });

  describe('opt-in retry', () => {
    let limited: TestApp;
    let limitedOrigin: string;
    beforeAll(async () => {
      // One failed attempt with the key per one-second window: the next request is a 429 with Retry-After: 1.
      limited = await createTestApp(kind, {
        lines: ALL_LINES,
        configFile: { limits: { keyClientFailures: { max: 1, windowSeconds: 1 } } },
      });
      limitedOrigin = await limited.app.listen({ host: '127.0.0.1', port: 0 });
    });
    afterAll(async () => {
      await limited.close();
    });

    it.each(VARIANTS)('$lang: throws 429 with Retry-After without it, waits and succeeds with it', async (variant) => {
      const baseUrl = `${limitedOrigin}${variant.base}`;
      const plain = createClient({ baseUrl, apiKey: KEYS.alice });
      const patient = createClient({ baseUrl, apiKey: KEYS.alice, retry: { retries: 2 } });
      const code = PURCHASES.regular.line.code as string;
      // Spend the window's budget, then ask again: a 429, unless the window just rolled over (then again).
      let limitedError: MarketplaceApiError | undefined;
      for (let round = 0; round < 3 && !limitedError; round += 1) {
        await plain.validatePurchase('NO-SUCH-CODE').catch((error: unknown) => {
          if (!(error instanceof MarketplaceApiError) || error.httpStatus !== 429) throw error;
        });
        limitedError = await plain.validatePurchase(code).then(
          () => undefined,
          (error: unknown) => error as MarketplaceApiError,
        );
      }
      expect(limitedError).toMatchObject({
        httpStatus: 429,
        status: variant.error,
        msg: variant.messages.tooManyRequests,
        retryAfter: 1,
      });
      expect(await patient.validatePurchase(code)).toEqual(expectedPurchase(PURCHASES.regular, variant));
    });
  });
});
