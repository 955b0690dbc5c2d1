import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rotateAccountKey } from '../../src/operations/account-keys.js';
import { ACCOUNT_REFERENCES } from '../../src/store/accounts/account-rename.js';
import { createTestApp, TEST_STORES, type TestApp } from '../helpers/test-app.js';

const KEY = 'rename_test_key_0123456789abcdef';

describe('ACCOUNT_REFERENCES', () => {
  it('is every foreign key to accounts.username in the schema (a rename moves each)', async () => {
    const test = await createTestApp('sqlite');
    try {
      const db = new BetterSqlite3(test.config.store.kind === 'sqlite' ? test.config.store.path : '', {
        readonly: true,
      });
      const tables = db
        .prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        .pluck()
        .all();
      const references: { table: string; column: string }[] = [];
      for (const table of tables) {
        const keys = db.pragma(`foreign_key_list(${table})`) as { table: string; from: string; to: string }[];
        for (const key of keys) {
          if (key.table === 'accounts') {
            expect(key.to).toBe('username');
            references.push({ table, column: key.from });
          }
        }
      }
      db.close();
      const byName = (a: { table: string }, b: { table: string }) => a.table.localeCompare(b.table);
      expect(references.sort(byName)).toEqual([...ACCOUNT_REFERENCES].sort(byName));
    } finally {
      await test.close();
    }
  });
});

describe.each(TEST_STORES)('renaming an account inside an import (%s)', (kind) => {
  let test: TestApp;
  let key: string;

  beforeAll(async () => {
    test = await createTestApp(kind, {
      lines: [
        {
          type: 'account',
          username: 'old-name',
          email: 'old@example.com',
          api_key: KEY,
          registered_at: '2024-01-01T00:00:00Z',
          password_hash: '$2y$10$AngX2swGdlWzm9T2jHwUWOQ8xgl1MhFT5rbMBRgYgBixxvRVldLBS',
        },
        { type: 'account', username: 'taken', email: 'taken@example.com', registered_at: '2024-01-01T00:00:00Z' },
        {
          type: 'item',
          id: 7,
          account: 'old-name',
          name: 'Renamed Seller Item',
          description: 'x',
          category: 'Scripts',
          version: '1.0.0',
          preview_type: 'image',
          thumbnail: 'https://cdn.example.com/t.png',
          preview_image: 'https://cdn.example.com/p.png',
          price: { regular: '10.00', extended: '50.00' },
          status: 'approved',
          published_at: '2024-01-02T00:00:00Z',
        },
      ],
    });
    // Rows in every table that refers to the account: sessions, key dates, replaced and retired keys, a link.
    await test.store.createSession({
      id_hash: 'session-hash',
      username: 'old-name',
      created_at: Date.now(),
      last_seen_at: Date.now(),
      csrf_secret: 's',
      credential_tag: 't',
      flash: null,
    });
    // Before the link: an account from MarketBob gets no key made here.
    key = (await rotateAccountKey(test.store, test.keys, 'old-name', 3600))?.key as string;
    await test.store.runImport((session) =>
      session.linkMarketbobUsers([{ username: 'old-name', userId: 12, passwordDigest: 'd' }]),
    );
  });
  afterAll(() => test?.close());

  it('moves the account and everything that refers to it; its key keeps working', async () => {
    const hash = await test.store.passwordHash('old-name');
    await test.store.recordKeyUses([{ username: 'old-name', at: Date.now() + 1000 }]);

    expect(await test.store.runImport((session) => session.renameAccount('old-name', 'new-name'))).toBe(true);

    expect(await test.store.accountByUsername('old-name')).toBeUndefined();
    const details = await test.app.inject({
      method: 'GET',
      url: '/api/account/details',
      headers: { 'x-api-key': key },
    });
    expect(details.statusCode).toBe(200);
    expect((details.json() as { data: { username: string } }).data.username).toBe('new-name');
    // The key the rotation retired still opens it for its grace period, now under the new name.
    const retired = await test.app.inject({
      method: 'GET',
      url: '/api/account/details',
      headers: { 'x-api-key': KEY },
    });
    expect((retired.json() as { data: { username: string } }).data.username).toBe('new-name');
    const items = await test.app.inject({ method: 'GET', url: '/api/items/all', headers: { 'x-api-key': key } });
    expect((items.json() as { items: { id: number }[] }).items.map((item) => item.id)).toEqual([7]);
    expect(await test.store.passwordHash('new-name')).toBe(hash);
    expect((await test.store.session('session-hash'))?.username).toBe('new-name');
    expect((await test.store.keyDate('new-name'))?.at).toBeTypeOf('number');
    expect(await test.store.keyLastUsedAt('new-name')).toBeTypeOf('number');
    expect(await test.store.marketbobUserId('new-name')).toBe(12);
  });

  it('changes nothing when the new name is taken or the old one is not there', async () => {
    expect(await test.store.runImport((session) => session.renameAccount('new-name', 'taken'))).toBe(false);
    expect(await test.store.runImport((session) => session.renameAccount('nobody', 'free-name'))).toBe(false);
    expect((await test.store.accountByUsername('new-name'))?.username).toBe('new-name');
    expect((await test.store.accountByUsername('taken'))?.username).toBe('taken');
    expect(await test.store.accountByUsername('free-name')).toBeUndefined();
  });
});
