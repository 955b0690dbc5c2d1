import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logging.js';
import { type RunningFollower, startMarketbobFollower } from '../../src/marketbob/start-follower.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { TEST_POSTGRES_URL } from '../helpers/test-database.js';
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
} from './marketbob-database.js';

/** Two instances sharing one PostgreSQL store: one follows, the other takes over when it stops. */
describe.skipIf(!TEST_MARIADB_URL || !TEST_POSTGRES_URL)('marketbob follower failover (postgres)', () => {
  let database: MarketbobTestDatabase;
  let test: TestApp;
  const followers: RunningFollower[] = [];
  const logs: string[][] = [[], []];
  const key = newApiKey();
  let seller: number;
  let item: number;

  const start = async (index: number) => {
    const env = { ...test.env, MARKETBOB_DATABASE_URL: database.url, MARKETPLACE_CONFIG: join(test.dir, 'mb.json') };
    const sink = new Writable({
      write(chunk, _encoding, done) {
        logs[index]?.push(String(chunk));
        done();
      },
    });
    const follower = await startMarketbobFollower(loadConfig(env), test.keys, createLogger('info', sink));
    if (follower === undefined) throw new Error('no follower');
    followers.push(follower);
    return follower;
  };

  beforeAll(async () => {
    database = await createMarketbobDatabase({ followerIndexes: true });
    await insertSettings(database, false);
    const category = await database.insert('categories', { name: 'Scripts' });
    seller = await database.insert('users', userRow({ username: 'seller', api_key: key }));
    item = await database.insert('items', itemRow(seller, category));
    test = await createTestApp('postgres');
    writeFileSync(
      join(test.dir, 'mb.json'),
      JSON.stringify({ marketbob: { mediaBaseUrl: 'https://market.example.com', pollSeconds: 0.5 } }),
    );
  });
  afterAll(async () => {
    for (const follower of followers) await follower.stop();
    await test?.close();
    await database?.drop();
  });

  const validate = (code: string) =>
    test.app.inject({
      method: 'POST',
      url: '/api/purchases/validation',
      headers: { 'x-api-key': key },
      payload: { purchase_code: code },
    });

  it('exactly one follows; when it stops, the other takes over and follows', async () => {
    const first = await start(0);
    const second = await start(1);
    expect(first.following()).toBe(true);
    expect(second.following()).toBe(false);
    expect(logs[1]?.join('')).toContain('marketbob: another instance follows this store; standing by');
    // /readyz on each: the follower knows its lag, the other cannot.
    expect(first.health()).toEqual({ state: 'following', lagSeconds: expect.any(Number) });
    expect(second.health()).toEqual({ state: 'standby', lagSeconds: null });

    const before = await insertPurchase(database, { id: item, authorId: seller }, seller, {
      purchase: { created_at: marketbobNow(), updated_at: marketbobNow() },
    });
    await eventually(async () => expect((await validate(before.code)).statusCode).toBe(200), 5_000);

    await first.stop();
    await eventually(async () => expect(second.following()).toBe(true), 5_000);
    expect(logs[1]?.join('')).toContain('marketbob: taking over the following');
    await eventually(async () => expect(second.health().state).toBe('following'), 5_000);
    const after = await insertPurchase(database, { id: item, authorId: seller }, seller, {
      purchase: { created_at: marketbobNow(), updated_at: marketbobNow() },
    });
    await eventually(async () => expect((await validate(after.code)).statusCode).toBe(200), 5_000);
  });
});
