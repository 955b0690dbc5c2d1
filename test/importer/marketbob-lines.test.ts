import { Readable, Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { exportNdjson } from '../../src/exporter/export-ndjson.js';
import { importNdjson } from '../../src/importer/import-ndjson.js';
import { openStore } from '../../src/store/open-store.js';
import { readSnapshot } from '../../src/store/snapshot.js';
import { CHANGE_CHECK_INTERVAL_MS } from '../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import { MB_CODES, MB_KEYS, MB_LINES } from '../api/marketbob-fixtures.js';
import { createTestApp, TEST_STORES, type TestApp } from '../helpers/test-app.js';

type Line = Record<string, unknown>;

function capture(): NodeJS.WritableStream & { text(): string } {
  let text = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk);
      done();
    },
  });
  return Object.assign(stream, { text: () => text });
}

const byType = (text: string, type: string) =>
  text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Line)
    .filter((line) => line.type === type);

/** A line's object as the store keeps it: a date in the store's own UTC text, as every date of a line. */
const asStored = (marketbob: unknown) => {
  if (marketbob === undefined) return undefined;
  const { supported_until: until, ...rest } = marketbob as Line;
  return until === undefined ? rest : { ...rest, supported_until: new Date(String(until)).toISOString() };
};

const keyOf = (line: Line) => String(line.username ?? line.id ?? line.code);

describe.each(TEST_STORES)('import lines with and without a marketbob object (%s store)', (kind) => {
  let t: TestApp;
  let exported: string;
  beforeAll(async () => {
    t = await createTestApp(kind, { lines: MB_LINES });
    exported = await readSnapshot(t.config.store, async (snapshot) => {
      const out = capture();
      await exportNdjson(snapshot, t.keys, out);
      return out.text();
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it.each(['account', 'item', 'purchase'])(
    'exports each %s line with its marketbob object as imported, or none',
    (type) => {
      const given = new Map(
        (MB_LINES as Line[]).filter((line) => line.type === type).map((line) => [keyOf(line), line]),
      );
      const back = byType(exported, type);
      expect(back.length).toBe(given.size);
      for (const line of back) expect(line.marketbob).toEqual(asStored((given.get(keyOf(line)) as Line).marketbob));
    },
  );

  it('keeps the nulls inside an object MarketBob stores as it is (social links)', () => {
    const maker = byType(exported, 'account').find((line) => line.username === 'maker') as Line;
    expect((maker.marketbob as Line).social_links).toEqual({
      facebook: 'https://facebook.com/mara',
      x: null,
      '2nd': 'https://two.example/mara',
    });
  });

  it('imports the export into a fresh store as the same rows, and again as nothing changed', async () => {
    const target = await createTestApp(kind);
    try {
      const first = await importNdjson(target.store, target.keys, Readable.from([exported]));
      expect(first.ok).toBe(true);
      const again = await importNdjson(target.store, target.keys, Readable.from([exported]));
      expect(again).toEqual({
        ok: true,
        counts: {
          account: { inserted: 0, updated: 0, unchanged: 5 },
          item: { inserted: 0, updated: 0, unchanged: 8 },
          purchase: { inserted: 0, updated: 0, unchanged: 6 },
        },
      });
      for (const code of Object.values(MB_CODES)) {
        expect(await target.store.purchase(code)).toEqual(await t.store.purchase(code));
      }
      for (const id of [1001, 1002, 4001]) expect(await target.store.item(id)).toEqual(await t.store.item(id));
      const maker = await target.store.accountByUsername('maker');
      expect(maker?.marketbob).toBe((await t.store.accountByUsername('maker'))?.marketbob);
      expect((await target.store.accountByUsername('plain'))?.marketbob).toBe('');
    } finally {
      await target.close();
    }
  });

  it('stores a changed marketbob object as an update, and a line without one as none', async () => {
    const line = (MB_LINES as Line[]).find((l) => l.type === 'purchase' && l.code === MB_CODES.banned) as Line;
    const changed = await importNdjson(
      t.store,
      t.keys,
      Readable.from([JSON.stringify({ ...line, marketbob: { price: 11 } })]),
    );
    expect(changed).toMatchObject({ ok: true, counts: { purchase: { updated: 1 } } });
    expect((await t.store.purchase(MB_CODES.banned))?.marketbob).toBe('{"price":11}');
    const { marketbob: _dropped, ...without } = line;
    await importNdjson(t.store, t.keys, Readable.from([JSON.stringify(without)]));
    expect((await t.store.purchase(MB_CODES.banned))?.marketbob).toBe('');
  });

  it.each([
    [
      'an unknown property',
      {
        type: 'purchase',
        code: 'x-1',
        item_id: 1001,
        license_type: 'regular',
        price: '1',
        date: '2024-01-01T00:00:00Z',
        marketbob: { price: 1, fee: 2 },
      },
    ],
    [
      'a price given as text',
      {
        type: 'purchase',
        code: 'x-1',
        item_id: 1001,
        license_type: 'regular',
        price: '1',
        date: '2024-01-01T00:00:00Z',
        marketbob: { price: '1.5' },
      },
    ],
    [
      'a date that is no date',
      {
        type: 'purchase',
        code: 'x-1',
        item_id: 1001,
        license_type: 'regular',
        price: '1',
        date: '2024-01-01T00:00:00Z',
        marketbob: { supported_until: 'soon' },
      },
    ],
    [
      'tags given as a list',
      {
        type: 'item',
        id: 9,
        account: 'maker',
        name: 'n',
        version: '1.0.0',
        preview_type: 'image',
        thumbnail: 'https://t.example/t.png',
        price: { regular: '1', extended: '2' },
        status: 'approved',
        published_at: '2024-01-01T00:00:00Z',
        marketbob: { tags: ['a'] },
      },
    ],
    [
      'is_author given as 1',
      {
        type: 'account',
        username: 'z',
        email: 'z@example.com',
        registered_at: '2024-01-01T00:00:00Z',
        marketbob: { is_author: 1 },
      },
    ],
    [
      'a marketbob that is no object',
      {
        type: 'account',
        username: 'z',
        email: 'z@example.com',
        registered_at: '2024-01-01T00:00:00Z',
        marketbob: 'yes',
      },
    ],
  ])('refuses a marketbob object with %s', async (_name, line) => {
    const result = await importNdjson(t.store, t.keys, Readable.from([JSON.stringify(line)]));
    expect(result.ok).toBe(false);
  });
});

describe.each(TEST_STORES)("MarketBob's API switch written through another handle (%s store)", (kind) => {
  let t: TestApp;
  let other: Store;
  beforeAll(async () => {
    t = await createTestApp(kind, {
      configFile: { variants: [{ lang: 'en', baseUrl: '/', currency: 'USD', rate: '1', shape: 'marketbob' }] },
      lines: MB_LINES,
    });
    other = await openStore(loadConfig(t.env).store);
  });
  afterAll(async () => {
    await other?.close();
    await t?.close();
  });

  const details = () => t.app.inject({ url: '/api/account/details', headers: { 'x-api-key': MB_KEYS.maker } });

  /** The status once the change is heard: after SQLite's check interval; within 1 s on PostgreSQL. */
  const settledStatus = async (wanted: number) => {
    if (kind === 'sqlite') {
      await new Promise((resolve) => setTimeout(resolve, CHANGE_CHECK_INTERVAL_MS + 1));
      return (await details()).statusCode;
    }
    const deadline = Date.now() + 1000;
    for (;;) {
      const { statusCode } = await details();
      if (statusCode === wanted || Date.now() >= deadline) return statusCode;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  it('is heard by every process as any other change: off, then on again', async () => {
    expect((await details()).statusCode).toBe(200);
    await other.setSourceSetting('api_enabled', '0');
    expect(await settledStatus(404)).toBe(404);
    await other.setSourceSetting('api_enabled', '1');
    expect(await settledStatus(200)).toBe(200);
  });
});
