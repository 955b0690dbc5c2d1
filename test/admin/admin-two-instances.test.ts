import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logging.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { createTestApp, TEST_STORES, type TestApp } from '../helpers/test-app.js';
import { accountLine, itemLine, purchaseLine } from '../importer/import-fixtures.js';

const TOKEN = 'admin-token-0123456789abcdef';
const KEY = 'two-instances-key-0123456789';
/** How soon the other instance must see a write (issue 3: within a second, by LISTEN/NOTIFY on PostgreSQL). */
const WITHIN_MS = 1000;

/** Asks until `check` holds, at most WITHIN_MS; how long it took. */
async function seenWithin(check: () => Promise<boolean>): Promise<number> {
  const started = performance.now();
  for (;;) {
    if (await check()) return performance.now() - started;
    if (performance.now() - started > WITHIN_MS) throw new Error(`not seen within ${WITHIN_MS} ms`);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/**
 * Two app instances over one store (as two machines behind a load balancer): a refund, a
 * suspension and a key rotation made through the admin API of one are seen by the other, whose
 * caches held the old answers, at once.
 */
describe.each(TEST_STORES)('admin writes reach another instance (%s)', (kind) => {
  let a: TestApp;
  let otherStore: Store;
  let b: FastifyInstance;
  beforeAll(async () => {
    a = await createTestApp(kind, {
      env: { ADMIN_TOKEN: TOKEN },
      lines: [accountLine({ api_key: KEY }), itemLine(), purchaseLine({ code: 'TWO-1' })],
    });
    const config = loadConfig(a.env);
    otherStore = await openStore(config.store);
    b = await buildApp({ config, store: otherStore, keys: a.keys, logger: createLogger('silent') });
  });
  afterAll(async () => {
    await b.close();
    await otherStore.close();
    await a.close();
  });

  const validateOnB = async (key: string) =>
    (
      await b.inject({
        method: 'POST',
        url: '/api/purchases/validation',
        payload: { api_key: key, purchase_code: 'TWO-1' },
      })
    ).statusCode;
  const detailsOnB = async (key: string) =>
    (await b.inject({ method: 'GET', url: '/api/account/details', headers: { 'x-api-key': key } })).statusCode;
  const admin = (url: string) => a.app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${TOKEN}` } });

  it('a refund', async () => {
    // B has the purchase and the account cached.
    expect(await validateOnB(KEY)).toBe(200);
    expect(await validateOnB(KEY)).toBe(200);
    expect((await admin('/admin/v1/purchases/TWO-1/refund')).statusCode).toBe(200);
    await seenWithin(async () => (await validateOnB(KEY)) === 404);
  });

  it('a suspension', async () => {
    expect(await detailsOnB(KEY)).toBe(200);
    expect((await admin('/admin/v1/accounts/jdoe/suspend')).statusCode).toBe(200);
    await seenWithin(async () => (await detailsOnB(KEY)) === 401);
    expect((await admin('/admin/v1/accounts/jdoe/reactivate')).statusCode).toBe(200);
    await seenWithin(async () => (await detailsOnB(KEY)) === 200);
  });

  it('a key rotation', async () => {
    expect(await detailsOnB(KEY)).toBe(200);
    const rotated = await admin('/admin/v1/accounts/jdoe/api-key');
    expect(rotated.statusCode).toBe(200);
    const newKey = (rotated.json() as { api_key: string }).api_key;
    await seenWithin(async () => (await detailsOnB(KEY)) === 401);
    expect(await detailsOnB(newKey)).toBe(200);
  });
});
