import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { effectiveTimezone, readSettings, settingValue } from '../../src/marketbob/marketbob-settings.js';
import {
  centsText,
  type ItemRow,
  itemPrices,
  type MappingContext,
  mapItem,
  mapPurchase,
  mapUser,
  marketbobApiPrices,
  mediaUrl,
  normalizeVersion,
  optionValues,
  type PurchaseRow,
  splitTags,
  toCents,
  type UserRow,
} from '../../src/marketbob/row-mapping.js';
import { createWallClock } from '../../src/marketbob/wall-clock.js';

const BASE = 'https://market.example.com';

const context = (supportOn = true, zone = 'UTC'): MappingContext => ({
  mediaBaseUrl: BASE,
  clock: createWallClock(zone),
  settings: {
    supportOn,
    currencyCode: 'USD',
    defaultAvatar: 'img/default.png',
    defaultCover: '',
    apiOn: true,
    timezone: undefined,
  },
});

const user = (overrides: Partial<UserRow> = {}): UserRow => ({
  id: 1,
  firstname: null,
  lastname: 'Doe',
  username: 'jdoe',
  email: null,
  password: '$2y$10$AngX2swGdlWzm9T2jHwUWOQ8xgl1MhFT5rbMBRgYgBixxvRVldLBS',
  api_key: 'a'.repeat(64),
  balance: 10.005,
  avatar: null,
  profile_cover: null,
  profile_heading: null,
  profile_description: null,
  profile_contact_email: null,
  profile_social_links: '{"x":"https://x.com/j","github":"not a link","facebook":null}',
  status: 1,
  created_at: '2024-01-01 00:00:00',
  ...overrides,
});

const item = (overrides: Partial<ItemRow> = {}): ItemRow => ({
  id: 1000,
  author_id: 1,
  name: 'Item',
  description: 'd',
  category_name: null,
  regular_buyer_fee: null,
  extended_buyer_fee: null,
  sub_category_name: null,
  options: null,
  version: '1.0.0',
  demo_link: null,
  tags: 'a',
  thumbnail: 't.png',
  preview_type: 'image',
  preview_image: null,
  preview_video: 'v.mp4',
  preview_audio: 'a.mp3',
  screenshots: null,
  regular_price: 10,
  extended_price: 20,
  is_supported: 0,
  status: 4,
  created_at: '2024-01-01 00:00:00',
  ...overrides,
});

const purchase = (overrides: Partial<PurchaseRow> = {}): PurchaseRow => ({
  id: 1000,
  code: ' 0F8E2C1A-aaaa ',
  item_id: 1000,
  license_type: 1,
  support_expiry_at: '2025-01-01 00:00:00',
  is_downloaded: 1,
  status: 1,
  created_at: '2024-01-01 00:00:00',
  sale_price: 19.99,
  ...overrides,
});

describe('MarketBob row mapping', () => {
  it('media paths become URLs under the media base; URLs stay; NULL is ""', () => {
    expect(mediaUrl(BASE, 'images/a b.png')).toBe(`${BASE}/images/a%20b.png`);
    expect(mediaUrl(BASE, '/images/a.png')).toBe(`${BASE}/images/a.png`);
    expect(mediaUrl(`${BASE}/storage`, 'a.png')).toBe(`${BASE}/storage/a.png`);
    expect(mediaUrl(BASE, 'https://cdn.example.com/a.png')).toBe('https://cdn.example.com/a.png');
    expect(mediaUrl(BASE, null)).toBe('');
  });

  it('versions: x.y.z as is, padded, cut, or 0.0.0', () => {
    expect(['1.2.3', '1.2', '2', 'v1.4', '1.2.3.4', '1.2.3-beta', null, 'latest'].map(normalizeVersion)).toEqual([
      '1.2.3',
      '1.2.0',
      '2.0.0',
      '1.4.0',
      '1.2.3',
      '1.2.3',
      '0.0.0',
      '0.0.0',
    ]);
  });

  it('tags split on commas, trimmed, empty ones dropped; options made an array of values', () => {
    expect(splitTags(' a, b ,,c,')).toEqual(['a', 'b', 'c']);
    expect(splitTags(null)).toEqual([]);
    const notes: string[] = [];
    expect(optionValues('{"Layout":"Responsive","Browsers":["Chrome","Edge"],"Columns":3,"None":null}', notes)).toEqual(
      ['Responsive', 'Chrome', 'Edge', '3'],
    );
    expect(optionValues('not json', notes)).toEqual([]);
    expect(notes).toEqual(['options is not a JSON object: served as []']);
  });

  it('money: doubles to cents, rounded to the cent; negative is not an amount', () => {
    expect(toCents(19.99)).toBe(1999);
    expect(toCents(0.1 + 0.2)).toBe(30);
    expect(toCents(-1)).toBeUndefined();
    expect(centsText(5)).toBe('0.05');
    expect(centsText(12345)).toBe('123.45');
  });

  it("prices: MarketBob API's, the item's columns or its active discount, plus the category's fees; validity prices ignored", () => {
    const fees = { regular_buyer_fee: 2.5, extended_buyer_fee: 5 };
    expect(itemPrices(item())).toEqual({ regular: 1000, extended: 2000 });
    expect(itemPrices(item(fees))).toEqual({ regular: 1250, extended: 2500 });
    // Priced only by validity period: MarketBob's API shows the fees alone.
    const validity = item({ ...fees, regular_price: 0, extended_price: 0, validity_prices: '{"1":"10","12":"80"}' });
    expect(itemPrices(validity)).toEqual({ regular: 250, extended: 500 });
    const discount = { discount_status: 1, discount_regular_price: 7.5, discount_extended_price: 15 };
    expect(itemPrices(item({ ...fees, ...discount }))).toEqual({ regular: 1000, extended: 2000 });
    // The extended license not discounted (NULL): its own price.
    expect(itemPrices(item({ ...fees, ...discount, discount_extended_price: null }))).toEqual({
      regular: 1000,
      extended: 2500,
    });
    // A discount not (or no longer) active.
    expect(itemPrices(item({ ...fees, ...discount, discount_status: 0 }))).toEqual({ regular: 1250, extended: 2500 });
  });

  it('marketbobApiPrices: the unrounded floats MarketBob prints', () => {
    const row = item({ regular_price: 19.999, extended_price: 0.1, regular_buyer_fee: 10, extended_buyer_fee: 0.2 });
    expect(marketbobApiPrices(row)).toEqual({ regular: 29.999, extended: 0.1 + 0.2 });
    expect(itemPrices(row)).toEqual({ regular: 3000, extended: 30 });
    expect(
      marketbobApiPrices(
        item({ discount_status: 1, discount_regular_price: 1259.4995, discount_extended_price: null }),
      ),
    ).toEqual({ regular: 1259.4995, extended: 20 });
  });

  it('a user: NULL text as "", default avatar, links kept when http(s), key and hash beside the line', () => {
    const mapped = mapUser(user(), context());
    expect(mapped).toEqual({
      ok: true,
      notes: ['profile_social_links.github is not an http(s) link: left out'],
      line: {
        line: {
          type: 'account',
          username: 'jdoe',
          email: '',
          firstname: '',
          lastname: 'Doe',
          balance: '10.01',
          status: 'active',
          registered_at: '2024-01-01T00:00:00.000Z',
          profile: {
            heading: '',
            description: '',
            contact_email: '',
            social_links: { x: 'https://x.com/j' },
            avatar: `${BASE}/img/default.png`,
            cover: '',
          },
          // MarketBob's own values, for a variant in its shape: NULLs left out, the balance and
          // the social links as stored.
          marketbob: {
            lastname: 'Doe',
            complete: false,
            balance: 10.005,
            social_links: { facebook: null, github: 'not a link', x: 'https://x.com/j' },
            avatar: `${BASE}/img/default.png`,
            is_author: true,
          },
        },
        apiKey: 'a'.repeat(64),
        passwordHash: '$2y$10$AngX2swGdlWzm9T2jHwUWOQ8xgl1MhFT5rbMBRgYgBixxvRVldLBS',
        // SHA-256 of MarketBob's password column: how the bridge tells a password changed there.
        passwordDigest: createHash('sha256')
          .update('$2y$10$AngX2swGdlWzm9T2jHwUWOQ8xgl1MhFT5rbMBRgYgBixxvRVldLBS')
          .digest('hex'),
      },
    });
    expect(mapUser(user({ status: 0 }), context())).toMatchObject({
      ok: true,
      line: { line: { status: 'suspended' } },
    });
  });

  it('a user: bad rows and dropped values, never quoting the key or the hash', () => {
    expect(mapUser(user({ username: null }), context())).toEqual({
      ok: false,
      reason: 'username is NULL or empty (our accounts are keyed by it)',
    });
    expect(mapUser(user({ status: 3 }), context())).toEqual({
      ok: false,
      reason: 'status 3 is not 0 (banned) or 1 (active)',
    });
    // No date: updated_at, else the epoch, noted; the user (and all that hangs from it) is kept.
    expect(mapUser(user({ created_at: null, updated_at: '2024-02-03 04:05:06' }), context())).toMatchObject({
      ok: true,
      line: { line: { registered_at: '2024-02-03T04:05:06.000Z' } },
      notes: ['created_at is NULL or not a date: served as updated_at', expect.any(String)],
    });
    expect(mapUser(user({ created_at: null }), context())).toMatchObject({
      ok: true,
      line: { line: { registered_at: '1970-01-01T00:00:00.000Z' } },
      notes: ['created_at is NULL or not a date: served as the epoch', expect.any(String)],
    });
    // No password (social login): no workspace login, and '' as the digest of what MarketBob had.
    expect(mapUser(user({ password: null, api_key: null }), context())).toMatchObject({
      ok: true,
      line: { apiKey: undefined, passwordHash: undefined, passwordDigest: '' },
    });
    const dropped = mapUser(user({ api_key: 'short', password: `$2y$13$${'a'.repeat(53)}` }), context());
    expect(dropped).toMatchObject({
      ok: true,
      line: { apiKey: undefined, passwordHash: undefined, passwordDigest: expect.stringMatching(/^[0-9a-f]{64}$/) },
      notes: [
        'api_key is not 16 to 128 characters of A-Za-z0-9_-: no key here',
        'password is not a bcrypt hash of cost 12 at most: not carried over (no workspace login)',
        'profile_social_links.github is not an http(s) link: left out',
      ],
    });
  });

  it("an item: MarketBob's own values beside the line (raw tags, options, version, NULLs, unrounded prices)", () => {
    const mapped = mapItem(
      item({
        tags: 'admin, dashboard,,php',
        options: '{"Layout":"Responsive","Browsers":["Chrome","Firefox"]}',
        version: 'v1.4',
        thumbnail: null,
        preview_image: 'p.png',
        screenshots: '["s/1.png","s/2.png"]',
        regular_price: 27.999,
        regular_buyer_fee: 2,
        extended_buyer_fee: 5,
        sub_category_name: null,
      }),
      'jdoe',
      context(),
    );
    expect(mapped.ok && mapped.line.marketbob).toEqual({
      options: { Layout: 'Responsive', Browsers: ['Chrome', 'Firefox'] },
      version: 'v1.4',
      tags: 'admin, dashboard,,php',
      thumbnail: `${BASE}/p.png`,
      preview_image: `${BASE}/p.png`,
      preview_video: `${BASE}/v.mp4`,
      preview_audio: `${BASE}/a.mp3`,
      screenshots: [`${BASE}/s/1.png`, `${BASE}/s/2.png`],
      price_regular: 29.999,
      price_extended: 25,
    });
    // Our own line keeps the contract's values: rounded money, normalised version, a list of tags.
    expect(mapped).toMatchObject({
      ok: true,
      line: { price: { regular: '30.00', extended: '25.00' }, version: '1.4.0', tags: ['admin', 'dashboard', 'php'] },
    });
  });

  it('an item: statuses, media by preview type, dates from the zone', () => {
    const statuses = [1, 2, 3, 4, 5, 6].map((status) => {
      const mapped = mapItem(item({ status }), 'jdoe', context());
      return mapped.ok ? mapped.line.status : mapped.reason;
    });
    expect(statuses).toEqual(['pending', 'rejected', 'pending', 'approved', 'rejected', 'removed']);
    expect(mapItem(item({ status: 0 }), 'jdoe', context())).toEqual({
      ok: false,
      reason: 'status 0 is not one of 1 to 6',
    });
    const video = mapItem(item({ preview_type: 'video' }), 'jdoe', context(true, 'Asia/Tokyo'));
    expect(video).toMatchObject({
      ok: true,
      line: { preview_video: `${BASE}/v.mp4`, published_at: '2023-12-31T15:00:00.000Z' },
    });
    if (video.ok) expect(video.line).not.toHaveProperty('preview_audio');
    expect(mapItem(item({ thumbnail: null }), 'jdoe', context())).toMatchObject({
      ok: true,
      line: { thumbnail: `${BASE}/` },
      notes: ['thumbnail and preview_image are NULL or empty: served as the media base URL'],
    });
    // MarketBob's API shows the preview image for a NULL or empty thumbnail.
    for (const thumbnail of [null, '', '  ']) {
      const mapped = mapItem(item({ thumbnail, preview_image: 'items/p.png' }), 'jdoe', context());
      expect(mapped).toMatchObject({ ok: true, line: { thumbnail: `${BASE}/items/p.png` }, notes: [] });
    }
    expect(mapItem(item({ preview_type: 'gif' }), 'jdoe', context())).toEqual({
      ok: false,
      reason: 'preview_type "gif" is not image, video or audio',
    });
  });

  it('a purchase: statuses, licenses, support date only when the setting is on', () => {
    expect(mapPurchase(purchase(), context())).toEqual({
      ok: true,
      notes: [],
      line: {
        type: 'purchase',
        code: '0F8E2C1A-aaaa',
        item_id: 1000,
        license_type: 'regular',
        price: '19.99',
        supported_until: '2025-01-01T00:00:00.000Z',
        downloaded: true,
        status: 'active',
        date: '2024-01-01T00:00:00.000Z',
        marketbob: { price: 19.99, supported_until: '2025-01-01T00:00:00.000Z' },
      },
    });
    expect(mapPurchase(purchase(), context(false))).toMatchObject({ line: { supported_until: '' } });
    // Without MarketBob's support setting its API shows no support date: left out of its values too.
    expect(mapPurchase(purchase(), context(false))).toMatchObject({ line: { marketbob: { price: 19.99 } } });
    expect(JSON.stringify(mapPurchase(purchase(), context(false)))).not.toContain('2025-01-01');
    expect(mapPurchase(purchase({ sale_price: 29.999 }), context())).toMatchObject({
      line: { price: '30.00', marketbob: { price: 29.999 } },
    });
    expect(mapPurchase(purchase({ status: 2 }), context())).toMatchObject({ line: { status: 'refunded' } });
    expect(mapPurchase(purchase({ status: 3, license_type: 2 }), context())).toMatchObject({
      line: { status: 'cancelled', license_type: 'extended' },
    });
    expect(mapPurchase(purchase({ status: 4 }), context())).toEqual({ ok: false, reason: 'status 4 is not 1, 2 or 3' });
    expect(mapPurchase(purchase({ sale_price: null }), context())).toMatchObject({
      ok: true,
      line: { price: '0.00', status: 'active' },
      notes: ['its sale is missing, or its price is not an amount: price served as 0'],
    });
  });

  it('settings: a row of the dotted key, or a field of the group row', () => {
    const rows = [
      { key: 'item', value: '{"support_status":"1"}' },
      { key: 'currency.code', value: '"brl"' },
      { key: 'profile', value: '{"default_avatar":"a.png"}' },
    ];
    expect(settingValue(rows, 'item.support_status')).toBe('1');
    expect(readSettings(rows)).toEqual({
      supportOn: true,
      currencyCode: 'BRL',
      defaultAvatar: 'a.png',
      defaultCover: '',
      apiOn: undefined,
      timezone: undefined,
    });
    expect(readSettings([{ key: 'item', value: '{"support_status":0}' }]).supportOn).toBe(false);
  });

  it('settings: the time zone of the general row, overridden by the config; UTC when neither says', () => {
    const general = [
      { key: 'general', value: '{"site_name":"Market","timezone":"America/New_York"}' },
      { key: 'actions', value: '{"api":0}' },
    ];
    const settings = readSettings(general);
    expect(settings).toMatchObject({ timezone: 'America/New_York', apiOn: false });
    expect(effectiveTimezone(undefined, settings)).toEqual({ zone: 'America/New_York', source: 'settings' });
    expect(effectiveTimezone('Europe/Lisbon', settings)).toEqual({ zone: 'Europe/Lisbon', source: 'config' });
    expect(effectiveTimezone(undefined, readSettings([]))).toEqual({ zone: 'UTC', source: 'default' });
    // A zone this runtime does not know is not taken.
    expect(readSettings([{ key: 'general', value: '{"timezone":"Mars/Olympus"}' }]).timezone).toBeUndefined();
  });

  it('wall-clock dates in a zone become UTC, across daylight saving time; zero dates are none', () => {
    const newYork = createWallClock('America/New_York');
    expect(newYork.toUtc('2024-01-15 12:00:00')).toBe('2024-01-15T17:00:00.000Z');
    expect(newYork.toUtc('2024-07-15 12:00:00')).toBe('2024-07-15T16:00:00.000Z');
    expect(newYork.toUtc('0000-00-00 00:00:00')).toBeUndefined();
    expect(newYork.toUtc(null)).toBeUndefined();
    expect(createWallClock('Asia/Kolkata').toUtc('2024-05-01 09:30:00')).toBe('2024-05-01T04:00:00.000Z');
  });
});
