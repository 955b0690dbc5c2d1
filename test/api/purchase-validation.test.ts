import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, TEST_STORES, type TestApp, type TestVariant, VARIANTS } from '../helpers/test-app.js';
import {
  ALL_LINES,
  expectedPurchase,
  KEYS,
  LONGEST_CODE,
  PURCHASES,
  type PurchaseFixture,
  UNKNOWN_KEY,
} from './fixtures.js';
import { expectError, expectJson, expectParamError, url } from './http-assertions.js';

const PATH = '/api/purchases/validation';

function validate(app: TestApp, variant: TestVariant, code: string, key: string = KEYS.alice) {
  return app.app.inject({
    method: 'POST',
    url: url(variant, PATH),
    headers: { 'x-api-key': key },
    payload: { purchase_code: code },
  });
}

describe.each(TEST_STORES)('%s store', (kind) => {
  describe('with support enabled (the default config)', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp(kind, { lines: ALL_LINES });
    });
    afterAll(async () => {
      await t.close();
    });

    describe.each(VARIANTS)('POST /api/purchases/validation ($lang)', (variant) => {
      const ok = (fixture: PurchaseFixture) => ({
        status: variant.ok,
        data: { purchase: expectedPurchase(fixture, variant) },
      });

      it('answers the purchase with its whole item, supported_until when the item is supported and dated', async () => {
        const response = await validate(t, variant, 'ALICE-REG-0001');
        expectJson(response, 200, ok(PURCHASES.regular));
        expect(response.body).toContain('"supported_until":"2025-02-01T00:00:00.000Z","downloaded":false,');
      });

      it('leaves supported_until out when the item is not supported', async () => {
        const response = await validate(t, variant, 'Alice-Ext-0002');
        expectJson(response, 200, ok(PURCHASES.extendedUnsupportedItem));
        expect(response.body).not.toContain('supported_until');
      });

      it('leaves supported_until out when the purchase has no support end date', async () => {
        const response = await validate(t, variant, 'alice_nosupport_3');
        expectJson(response, 200, ok(PURCHASES.noEndDate));
        expect(response.body).not.toContain('supported_until');
      });

      it('shows license_type Regular and Extended in both variants, downloaded as a boolean', async () => {
        const regular = JSON.parse((await validate(t, variant, 'ALICE-REG-0001')).body).data.purchase;
        const extended = JSON.parse((await validate(t, variant, 'Alice-Ext-0002')).body).data.purchase;
        expect([regular.license_type, regular.downloaded]).toEqual(['Regular', false]);
        expect([extended.license_type, extended.downloaded]).toEqual(['Extended', true]);
      });

      it.each([
        ['lower case', 'alice-reg-0001'],
        ['upper case', 'ALICE-REG-0001'],
        ['mixed case', 'aLiCe-ReG-0001'],
        ['surrounding spaces', '   ALICE-REG-0001   '],
        ['surrounding tabs and newlines', '\t\nalice-reg-0001\r\n '],
      ])('matches the code trimmed and case-insensitively (%s), answering the code as stored', async (_name, code) => {
        expectJson(await validate(t, variant, code), 200, ok(PURCHASES.regular));
      });

      it.each([
        ['pending', PURCHASES.pendingItem],
        ['rejected', PURCHASES.rejectedItem],
        ['removed', PURCHASES.removedItem],
      ])('validates a purchase whatever its item’s status (%s)', async (_status, fixture) => {
        expectJson(await validate(t, variant, fixture.line.code.toUpperCase()), 200, ok(fixture));
      });

      it('validates the longest code there can be (100 characters)', async () => {
        expect(LONGEST_CODE).toHaveLength(100);
        expectJson(await validate(t, variant, LONGEST_CODE.toLowerCase()), 200, ok(PURCHASES.longest));
      });

      it.each([
        ['refunded', 'ALICE-REFUNDED-4'],
        ['cancelled', 'ALICE-CANCELLED-5'],
        ['unknown', 'NO-SUCH-CODE'],
        ['another seller’s', 'BOB-0001'],
        ['a suspended seller’s', 'SAM-0001'],
        ['too long (101 characters)', `${LONGEST_CODE}x`],
        ['too long, its first 100 characters a real code', `${LONGEST_CODE}${LONGEST_CODE}`],
        ['with a space inside', 'ALICE REG-0001'],
        ['with a dot', 'ALICE.REG.0001'],
        ['with a percent sign', 'ALICE-REG-0001%'],
        ['with a SQL wildcard', 'ALICE-REG-000_'],
        ['with a LIKE pattern', 'ALICE-%'],
        ['with non-ASCII letters', 'ÄLICE-REG-0001'],
        ['with a dotless-i case trick', 'ALİCE-REG-0001'],
        ['with a NUL', 'ALICE-REG-0001\u0000'],
      ])('answers 404 "invalid purchase code" for a code that is %s', async (_name, code) => {
        expectError(await validate(t, variant, code), variant, 404, variant.messages.invalidPurchaseCode);
      });

      it('answers another seller’s code exactly like an unknown one', async () => {
        const unknown = await validate(t, variant, 'NO-SUCH-CODE');
        const others = await validate(t, variant, 'BOB-0001');
        expect({ status: others.statusCode, body: others.body }).toEqual({
          status: unknown.statusCode,
          body: unknown.body,
        });
        // and the owner does see it
        expectJson(await validate(t, variant, 'bob-0001', KEYS.bob), 200, {
          status: variant.ok,
          data: { purchase: expectedPurchase(PURCHASES.bobs, variant) },
        });
      });

      it.each(['', '   ', '\t\n'])('answers 400 naming purchase_code for a blank code %j', async (code) => {
        expectParamError(await validate(t, variant, code), variant, 'purchase_code');
      });

      it('answers 400 naming purchase_code when the code is missing', async () => {
        const response = await t.app.inject({
          method: 'POST',
          url: url(variant, PATH),
          headers: { 'x-api-key': KEYS.alice },
          payload: {},
        });
        expectParamError(response, variant, 'purchase_code');
      });

      it('answers 401 for an unknown key or a suspended account, whatever the code', async () => {
        expectError(
          await validate(t, variant, 'ALICE-REG-0001', UNKNOWN_KEY),
          variant,
          401,
          variant.messages.invalidRequest,
        );
        expectError(
          await validate(t, variant, 'NO-SUCH-CODE', UNKNOWN_KEY),
          variant,
          401,
          variant.messages.invalidRequest,
        );
        expectError(await validate(t, variant, 'SAM-0001', KEYS.sam), variant, 401, variant.messages.invalidRequest);
      });

      it('checks the code’s presence (400) before the key (401)', async () => {
        expectParamError(await validate(t, variant, ' ', UNKNOWN_KEY), variant, 'purchase_code');
      });
    });
  });

  describe('with support disabled in the config file', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp(kind, { configFile: { support: false }, lines: ALL_LINES });
    });
    afterAll(async () => {
      await t.close();
    });

    describe.each(VARIANTS)('POST /api/purchases/validation ($lang)', (variant) => {
      it.each([
        ['supported and dated', PURCHASES.regular],
        ['pending item, supported and dated', PURCHASES.pendingItem],
        ['removed item, supported and dated', PURCHASES.removedItem],
      ])('never shows supported_until (%s)', async (_name, fixture) => {
        const response = await validate(t, variant, fixture.line.code);
        expectJson(response, 200, {
          status: variant.ok,
          data: { purchase: expectedPurchase(fixture, variant, false) },
        });
        expect(response.body).not.toContain('supported_until');
      });
    });
  });
});
