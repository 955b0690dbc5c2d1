import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importNdjson } from '../../src/importer/import-ndjson.js';
import { TEST_STORES } from '../helpers/test-database.js';
import {
  accountLine,
  errorLines,
  itemLine,
  keys,
  purchaseLine,
  type TempStore,
  tempStores,
} from './import-fixtures.js';

describe.each(TEST_STORES)('import errors (%s)', (kind) => {
  const newTempStore = tempStores(kind);
  let temp: TempStore;
  beforeEach(async () => {
    temp = await newTempStore();
  });
  afterEach(async () => {
    await temp.close();
  });

  /** The errors of importing a good account and item, then `line` (so it is line 3). */
  async function errorsOf(line: string | object): Promise<string[]> {
    return errorLines(await temp.importLines([accountLine(), itemLine(), line]));
  }

  describe('importNdjson: bad lines', () => {
    it.each([
      ['not JSON', '{"type":"account",', 'not valid JSON'],
      ['not an object', '[1, 2]', 'must be a JSON object'],
      ['a JSON string', '"account"', 'must be a JSON object'],
      ['no type', { username: 'x' }, 'type is required: one of "account", "item", "purchase"'],
      ['an unknown type', { type: 'seller' }, 'type must be one of "account", "item", "purchase"'],
    ])('rejects %s', async (_case, line, message) => {
      expect(await errorsOf(line)).toEqual([`line 3: ${message}`]);
    });

    it.each([
      ['an unknown field', accountLine({ nickname: 'jd' }), 'account: unknown field nickname'],
      ['an unknown nested field', accountLine({ profile: { bio: '' } }), 'account: unknown field profile.bio'],
      ['a missing required field', accountLine({ email: undefined }), 'account: email is required'],
      [
        'several missing fields at once',
        { type: 'account', username: 'x' },
        'account: email is required; registered_at is required',
      ],
      ['a wrong type', accountLine({ firstname: 7 }), 'account: firstname must be a string'],
      ['an unknown status', accountLine({ status: 'banned' }), 'account: status must be one of "active", "suspended"'],
      [
        'white space around a username',
        accountLine({ username: ' jdoe' }),
        'account: username must be non-empty, without white space around it',
      ],
      [
        'an empty username',
        accountLine({ username: '' }),
        'account: username must be non-empty, without white space around it',
      ],
      [
        'a short api_key',
        accountLine({ api_key: 'short' }),
        'account: api_key must be 16 to 128 characters of A-Z, a-z, 0-9, _ and -',
      ],
      [
        'a non-http avatar',
        accountLine({ profile: { avatar: 'ftp://x.example.com/a.png' } }),
        'account: profile.avatar must be an http:// or https:// URL',
      ],
      [
        'a bad social link',
        accountLine({ profile: { social_links: { x: 'x.com/jdoe' } } }),
        'account: profile.social_links.x must be an http:// or https:// URL',
      ],
      [
        'a balance with three decimals',
        accountLine({ balance: '1.005' }),
        'account: balance must have at most two decimals',
      ],
      ['a negative balance', accountLine({ balance: -1 }), 'account: balance must not be negative'],
      ['a boolean balance', accountLine({ balance: true }), 'account: balance must be a string or a number'],
      [
        'a timestamp without a zone',
        accountLine({ registered_at: '2023-01-02T03:04:05' }),
        'account: registered_at must be an ISO 8601 date-time with Z or an offset, such as 2024-05-01T12:00:00Z',
      ],
      [
        'a date that does not exist',
        accountLine({ registered_at: '2023-02-29T00:00:00Z' }),
        'account: registered_at must be an ISO 8601 date-time with Z or an offset, such as 2024-05-01T12:00:00Z',
      ],
    ])('rejects an account with %s', async (_case, line, message) => {
      expect(await errorsOf(line)).toEqual([`line 3: ${message}`]);
    });

    it.each([
      ['version 1.2', itemLine({ version: '1.2' }), 'item: version must be major.minor.patch, such as 1.2.3'],
      ['a numeric version', itemLine({ version: 1.2 }), 'item: version must be a string'],
      [
        'a preview image on an audio item',
        itemLine({ preview_type: 'audio', preview_audio: 'https://cdn.example.com/a.mp3' }),
        'item: preview_image is not allowed for preview_type audio (it takes preview_audio)',
      ],
      [
        'a preview video on an image item',
        itemLine({ preview_video: 'https://cdn.example.com/v.mp4' }),
        'item: preview_video is not allowed for preview_type image (it takes preview_image)',
      ],
      [
        'an unknown preview type',
        itemLine({ preview_type: 'gif' }),
        'item: preview_type must be one of "image", "video", "audio"',
      ],
      ['a missing thumbnail', itemLine({ thumbnail: undefined }), 'item: thumbnail is required'],
      [
        'a relative screenshot',
        itemLine({ screenshots: ['/s.png'] }),
        'item: screenshots[0] must be an http:// or https:// URL',
      ],
      [
        'a price with three decimals',
        itemLine({ price: { regular: '19.999', extended: 49 } }),
        'item: price.regular must have at most two decimals',
      ],
      [
        'a negative extended price',
        itemLine({ price: { regular: 1, extended: '-5' } }),
        'item: price.extended must not be negative',
      ],
      ['a price missing its extended amount', itemLine({ price: { regular: 1 } }), 'item: price.extended is required'],
      [
        'an id of zero',
        itemLine({ id: 0 }),
        'item: id must be a whole number from 1 to 999999999999999 (a number or a string of digits)',
      ],
      [
        'a fractional id',
        itemLine({ id: 1.5 }),
        'item: id must be a whole number from 1 to 999999999999999 (a number or a string of digits)',
      ],
      [
        'a 16-digit id',
        itemLine({ id: '1234567890123456' }),
        'item: id must be a whole number from 1 to 999999999999999 (a number or a string of digits)',
      ],
      ['supported as a string', itemLine({ supported: 'yes' }), 'item: supported must be true or false'],
    ])('rejects an item with %s', async (_case, line, message) => {
      expect(await errorsOf(line)).toEqual([`line 3: ${message}`]);
    });

    it.each([
      [
        'a space inside the code',
        purchaseLine({ code: 'ABC 123' }),
        'purchase: code must be 1 to 100 characters of A-Z, a-z, 0-9, - and _',
      ],
      [
        'a code of 101 characters',
        purchaseLine({ code: 'a'.repeat(101) }),
        'purchase: code must be 1 to 100 characters of A-Z, a-z, 0-9, - and _',
      ],
      [
        'a blank code',
        purchaseLine({ code: '   ' }),
        'purchase: code must be 1 to 100 characters of A-Z, a-z, 0-9, - and _',
      ],
      ['a missing item_id', purchaseLine({ item_id: undefined }), 'purchase: item_id is required'],
      [
        'an unknown license',
        purchaseLine({ license_type: 'Regular' }),
        'purchase: license_type must be one of "regular", "extended"',
      ],
      [
        'a price with three decimals',
        purchaseLine({ price: 19.999 }),
        'purchase: price must have at most two decimals',
      ],
      [
        'a bad date',
        purchaseLine({ date: 'yesterday' }),
        'purchase: date must be an ISO 8601 date-time with Z or an offset, such as 2024-05-01T12:00:00Z',
      ],
      [
        'a bad support end',
        purchaseLine({ supported_until: '2025-13-01T00:00:00Z' }),
        'purchase: supported_until must be an ISO 8601 date-time with Z or an offset, such as 2024-05-01T12:00:00Z',
      ],
      [
        'an item that does not exist',
        purchaseLine({ item_id: 555 }),
        'purchase: item_id 555 does not exist (not in this file before this line, nor in the store)',
      ],
    ])('rejects a purchase with %s', async (_case, line, message) => {
      expect(await errorsOf(line)).toEqual([`line 3: ${message}`]);
    });

    it.each([
      ['an account', accountLine({ nickname: null }), 'account: unknown field nickname'],
      ['an account profile', accountLine({ profile: { bio: null } }), 'account: unknown field profile.bio'],
      ['an item', itemLine({ preview_gif: null }), 'item: unknown field preview_gif'],
      ['an item price', itemLine({ price: { regular: 1, extended: 2, sale: null } }), 'item: unknown field price.sale'],
      [
        'a purchase, beside known fields given as null',
        purchaseLine({ status: null, refunded_at: null, downloaded: null }),
        'purchase: unknown field refunded_at',
      ],
    ])(
      'rejects an unknown field given as null in %s (SPEC 5: unknown fields are errors)',
      async (_case, line, message) => {
        expect(await errorsOf(line)).toEqual([`line 3: ${message}`]);
      },
    );

    it('accepts a code with white space around it, trimmed', async () => {
      expect((await temp.importLines([accountLine(), itemLine(), purchaseLine({ code: '\tABC-1 ' })])).ok).toBe(true);
      expect((await temp.store.purchase('abc-1'))?.code).toBe('ABC-1');
    });

    it('reports every problem of a line at once', async () => {
      expect(await errorsOf(purchaseLine({ code: 'a b', price: '-1', date: 'soon' }))).toEqual([
        'line 3: purchase: code must be 1 to 100 characters of A-Z, a-z, 0-9, - and _; price must not be negative; ' +
          'date must be an ISO 8601 date-time with Z or an offset, such as 2024-05-01T12:00:00Z',
      ]);
    });
  });

  describe('importNdjson: references follow the order of the file', () => {
    it('rejects an item whose account only comes later', async () => {
      const result = await temp.importLines([itemLine(), accountLine()]);
      expect(errorLines(result)).toEqual([
        'line 1: item: account "jdoe" does not exist (not in this file before this line, nor in the store)',
      ]);
    });

    it('rejects a purchase whose item only comes later', async () => {
      const result = await temp.importLines([accountLine(), purchaseLine(), itemLine()]);
      expect(errorLines(result)).toEqual([
        'line 2: purchase: item_id 101 does not exist (not in this file before this line, nor in the store)',
      ]);
    });

    it('does not blame later lines for a bad line they name', async () => {
      const result = await temp.importLines([accountLine({ email: 5 }), itemLine({ version: '2' }), purchaseLine()]);
      expect(errorLines(result)).toEqual([
        'line 1: account: email must be a string',
        'line 2: item: version must be major.minor.patch, such as 1.2.3',
      ]);
    });
  });

  describe('importNdjson: all or nothing', () => {
    it('lists the first 50 bad lines and counts them all', async () => {
      const lines = [accountLine(), ...Array.from({ length: 60 }, (_, n) => itemLine({ id: n + 1, version: 'x' }))];
      const result = await temp.importLines(lines);
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.errorCount).toBe(60);
      expect(result.errors).toHaveLength(50);
      expect(result.errors[0]).toEqual({ line: 2, message: 'item: version must be major.minor.patch, such as 1.2.3' });
      expect(result.errors[49]?.line).toBe(51);
    });

    it('lists bad lines in file order across batches, whatever made them bad', async () => {
      const lines: (string | object)[] = [accountLine()];
      for (let n = 1; n <= 10_000; n++) lines.push(itemLine({ id: n }));
      lines.push(purchaseLine({ item_id: 99_999 }), '{', itemLine({ id: 1, account: 'nobody' }));
      const result = await temp.importLines(lines);
      expect(errorLines(result)).toEqual([
        'line 10002: purchase: item_id 99999 does not exist (not in this file before this line, nor in the store)',
        'line 10003: not valid JSON',
        'line 10004: item: account "nobody" does not exist (not in this file before this line, nor in the store)',
      ]);
      expect((await temp.snapshot()).items).toEqual([]);
    });

    it('leaves the store exactly as it was when only the last line is bad', async () => {
      await temp.importLines([accountLine(), itemLine(), purchaseLine()]);
      const before = await temp.snapshot();
      const lines: object[] = [accountLine({ lastname: 'Changed' }), accountLine({ username: 'new' })];
      for (let n = 1; n <= 5000; n++) lines.push(itemLine({ id: 1000 + n, account: 'new' }));
      lines.push(purchaseLine({ status: 'refunded' }), purchaseLine({ code: 'last', date: 'not a date' }));
      const result = await temp.importLines(lines);
      expect(errorLines(result)).toEqual([
        'line 5004: purchase: date must be an ISO 8601 date-time with Z or an offset, such as 2024-05-01T12:00:00Z',
      ]);
      const after = await temp.snapshot();
      expect(after.accounts).toHaveLength(1);
      expect(after.items).toHaveLength(1);
      expect(after).toEqual(before);
    });

    it('rolls back and throws when the input fails midway', async () => {
      async function* failing() {
        yield `${JSON.stringify(accountLine())}\n`;
        yield `${JSON.stringify(itemLine())}\n`;
        throw new Error('disk went away');
      }
      await expect(importNdjson(temp.store, keys, failing())).rejects.toThrow('disk went away');
      expect(await temp.snapshot()).toEqual({ accounts: [], items: [], purchases: [] });
      // And the store is usable afterwards.
      expect((await temp.importLines([accountLine()])).ok).toBe(true);
    });

    it('never repeats a key in a message', async () => {
      const key = 'secret-Key-0123456789abcdefghij';
      const result = await temp.importLines([
        `{"type":"account","api_key":"${key}",`,
        accountLine({ api_key: key }),
        accountLine({ username: 'b', api_key: key, balance: -1 }),
        accountLine({ username: 'c', api_key: key }),
      ]);
      expect(errorLines(result)).toEqual([
        'line 1: not valid JSON',
        'line 3: account: balance must not be negative',
        'line 4: account: api_key is already the key of account "jdoe" (two accounts cannot share a key)',
      ]);
      expect(JSON.stringify(result)).not.toContain(key);
    });
  });

  describe('importNdjson: line numbers', () => {
    it('counts blank lines, skips them, and accepts CRLF line ends', async () => {
      const text = `\n  \n${JSON.stringify(accountLine())}\r\n\t\r\n${JSON.stringify(itemLine({ version: '1' }))}\r\n\n`;
      const result = await importNdjson(temp.store, keys, Readable.from([text]));
      expect(errorLines(result)).toEqual(['line 5: item: version must be major.minor.patch, such as 1.2.3']);
    });

    it('imports nothing from an empty input', async () => {
      const result = await importNdjson(temp.store, keys, Readable.from(['', '\n\n']));
      expect(result.ok && result.counts.account.inserted).toBe(0);
    });
  });
});
