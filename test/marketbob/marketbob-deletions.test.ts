import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logging.js';
import { openMarketbob } from '../../src/marketbob/marketbob-connection.js';
import { MarketbobFollower } from '../../src/marketbob/marketbob-follower.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { createTestApp, TEST_STORES, type TestApp } from '../helpers/test-app.js';
import { logIn } from '../web/workspace-forms.js';
import {
  createMarketbobDatabase,
  eventually,
  insertPurchase,
  insertSettings,
  itemRow,
  type MarketbobTestDatabase,
  newApiKey,
  TEST_MARIADB_URL,
  userRow,
} from './marketbob-database.js';

/**
 * Deletions in MarketBob (its foreign keys cascading, as in its schema) reach our answers within
 * the follow bound through the deletion log's triggers. The follower here has no reconciliation
 * (no store location): only the log can make these pass.
 */
describe.skipIf(!TEST_MARIADB_URL).each(TEST_STORES)('marketbob deletions, through the log (%s)', (kind) => {
  let database: MarketbobTestDatabase;
  let test: TestApp;
  let followerStore: Store;
  let follower: MarketbobFollower;
  let db: ReturnType<typeof openMarketbob>;
  const sellerKey = newApiKey();
  const leaverKey = newApiKey();
  let seller: number;
  let leaver: number;
  let buyer: number;
  let otherBuyer: number;
  let item: number;
  let goneItem: number;
  let leaverItem: number;

  beforeAll(async () => {
    database = await createMarketbobDatabase({ followerIndexes: true, foreignKeys: true, deletionLog: true });
    await insertSettings(database, false);
    const category = await database.insert('categories', { name: 'Scripts' });
    seller = await database.insert('users', userRow({ username: 'seller', api_key: sellerKey }));
    leaver = await database.insert('users', userRow({ username: 'leaver', api_key: leaverKey }));
    buyer = await database.insert('users', userRow({ username: 'buyer', is_author: 0 }));
    otherBuyer = await database.insert('users', userRow({ username: 'other-buyer', is_author: 0 }));
    item = await database.insert('items', itemRow(seller, category));
    goneItem = await database.insert('items', itemRow(seller, category));
    leaverItem = await database.insert('items', itemRow(leaver, category));
    test = await createTestApp(kind);
    followerStore = await openStore(loadConfig(test.env).store);
    db = openMarketbob(database.url);
    follower = new MarketbobFollower({
      db,
      store: followerStore,
      keys: test.keys,
      config: {
        url: database.url,
        pollSeconds: 0.5,
        mediaBaseUrl: 'https://m.example.com',
        timezone: 'UTC',
        reconcileMinutes: 60,
        behindSeconds: 30,
      },
      logger: createLogger('silent'),
    });
  });
  afterAll(async () => {
    await follower?.stop();
    await db?.destroy();
    await followerStore?.close();
    await test?.close();
    await database?.drop();
  });

  const get = (url: string, key = sellerKey) => test.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
  const validate = (code: string, key = sellerKey) =>
    test.app.inject({
      method: 'POST',
      url: '/api/purchases/validation',
      headers: { 'x-api-key': key },
      payload: { purchase_code: code },
    });
  const INVALID_CODE = '{"status":"error","msg":"Invalid purchase code"}';

  it("a deleted seller's key answers 401 within 5 s: suspended, left with no key, its items and sales gone", async () => {
    const sold = await insertPurchase(database, { id: leaverItem, authorId: leaver }, buyer);
    // The seller's own purchase of another seller's item.
    const bought = await insertPurchase(database, { id: item, authorId: seller }, leaver);
    await follower.start();
    expect((await get('/api/account/details', leaverKey)).statusCode).toBe(200);
    expect((await validate(sold.code, leaverKey)).statusCode).toBe(200);
    expect((await validate(bought.code)).statusCode).toBe(200);
    const { response, jar } = await logIn(test.app, '', 'leaver', 'secret-password');
    expect(response.statusCode).toBe(303);
    expect((await test.app.inject({ url: '/workspace/settings', cookies: jar })).statusCode).toBe(200);

    await database.query('DELETE FROM users WHERE id = ?', [leaver]);
    await eventually(async () => {
      const details = await get('/api/account/details', leaverKey);
      expect(details.statusCode).toBe(401);
      expect(details.body).toBe('{"status":"error","msg":"Invalid request"}');
    });
    expect((await validate(sold.code, leaverKey)).statusCode).toBe(401);
    const account = await test.store.accountByUsername('leaver');
    expect(account?.status).toBe('suspended');
    expect(account?.key_cipher).toBe('');
    expect((await test.store.item(leaverItem))?.status).toBe('removed');
    expect((await test.store.purchase(sold.code))?.status).toBe('cancelled');
    // As a buyer too: the purchase cascaded with the user stops validating for its seller.
    expect((await validate(bought.code)).body).toBe(INVALID_CODE);
    // The workspace session ends at its next request.
    const ended = await test.app.inject({ url: '/workspace/settings', cookies: jar });
    expect(ended.statusCode).toBe(303);
    expect(ended.headers.location).toBe('/login?ended=1');
  });

  it('a deleted item answers 404 within 5 s, and its codes no longer validate', async () => {
    const sale = await insertPurchase(database, { id: goneItem, authorId: seller }, otherBuyer);
    await eventually(async () => expect((await validate(sale.code)).statusCode).toBe(200));
    expect((await get(`/api/items/item?item_id=${goneItem}`)).statusCode).toBe(200);

    await database.query('DELETE FROM items WHERE id = ?', [goneItem]);
    await eventually(async () => {
      expect((await get(`/api/items/item?item_id=${goneItem}`)).body).toBe('{"status":"error","msg":"Item Not Found"}');
      expect((await validate(sale.code)).body).toBe(INVALID_CODE);
    });
    expect((await get(`/api/items/item?item_id=${item}`)).statusCode).toBe(200);
  });

  it("a deleted buyer's codes no longer validate within 5 s; another buyer's of the same item still do", async () => {
    const theirs = await insertPurchase(database, { id: item, authorId: seller }, buyer);
    const others = await insertPurchase(database, { id: item, authorId: seller }, otherBuyer);
    await eventually(async () => expect((await validate(theirs.code)).statusCode).toBe(200));
    expect((await validate(others.code)).statusCode).toBe(200);

    await database.query('DELETE FROM users WHERE id = ?', [buyer]);
    await eventually(async () => expect((await validate(theirs.code)).body).toBe(INVALID_CODE));
    expect((await validate(others.code)).statusCode).toBe(200);
    expect((await test.store.accountByUsername('buyer'))?.status).toBe('suspended');
  });

  it('a purchase deleted alone stops validating within 5 s; one refunded before stays refunded', async () => {
    const alone = await insertPurchase(database, { id: item, authorId: seller }, otherBuyer);
    const refunded = await insertPurchase(database, { id: item, authorId: seller }, otherBuyer, {
      purchase: { status: 2 },
    });
    await eventually(async () => expect((await validate(alone.code)).statusCode).toBe(200));
    expect((await test.store.purchase(refunded.code))?.status).toBe('refunded');

    await database.query('DELETE FROM purchases WHERE id IN (?, ?)', [alone.id, refunded.id]);
    await eventually(async () => expect((await validate(alone.code)).body).toBe(INVALID_CODE));
    expect((await test.store.purchase(alone.code))?.status).toBe('cancelled');
    expect((await test.store.purchase(refunded.code))?.status).toBe('refunded');
  });
});
