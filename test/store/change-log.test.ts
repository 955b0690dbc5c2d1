import { Readable } from 'node:stream';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { importNdjson } from '../../src/importer/import-ndjson.js';
import { deriveKeyMaterial } from '../../src/keys/server-secret.js';
import { StoreChanges } from '../../src/store/changes/change-log.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import type { StoreLocation } from '../../src/store/store-location.js';
import { createTestDatabase, TEST_STORES, type TestDatabase } from '../helpers/test-database.js';

const keys = deriveKeyMaterial('change-log-tests-secret-0123456789abcdef');
const lines = [
  { type: 'account', username: 'ann', email: 'a@example.com', registered_at: '2024-01-01T00:00:00Z' },
  {
    type: 'item',
    id: 901,
    account: 'ann',
    name: 'Logged item',
    version: '1.0.0',
    preview_type: 'image',
    thumbnail: 'https://cdn.example.com/t.png',
    preview_image: 'https://cdn.example.com/p.png',
    price: { regular: '10.00', extended: '20.00' },
    status: 'approved',
    published_at: '2024-01-02T00:00:00Z',
  },
  {
    type: 'purchase',
    code: 'LOG-1',
    item_id: 901,
    license_type: 'regular',
    price: '10.00',
    date: '2024-01-03T00:00:00Z',
  },
];

/** What `store` hears until `done` says it has heard enough (2 s at most). */
async function heardUntil(store: Store, done: (heard: StoreChanges) => boolean): Promise<StoreChanges> {
  const heard = new StoreChanges();
  const deadline = Date.now() + 2000;
  while (!done(heard)) {
    if (Date.now() > deadline) throw new Error('not heard within 2 s');
    const changes = store.changesSinceLastCheck();
    if (changes) heard.merge(changes);
    else await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return heard;
}

describe.each(TEST_STORES)('the change log (%s)', (kind) => {
  let database: TestDatabase;
  let location: StoreLocation;
  let reader: Store;
  let writer: Store;
  /** Runs SQL on the store's database over a connection of the test's own. */
  let run: (text: string) => Promise<void>;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    location = loadConfig(database.env).store;
    reader = await openStore(location);
    writer = await openStore(location);
    const result = await importNdjson(writer, keys, Readable.from([lines.map((l) => JSON.stringify(l)).join('\n')]));
    expect(result.ok).toBe(true);
    run = async (text) => {
      if (location.kind === 'postgres') {
        await database.query(text);
        return;
      }
      const raw = new BetterSqlite3(location.path);
      try {
        raw.pragma('busy_timeout = 2000');
        raw.exec(text);
      } finally {
        raw.close();
      }
    };
  });
  afterAll(async () => {
    await reader?.close();
    await writer?.close();
    await database?.drop();
  });

  it('names what a change made by hand touched: an item, its old and new seller, then its purchases', async () => {
    await heardUntil(reader, (heard) => heard.purchases.has('log-1'));
    await run(`UPDATE items SET name = 'Renamed by hand' WHERE id = 901`);
    const item = await heardUntil(reader, (heard) => heard.items.size > 0);
    expect([[...item.items], [...item.itemLists], item.purchases.size, item.all]).toEqual([[901], ['ann'], 0, false]);
    await run(`UPDATE purchases SET status = 'refunded' WHERE code_key = 'log-1'`);
    const purchase = await heardUntil(reader, (heard) => heard.purchases.size > 0);
    expect([[...purchase.purchases], purchase.items.size, purchase.accounts.size]).toEqual([['log-1'], 0, 0]);
  });

  it('clears everything once when the entries it had not read were pruned, then reads on', async () => {
    await writer.setPurchaseStatus('log-1', 'active');
    await heardUntil(reader, (heard) => heard.purchases.has('log-1'));
    // Entries logged and pruned before the reader read them (no NOTIFY on PostgreSQL: it does not
    // hear of them), then a change it hears of.
    await run(
      `INSERT INTO change_log (kind, key, at) VALUES ('purchase', 'unread-1', 0), ('purchase', 'unread-2', 0);
       DELETE FROM change_log WHERE seq < (SELECT max(seq) FROM change_log);`,
    );
    await writer.setPurchaseStatus('log-1', 'refunded');
    const pruned = await heardUntil(reader, (heard) => heard.all);
    expect(pruned.all).toBe(true);
    await writer.setPurchaseStatus('log-1', 'active');
    const next = await heardUntil(reader, (heard) => heard.purchases.has('log-1'));
    expect([next.all, [...next.purchases]]).toEqual([false, ['log-1']]);
  });

  it('tells a writer of its own change before the write returns, naming what it changed', async () => {
    // The writer's own write, and whatever it had not read of the cases before, drained.
    await writer.setAccountStatus('ann', 'suspended');
    expect(writer.changesSinceLastCheck()).toBeDefined();
    await writer.setAccountStatus('ann', 'active');
    expect([...(writer.changesSinceLastCheck()?.accounts ?? [])]).toEqual(['ann']);
  });
});

describe.runIf(TEST_STORES.includes('postgres'))('the PostgreSQL change log at start', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase('postgres');
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('replaces the statement-level NOTIFY trigger of earlier versions with the log triggers', async () => {
    const first = await openStore(loadConfig(database.env).store);
    await first.close();
    await database.query(`CREATE FUNCTION marketplace_notify_change() RETURNS trigger LANGUAGE plpgsql AS $fn$
      BEGIN PERFORM pg_notify('marketplace_changes', TG_TABLE_NAME); RETURN NULL; END $fn$`);
    await database.query(`CREATE TRIGGER marketplace_notify_change AFTER INSERT OR UPDATE OR DELETE ON purchases
      FOR EACH STATEMENT EXECUTE FUNCTION marketplace_notify_change()`);
    const store = await openStore(loadConfig(database.env).store);
    try {
      const rows = await database.query<{ tgname: string }>(
        `SELECT tgname FROM pg_trigger WHERE tgrelid = 'purchases'::regclass AND NOT tgisinternal ORDER BY tgname`,
      );
      expect(rows.map((row) => row.tgname)).toEqual([
        'marketplace_log_truncate',
        'marketplace_log_update',
        'marketplace_log_write',
      ]);
    } finally {
      await store.close();
    }
  });
});
