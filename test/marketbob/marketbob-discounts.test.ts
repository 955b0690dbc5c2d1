import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logging.js';
import { openMarketbob } from '../../src/marketbob/marketbob-connection.js';
import { MarketbobFollower } from '../../src/marketbob/marketbob-follower.js';
import type { FollowedSettings } from '../../src/marketbob/marketbob-settings.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { createTestApp, TEST_STORES, type TestApp } from '../helpers/test-app.js';
import {
  createMarketbobDatabase,
  eventually,
  insertSettings,
  itemRow,
  type MarketbobTestDatabase,
  marketbobNow,
  newApiKey,
  TEST_MARIADB_URL,
  userRow,
} from './marketbob-database.js';

/** Discounts and MarketBob's settings, followed: each change shows within the follow bound. */
describe.skipIf(!TEST_MARIADB_URL).each(TEST_STORES)('marketbob discounts and settings, followed (%s)', (kind) => {
  let database: MarketbobTestDatabase;
  let test: TestApp;
  let followerStore: Store;
  let follower: MarketbobFollower;
  let db: ReturnType<typeof openMarketbob>;
  const sellerKey = newApiKey();
  let item: number;
  let other: number;
  const told: FollowedSettings[] = [];

  beforeAll(async () => {
    database = await createMarketbobDatabase({ followerIndexes: true, foreignKeys: true, deletionLog: true });
    await insertSettings(database, false);
    await database.insert('settings', {
      key: 'general',
      value: JSON.stringify({ site_name: 'Market', timezone: 'America/New_York' }),
    });
    const category = await database.insert('categories', {
      name: 'Scripts',
      regular_buyer_fee: 1,
      extended_buyer_fee: 2,
    });
    const seller = await database.insert('users', userRow({ username: 'seller', api_key: sellerKey }));
    item = await database.insert('items', itemRow(seller, category, { regular_price: 10, extended_price: 20 }));
    other = await database.insert('items', itemRow(seller, category, { regular_price: 30, extended_price: 60 }));
    test = await createTestApp(kind);
    followerStore = await openStore(loadConfig(test.env).store);
    db = openMarketbob(database.url);
    follower = new MarketbobFollower({
      db,
      store: followerStore,
      keys: test.keys,
      // No zone configured: MarketBob's general.timezone.
      config: {
        url: database.url,
        pollSeconds: 0.5,
        mediaBaseUrl: 'https://m.example.com',
        reconcileMinutes: 60,
        behindSeconds: 30,
      },
      logger: createLogger('silent'),
      onSettings: (settings) => told.push(settings),
    });
    await follower.start();
  });
  afterAll(async () => {
    await follower?.stop();
    await db?.destroy();
    await followerStore?.close();
    await test?.close();
    await database?.drop();
  });

  const price = async (id: number) => {
    const answer = await test.app.inject({
      method: 'GET',
      url: `/api/items/item?item_id=${id}`,
      headers: { 'x-api-key': sellerKey },
    });
    return (answer.json() as { item: { price: unknown } }).item.price;
  };
  const registeredAt = async () => {
    const answer = await test.app.inject({
      method: 'GET',
      url: '/api/account/details',
      headers: { 'x-api-key': sellerKey },
    });
    return (answer.json() as { data: { registered_at: string } }).data.registered_at;
  };

  it('a discount created active, ended by the schedule, started again, then deleted: the price follows', async () => {
    expect(await price(item)).toEqual({ regular: 11, extended: 22 });
    const stamp = marketbobNow();
    const discount = await database.insert('item_discounts', {
      item_id: item,
      regular_percentage: 50,
      regular_price: 5,
      extended_price: null,
      starting_at: '2024-01-01',
      ending_at: '2030-01-01',
      status: 1,
      created_at: stamp,
      updated_at: stamp,
    });
    // The extended license is not discounted (NULL): its own price.
    await eventually(async () => expect(await price(item)).toEqual({ regular: 6, extended: 22 }));
    // MarketBob's schedule ends it: status 0, saved.
    await database.update('item_discounts', discount, { status: 0, updated_at: marketbobNow() });
    await eventually(async () => expect(await price(item)).toEqual({ regular: 11, extended: 22 }));
    await database.update('item_discounts', discount, { status: 1, extended_price: 15, updated_at: marketbobNow() });
    await eventually(async () => expect(await price(item)).toEqual({ regular: 6, extended: 17 }));
    // Deleted: seen through the deletion log's trigger.
    await database.query('DELETE FROM item_discounts WHERE id = ?', [discount]);
    await eventually(async () => expect(await price(item)).toEqual({ regular: 11, extended: 22 }));
    expect(await price(other)).toEqual({ regular: 31, extended: 62 });
  });

  it('reports the settings at start: the zone of the general setting', () => {
    expect(told[0]).toEqual({
      apiEnabled: true,
      currencyCode: 'USD',
      timezone: 'America/New_York',
      timezoneSource: 'settings',
      supportOn: false,
      defaultAvatarUrl: 'https://m.example.com/images/avatars/default.png',
      defaultCoverUrl: 'https://m.example.com/images/covers/default.png',
    });
    expect(told).toHaveLength(1);
  });

  it('a changed currency or API switch is reported; a changed zone syncs again, every date read in the new one', async () => {
    // 2023-01-02 03:04:05 in New York (UTC-5).
    expect(await registeredAt()).toBe('2023-01-02T08:04:05.000Z');
    await database.query("UPDATE settings SET value = ? WHERE `key` = 'currency'", [JSON.stringify({ code: 'EUR' })]);
    await database.query("UPDATE settings SET value = ? WHERE `key` = 'actions'", [JSON.stringify({ api: 0 })]);
    await eventually(async () =>
      expect(told.at(-1)).toMatchObject({ currencyCode: 'EUR', apiEnabled: false, timezone: 'America/New_York' }),
    );
    await database.query("UPDATE settings SET value = ? WHERE `key` = 'general'", [
      JSON.stringify({ site_name: 'Market', timezone: 'Asia/Tokyo' }),
    ]);
    // The same wall-clock text in Tokyo (UTC+9). The dates read again may be seen before the new
    // zone is reported (the report follows the sync that read them): both are waited for.
    await eventually(async () => {
      expect(await registeredAt()).toBe('2023-01-01T18:04:05.000Z');
      expect(told.at(-1)).toMatchObject({ timezone: 'Asia/Tokyo', timezoneSource: 'settings', currencyCode: 'EUR' });
    });
  });
});
