import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NEGATIVE_CACHE_ENTRIES, ResourceCache, UNKNOWN_CODE_ENTRIES } from '../../src/http/resource-cache.js';
import { createVariantRuntime } from '../../src/http/variant-runtime.js';
import { digestApiKey } from '../../src/keys/api-keys.js';
import type { Store } from '../../src/store/store.js';
import { createTestApp, TEST_STORES, type TestApp } from '../helpers/test-app.js';

const KEY = 'negative-cache-key-0123456789abcdef';

describe.each(TEST_STORES)('the resource cache on %s', (kind) => {
  let t: TestApp;
  let lookups = 0;
  let cache: ResourceCache;

  beforeAll(async () => {
    t = await createTestApp(kind, {
      lines: [
        {
          type: 'account',
          username: 'kept',
          email: 'kept@example.com',
          api_key: KEY,
          registered_at: '2024-01-01T00:00:00Z',
        },
      ],
    });
    // The real store, its key lookups counted.
    const counted = new Proxy(t.store, {
      get: (target, property) => {
        if (property === 'accountByKeyDigest') {
          return (digest: string) => {
            lookups++;
            return target.accountByKeyDigest(digest);
          };
        }
        const value = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    }) as Store;
    // A budget of a few entries: with unknown keys beside real ones, a handful of them would push the account out.
    cache = new ResourceCache(counted, (apiKey) => digestApiKey(t.keys, apiKey), {
      budgets: { accounts: 1024, items: 1024, itemLists: 1024, purchases: 1024 },
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
});

describe.each(TEST_STORES)('unknown purchase codes in the resource cache on %s', (kind) => {
  const CODE = 'kept-code-1';
  let t: TestApp;
  let codeLookups = 0;
  let cache: ResourceCache;

  beforeAll(async () => {
    t = await createTestApp(kind, {
      lines: [
        {
          type: 'account',
          username: 'coder',
          email: 'coder@example.com',
          api_key: KEY,
          registered_at: '2024-01-01T00:00:00Z',
        },
        {
          type: 'item',
          id: 302,
          account: 'coder',
          name: 'Coded item',
          version: '1.0.0',
          preview_type: 'image',
          thumbnail: 'https://cdn.example.com/t.png',
          preview_image: 'https://cdn.example.com/p.png',
          price: { regular: '10.00', extended: '20.00' },
          status: 'approved',
          published_at: '2024-01-02T00:00:00Z',
        },
        {
          type: 'purchase',
          code: CODE,
          item_id: 302,
          license_type: 'regular',
          price: '10.00',
          date: '2024-01-03T00:00:00Z',
        },
      ],
    });
    // The real store, its purchase lookups counted.
    const counted = new Proxy(t.store, {
      get: (target, property) => {
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
    // Room for a few purchases with their answers only: unknown codes kept beside them would push them out.
    cache = new ResourceCache(counted, (apiKey) => digestApiKey(t.keys, apiKey), {
      budgets: { accounts: 1 << 20, items: 1 << 20, itemLists: 1 << 20, purchases: 4096 },
    });
    cache.refresh();
  });
  afterAll(async () => {
    await t.close();
  });

  it('are remembered apart: a flood of them never pushes out a found purchase, and only so many are kept', async () => {
    const variant = createVariantRuntime(t.config.variants[0] as (typeof t.config.variants)[number], 0);
    expect((await cache.purchase(CODE, variant))?.owner).toBe('coder');
    codeLookups = 0;
    const flood = UNKNOWN_CODE_ENTRIES + 100;
    for (let n = 0; n < flood; n++) expect(await cache.purchase(`unknown-code-${n}`, variant)).toBeUndefined();
    expect(codeLookups).toBe(flood);
    expect((await cache.purchase(CODE, variant))?.owner).toBe('coder');
    expect(codeLookups).toBe(flood);
    // The latest unknown codes are remembered; the earliest were let go.
    expect(await cache.purchase(`unknown-code-${flood - 1}`, variant)).toBeUndefined();
    expect(codeLookups).toBe(flood);
    expect(await cache.purchase('unknown-code-0', variant)).toBeUndefined();
    expect(codeLookups).toBe(flood + 1);
  });
});
