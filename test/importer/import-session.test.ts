import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AccountRecord, ItemRecord } from '../../src/records/rows.js';
import { ImportRowRejectedError } from '../../src/store/store.js';
import { TEST_STORES } from '../helpers/test-database.js';
import { counts, type TempStore, tempStores } from './import-fixtures.js';

describe.each(TEST_STORES)('the import session (%s)', (kind) => {
  const newTempStore = tempStores(kind);
  let temp: TempStore;
  beforeEach(async () => {
    temp = await newTempStore();
  });
  afterEach(async () => {
    await temp.close();
  });

  const account = (username: string, email = `${username}@example.com`): AccountRecord => ({
    username,
    email,
    firstname: '',
    lastname: '',
    balance: 0,
    status: 'active',
    registered_at: '2024-01-01T00:00:00.000Z',
    heading: '',
    description: '',
    contact_email: '',
    social_links: '[]',
    avatar: '',
    cover: '',
    marketbob: '',
  });

  const item = (id: number, owner: string): ItemRecord => ({
    id,
    account: owner,
    name: 'n',
    description: '',
    category: '',
    sub_category: '',
    options: '[]',
    version: '1.0.0',
    demo_link: '',
    tags: '[]',
    preview_type: 'image',
    thumbnail: 'https://cdn.example.com/t.png',
    preview_image: '',
    preview_video: '',
    preview_audio: '',
    screenshots: '[]',
    price_regular: 100,
    price_extended: 500,
    supported: 0,
    status: 'approved',
    published_at: '2024-01-01T00:00:00.000Z',
    marketbob: '',
  });

  const key = (n: number) => ({ digest: `digest-${n}`, cipher: `cipher-${n}` });

  describe('upserts', () => {
    it('upserts, counts exactly and answers lookups inside the transaction', async () => {
      await temp.store.runImport(async (session) => {
        expect(
          await session.upsertAccounts([
            { record: account('a'), key: key(1) },
            { record: account('b'), key: key(2) },
          ]),
        ).toEqual(counts(2, 0, 0));
        expect(
          await session.upsertAccounts([
            { record: account('a'), key: undefined },
            { record: account('b', 'new@example.com'), key: undefined },
          ]),
        ).toEqual(counts(0, 1, 1));
        expect(await session.upsertAccounts([{ record: account('a'), key: key(3) }])).toEqual(counts(0, 1, 0));
        expect(await session.accountKeys(['a', 'b', 'c'])).toEqual(
          new Map([
            ['a', 'digest-3'],
            ['b', 'digest-2'],
          ]),
        );
        expect(await session.keyOwners(['digest-1', 'digest-2', 'digest-3'])).toEqual(
          new Map([
            ['digest-2', 'b'],
            ['digest-3', 'a'],
          ]),
        );
        expect(await session.upsertItems([item(1, 'a'), item(2, 'b')])).toEqual(counts(2, 0, 0));
        expect(await session.upsertItems([item(1, 'a'), item(2, 'a')])).toEqual(counts(0, 1, 1));
        expect(await session.existingItems([1, 2, 3])).toEqual(new Set([1, 2]));
      });
      expect((await temp.store.accountByUsername('b'))?.email).toBe('new@example.com');
      expect((await temp.store.item(2))?.account).toBe('a');
    });

    it('names the row the store refuses', async () => {
      const attempt = temp.store.runImport(async (session) => {
        await session.upsertAccounts([{ record: account('a'), key: key(1) }]);
        await session.upsertItems([item(1, 'a'), item(2, 'nobody')]);
      });
      await expect(attempt).rejects.toBeInstanceOf(ImportRowRejectedError);
      await expect(attempt).rejects.toMatchObject({ index: 1, reason: 'FOREIGN KEY constraint failed' });
      expect(await temp.snapshot()).toEqual({ accounts: [], items: [], purchases: [] });

      const duplicateKey = temp.store.runImport(async (session) => {
        await session.upsertAccounts([
          { record: account('a'), key: key(1) },
          { record: account('b'), key: key(1) },
        ]);
      });
      await expect(duplicateKey).rejects.toMatchObject({
        index: 1,
        reason: 'UNIQUE constraint failed: accounts.key_digest',
      });
    });

    it('keeps the writes out of sight of the store until the commit', async () => {
      await temp.store.runImport(async (session) => {
        await session.upsertAccounts([{ record: account('a'), key: key(1) }]);
        expect(await temp.store.accountByUsername('a')).toBeUndefined();
      });
      expect((await temp.store.accountByUsername('a'))?.key_digest).toBe('digest-1');
    });
  });
});
