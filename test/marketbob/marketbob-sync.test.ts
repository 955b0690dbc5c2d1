import bcrypt from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digestApiKey } from '../../src/keys/api-keys.js';
import type { MarketbobConfig } from '../../src/marketbob/marketbob-config.js';
import { type MarketbobDb, openMarketbob } from '../../src/marketbob/marketbob-connection.js';
import { type SyncResult, syncMarketbob } from '../../src/marketbob/marketbob-sync.js';
import { hashPassword } from '../../src/passwords/password-hash.js';
import { createTestApp, TEST_STORES, type TestApp } from '../helpers/test-app.js';
import {
  createMarketbobDatabase,
  insertPurchase,
  insertSettings,
  itemRow,
  LARAVEL_HASH,
  type MarketbobTestDatabase,
  newApiKey,
  TEST_MARIADB_URL,
  userRow,
} from './marketbob-database.js';

const MEDIA = 'https://market.example.com';

/** A small marketplace: a seller with two approved items (one sold twice), a pending one, a banned user, bad rows. */
async function buildMarketplace(database: MarketbobTestDatabase) {
  await insertSettings(database, true);
  const scripts = await database.insert('categories', { name: 'Scripts', regular_buyer_fee: 2, extended_buyer_fee: 5 });
  const php = await database.insert('sub_categories', { name: 'PHP', category_id: scripts });
  const sellerKey = newApiKey();
  const seller = await database.insert(
    'users',
    userRow({
      username: 'seller',
      email: 'seller@example.com',
      profile_contact_email: 'help@example.com',
      api_key: sellerKey,
    }),
  );
  const buyer = await database.insert('users', userRow({ username: 'buyer', api_key: null, password: null }));
  const bannedKey = newApiKey();
  const banned = await database.insert('users', userRow({ username: 'banned', status: 0, api_key: bannedKey }));
  const nameless = await database.insert('users', userRow({ username: null }));
  const oddStatus = await database.insert('users', userRow({ username: 'odd', status: 7 }));
  const twinKey = await database.insert('users', userRow({ username: 'twin', api_key: sellerKey.toUpperCase() }));

  const approved = await database.insert(
    'items',
    itemRow(seller, scripts, { name: 'Clean Admin', sub_category_id: php, created_at: '2023-02-01 00:00:00' }),
  );
  const validity = await database.insert(
    'items',
    itemRow(seller, scripts, {
      name: 'Validity Item',
      version: '2.1',
      regular_price: 0,
      extended_price: 0,
      validity_prices: JSON.stringify({ '1': '10.00', '3': '25.50', '6': null, '12': '80' }),
      preview_type: 'audio',
      preview_audio: 'items/a.mp3',
      screenshots: null,
      options: null,
      tags: '',
    }),
  );
  // A discount not active (MarketBob's schedule has not started it): the item's own prices.
  await database.insert('item_discounts', {
    item_id: approved,
    regular_percentage: 50,
    regular_price: 9.99,
    extended_price: null,
    starting_at: '2030-01-01',
    ending_at: '2030-02-01',
    status: 0,
  });
  const pending = await database.insert('items', itemRow(seller, scripts, { name: 'Pending Item', status: 1 }));
  const noThumb = await database.insert(
    'items',
    itemRow(seller, scripts, { name: 'Bad Preview', preview_type: 'gif' }),
  );
  const orphan = await database.insert('items', itemRow(nameless, scripts, { name: 'Orphan' }));

  const sold = await insertPurchase(database, { id: approved, authorId: seller }, buyer);
  const refunded = await insertPurchase(database, { id: approved, authorId: seller }, buyer, {
    sale: { status: 2 },
    purchase: { status: 2 },
  });
  const ofPending = await insertPurchase(database, { id: pending, authorId: seller }, buyer, {
    purchase: { license_type: 2, is_downloaded: 1 },
    sale: { license_type: 2, price: 49 },
  });
  const unknownStatus = await insertPurchase(database, { id: approved, authorId: seller }, buyer, {
    purchase: { status: 9 },
  });
  const ofSkippedItem = await insertPurchase(database, { id: noThumb, authorId: seller }, buyer);
  return {
    sellerKey,
    bannedKey,
    ids: { seller, buyer, banned, nameless, oddStatus, twinKey, approved, validity, pending, noThumb, orphan },
    purchases: { sold, refunded, ofPending, unknownStatus, ofSkippedItem },
  };
}

describe.skipIf(!TEST_MARIADB_URL).each(TEST_STORES)('marketbob sync (%s)', (kind) => {
  let database: MarketbobTestDatabase;
  let db: MarketbobDb;
  let test: TestApp;
  let marketplace: Awaited<ReturnType<typeof buildMarketplace>>;
  let first: SyncResult;
  let second: SyncResult;
  const config = (): MarketbobConfig => ({
    url: database.url,
    pollSeconds: 2,
    mediaBaseUrl: MEDIA,
    timezone: 'America/Sao_Paulo',
    reconcileMinutes: 10,
    behindSeconds: 30,
  });

  beforeAll(async () => {
    database = await createMarketbobDatabase();
    marketplace = await buildMarketplace(database);
    db = openMarketbob(database.url);
    test = await createTestApp(kind);
    first = await syncMarketbob(db, test.store, test.keys, config());
    second = await syncMarketbob(db, test.store, test.keys, config());
  });
  afterAll(async () => {
    await db?.destroy();
    await test?.close();
    await database?.drop();
  });

  it('copies the good rows, skips the bad ones by table and id, and reports what it changed', () => {
    expect(first.ok).toBe(true);
    if (!first.ok) return;
    const { ids, purchases } = marketplace;
    expect(first.counts).toEqual({
      account: { inserted: 4, updated: 0, unchanged: 0 },
      item: { inserted: 3, updated: 0, unchanged: 0 },
      purchase: { inserted: 3, updated: 0, unchanged: 0 },
    });
    expect(first.passwordsSet).toBe(3);
    expect(first.skipped).toEqual([
      { table: 'users', id: ids.nameless, message: 'username is NULL or empty (our accounts are keyed by it)' },
      { table: 'users', id: ids.oddStatus, message: 'status 7 is not 0 (banned) or 1 (active)' },
      { table: 'items', id: ids.noThumb, message: 'preview_type "gif" is not image, video or audio' },
      { table: 'items', id: ids.orphan, message: `its author (user ${ids.nameless}) is missing or skipped` },
      { table: 'purchases', id: purchases.unknownStatus.id, message: 'status 9 is not 1, 2 or 3' },
      { table: 'purchases', id: purchases.ofSkippedItem.id, message: `its item ${ids.noThumb} is missing or skipped` },
    ]);
    expect(first.notes).toEqual([
      { table: 'users', id: ids.twinKey, message: `its api_key is also user ${ids.seller}'s: no key here` },
      { table: 'items', id: ids.validity, message: 'version "2.1" served as 2.1.0' },
    ]);
  });

  it('a second run changes nothing', () => {
    expect(second).toMatchObject({
      ok: true,
      counts: {
        account: { inserted: 0, updated: 0, unchanged: 4 },
        item: { inserted: 0, updated: 0, unchanged: 3 },
        purchase: { inserted: 0, updated: 0, unchanged: 3 },
      },
      passwordsSet: 0,
    });
  });

  it('keeps the key as our digest, the password hash as it is, and a banned user suspended', async () => {
    const seller = await test.store.accountByUsername('seller');
    expect(seller?.key_digest).toBe(digestApiKey(test.keys, marketplace.sellerKey));
    expect(seller?.status).toBe('active');
    expect(await test.store.passwordHash('seller')).toBe(LARAVEL_HASH);
    expect(await test.store.passwordHash('buyer')).toBeUndefined();
    expect((await test.store.accountByUsername('banned'))?.status).toBe('suspended');
    // MarketBob owns the keys: a user without one (or whose key a lower id holds) has none here.
    expect((await test.store.accountByUsername('buyer'))?.key_cipher).toBe('');
    expect((await test.store.accountByUsername('twin'))?.key_cipher).toBe('');
    expect(await test.store.marketbobUserId('seller')).toBe(marketplace.ids.seller);
  });

  it('answers the account details as the contract says, dates from APP_TIMEZONE to UTC', async () => {
    const response = await test.app.inject({
      method: 'GET',
      url: '/api/account/details',
      headers: { 'x-api-key': marketplace.sellerKey },
    });
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe(
      JSON.stringify({
        status: 'success',
        data: {
          name: { firstname: 'Jo', lastname: 'Doe', full_name: 'Jo Doe' },
          username: 'seller',
          email: 'seller@example.com',
          balance: 120.5,
          currency: 'USD',
          profile: {
            heading: 'Scripts and themes',
            description: '<p>Hello</p>',
            contact: { email: 'help@example.com' },
            social_links: { facebook: 'https://facebook.com/jo', x: 'https://x.com/jo' },
            media: { avatar: `${MEDIA}/images/avatars/jo.png`, cover: `${MEDIA}/images/covers/jo.png` },
          },
          registered_at: '2023-01-02T06:04:05.000Z',
        },
      }),
    );
  });

  const item = (id: number) => ({ 'x-api-key': marketplace.sellerKey, id });

  it("serves approved items only, newest first, priced as MarketBob's API prices them: validity prices ignored, an inactive discount too", async () => {
    const { ids } = marketplace;
    const response = await test.app.inject({
      method: 'GET',
      url: '/api/items/all',
      headers: { 'x-api-key': marketplace.sellerKey },
    });
    expect(response.statusCode).toBe(200);
    const body = response.json() as { items: { id: number }[] };
    expect(body.items.map((entry) => entry.id)).toEqual([ids.validity, ids.approved]);
    expect(body.items[0]).toEqual({
      id: ids.validity,
      name: 'Validity Item',
      description: '<p>An item</p>',
      category: 'Scripts',
      sub_category: '',
      options: [],
      version: '2.1.0',
      demo_link: 'https://demo.example.com',
      tags: [],
      media: { thumbnail: `${MEDIA}/items/thumb.png`, preview_audio: `${MEDIA}/items/a.mp3` },
      // Priced only by validity period: MarketBob's API shows the buyer fees alone.
      price: { regular: 2, extended: 5 },
      currency: 'USD',
      published_at: '2023-02-01T03:00:00.000Z',
    });
    expect(body.items[1]).toEqual({
      id: ids.approved,
      name: 'Clean Admin',
      description: '<p>An item</p>',
      category: 'Scripts',
      sub_category: 'PHP',
      options: ['Responsive', 'Chrome', 'Firefox'],
      version: '1.2.3',
      demo_link: 'https://demo.example.com',
      tags: ['admin', 'dashboard', 'php'],
      media: {
        thumbnail: `${MEDIA}/items/thumb.png`,
        preview_image: `${MEDIA}/items/preview.png`,
        screenshots: [`${MEDIA}/items/s1.png`, `${MEDIA}/items/s2.png`],
      },
      price: { regular: 21.99, extended: 54 },
      currency: 'USD',
      published_at: '2023-02-01T03:00:00.000Z',
    });
    const pendingItem = item(ids.pending);
    const notServed = await test.app.inject({
      method: 'GET',
      url: `/api/items/item?item_id=${pendingItem.id}`,
      headers: { 'x-api-key': pendingItem['x-api-key'] },
    });
    expect(notServed.statusCode).toBe(404);
    expect(notServed.body).toBe('{"status":"error","msg":"Item Not Found"}');
  });

  const validate = (code: string, key = marketplace.sellerKey) =>
    test.app.inject({
      method: 'POST',
      url: '/api/purchases/validation',
      headers: { 'x-api-key': key },
      payload: { purchase_code: code },
    });

  it('validates an active purchase (support date shown: item.support_status is on), not a refunded one', async () => {
    const { sold, refunded } = marketplace.purchases;
    const response = await validate(sold.code);
    expect(response.statusCode).toBe(200);
    const purchase = (response.json() as { data: { purchase: Record<string, unknown> } }).data.purchase;
    expect(Object.keys(purchase)).toEqual([
      'purchase_code',
      'license_type',
      'price',
      'currency',
      'item',
      'supported_until',
      'downloaded',
      'date',
    ]);
    expect(purchase).toMatchObject({
      purchase_code: sold.code,
      license_type: 'Regular',
      price: 19.99,
      currency: 'USD',
      supported_until: '2025-02-01T13:00:00.000Z',
      downloaded: false,
      date: '2024-02-01T13:00:00.000Z',
    });
    const refusedRefund = await validate(refunded.code);
    expect(refusedRefund.statusCode).toBe(404);
    expect(refusedRefund.body).toBe('{"status":"error","msg":"Invalid purchase code"}');
  });

  it("validates a purchase of the seller's pending item (the contract: whatever the item's status)", async () => {
    const response = await validate(marketplace.purchases.ofPending.code.toUpperCase());
    expect(response.statusCode).toBe(200);
    expect((response.json() as { data: { purchase: unknown } }).data.purchase).toMatchObject({
      license_type: 'Extended',
      price: 49,
      downloaded: true,
    });
  });

  it("refuses a banned user's key, and a key shared with a lower id", async () => {
    for (const key of [marketplace.bannedKey, marketplace.sellerKey.toUpperCase()]) {
      const response = await test.app.inject({
        method: 'GET',
        url: '/api/account/details',
        headers: { 'x-api-key': key },
      });
      expect(response.statusCode).toBe(401);
      expect(response.body).toBe('{"status":"error","msg":"Invalid request"}');
    }
  });
});

describe.skipIf(!TEST_MARIADB_URL)('marketbob sync: duplicate keys in a copy that lost its unique indexes', () => {
  let database: MarketbobTestDatabase;
  let db: MarketbobDb;
  let test: TestApp;
  beforeAll(async () => {
    database = await createMarketbobDatabase();
    await database.query('ALTER TABLE purchases DROP INDEX purchases_code_unique');
    await database.query('ALTER TABLE users DROP INDEX users_username_unique');
    db = openMarketbob(database.url);
    test = await createTestApp('sqlite');
  });
  afterAll(async () => {
    await db?.destroy();
    await test?.close();
    await database?.drop();
  });

  it('the lowest id keeps a username or a code; the others are skipped and reported', async () => {
    await insertSettings(database, false);
    const category = await database.insert('categories', { name: 'Scripts' });
    const seller = await database.insert('users', userRow({ username: 'seller' }));
    const twin = await database.insert('users', userRow({ username: 'seller' }));
    const item = await database.insert('items', itemRow(seller, category));
    const code = '0f8e2c1a-9b7d-4c3e-a1f2-0123456789ab';
    const first = await insertPurchase(database, { id: item, authorId: seller }, seller, { purchase: { code } });
    const copy = await insertPurchase(database, { id: item, authorId: seller }, seller, {
      purchase: { code: code.toUpperCase() },
    });
    const result = await syncMarketbob(db, test.store, test.keys, {
      url: database.url,
      pollSeconds: 2,
      mediaBaseUrl: MEDIA,
      timezone: 'UTC',
      reconcileMinutes: 10,
      behindSeconds: 30,
    });
    expect(result).toMatchObject({
      ok: true,
      counts: { account: { inserted: 1 }, item: { inserted: 1 }, purchase: { inserted: 1 } },
      skipped: [
        { table: 'users', id: twin, message: `its username is also user ${seller}'s (kept there)` },
        { table: 'purchases', id: copy.id, message: `its code is also purchase ${first.id}'s (kept there)` },
      ],
    });
  });
});

describe.skipIf(!TEST_MARIADB_URL)('marketbob sync: a database that never ran the validity-period migrations', () => {
  let database: MarketbobTestDatabase;
  let db: MarketbobDb;
  let test: TestApp;
  beforeAll(async () => {
    database = await createMarketbobDatabase({ validity: false });
    db = openMarketbob(database.url);
    test = await createTestApp('sqlite');
  });
  afterAll(async () => {
    await db?.destroy();
    await test?.close();
    await database?.drop();
  });

  it('reads the legacy prices, and serves the item and its purchase', async () => {
    await insertSettings(database, true);
    const category = await database.insert('categories', {
      name: 'Scripts',
      regular_buyer_fee: 1,
      extended_buyer_fee: 2,
    });
    const key = newApiKey();
    const seller = await database.insert('users', userRow({ username: 'seller', api_key: key }));
    const item = await database.insert('items', itemRow(seller, category, { regular_price: 10, extended_price: 30 }));
    const sale = await insertPurchase(database, { id: item, authorId: seller }, seller);
    const result = await syncMarketbob(db, test.store, test.keys, {
      url: database.url,
      pollSeconds: 2,
      mediaBaseUrl: MEDIA,
      timezone: 'UTC',
      reconcileMinutes: 10,
      behindSeconds: 30,
    });
    expect(result).toMatchObject({ ok: true, skipped: [], notes: [] });
    const answer = await test.app.inject({
      method: 'POST',
      url: '/api/purchases/validation',
      headers: { 'x-api-key': key },
      payload: { purchase_code: sale.code },
    });
    expect(answer.statusCode).toBe(200);
    expect((answer.json() as { data: { purchase: { item: { price: unknown } } } }).data.purchase.item.price).toEqual({
      regular: 11,
      extended: 32,
    });
  });
});

describe.skipIf(!TEST_MARIADB_URL).each(TEST_STORES)(
  'marketbob sync after a restart: what changed meanwhile (%s)',
  (kind) => {
    let database: MarketbobTestDatabase;
    let db: MarketbobDb;
    let test: TestApp;
    const sync = () =>
      syncMarketbob(db, test.store, test.keys, {
        url: database.url,
        pollSeconds: 2,
        mediaBaseUrl: MEDIA,
        timezone: 'UTC',
        reconcileMinutes: 10,
        behindSeconds: 30,
      });
    const details = (key: string) =>
      test.app.inject({ method: 'GET', url: '/api/account/details', headers: { 'x-api-key': key } });

    beforeAll(async () => {
      database = await createMarketbobDatabase();
      db = openMarketbob(database.url);
      test = await createTestApp(kind);
    });
    afterAll(async () => {
      await db?.destroy();
      await test?.close();
      await database?.drop();
    });

    it('a rename, a key taken away, a changed password and a user without a key, each taken by the next sync', async () => {
      await insertSettings(database, false);
      const category = await database.insert('categories', { name: 'Scripts' });
      const sellerKey = newApiKey();
      const otherKey = newApiKey();
      const seller = await database.insert('users', userRow({ username: 'seller', api_key: sellerKey }));
      const other = await database.insert('users', userRow({ username: 'other', api_key: otherKey }));
      const item = await database.insert('items', itemRow(seller, category));
      expect(await sync()).toMatchObject({ ok: true, passwordsSet: 2 });
      expect(await test.store.marketbobUserId('seller')).toBe(seller);
      // The seller logged in to our workspace: the hash became one of ours.
      const upgraded = await hashPassword('secret-password');
      await test.store.setPasswordHash('seller', upgraded);
      expect(await sync()).toMatchObject({ ok: true, passwordsSet: 0 });
      expect(await test.store.passwordHash('seller')).toBe(upgraded);

      // Meanwhile, in MarketBob (the server down):
      const changed = bcrypt.hashSync('another-password', 4).replace(/^\$2[ab]\$/, '$2y$');
      await database.update('users', seller, { username: 'seller-renamed', password: changed });
      await database.update('users', other, { api_key: null });
      const keyless = await database.insert('users', userRow({ username: 'keyless', api_key: null }));
      const result = await sync();
      expect(result).toMatchObject({
        ok: true,
        counts: { account: { inserted: 1, updated: 1, unchanged: 1 } },
        passwordsSet: 2,
        skipped: [],
      });

      const renamed = await details(sellerKey);
      expect(renamed.statusCode).toBe(200);
      expect((renamed.json() as { data: { username: string } }).data.username).toBe('seller-renamed');
      expect(await test.store.accountByUsername('seller')).toBeUndefined();
      expect((await test.store.item(item))?.account).toBe('seller-renamed');
      expect(await test.store.passwordHash('seller-renamed')).toBe(changed);
      expect((await details(otherKey)).statusCode).toBe(401);
      expect((await test.store.accountByUsername('other'))?.key_cipher).toBe('');
      expect((await test.store.accountByUsername('keyless'))?.key_cipher).toBe('');
      expect(await test.store.marketbobUserId('keyless')).toBe(keyless);

      expect(await sync()).toMatchObject({
        ok: true,
        counts: { account: { inserted: 0, updated: 0, unchanged: 3 } },
        passwordsSet: 0,
      });
    });
  },
);
