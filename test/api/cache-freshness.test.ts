import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { importNdjson } from '../../src/importer/import-ndjson.js';
import { rotateAccountKey } from '../../src/operations/account-keys.js';
import { openStore } from '../../src/store/open-store.js';
import { CHANGE_CHECK_INTERVAL_MS } from '../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import { createTestApp, TEST_STORES, type TestApp } from '../helpers/test-app.js';
import { accountLine, itemLine, purchaseLine } from './store-lines.js';

/**
 * The app keeps accounts, items and recently validated purchases in memory. A change made through another handle on the same
 * store (as the CLI or another instance makes it) must show within a few milliseconds with SQLite
 * (its data_version is read at most every CHANGE_CHECK_INTERVAL_MS), and within 1 s with
 * PostgreSQL (whose change signal arrives shortly after the writer's commit, by LISTEN/NOTIFY).
 */
const KEY = 'freshness-key-0123456789abcdef';
const account = (fields: object = {}) => accountLine('fresh', KEY, fields);
const item = (fields: object = {}) => itemLine(501, 'fresh', { name: 'First name', ...fields });
const purchase = (fields: object = {}) => purchaseLine('FRESH-CODE-1', 501, fields);

describe.each(TEST_STORES)('caches on %s stay fresh', (kind) => {
  let t: TestApp;
  let other: Store;

  beforeAll(async () => {
    t = await createTestApp(kind, { lines: [account(), item(), purchase()] });
    other = await openStore(loadConfig(t.env).store);
  });
  afterAll(async () => {
    await other.close();
    await t.close();
  });

  /** The answer's status once it settles: at once on SQLite, within 1 s on PostgreSQL. */
  const settled = async (
    ask: () => Promise<{ statusCode: number; body: string }>,
    done: (r: { statusCode: number; body: string }) => boolean,
  ) => {
    // SQLite: a request after the check interval must see it; PostgreSQL: within 1 s.
    if (kind === 'sqlite') {
      await new Promise((resolve) => setTimeout(resolve, CHANGE_CHECK_INTERVAL_MS + 1));
      return ask();
    }
    const deadline = Date.now() + 1000;
    for (;;) {
      const response = await ask();
      if (done(response) || Date.now() >= deadline) return response;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const settledStatus = async (ask: () => Promise<{ statusCode: number; body: string }>, wanted: number) =>
    (await settled(ask, (r) => r.statusCode === wanted)).statusCode;
  const details = (key: string) => t.app.inject({ url: '/api/account/details', headers: { 'x-api-key': key } });
  const validate = (key: string, code = 'fresh-code-1') =>
    t.app.inject({
      method: 'POST',
      url: '/api/purchases/validation',
      headers: { 'x-api-key': key },
      payload: { purchase_code: code },
    });
  const importElsewhere = async (lines: object[]) => {
    const result = await importNdjson(other, t.keys, Readable.from([lines.map((l) => JSON.stringify(l)).join('\n')]));
    expect(result.ok).toBe(true);
  };

  it('sees an item changed elsewhere at once, in every answer that shows it', async () => {
    for (const url of ['/api/items/all', '/api/items/item?item_id=501', '/pt/api/items/item?item_id=501']) {
      expect((await t.app.inject({ url, headers: { 'x-api-key': KEY } })).body).toContain('"name":"First name"');
    }
    expect((await validate(KEY)).body).toContain('"name":"First name"');
    await importElsewhere([item({ name: 'Second name' })]);
    const renamed = (r: { body: string }) => r.body.includes('"name":"Second name"');
    for (const url of ['/api/items/all', '/api/items/item?item_id=501', '/pt/api/items/item?item_id=501']) {
      expect((await settled(() => t.app.inject({ url, headers: { 'x-api-key': KEY } }), renamed)).body).toContain(
        '"name":"Second name"',
      );
    }
    expect((await settled(() => validate(KEY), renamed)).body).toContain('"name":"Second name"');
  });

  it('sees a purchase refunded elsewhere at once', async () => {
    expect((await validate(KEY)).statusCode).toBe(200);
    await importElsewhere([purchase({ status: 'refunded' })]);
    expect(await settledStatus(() => validate(KEY), 404)).toBe(404);
    await importElsewhere([purchase({ status: 'active' })]);
    expect(await settledStatus(() => validate(KEY), 200)).toBe(200);
  });

  it('sees a purchase changed elsewhere at once, in every field it shows', async () => {
    expect((await validate(KEY)).body).toContain('"license_type":"Regular","price":10,');
    await importElsewhere([purchase({ license_type: 'extended', price: '20.00' })]);
    const changed = (r: { body: string }) => r.body.includes('"license_type":"Extended","price":20,');
    expect((await settled(() => validate(KEY), changed)).body).toContain('"license_type":"Extended","price":20,');
    await importElsewhere([purchase()]);
    const back = (r: { body: string }) => r.body.includes('"license_type":"Regular","price":10,');
    expect((await settled(() => validate(KEY), back)).body).toContain('"license_type":"Regular","price":10,');
  });

  it("sees a purchase refunded by an import on the app's own store at once", async () => {
    expect((await validate(KEY)).statusCode).toBe(200);
    await t.importLines([purchase({ status: 'refunded' })]);
    expect((await validate(KEY)).statusCode).toBe(404);
    await t.importLines([purchase()]);
    expect((await validate(KEY)).statusCode).toBe(200);
  });

  it('sees a code imported elsewhere at once (remembered unknown codes are dropped)', async () => {
    const ask = () => validate(KEY, 'fresh-code-later');
    expect((await ask()).statusCode).toBe(404);
    expect((await ask()).statusCode).toBe(404);
    await importElsewhere([purchase({ code: 'FRESH-CODE-LATER' })]);
    expect(await settledStatus(ask, 200)).toBe(200);
  });

  it('sees an account suspended elsewhere at once', async () => {
    expect((await details(KEY)).statusCode).toBe(200);
    await importElsewhere([account({ status: 'suspended' })]);
    expect(await settledStatus(() => details(KEY), 401)).toBe(401);
    await importElsewhere([account({ status: 'active' })]);
    expect(await settledStatus(() => details(KEY), 200)).toBe(200);
  });

  it('answers 401 to a key rotated elsewhere at once, and takes the new one', async () => {
    expect((await details(KEY)).statusCode).toBe(200);
    const newKey = (await rotateAccountKey(other, t.keys, 'fresh'))?.key;
    if (newKey === undefined) throw new Error('rotation failed');
    expect(await settledStatus(() => details(KEY), 401)).toBe(401);
    expect(await settledStatus(() => details(newKey), 200)).toBe(200);
    expect((await validate(newKey)).statusCode).toBe(200);
  });

  it("sees a key given by an import on the app's own store at once (remembered unknown keys are dropped)", async () => {
    const later = 'given-later-key-0123456789abc';
    expect((await details(later)).statusCode).toBe(401);
    await t.importLines([account({ username: 'later', email: 'later@example.com', api_key: later })]);
    expect((await details(later)).statusCode).toBe(200);
  });
});
