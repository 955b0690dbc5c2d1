import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logging.js';
import { openMarketbob } from '../../src/marketbob/marketbob-connection.js';
import { MarketbobFollower } from '../../src/marketbob/marketbob-follower.js';
import { apiSwitchRecorder } from '../../src/marketbob/start-follower.js';
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
  newApiKey,
  TEST_MARIADB_URL,
  userRow,
} from './marketbob-database.js';

const MEDIA = 'https://market.example.com';

/**
 * A live MarketBob marketplace served in MarketBob's own shape, beside a contract variant: its
 * rows as MarketBob's app writes them, followed by the bridge with no time zone configured (the
 * general setting's is taken), and the answers compared whole with what MarketBob's own API
 * answers for them (docs/marketbob.md, "MarketBob's own answers").
 */
describe.skipIf(!TEST_MARIADB_URL).each(TEST_STORES)('a MarketBob marketplace in its own shape (%s)', (kind) => {
  let database: MarketbobTestDatabase;
  let test: TestApp;
  let followerStore: Store;
  let follower: MarketbobFollower;
  let db: ReturnType<typeof openMarketbob>;
  const sellerKey = newApiKey();
  const incompleteKey = newApiKey();
  const buyerKey = newApiKey();
  let seller: number;
  let admin: number;
  let player: number;
  let code: string;

  beforeAll(async () => {
    database = await createMarketbobDatabase({ followerIndexes: true, foreignKeys: true, deletionLog: true });
    await insertSettings(database, true);
    await database.insert('settings', {
      key: 'general',
      value: JSON.stringify({ site_name: 'Market', timezone: 'America/New_York' }),
    });
    const scripts = await database.insert('categories', {
      name: 'Scripts',
      regular_buyer_fee: 2,
      extended_buyer_fee: 5,
    });
    const php = await database.insert('sub_categories', { name: 'PHP', category_id: scripts });
    seller = await database.insert(
      'users',
      userRow({
        username: 'seller',
        firstname: 'Ana',
        lastname: 'Lima',
        email: 'ana@example.com',
        api_key: sellerKey,
        balance: 1259.4995,
        avatar: null,
        profile_heading: null,
        profile_contact_email: 'help@example.com',
        profile_social_links: JSON.stringify({ facebook: null, x: 'https://x.com/ana' }),
        created_at: '2024-07-15 12:00:00',
      }),
    );
    await database.insert('users', userRow({ username: 'incomplete', firstname: null, api_key: incompleteKey }));
    const buyer = await database.insert('users', userRow({ username: 'buyer', is_author: 0, api_key: buyerKey }));
    admin = await database.insert(
      'items',
      itemRow(seller, scripts, {
        name: 'Clean Admin',
        sub_category_id: php,
        version: '1.2',
        thumbnail: null,
        regular_price: 27.999,
        extended_price: 49,
        created_at: '2023-02-01 00:00:00',
      }),
    );
    player = await database.insert(
      'items',
      itemRow(seller, scripts, {
        name: 'Video Player',
        description: '<p>Plays</p>',
        options: null,
        version: null,
        demo_link: null,
        tags: 'video',
        preview_type: 'video',
        preview_video: 'items/p.mp4',
        screenshots: null,
        regular_price: 10,
        extended_price: 20,
        created_at: '2023-03-01 00:00:00',
      }),
    );
    // An active discount: its regular price (the extended license not discounted) plus the fee.
    await database.insert('item_discounts', {
      item_id: player,
      regular_percentage: 50,
      regular_price: 5,
      extended_price: null,
      starting_at: '2024-01-01',
      ending_at: '2030-01-01',
      status: 1,
      created_at: '2024-01-01 00:00:00',
      updated_at: '2024-01-01 00:00:00',
    });
    ({ code } = await insertPurchase(database, { id: admin, authorId: seller }, buyer, {
      sale: { price: 29.999 },
      purchase: { is_downloaded: 1 },
    }));
    test = await createTestApp(kind, {
      configFile: {
        variants: [
          { lang: 'en', baseUrl: '/', currency: 'USD', rate: '1' },
          { lang: 'en', baseUrl: '/mb', currency: 'USD', rate: '1', shape: 'marketbob' },
          { lang: 'pt', baseUrl: '/mbpt', currency: 'USD', rate: '1', shape: 'marketbob' },
        ],
      },
    });
    followerStore = await openStore(loadConfig(test.env).store);
    db = openMarketbob(database.url);
    follower = new MarketbobFollower({
      db,
      store: followerStore,
      keys: test.keys,
      // No zone configured: MarketBob's general setting (New York) is taken.
      config: {
        url: database.url,
        pollSeconds: 0.5,
        mediaBaseUrl: MEDIA,
        reconcileMinutes: 60,
        behindSeconds: 30,
      },
      logger: createLogger('silent'),
      onSettings: apiSwitchRecorder(followerStore, createLogger('silent')),
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

  const get = async (url: string, key = sellerKey) => {
    const answer = await test.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
    return [answer.statusCode, answer.body] as const;
  };
  const validate = async (base: string, purchaseCode: string, key = sellerKey) => {
    const answer = await test.app.inject({
      method: 'POST',
      url: `${base}/api/purchases/validation`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `api_key=${key}&purchase_code=${purchaseCode}`,
    });
    return [answer.statusCode, answer.body] as const;
  };

  const adminJson = () =>
    `{"id":${admin},"name":"Clean Admin","description":"<p>An item</p>","category":"Scripts","sub_category":"PHP",` +
    `"options":{"Layout":"Responsive","Browsers":["Chrome","Firefox"]},"version":"1.2","demo_link":"https://demo.example.com",` +
    `"tags":"admin, dashboard,,php","media":{"thumbnail":"${MEDIA}/items/preview.png","preview_image":"${MEDIA}/items/preview.png",` +
    `"screenshots":{"0":"${MEDIA}/items/s1.png","1":"${MEDIA}/items/s2.png"}},"price":{"regular":29.999,"extended":54},` +
    `"currency":"USD","published_at":"2023-02-01T05:00:00.000000Z"}`;
  const playerJson = () =>
    `{"id":${player},"name":"Video Player","description":"<p>Plays</p>","category":"Scripts","sub_category":null,` +
    `"options":null,"version":null,"demo_link":null,"tags":"video","media":{"thumbnail":"${MEDIA}/items/thumb.png",` +
    `"preview_image":"${MEDIA}/items/preview.png","preview_video":"${MEDIA}/items/p.mp4"},"price":{"regular":7,"extended":25},` +
    `"currency":"USD","published_at":"2023-03-01T05:00:00.000000Z"}`;

  it("answers account details as MarketBob's API does: NULLs, the stored balance and links, dates in UTC with six decimals", async () => {
    expect(await get('/mb/api/account/details')).toEqual([
      200,
      '{"status":"success","data":{"name":{"firstname":"Ana","lastname":"Lima","full_name":"Ana Lima"},' +
        '"username":"seller","email":"ana@example.com","balance":1259.4995,"currency":"USD",' +
        '"profile":{"heading":null,"description":"<p>Hello</p>","contact":{"email":"help@example.com"},' +
        `"social_links":{"facebook":null,"x":"https://x.com/ana"},"media":{"avatar":"${MEDIA}/images/avatars/default.png",` +
        `"cover":"${MEDIA}/images/covers/jo.png"}},"registered_at":"2024-07-15T16:00:00.000000Z"}}`,
    ]);
    // An incomplete profile (no first name), a buyer's key (MarketBob's account details do not ask
    // for an author), and an unknown key.
    expect(await get('/mb/api/account/details', incompleteKey)).toEqual([
      401,
      '{"status":"error","msg":"Invalid request"}',
    ]);
    expect((await get('/mb/api/account/details', buyerKey))[0]).toBe(200);
    expect(await get('/mbpt/api/account/details', newApiKey())).toEqual([
      401,
      '{"status":"error","msg":"Requisição inválida"}',
    ]);
    // The contract variant, from the same store: the contract's own shape.
    const [status, body] = await get('/api/account/details');
    expect(status).toBe(200);
    expect(JSON.parse(body).data).toMatchObject({ balance: 1259.5, registered_at: '2024-07-15T16:00:00.000Z' });
  });

  it('lists the items and answers one, with the discount, the preview image for a missing thumbnail, raw tags and options', async () => {
    expect(await get('/mb/api/items/all')).toEqual([
      200,
      `{"status":"success","items":[${playerJson()},${adminJson()}]}`,
    ]);
    expect(await get(`/mb/api/items/item?item_id=${admin}`)).toEqual([
      200,
      `{"status":"success","item":${adminJson()}}`,
    ]);
    expect(await get(`/mb/api/items/item?item_id=${player}`, buyerKey)).toEqual([
      404,
      '{"status":"error","msg":"Item Not Found"}',
    ]);
    expect(await get('/mb/api/items/all', buyerKey)).toEqual([404, '{"status":"error","msg":"No items found"}']);
    // The contract's shape: the same discount, the list of tags, the version as x.y.z.
    const contract = JSON.parse((await get(`/api/items/item?item_id=${player}`))[1]).item;
    expect(contract).toMatchObject({ price: { regular: 7, extended: 25 }, tags: ['video'], version: '0.0.0' });
  });

  it('validates a code in any letter case, the purchase under a top-level item, the price as paid', async () => {
    const expected =
      `{"status":"success","item":{"purchase_code":"${code}","license_type":"Regular","price":29.999,"currency":"USD",` +
      `"item":${adminJson()},"supported_until":"2025-02-01T15:00:00.000000Z","downloaded":true,` +
      '"date":"2024-02-01T15:00:00.000000Z"}}';
    expect(await validate('/mb', code)).toEqual([200, expected]);
    expect(await validate('/mb', code.toUpperCase())).toEqual([200, expected]);
    // MarketBob's key column ignores letter case too.
    expect(await validate('/mb', code, sellerKey.toUpperCase())).toEqual([200, expected]);
    expect(await validate('/mb', code, buyerKey)).toEqual([404, '{"status":"error","msg":"Invalid purchase code"}']);
    expect(await validate('/mbpt', 'nope')).toEqual([404, '{"status":"error","msg":"Código de compra inválido"}']);
  });

  it("turned off in MarketBob's settings: the MarketBob-shaped API answers 404 within the follow bound, and again when on", async () => {
    await database.query("UPDATE settings SET value = ? WHERE `key` = 'actions'", [JSON.stringify({ api: 0 })]);
    await eventually(async () =>
      expect(await get('/mb/api/account/details')).toEqual([404, '{"status":"error","msg":"Not Found"}']),
    );
    expect(await validate('/mb', code)).toEqual([404, '{"status":"error","msg":"Not Found"}']);
    // The contract's variant is ours to answer: it goes on.
    expect((await get('/api/account/details'))[0]).toBe(200);
    await database.query("UPDATE settings SET value = ? WHERE `key` = 'actions'", [JSON.stringify({ api: 1 })]);
    await eventually(async () => expect((await get('/mb/api/account/details'))[0]).toBe(200));
  });

  it("a seller deleted in MarketBob: its key answers as an unknown key's within the follow bound", async () => {
    await database.query('DELETE FROM users WHERE id = ?', [seller]);
    await eventually(async () =>
      expect(await get('/mb/api/account/details')).toEqual([401, '{"status":"error","msg":"Invalid request"}']),
    );
    expect(await validate('/mb', code)).toEqual([404, '{"status":"error","msg":"Invalid purchase code"}']);
    expect((await get('/api/account/details'))[0]).toBe(401);
  });
});

/**
 * A MarketBob database whose operator has not created the deletion log's triggers: the key
 * holders are looked up at every poll, so that a deleted seller's key still stops within the
 * follow bound (what else a deletion takes waits for the reconciliation then).
 */
describe.skipIf(!TEST_MARIADB_URL).each(TEST_STORES)('a deleted seller, without the deletion log (%s)', (kind) => {
  let database: MarketbobTestDatabase;
  let test: TestApp;
  let followerStore: Store;
  let follower: MarketbobFollower;
  let db: ReturnType<typeof openMarketbob>;
  const sellerKey = newApiKey();
  const otherKey = newApiKey();
  let seller: number;

  beforeAll(async () => {
    database = await createMarketbobDatabase({ followerIndexes: true, foreignKeys: true });
    await insertSettings(database, false);
    seller = await database.insert('users', userRow({ username: 'gone', api_key: sellerKey }));
    await database.insert('users', userRow({ username: 'stays', api_key: otherKey }));
    test = await createTestApp(kind, {
      configFile: { variants: [{ lang: 'en', baseUrl: '/', currency: 'USD', rate: '1', shape: 'marketbob' }] },
    });
    followerStore = await openStore(loadConfig(test.env).store);
    db = openMarketbob(database.url);
    follower = new MarketbobFollower({
      db,
      store: followerStore,
      keys: test.keys,
      config: { url: database.url, pollSeconds: 0.5, mediaBaseUrl: MEDIA, reconcileMinutes: 60, behindSeconds: 30 },
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
  });

  const details = async (key: string) => {
    const answer = await test.app.inject({ method: 'GET', url: '/api/account/details', headers: { 'x-api-key': key } });
    return [answer.statusCode, answer.body] as const;
  };

  it('answers 401 for its key within the follow bound; another seller goes on', async () => {
    expect((await details(sellerKey))[0]).toBe(200);
    await database.query('DELETE FROM users WHERE id = ?', [seller]);
    await eventually(async () =>
      expect(await details(sellerKey)).toEqual([401, '{"status":"error","msg":"Invalid request"}']),
    );
    expect((await details(otherKey))[0]).toBe(200);
  });
});
