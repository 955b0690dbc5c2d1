import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decryptApiKey, digestApiKey } from '../../src/keys/api-keys.js';
import { rotateAccountKey } from '../../src/operations/account-keys.js';
import { TEST_STORES } from '../helpers/test-database.js';
import {
  accountLine,
  counts,
  errorLines,
  itemLine,
  keys,
  purchaseLine,
  type TempStore,
  tempStores,
} from './import-fixtures.js';

describe.each(TEST_STORES)('import upserts (%s)', (kind) => {
  const newTempStore = tempStores(kind);
  let temp: TempStore;
  beforeEach(async () => {
    temp = await newTempStore();
  });
  afterEach(async () => {
    await temp.close();
  });

  const GIVEN_KEY = 'given-Key_0123456789abcdef';

  describe('importNdjson: records', () => {
    it('stores an account, an item and a purchase as the store keeps them', async () => {
      const result = await temp.importLines([accountLine(), itemLine(), purchaseLine()]);
      expect(result).toEqual({
        ok: true,
        counts: { account: counts(1, 0, 0), item: counts(1, 0, 0), purchase: counts(1, 0, 0) },
      });

      const account = await temp.store.accountByUsername('jdoe');
      expect(account).toEqual({
        username: 'jdoe',
        email: 'j@example.com',
        firstname: 'Jo',
        lastname: 'Doe',
        balance: 12050,
        status: 'active',
        registered_at: '2023-01-02T03:04:05.000Z',
        heading: 'Admin themes',
        description: 'Since 2023.',
        contact_email: 'help@example.com',
        social_links: '[["github","https://github.com/jdoe"],["x","https://x.com/jdoe"]]',
        avatar: 'https://cdn.example.com/a.png',
        cover: 'https://cdn.example.com/c.png',
        marketbob: '',
        key_digest: expect.stringMatching(/^[0-9a-f]{64}$/),
        key_cipher: expect.any(String),
      });

      expect(await temp.store.item(101)).toEqual({
        id: 101,
        account: 'jdoe',
        name: 'Clean Admin',
        description: 'An admin theme.',
        category: 'Scripts',
        sub_category: 'PHP',
        options: '["Responsive"]',
        version: '1.2.3',
        demo_link: 'https://demo.example.com',
        tags: '["admin","dark"]',
        preview_type: 'image',
        thumbnail: 'https://cdn.example.com/t.png',
        preview_image: 'https://cdn.example.com/p.png',
        preview_video: '',
        preview_audio: '',
        screenshots: '["https://cdn.example.com/s1.png"]',
        price_regular: 1999,
        price_extended: 4900,
        supported: 1,
        status: 'approved',
        published_at: '2023-01-31T22:00:00.000Z',
        marketbob: '',
      });

      const purchase = await temp.store.purchase('abc-123_x');
      expect(purchase).toEqual({
        code_key: 'abc-123_x',
        code: 'ABC-123_x',
        item_id: 101,
        license_type: 'regular',
        price: 1999,
        supported_until: '2025-02-01T00:00:00.000Z',
        downloaded: 1,
        status: 'active',
        date: '2024-02-01T10:00:00.250Z',
        marketbob: '',
      });
      expect((await temp.store.item(101))?.id).toBe(101);
    });

    it('gives fields left out their defaults', async () => {
      const result = await temp.importLines([
        { type: 'account', username: 'min', email: 'm@example.com', registered_at: '2024-01-01T00:00:00Z' },
        {
          type: 'item',
          id: '0042',
          account: 'min',
          name: 'Song',
          version: '0.0.1',
          preview_type: 'audio',
          thumbnail: 'http://cdn.example.com/t.png',
          price: { regular: 0, extended: '0.5' },
          status: 'pending',
          published_at: '2024-01-02T00:00:00Z',
        },
        {
          code: '  Spaced-Code  ',
          item_id: 42,
          license_type: 'extended',
          price: 1.5,
          date: '2024-01-03T00:00:00Z',
          type: 'purchase',
        },
      ]);
      expect(result.ok).toBe(true);
      expect(await temp.store.accountByUsername('min')).toMatchObject({
        firstname: '',
        lastname: '',
        balance: 0,
        status: 'active',
        heading: '',
        description: '',
        contact_email: '',
        social_links: '[]',
        avatar: '',
        cover: '',
      });
      expect(await temp.store.item(42)).toMatchObject({
        description: '',
        category: '',
        sub_category: '',
        options: '[]',
        tags: '[]',
        demo_link: '',
        preview_image: '',
        preview_video: '',
        preview_audio: '',
        screenshots: '[]',
        price_regular: 0,
        price_extended: 50,
        supported: 0,
      });
      expect(await temp.store.purchase('spaced-code')).toEqual({
        code_key: 'spaced-code',
        code: 'Spaced-Code',
        item_id: 42,
        license_type: 'extended',
        price: 150,
        supported_until: '',
        downloaded: 0,
        status: 'active',
        date: '2024-01-03T00:00:00.000Z',
        marketbob: '',
      });
    });

    it('reads a field given as null as a field left out: its default, or missing when required', async () => {
      const result = await temp.importLines([
        accountLine({ firstname: null, profile: { heading: null, social_links: null, avatar: null } }),
        itemLine({
          id: 8,
          preview_type: 'image',
          preview_video: null,
          preview_audio: null,
          screenshots: null,
          demo_link: null,
        }),
        purchaseLine({ code: 'NULL-SUPPORT', item_id: 8, supported_until: null, downloaded: null, status: null }),
      ]);
      expect(result.ok).toBe(true);
      expect(await temp.store.item(8)).toMatchObject({
        preview_video: '',
        preview_audio: '',
        screenshots: '[]',
        demo_link: '',
      });
      expect(await temp.store.purchase('null-support')).toMatchObject({
        supported_until: '',
        downloaded: 0,
        status: 'active',
      });
      const missing = await temp.importLines([purchaseLine({ code: 'NO-DATE', item_id: 8, date: null })]);
      expect(errorLines(missing)).toEqual([expect.stringMatching(/^line 1: purchase: date /)]);
    });

    it('keeps only the preview fields the preview type allows', async () => {
      const result = await temp.importLines([
        accountLine(),
        itemLine({
          id: 7,
          preview_type: 'video',
          preview_image: 'https://cdn.example.com/v.jpg',
          preview_video: 'https://cdn.example.com/v.mp4',
          preview_audio: '',
        }),
      ]);
      expect(result.ok).toBe(true);
      expect(await temp.store.item(7)).toMatchObject({
        preview_type: 'video',
        preview_image: 'https://cdn.example.com/v.jpg',
        preview_video: 'https://cdn.example.com/v.mp4',
        preview_audio: '',
      });
    });
  });

  describe('importNdjson: upserts', () => {
    const file = [
      accountLine(),
      accountLine({ username: 'other', api_key: GIVEN_KEY }),
      itemLine(),
      itemLine({ id: 102, account: 'other' }),
      purchaseLine(),
      purchaseLine({ code: 'second' }),
    ];

    it('changes nothing when the same file is imported again', async () => {
      expect((await temp.importLines(file)).ok).toBe(true);
      const before = await temp.snapshot();
      const again = await temp.importLines(file);
      expect(again).toEqual({
        ok: true,
        counts: { account: counts(0, 0, 2), item: counts(0, 0, 2), purchase: counts(0, 0, 2) },
      });
      expect(await temp.snapshot()).toEqual(before);
    });

    it('counts a changed row as updated and replaces it whole', async () => {
      await temp.importLines(file);
      const before = await temp.snapshot();
      const result = await temp.importLines([
        accountLine({ firstname: undefined, email: 'new@example.com' }),
        itemLine({ price: { regular: '21', extended: 49 } }),
        itemLine({ id: 102, account: 'other' }),
        purchaseLine({ code: 'second', status: 'refunded' }),
      ]);
      expect(result).toEqual({
        ok: true,
        counts: { account: counts(0, 1, 0), item: counts(0, 1, 1), purchase: counts(0, 1, 0) },
      });
      const account = await temp.store.accountByUsername('jdoe');
      expect(account).toMatchObject({ email: 'new@example.com', firstname: '' });
      // The key is not part of the line: it stays.
      expect(account?.key_digest).toBe(before.accounts[0]?.key_digest);
      expect(account?.key_cipher).toBe(before.accounts[0]?.key_cipher);
      expect((await temp.store.item(101))?.price_regular).toBe(2100);
      expect((await temp.store.purchase('second'))?.status).toBe('refunded');
    });

    it('treats codes that differ only in case as one purchase, keeping the latest spelling', async () => {
      const result = await temp.importLines([
        accountLine(),
        itemLine(),
        purchaseLine({ code: 'ABC-1' }),
        purchaseLine({ code: 'abc-1' }),
      ]);
      expect(result.ok && result.counts.purchase).toEqual(counts(1, 1, 0));
      expect((await temp.snapshot()).purchases).toHaveLength(1);
      expect((await temp.store.purchase('abc-1'))?.code).toBe('abc-1');

      const again = await temp.importLines([purchaseLine({ code: 'Abc-1' })]);
      expect(again.ok && again.counts.purchase).toEqual(counts(0, 1, 0));
      expect((await temp.store.purchase('abc-1'))?.code).toBe('Abc-1');
    });

    it('counts a row repeated in one file as inserted, then updated or unchanged', async () => {
      const result = await temp.importLines([
        accountLine(),
        accountLine({ lastname: 'Changed' }),
        accountLine({ lastname: 'Changed' }),
      ]);
      expect(result.ok && result.counts.account).toEqual(counts(1, 1, 1));
      expect((await temp.store.accountByUsername('jdoe'))?.lastname).toBe('Changed');
    });

    it('finds accounts and items already in the store', async () => {
      await temp.importLines([accountLine(), itemLine()]);
      const result = await temp.importLines([itemLine({ id: 5 }), purchaseLine({ item_id: '101' })]);
      expect(result).toEqual({
        ok: true,
        counts: { account: counts(0, 0, 0), item: counts(1, 0, 0), purchase: counts(1, 0, 0) },
      });
    });
  });

  describe('importNdjson: keys', () => {
    it('stores a key given in the file so that it works', async () => {
      await temp.importLines([accountLine({ api_key: GIVEN_KEY })]);
      const account = await temp.store.accountByUsername('jdoe');
      expect(account?.key_digest).toBe(digestApiKey(keys, GIVEN_KEY));
      expect(decryptApiKey(keys, account?.key_cipher ?? '')).toBe(GIVEN_KEY);
      expect((await temp.store.accountByKeyDigest(digestApiKey(keys, GIVEN_KEY)))?.username).toBe('jdoe');
    });

    it('leaves a key alone when the file gives it again, or gives none', async () => {
      await temp.importLines([accountLine({ api_key: GIVEN_KEY })]);
      const before = await temp.snapshot();
      const same = await temp.importLines([accountLine({ api_key: GIVEN_KEY })]);
      expect(same.ok && same.counts.account).toEqual(counts(0, 0, 1));
      const none = await temp.importLines([accountLine()]);
      expect(none.ok && none.counts.account).toEqual(counts(0, 0, 1));
      // Not even encrypted again: the row is exactly as it was.
      expect(await temp.snapshot()).toEqual(before);
    });

    it('takes a key the account never had in place of its current one (SPEC 5: it works from then on)', async () => {
      await temp.importLines([accountLine({ api_key: GIVEN_KEY })]);
      const result = await temp.importLines([accountLine({ api_key: 'another-key-0123456789' })]);
      expect(result.ok && result.counts.account).toEqual(counts(0, 1, 0));
      const account = await temp.store.accountByUsername('jdoe');
      expect(account?.key_digest).toBe(digestApiKey(keys, 'another-key-0123456789'));
      expect(await temp.store.accountByKeyDigest(digestApiKey(keys, GIVEN_KEY))).toBeUndefined();
    });

    it('refuses a line that would bring back a key the account lost (rotated or replaced), unless told to', async () => {
      await temp.importLines([accountLine({ api_key: GIVEN_KEY })]);
      const rotated = await rotateAccountKey(temp.store, keys, 'jdoe');
      const before = await temp.snapshot();
      const refused = await temp.importLines([itemLine(), accountLine({ api_key: GIVEN_KEY })]);
      expect(errorLines(refused)).toEqual([
        'line 2: account: api_key is a key this account had before and that was replaced; importing it would ' +
          'bring it back in place of the current key (to do so: import --replace-keys, or replace_keys=true in the admin API)',
      ]);
      expect(JSON.stringify(refused)).not.toContain(GIVEN_KEY);
      expect(await temp.snapshot()).toEqual(before);

      // A key replaced by an import is a former key too.
      await temp.importLines([accountLine({ api_key: 'another-key-0123456789' })]);
      const back = await temp.importLines([accountLine({ api_key: rotated?.key ?? '' })]);
      expect(errorLines(back)).toHaveLength(1);

      const result = await temp.importLines([accountLine({ api_key: GIVEN_KEY })], { replaceKeys: true });
      expect(result.ok && result.counts.account).toEqual(counts(0, 1, 0));
      const account = await temp.store.accountByUsername('jdoe');
      expect(account?.key_digest).toBe(digestApiKey(keys, GIVEN_KEY));
      expect(await temp.store.accountByKeyDigest(digestApiKey(keys, 'another-key-0123456789'))).toBeUndefined();
    });

    it('refuses a key another account lost (rotated away, or given up earlier in the file), unless told to', async () => {
      const ANOTHER =
        'api_key is a key another account had before and that was replaced; importing it would bring it back ' +
        'for this account (to do so: import --replace-keys, or replace_keys=true in the admin API)';
      await temp.importLines([accountLine({ api_key: GIVEN_KEY })]);
      await rotateAccountKey(temp.store, keys, 'jdoe');
      const before = await temp.snapshot();
      const refused = await temp.importLines([
        accountLine({ username: 'thief', email: 't@example.com', api_key: GIVEN_KEY }),
      ]);
      expect(errorLines(refused)).toEqual([`line 1: account: ${ANOTHER}`]);
      expect(JSON.stringify(refused)).not.toContain(GIVEN_KEY);
      expect(await temp.snapshot()).toEqual(before);
      expect(await temp.store.accountByKeyDigest(digestApiKey(keys, GIVEN_KEY))).toBeUndefined();

      // A key the file itself takes from one account is not given to another either.
      const held = await temp.importLines([accountLine({ api_key: 'third-key-0123456789' })]);
      expect(held.ok).toBe(true);
      const stolen = await temp.importLines([
        accountLine({ api_key: 'fifth-key-0123456789' }),
        accountLine({ username: 'thief', email: 't@example.com', api_key: 'third-key-0123456789' }),
      ]);
      expect(errorLines(stolen)).toEqual([`line 2: account: ${ANOTHER}`]);

      const replaced = await temp.importLines(
        [accountLine({ username: 'thief', email: 't@example.com', api_key: GIVEN_KEY })],
        { replaceKeys: true },
      );
      expect(replaced.ok).toBe(true);
      expect((await temp.store.accountByKeyDigest(digestApiKey(keys, GIVEN_KEY)))?.username).toBe('thief');
    });

    it('gives each new account without a key a fresh one', async () => {
      await temp.importLines([accountLine(), accountLine({ username: 'second' })]);
      const first = await temp.store.accountByUsername('jdoe');
      const second = await temp.store.accountByUsername('second');
      const firstKey = decryptApiKey(keys, first?.key_cipher ?? '');
      const secondKey = decryptApiKey(keys, second?.key_cipher ?? '');
      expect(firstKey).toMatch(/^[0-9a-f]{64}$/);
      expect(secondKey).toMatch(/^[0-9a-f]{64}$/);
      expect(firstKey).not.toBe(secondKey);
      expect(first?.key_digest).toBe(digestApiKey(keys, firstKey));
    });

    it('rejects a key another account holds, in the same file or in the store, without showing it', async () => {
      const sameFile = await temp.importLines([
        accountLine({ api_key: GIVEN_KEY }),
        accountLine({ username: 'thief', api_key: GIVEN_KEY }),
      ]);
      expect(errorLines(sameFile)).toEqual([
        'line 2: account: api_key is already the key of account "jdoe" (two accounts cannot share a key)',
      ]);
      expect((await temp.snapshot()).accounts).toEqual([]);

      await temp.importLines([accountLine({ api_key: GIVEN_KEY })]);
      const inStore = await temp.importLines([accountLine({ username: 'thief', api_key: GIVEN_KEY })]);
      expect(errorLines(inStore)).toEqual([
        'line 1: account: api_key is already the key of account "jdoe" (two accounts cannot share a key)',
      ]);
      expect(JSON.stringify(inStore)).not.toContain(GIVEN_KEY);
    });

    it('ends the keys a rotation retired when it replaces the key: only the imported one opens the account', async () => {
      await temp.importLines([accountLine({ api_key: GIVEN_KEY })]);
      const rotated = await rotateAccountKey(temp.store, keys, 'jdoe', 3600);
      if (!rotated) throw new Error('jdoe has no account');
      const now = Date.now();
      expect((await temp.store.accountByRetiredKeyDigest(digestApiKey(keys, GIVEN_KEY), now))?.account.username).toBe(
        'jdoe',
      );
      const result = await temp.importLines([accountLine({ api_key: 'imported-key-0123456789' })], {
        replaceKeys: true,
      });
      expect(result.ok).toBe(true);
      for (const key of [GIVEN_KEY, rotated.key]) {
        expect(await temp.store.accountByKeyDigest(digestApiKey(keys, key))).toBeUndefined();
        expect(await temp.store.accountByRetiredKeyDigest(digestApiKey(keys, key), now)).toBeUndefined();
      }
      expect((await temp.store.accountByKeyDigest(digestApiKey(keys, 'imported-key-0123456789')))?.username).toBe(
        'jdoe',
      );
    });

    it('lets a key move to another account once its holder has been given a new one', async () => {
      await temp.importLines([accountLine({ api_key: GIVEN_KEY })]);
      const result = await temp.importLines(
        [accountLine({ api_key: 'replacement-key-0123456789' }), accountLine({ username: 'heir', api_key: GIVEN_KEY })],
        { replaceKeys: true },
      );
      expect(result.ok).toBe(true);
      expect((await temp.store.accountByKeyDigest(digestApiKey(keys, GIVEN_KEY)))?.username).toBe('heir');
    });
  });
});
