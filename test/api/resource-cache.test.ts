import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NEGATIVE_CACHE_ENTRIES, ResourceCache, UNKNOWN_CODE_ENTRIES } from '../../src/api/resource-cache.js';
import { digestApiKey } from '../../src/keys/api-keys.js';
import type { Store } from '../../src/store/store.js';
import { createVariantRuntime } from '../../src/variants/variant-runtime.js';
import { createTestApp, TEST_STORES, type TestApp } from '../helpers/test-app.js';
import { accountLine, itemLine, purchaseLine } from './store-lines.js';

const KEY = 'negative-cache-key-0123456789abcdef';
const CODE = 'kept-code-1';

describe.each(TEST_STORES)('the resource cache on %s', (kind) => {
  let t: TestApp;
  let lookups = 0;
  let codeLookups = 0;
  let itemLookups = 0;
  let cache: ResourceCache;

  beforeAll(async () => {
    t = await createTestApp(kind, {
      lines: [accountLine('kept', KEY), itemLine(302, 'kept'), purchaseLine(CODE, 302)],
    });
    // The real store, its key and code lookups counted.
    const counted = new Proxy(t.store, {
      get: (target, property) => {
        if (property === 'accountByKeyDigest') {
          return (digest: string) => {
            lookups++;
            return target.accountByKeyDigest(digest);
          };
        }
        if (property === 'item') {
          return (id: number) => {
            itemLookups++;
            return target.item(id);
          };
        }
        if (property === 'purchase') {
          return (codeKey: string) => {
            codeLookups++;
            return target.purchase(codeKey);
          };
        }
        const value = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    }) as Store;
    // Budgets of a few entries: with unknown keys or codes beside real ones, a handful of them would
    // push the account or the purchase out.
    cache = new ResourceCache(counted, (apiKey) => digestApiKey(t.keys, apiKey), {
      budgets: { accounts: 1024, items: 4096, itemLists: 1024, purchases: 4096 },
    });
    cache.refresh();
  });
  afterAll(async () => {
    await t.close();
  });

  it('keeps a real account through a flood of unknown keys, and remembers only so many of those', async () => {
    expect((await cache.account(KEY))?.username).toBe('kept');
    lookups = 0;
    const flood = NEGATIVE_CACHE_ENTRIES + 500;
    for (let n = 0; n < flood; n++) expect(await cache.account(`unknown-key-${n}-0123456789abcdef`)).toBeUndefined();
    expect(lookups).toBe(flood);
    expect((await cache.account(KEY))?.username).toBe('kept');
    expect(lookups).toBe(flood);
    // The latest unknown keys are remembered; the earliest were let go.
    expect(await cache.account(`unknown-key-${flood - 1}-0123456789abcdef`)).toBeUndefined();
    expect(lookups).toBe(flood);
    expect(await cache.account('unknown-key-0-0123456789abcdef')).toBeUndefined();
    expect(lookups).toBe(flood + 1);
  });

  it('keeps a found purchase through a flood of unknown codes, and remembers only so many of those', async () => {
    const variant = createVariantRuntime(t.config.variants[0] as (typeof t.config.variants)[number], 0);
    expect((await cache.purchase(CODE, variant))?.owner).toBe('kept');
    codeLookups = 0;
    const flood = UNKNOWN_CODE_ENTRIES + 100;
    for (let n = 0; n < flood; n++) expect(await cache.purchase(`unknown-code-${n}`, variant)).toBeUndefined();
    expect(codeLookups).toBe(flood);
    expect((await cache.purchase(CODE, variant))?.owner).toBe('kept');
    expect(codeLookups).toBe(flood);
    // The latest unknown codes are remembered; the earliest were let go.
    expect(await cache.purchase(`unknown-code-${flood - 1}`, variant)).toBeUndefined();
    expect(codeLookups).toBe(flood);
    expect(await cache.purchase('unknown-code-0', variant)).toBeUndefined();
    expect(codeLookups).toBe(flood + 1);
  });

  it('keeps the answer of an item and a purchase in every variant once made: asked again, none is read again', async () => {
    const variants = t.config.variants.map((config, index) => createVariantRuntime(config, index));
    expect(variants.length).toBeGreaterThan(1);
    const made: (Buffer | undefined)[][] = [];
    for (const variant of variants) {
      const item = await cache.item(302, variant);
      const purchase = await cache.purchase(CODE, variant);
      made.push([item?.answer[variant.index], purchase?.json[variant.index]]);
    }
    for (const [item, purchase] of made) {
      expect(item).toBeInstanceOf(Buffer);
      expect(purchase).toBeInstanceOf(Buffer);
    }
    itemLookups = 0;
    codeLookups = 0;
    for (const variant of variants) {
      const item = await cache.item(302, variant);
      const purchase = await cache.purchase(CODE, variant);
      // The very bytes made the first time, not made again.
      expect(item?.answer[variant.index]).toBe(made[variant.index]?.[0]);
      expect(purchase?.json[variant.index]).toBe(made[variant.index]?.[1]);
    }
    expect({ itemLookups, codeLookups }).toStrictEqual({ itemLookups: 0, codeLookups: 0 });
  });
});
