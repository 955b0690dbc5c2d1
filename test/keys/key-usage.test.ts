import { afterEach, describe, expect, it } from 'vitest';
import { createKeyUsage } from '../../src/keys/key-usage.js';
import { rotateAccountKey } from '../../src/operations/account-keys.js';
import { accountLine } from '../api/store-lines.js';
import { turnsDuring } from '../helpers/event-loop-turns.js';
import { createTestApp, TEST_STORES, type TestApp } from '../helpers/test-app.js';

const KEY = 'usage-key-0123456789abcdef';

/**
 * When a key was last used: gathered in memory by the API (nothing written per request), written
 * in a batch a minute and when the app closes; the store keeps the latest time; a rotation starts
 * the new key unused.
 */
describe.each(TEST_STORES)('key usage (%s)', (kind) => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('is gathered by the API without a write per request, and written when the app closes', async () => {
    t = await createTestApp(kind, { lines: [accountLine('jdoe', KEY), accountLine('other', `${KEY}-other`)] });
    const before = Date.now();
    for (const url of ['/api/account/details', '/pt/api/account/details']) {
      const response = await t.app.inject({ url, headers: { 'x-api-key': KEY } });
      expect(response.statusCode).toBe(200);
    }
    // An unknown key is nobody's use.
    expect((await t.app.inject({ url: '/api/account/details', headers: { 'x-api-key': `${KEY}-x` } })).statusCode).toBe(
      401,
    );
    expect(await t.store.keyLastUsedAt('jdoe')).toBeUndefined();
    await t.app.close();
    const at = await t.store.keyLastUsedAt('jdoe');
    expect(at).toBeGreaterThanOrEqual(before);
    expect(at).toBeLessThanOrEqual(Date.now());
    expect(await t.store.keyLastUsedAt('other')).toBeUndefined();
  });

  it('writes many keys’ uses in several writes, letting requests in between, and loses none', async () => {
    const sellers = Array.from({ length: 600 }, (_, n) => `seller-${n}`);
    t = await createTestApp(kind, { lines: sellers.map((username) => accountLine(username, `${KEY}-${username}`)) });
    const store = t.store;
    const writes: number[] = [];
    const usage = createKeyUsage(
      {
        recordKeyUses: async (uses) => {
          writes.push(uses.length);
          await store.recordKeyUses(uses);
        },
        recordNamedKeyUses: (uses) => store.recordNamedKeyUses(uses),
      },
      (error) => {
        throw error;
      },
    );
    const at = Date.now();
    for (const username of sellers) usage.used(username, at);
    const { turns } = await turnsDuring(() => usage.close());
    expect(writes).toEqual([250, 250, 100]);
    expect(turns).toBeGreaterThanOrEqual(2);
    for (const username of [sellers[0], sellers[299], sellers[599]]) {
      expect(await store.keyLastUsedAt(username as string)).toBe(at);
    }
  });

  it('keeps the latest time any process gave, and forgets it when the key is rotated', async () => {
    t = await createTestApp(kind, { lines: [accountLine('jdoe', KEY)] });
    const errors: unknown[] = [];
    let clock = 1_000_000;
    const first = createKeyUsage(
      t.store,
      (error) => errors.push(error),
      () => clock,
    );
    const second = createKeyUsage(
      t.store,
      (error) => errors.push(error),
      () => clock,
    );
    first.used('jdoe');
    clock = 3_000_000;
    first.used('jdoe');
    clock = 2_000_000;
    second.used('jdoe');
    await first.flush();
    await second.close();
    expect(await t.store.keyLastUsedAt('jdoe')).toBe(3_000_000);
    // Nothing gathered since: a flush writes nothing.
    await first.flush();
    expect(await t.store.keyLastUsedAt('jdoe')).toBe(3_000_000);

    await rotateAccountKey(t.store, t.keys, 'jdoe');
    expect(await t.store.keyLastUsedAt('jdoe')).toBeUndefined();
    clock = Date.now() + 1_000;
    first.used('jdoe');
    await first.close();
    expect(await t.store.keyLastUsedAt('jdoe')).toBe(clock);
    expect(errors).toEqual([]);
  });

  it('starts a key brought by an import unused', async () => {
    t = await createTestApp(kind, { lines: [accountLine('jdoe', KEY)] });
    await t.store.recordKeyUses([{ username: 'jdoe', at: Date.now() }]);
    await t.importLines([accountLine('jdoe', `${KEY}-new`)]);
    expect(await t.store.keyLastUsedAt('jdoe')).toBeUndefined();
  });
});
