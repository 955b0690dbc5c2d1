import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, type Running, startNode } from '../helpers/processes.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';
import {
  createMarketbobDatabase,
  insertPurchase,
  insertSettings,
  itemRow,
  type MarketbobTestDatabase,
  marketbobNow,
  newApiKey,
  TEST_MARIADB_URL,
  userRow,
} from './marketbob-database.js';

describe.skipIf(!TEST_MARIADB_URL)('npm start with MARKETBOB_DATABASE_URL', () => {
  let database: MarketbobTestDatabase;
  let store: TestDatabase;
  let server: Running | undefined;
  const key = newApiKey();

  beforeAll(async () => {
    database = await createMarketbobDatabase({ followerIndexes: true });
    store = await createTestDatabase('sqlite');
    await insertSettings(database, true);
    const category = await database.insert('categories', { name: 'Scripts' });
    const seller = await database.insert('users', userRow({ username: 'seller', api_key: key }));
    await database.insert('items', itemRow(seller, category));
  });
  afterAll(async () => {
    server?.child.kill('SIGKILL');
    await database?.drop();
    await store?.drop();
  });

  it('syncs before it listens, then follows: a sale made after the start validates', async () => {
    server = startNode('src/main.ts', [], {
      cwd: store.dir,
      env: cleanEnv({
        ...store.env,
        PORT: '0',
        LOG_LEVEL: 'info',
        MARKETBOB_DATABASE_URL: database.url,
        MARKETBOB_MEDIA_BASE_URL: 'https://market.example.com',
      }),
    });
    await server.waitFor(/marketbob: full sync done; following/);
    const [, port] = await server.waitFor(/Server listening at http:\/\/127\.0\.0\.1:(\d+)/);
    const base = `http://127.0.0.1:${port}`;
    const items = await fetch(`${base}/api/items/all`, { headers: { 'x-api-key': key } });
    expect(items.status).toBe(200);

    const [seller] = await database.query<{ id: number }>("SELECT id FROM users WHERE username = 'seller'");
    const [item] = await database.query<{ id: number }>('SELECT id FROM items');
    const sale = await insertPurchase(
      database,
      { id: Number(item?.id), authorId: Number(seller?.id) },
      Number(seller?.id),
      {
        purchase: { created_at: marketbobNow(), updated_at: marketbobNow() },
      },
    );
    await server.waitFor(/marketbob: changes applied/, 5_000);
    const validation = await fetch(`${base}/api/purchases/validation`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ purchase_code: sale.code }),
    });
    expect(validation.status).toBe(200);
    // The URL's password (none here) and the key never reach the log.
    expect(server.stdout()).not.toContain(key);

    server.child.kill('SIGTERM');
    expect(await server.exited()).toBe(0);
  });
});
