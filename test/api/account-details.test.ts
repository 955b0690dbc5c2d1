import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, TEST_STORES, type TestApp, VARIANTS } from '../helpers/test-app.js';
import { ACCOUNTS, ALL_LINES, KEYS, UNKNOWN_KEY } from './fixtures.js';
import { expectError, expectJson, expectParamError, url } from './http-assertions.js';

const PATH = '/api/account/details';

describe.each(TEST_STORES)('%s store', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind, { lines: ALL_LINES });
  });
  afterAll(async () => {
    await t.close();
  });

  describe.each(VARIANTS)('GET /api/account/details ($lang)', (variant) => {
    const details = (key: string) =>
      t.app.inject({ method: 'GET', url: url(variant, PATH), headers: { 'x-api-key': key } });

    it('answers every field of the account, in contract order, balance in the variant currency', async () => {
      expectJson(await details(KEYS.alice), 200, { status: variant.ok, data: ACCOUNTS.alice.expected[variant.lang] });
    });

    it('sorts social_links alphabetically by network whatever the import order', async () => {
      const response = await details(KEYS.alice);
      const links = Object.keys(JSON.parse(response.body).data.profile.social_links);
      expectJson(response, 200, { status: variant.ok, data: ACCOUNTS.alice.expected[variant.lang] });
      // The object's own order in the text, not just its contents.
      const text = response.body.slice(response.body.indexOf('"social_links"'));
      const positions = links.map((network) => text.indexOf(`"${network}"`));
      expect(positions).toEqual([...positions].sort((a, b) => a - b));
      expect(links).toEqual(['500px', 'behance', 'github', 'x', 'youtube']);
    });

    it('joins names with one space and trims: empty last name', async () => {
      expectJson(await details(KEYS.bob), 200, { status: variant.ok, data: ACCOUNTS.bob.expected[variant.lang] });
    });

    it('joins names with one space and trims: empty first name, social_links {} when given none', async () => {
      expectJson(await details(KEYS.cleo), 200, { status: variant.ok, data: ACCOUNTS.cleo.expected[variant.lang] });
    });

    it('gives full_name "" when both names are empty', async () => {
      expectJson(await details(KEYS.dora), 200, { status: variant.ok, data: ACCOUNTS.dora.expected[variant.lang] });
    });

    it('answers 401 for an unknown key and for a suspended account, with the same body', async () => {
      expectError(await details(UNKNOWN_KEY), variant, 401, variant.messages.invalidRequest);
      expectError(await details(KEYS.sam), variant, 401, variant.messages.invalidRequest);
    });

    it('answers 400 naming api_key when no key is sent', async () => {
      expectParamError(await t.app.inject({ method: 'GET', url: url(variant, PATH) }), variant, 'api_key');
    });
  });
});
