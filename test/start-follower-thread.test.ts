import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logging.js';
import { startFollowerThread } from '../src/start-follower-thread.js';
import { openStore } from '../src/store/open-store.js';
import { createTestDatabase, type TestDatabase } from './helpers/test-database.js';
import {
  createMarketbobDatabase,
  insertSettings,
  itemRow,
  type MarketbobTestDatabase,
  newApiKey,
  TEST_MARIADB_URL,
  userRow,
} from './marketbob/marketbob-database.js';

/**
 * The MarketBob follower in a thread of its own (what the server runs): it syncs the store over
 * its own connection, and the process answers for it from what the thread reports.
 */
describe.skipIf(!TEST_MARIADB_URL)('the MarketBob follower thread', () => {
  let database: MarketbobTestDatabase;
  let store: TestDatabase;

  beforeAll(async () => {
    database = await createMarketbobDatabase({ followerIndexes: true });
    store = await createTestDatabase('sqlite');
    await insertSettings(database, false);
    const category = await database.insert('categories', { name: 'Scripts' });
    const seller = await database.insert('users', userRow({ username: 'seller', api_key: newApiKey() }));
    await database.insert('items', itemRow(seller, category));
  });
  afterAll(async () => {
    await database?.drop();
    await store?.drop();
  });

  it('syncs an empty store before it resolves, then reports following and MarketBob’s settings', async () => {
    const env = {
      ...store.env,
      LOG_LEVEL: 'silent',
      MARKETBOB_DATABASE_URL: database.url,
      MARKETBOB_MEDIA_BASE_URL: 'https://market.example.com',
    };
    const config = loadConfig(env);
    const follower = await startFollowerThread(config, createLogger('silent'), env);
    if (follower === undefined) throw new Error('no follower');
    const serving = await openStore(config.store);
    try {
      expect((await serving.accountByUsername('seller'))?.username).toBe('seller');
      expect(follower.following()).toBe(true);
      expect(follower.health()).toMatchObject({ state: 'following' });
      expect(follower.settings()).toMatchObject({ apiEnabled: true, supportOn: false, currencyCode: 'USD' });
    } finally {
      await follower.stop();
      await serving.close();
    }
    // Stopped: nothing reported any more.
    expect(follower.health()).toMatchObject({ state: 'unknown' });
  });
});
