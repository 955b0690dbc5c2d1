import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NEGATIVE_CACHE_ENTRIES, ResourceCache } from '../../src/http/resource-cache.js';
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
