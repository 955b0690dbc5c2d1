import { Writable } from 'node:stream';
import bcrypt from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logging.js';
import { openMarketbob } from '../../src/marketbob/marketbob-connection.js';
import { MarketbobFollower } from '../../src/marketbob/marketbob-follower.js';
import { KeyManagedByMarketbobError, rotateAccountKey, showKey } from '../../src/operations/account-keys.js';
import { checkPasswordSync, hashPassword } from '../../src/passwords/password-hash.js';
import { StoreChanges } from '../../src/store/changes/change-log.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';
import { createTestApp, TEST_STORES, type TestApp } from '../helpers/test-app.js';
import {
  createMarketbobDatabase,
  eventually,
  FOLLOW_BOUND_MS,
  insertPurchase,
  insertSettings,
  itemRow,
  type MarketbobTestDatabase,
  marketbobNow,
  newApiKey,
  TEST_MARIADB_URL,
  userRow,
} from './marketbob-database.js';

describe.skipIf(!TEST_MARIADB_URL).each(TEST_STORES)('marketbob follower (%s)', (kind) => {
  let database: MarketbobTestDatabase;
  let test: TestApp;
  let followerStore: Store;
  let follower: MarketbobFollower;
  let db: ReturnType<typeof openMarketbob>;
  let sellerKey: string;
  let seller: number;
  let buyer: number;
  let item: number;

  beforeAll(async () => {
    database = await createMarketbobDatabase({ followerIndexes: true });
    await insertSettings(database, false);
    const category = await database.insert('categories', { name: 'Scripts' });
    sellerKey = newApiKey();
    seller = await database.insert('users', userRow({ username: 'seller', api_key: sellerKey }));
    buyer = await database.insert('users', userRow({ username: 'buyer' }));
    item = await database.insert('items', itemRow(seller, category, { name: 'Followed Item' }));
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
        mediaBaseUrl: 'https://market.example.com',
        timezone: 'UTC',
        reconcileMinutes: 10,
        behindSeconds: 30,
      },
      logger: createLogger('silent'),
      // Small pages, so that the tests cross page ends.
      pollRows: 2,
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

  const validate = (code: string, key = sellerKey) =>
    test.app.inject({
      method: 'POST',
      url: '/api/purchases/validation',
      headers: { 'x-api-key': key },
      payload: { purchase_code: code },
    });
  const details = (key: string) =>
    test.app.inject({ method: 'GET', url: '/api/account/details', headers: { 'x-api-key': key } });

  it('a new sale validates, and stops validating once refunded or cancelled', async () => {
    const stamp = marketbobNow();
    const sale = await insertPurchase(database, { id: item, authorId: seller }, buyer, {
      sale: { created_at: stamp, updated_at: stamp },
      purchase: { created_at: stamp, updated_at: stamp },
    });
    await eventually(async () => expect((await validate(sale.code)).statusCode).toBe(200));

    await database.update('sales', sale.saleId, { status: 2, updated_at: marketbobNow() });
    await database.update('purchases', sale.id, { status: 2, updated_at: marketbobNow() });
    await eventually(async () => {
      const answer = await validate(sale.code);
      expect(answer.statusCode).toBe(404);
      expect(answer.body).toBe('{"status":"error","msg":"Invalid purchase code"}');
    });

    const other = await insertPurchase(database, { id: item, authorId: seller }, buyer, {
      purchase: { created_at: marketbobNow(), updated_at: marketbobNow() },
    });
    await eventually(async () => expect((await validate(other.code)).statusCode).toBe(200));
    await database.update('purchases', other.id, { status: 3, updated_at: marketbobNow() });
    await eventually(async () => expect((await validate(other.code)).statusCode).toBe(404));
  });

  it('reads a recent sale again at every poll without writing it again: no transaction, nothing for the caches', async () => {
    const watcher = await openStore(loadConfig(test.env).store);
    const runImport = followerStore.runImport.bind(followerStore);
    let transactions = 0;
    Object.defineProperty(followerStore, 'runImport', {
      configurable: true,
      value: (work: Parameters<Store['runImport']>[0]) => {
        transactions++;
        return runImport(work);
      },
    });
    /** Waits for `count` more complete polls, asking the watcher what it heard meanwhile. */
    const heardOver = async (count: number) => {
      const heard = new StoreChanges();
      for (let poll = 0; poll < count; poll++) {
        const at = follower.status().caughtUpAt ?? 0;
        await eventually(async () => {
          const changes = watcher.changesSinceLastCheck();
          if (changes) heard.merge(changes);
          expect(follower.status().caughtUpAt ?? 0).toBeGreaterThan(at);
        });
      }
      return heard;
    };
    try {
      const stamp = marketbobNow();
      const sale = await insertPurchase(database, { id: item, authorId: seller }, buyer, {
        sale: { created_at: stamp, updated_at: stamp },
        purchase: { created_at: stamp, updated_at: stamp },
      });
      await eventually(async () => expect((await validate(sale.code)).statusCode).toBe(200));
      // The sale's own write, heard.
      expect((await heardOver(2)).purchases.size).toBeGreaterThan(0);
      transactions = 0;
      // Still within the overlap (a minute), read again at every poll.
      const heard = await heardOver(3);
      expect([transactions, heard.all, heard.tables.size, heard.accounts.size, heard.purchases.size]).toEqual([
        0,
        false,
        0,
        0,
        0,
      ]);
      expect((await validate(sale.code)).statusCode).toBe(200);
    } finally {
      Object.defineProperty(followerStore, 'runImport', { configurable: true, value: runImport });
      await watcher.close();
    }
  });

  it('a regenerated key works and the old one answers 401 at once (no grace)', async () => {
    expect((await details(sellerKey)).statusCode).toBe(200);
    const fresh = newApiKey();
    await database.update('users', seller, { api_key: fresh, updated_at: marketbobNow() });
    await eventually(async () => {
      expect((await details(fresh)).statusCode).toBe(200);
      const old = await details(sellerKey);
      expect(old.statusCode).toBe(401);
      expect(old.body).toBe('{"status":"error","msg":"Invalid request"}');
    });
    sellerKey = fresh;
  });

  it("a category's changed buyer fee reaches its items' prices", async () => {
    const [category] = await database.query<{ id: number }>('SELECT id FROM categories');
    const one = async () =>
      (
        await test.app.inject({
          method: 'GET',
          url: '/api/items/all',
          headers: { 'x-api-key': sellerKey },
        })
      ).json() as { items: { price: unknown }[] };
    const before = (await one()).items[0]?.price as { regular: number; extended: number };
    // Saved by MarketBob's admin: the category's row only; the items' rows are not touched.
    await database.update('categories', Number(category?.id), { regular_buyer_fee: 3, extended_buyer_fee: 4 });
    await eventually(async () =>
      expect((await one()).items[0]?.price).toEqual({ regular: before.regular + 3, extended: before.extended + 4 }),
    );
  });

  it('an item leaving approved, and a changed price, show', async () => {
    const one = () =>
      test.app.inject({
        method: 'GET',
        url: `/api/items/item?item_id=${item}`,
        headers: { 'x-api-key': sellerKey },
      });
    await database.update('items', item, { regular_price: 25, updated_at: marketbobNow() });
    await eventually(async () => {
      const answer = await one();
      expect(answer.statusCode).toBe(200);
      expect((answer.json() as { item: { price: unknown } }).item.price).toEqual({ regular: 25 + 3, extended: 49 + 4 });
    });
    await database.update('items', item, { status: 2, updated_at: marketbobNow() });
    await eventually(async () => expect((await one()).body).toBe('{"status":"error","msg":"Item Not Found"}'));
  });

  it('a banned user: their key answers 401', async () => {
    await database.update('users', seller, { status: 0, updated_at: marketbobNow() });
    await eventually(async () => expect((await details(sellerKey)).statusCode).toBe(401));
    await database.update('users', seller, { status: 1, updated_at: marketbobNow() });
    await eventually(async () => expect((await details(sellerKey)).statusCode).toBe(200));
  });

  it('many rows saved in the same second: every one is read, page after page', async () => {
    const stamp = marketbobNow();
    const sales: { id: number; code: string }[] = [];
    for (let n = 0; n < 5; n++) {
      sales.push(
        await insertPurchase(database, { id: item, authorId: seller }, buyer, {
          purchase: { created_at: stamp, updated_at: stamp },
        }),
      );
    }
    for (const sale of sales) await database.update('purchases', sale.id, { status: 3, updated_at: stamp });
    await eventually(async () => {
      for (const sale of sales) expect((await validate(sale.code)).statusCode).toBe(404);
    });
    for (const sale of sales) await database.update('purchases', sale.id, { status: 1, updated_at: stamp });
    await eventually(async () => {
      for (const sale of sales) expect((await validate(sale.code)).statusCode).toBe(200);
    });
  });

  it('an api_key set to NULL or emptied in MarketBob: our key answers 401, with no grace', async () => {
    expect((await details(sellerKey)).statusCode).toBe(200);
    await database.update('users', seller, { api_key: null, updated_at: marketbobNow() });
    await eventually(async () => {
      const old = await details(sellerKey);
      expect(old.statusCode).toBe(401);
      expect(old.body).toBe('{"status":"error","msg":"Invalid request"}');
    });
    expect((await test.store.accountByUsername('seller'))?.key_cipher).toBe('');
    expect(await showKey(test.store, test.keys, 'seller')).toBeNull();

    const given = newApiKey();
    await database.update('users', seller, { api_key: given, updated_at: marketbobNow() });
    await eventually(async () => expect((await details(given)).statusCode).toBe(200));
    await database.update('users', seller, { api_key: '', updated_at: marketbobNow() });
    await eventually(async () => expect((await details(given)).statusCode).toBe(401));

    sellerKey = newApiKey();
    await database.update('users', seller, { api_key: sellerKey, updated_at: marketbobNow() });
    await eventually(async () => expect((await details(sellerKey)).statusCode).toBe(200));
  });

  it('a new MarketBob user without an api_key has no working key here', async () => {
    const id = await database.insert('users', userRow({ username: 'keyless', api_key: null }));
    await eventually(async () => expect(await test.store.marketbobUserId('keyless')).toBe(id));
    expect((await test.store.accountByUsername('keyless'))?.key_cipher).toBe('');
    expect(await showKey(test.store, test.keys, 'keyless')).toBeNull();
  });

  it('a password changed in MarketBob reaches us, even after our workspace upgraded the hash', async () => {
    // What the workspace does at a login: the bcrypt hash from MarketBob becomes one of ours.
    const upgraded = await hashPassword('secret-password');
    expect(await test.store.setPasswordHash('seller', upgraded)).toBe(true);
    // A save in MarketBob that leaves the password as it was: ours stays.
    await database.update('users', seller, { profile_heading: 'Renewed heading', updated_at: marketbobNow() });
    await eventually(async () => {
      const answer = (await details(sellerKey)).json() as { data: { profile: { heading: string } } };
      expect(answer.data.profile.heading).toBe('Renewed heading');
    });
    expect(await test.store.passwordHash('seller')).toBe(upgraded);

    const changed = bcrypt.hashSync('another-password', 4).replace(/^\$2[ab]\$/, '$2y$');
    await database.update('users', seller, { password: changed, updated_at: marketbobNow() });
    await eventually(async () => expect(await test.store.passwordHash('seller')).toBe(changed));
    expect(checkPasswordSync('another-password', changed).matches).toBe(true);
    // MarketBob took the password away (a social login only): no workspace login here either.
    await database.update('users', seller, { password: null, updated_at: marketbobNow() });
    await eventually(async () => expect(await test.store.passwordHash('seller')).toBeUndefined());
  });

  it('a username renamed in MarketBob renames the account: the same key, its items and sales', async () => {
    await database.update('users', seller, { username: 'seller-renamed', updated_at: marketbobNow() });
    await eventually(async () => {
      const answer = await details(sellerKey);
      expect(answer.statusCode).toBe(200);
      expect((answer.json() as { data: { username: string } }).data.username).toBe('seller-renamed');
    });
    expect(await test.store.accountByUsername('seller')).toBeUndefined();
    expect((await test.store.item(item))?.account).toBe('seller-renamed');
    expect(await test.store.marketbobUserId('seller-renamed')).toBe(seller);
    const sale = await insertPurchase(database, { id: item, authorId: seller }, buyer, {
      purchase: { created_at: marketbobNow(), updated_at: marketbobNow() },
    });
    await eventually(async () => expect((await validate(sale.code)).statusCode).toBe(200));
  });

  it('a key generated here for a MarketBob seller is refused: MarketBob owns it', async () => {
    await expect(rotateAccountKey(test.store, test.keys, 'seller-renamed')).rejects.toThrow(KeyManagedByMarketbobError);
    expect((await details(sellerKey)).statusCode).toBe(200);
  });
});

describe.skipIf(!TEST_MARIADB_URL)('marketbob follower: the source going away and coming back', () => {
  let database: MarketbobTestDatabase;
  let test: TestApp;
  let followerStore: Store;
  let follower: MarketbobFollower;
  let db: ReturnType<typeof openMarketbob>;
  const proxy = new TcpProxy('127.0.0.1', Number(new URL(TEST_MARIADB_URL ?? 'mysql://h:3306').port || 3306));
  const logs: string[] = [];
  const key = newApiKey();
  let seller: number;
  let item: number;

  beforeAll(async () => {
    database = await createMarketbobDatabase({ followerIndexes: true });
    await insertSettings(database, false);
    const category = await database.insert('categories', { name: 'Scripts' });
    seller = await database.insert('users', userRow({ username: 'seller', api_key: key }));
    item = await database.insert('items', itemRow(seller, category));
    await proxy.listen();
    const through = new URL(database.url);
    through.host = `127.0.0.1:${proxy.port}`;
    test = await createTestApp('sqlite');
    followerStore = await openStore(loadConfig(test.env).store);
    db = openMarketbob(through.href);
    const sink = new Writable({
      write(chunk, _encoding, done) {
        logs.push(String(chunk));
        done();
      },
    });
    follower = new MarketbobFollower({
      db,
      store: followerStore,
      keys: test.keys,
      config: {
        url: through.href,
        pollSeconds: 0.5,
        mediaBaseUrl: 'https://m.example.com',
        timezone: 'UTC',
        reconcileMinutes: 10,
        behindSeconds: 30,
      },
      logger: createLogger('info', sink),
    });
    await follower.start();
  });
  afterAll(async () => {
    await follower?.stop();
    await db?.destroy();
    await proxy.close();
    await followerStore?.close();
    await test?.close();
    await database?.drop();
  });

  const lines = (pattern: RegExp) => logs.filter((line) => pattern.test(line));

  it('serves what it has while the source is away, says so once each way, and catches up', async () => {
    await proxy.refuse();
    // Rows committed while the bridge cannot see them.
    const during = await insertPurchase(database, { id: item, authorId: seller }, seller, {
      purchase: { created_at: marketbobNow(), updated_at: marketbobNow() },
    });
    await eventually(async () => expect(lines(/cannot follow the source/)).toHaveLength(1));
    const details = await test.app.inject({
      method: 'GET',
      url: '/api/account/details',
      headers: { 'x-api-key': key },
    });
    expect(details.statusCode).toBe(200);
    // Further failed polls say nothing more.
    await eventually(async () => expect(follower.status().failures).toBeGreaterThanOrEqual(2), 10_000);
    expect(lines(/cannot follow the source/)).toHaveLength(1);
    expect(logs.join('')).not.toContain(database.url);

    await proxy.restore();
    await eventually(async () => {
      const answer = await test.app.inject({
        method: 'POST',
        url: '/api/purchases/validation',
        headers: { 'x-api-key': key },
        payload: { purchase_code: during.code },
      });
      expect(answer.statusCode).toBe(200);
    });
    expect(lines(/the source answers again; caught up/)).toHaveLength(1);
    expect(lines(/cannot follow the source/)).toHaveLength(1);
    expect(follower.status().failures).toBe(0);
  });
});

/** A reconciliation every 1.2 s, so that the tests below see one soon. */
const RECONCILE_MINUTES = 0.02;
/**
 * What the tests below wait for is found by the reconciliation (no deletion log here), not by a
 * poll: a pass that began just before the change misses it, and the next begins a pass's length and
 * an interval later. Two passes and two intervals take 1.5 s on a quiet machine and went past the
 * follow bound (5 s) once among a whole suite on two cores; their bound is three times it.
 */
const RECONCILE_BOUND_MS = 3 * FOLLOW_BOUND_MS;

describe.skipIf(!TEST_MARIADB_URL).each(TEST_STORES)('marketbob follower: rows deleted in MarketBob (%s)', (kind) => {
  let database: MarketbobTestDatabase;
  let test: TestApp;
  let followerStore: Store;
  let follower: MarketbobFollower;
  let db: ReturnType<typeof openMarketbob>;
  const sellerKey = newApiKey();
  const leaverKey = newApiKey();
  let leaver: number;
  let keylessLeaver: number;
  let renamed: number;
  let kept: { id: number; code: string };
  let deleted: { id: number; code: string };
  let item: number;
  let goneItem: number;

  beforeAll(async () => {
    database = await createMarketbobDatabase({ followerIndexes: true });
    await insertSettings(database, false);
    const category = await database.insert('categories', { name: 'Scripts' });
    const seller = await database.insert('users', userRow({ username: 'seller', api_key: sellerKey }));
    leaver = await database.insert('users', userRow({ username: 'leaver', api_key: leaverKey }));
    keylessLeaver = await database.insert('users', userRow({ username: 'keyless-leaver', api_key: null }));
    renamed = await database.insert('users', userRow({ username: 'to-be-renamed' }));
    item = await database.insert('items', itemRow(seller, category));
    goneItem = await database.insert('items', itemRow(seller, category));
    kept = await insertPurchase(database, { id: item, authorId: seller }, seller);
    deleted = await insertPurchase(database, { id: item, authorId: seller }, seller);
    test = await createTestApp(kind);
    const location = loadConfig(test.env).store;
    followerStore = await openStore(location);
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
        reconcileMinutes: RECONCILE_MINUTES,
        behindSeconds: 30,
      },
      logger: createLogger('silent'),
      storeLocation: location,
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

  const get = (url: string, key = sellerKey) => test.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
  const validate = (code: string) =>
    test.app.inject({
      method: 'POST',
      url: '/api/purchases/validation',
      headers: { 'x-api-key': sellerKey },
      payload: { purchase_code: code },
    });

  it('a deleted purchase stops validating, a deleted item is no longer served, a deleted user is suspended', async () => {
    expect((await validate(deleted.code)).statusCode).toBe(200);
    expect((await get(`/api/items/item?item_id=${goneItem}`)).statusCode).toBe(200);
    expect((await get('/api/account/details', leaverKey)).statusCode).toBe(200);

    await database.query('DELETE FROM purchases WHERE id = ?', [deleted.id]);
    await database.query('DELETE FROM items WHERE id = ?', [goneItem]);
    await database.query('DELETE FROM users WHERE id = ?', [leaver]);
    await eventually(async () => {
      expect((await validate(deleted.code)).body).toBe('{"status":"error","msg":"Invalid purchase code"}');
      expect((await get(`/api/items/item?item_id=${goneItem}`)).body).toBe('{"status":"error","msg":"Item Not Found"}');
      expect((await get('/api/account/details', leaverKey)).statusCode).toBe(401);
    }, RECONCILE_BOUND_MS);
    // What is still there is still served.
    expect((await validate(kept.code)).statusCode).toBe(200);
    expect((await get(`/api/items/item?item_id=${item}`)).statusCode).toBe(200);
  });

  it('an account without a key is suspended when its user is deleted; a renamed one is looked up by id', async () => {
    // Renamed by hand, its updated_at kept: the polls do not see it, and its old name is gone there.
    await database.query("UPDATE users SET username = 'renamed-there', updated_at = updated_at WHERE id = ?", [
      renamed,
    ]);
    await database.query('DELETE FROM users WHERE id = ?', [keylessLeaver]);
    await eventually(
      async () => expect((await test.store.accountByUsername('keyless-leaver'))?.status).toBe('suspended'),
      RECONCILE_BOUND_MS,
    );
    expect((await test.store.accountByUsername('keyless-leaver'))?.key_cipher).toBe('');
    // The same pass looked the renamed user up by its MarketBob id: still there, still active.
    expect((await test.store.accountByUsername('to-be-renamed'))?.status).toBe('active');
  });

  it('a status changed by hand, without updated_at (unseen by the polls), is set by the reconciliation', async () => {
    const [row] = await database.query<{ updated_at: string }>('SELECT updated_at FROM purchases WHERE id = ?', [
      kept.id,
    ]);
    await database.query('UPDATE purchases SET status = 2, updated_at = ? WHERE id = ?', [row?.updated_at, kept.id]);
    await eventually(async () => expect((await validate(kept.code)).statusCode).toBe(404), RECONCILE_BOUND_MS);
  });
});
