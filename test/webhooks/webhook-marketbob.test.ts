import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logging.js';
import { openMarketbob } from '../../src/marketbob/marketbob-connection.js';
import { MarketbobFollower } from '../../src/marketbob/marketbob-follower.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { createTestApp, TEST_STORES, type TestApp } from '../helpers/test-app.js';
import {
  createMarketbobDatabase,
  eventually,
  insertPurchase,
  insertSettings,
  itemRow,
  type MarketbobTestDatabase,
  marketbobNow,
  newApiKey,
  TEST_MARIADB_URL,
  userRow,
} from '../marketbob/marketbob-database.js';
import { addEndpoint, configWith, FAST_WEBHOOKS, TOKEN, verified } from './fixtures.js';
import { payloadOf, Receiver } from './receiver.js';

/**
 * Changes the MarketBob bridge brings in (issue 23) make webhook events like any other: a new sale
 * (purchase.created), its refund (purchase.refunded), a key regenerated there (api_key.rotated),
 * written by the follower's own import transactions.
 */
describe.skipIf(!TEST_MARIADB_URL).each(TEST_STORES)('webhooks from the MarketBob bridge (%s)', (kind) => {
  let database: MarketbobTestDatabase;
  let test: TestApp;
  let followerStore: Store;
  let follower: MarketbobFollower;
  let db: ReturnType<typeof openMarketbob>;
  let receiver: Receiver;
  let url: string;
  let seller: number;
  let buyer: number;
  let item: number;

  beforeAll(async () => {
    receiver = new Receiver();
    url = await receiver.start();
    database = await createMarketbobDatabase({ followerIndexes: true });
    await insertSettings(database, false);
    const category = await database.insert('categories', { name: 'Scripts' });
    seller = await database.insert('users', userRow({ username: 'seller', api_key: newApiKey() }));
    buyer = await database.insert('users', userRow({ username: 'buyer' }));
    item = await database.insert('items', itemRow(seller, category, { name: 'Hooked Item' }));
    test = await createTestApp(kind, { configFile: configWith(FAST_WEBHOOKS), env: { ADMIN_TOKEN: TOKEN } });
    followerStore = await openStore(loadConfig(test.env).store);
    db = openMarketbob(database.url);
    follower = new MarketbobFollower({
      db,
      store: followerStore,
      keys: test.keys,
      config: {
        url: database.url,
        pollSeconds: 0.5,
        mediaBaseUrl: 'https://market.example.com',
        timezone: 'UTC',
        reconcileMinutes: 10,
        behindSeconds: 30,
      },
      logger: createLogger('silent'),
    });
    await follower.start();
  });
  afterAll(async () => {
    await follower?.stop();
    await db?.destroy();
    await followerStore?.close();
    await test?.close();
    await database?.drop();
    await receiver?.close();
  });

  it('a new sale, its refund and a regenerated key arrive signed', async () => {
    await eventually(async () => expect(await test.store.accountByUsername('seller')).toBeDefined());
    const { secret } = await addEndpoint(
      test,
      { url: `${url}/bridge`, events: ['purchase.created', 'purchase.refunded', 'api_key.rotated'] },
      'seller',
    );
    const stamp = marketbobNow();
    const sale = await insertPurchase(database, { id: item, authorId: seller }, buyer, {
      sale: { created_at: stamp, updated_at: stamp },
      purchase: { created_at: stamp, updated_at: stamp },
    });
    const created = await receiver.waitFor((r) => payloadOf(r).type === 'purchase.created');
    expect(verified(secret, created)).toMatchObject({
      account: 'seller',
      data: { status: 'active', purchase: { purchase_code: sale.code, item: { id: item, name: 'Hooked Item' } } },
    });

    await database.update('sales', sale.saleId, { status: 2, updated_at: marketbobNow() });
    await database.update('purchases', sale.id, { status: 2, updated_at: marketbobNow() });
    const refunded = await receiver.waitFor((r) => payloadOf(r).type === 'purchase.refunded');
    expect(verified(secret, refunded)).toMatchObject({
      data: { status: 'refunded', purchase: { purchase_code: sale.code } },
    });

    const fresh = newApiKey();
    await database.update('users', seller, { api_key: fresh, updated_at: marketbobNow() });
    const rotated = await receiver.waitFor((r) => payloadOf(r).type === 'api_key.rotated');
    expect(verified(secret, rotated)).toMatchObject({ account: 'seller', data: { old_key_works_until: null } });
    expect(rotated.body).not.toContain(fresh);
    expect(receiver.ofType('purchase.created')).toHaveLength(1);
  }, 60_000);
});
