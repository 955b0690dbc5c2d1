import type { TestVariant } from '../helpers/test-app.js';

/**
 * The data the HTTP suites import (SPEC 5's NDJSON) and the answers SPEC 2 and 3 say it must
 * give. Expectations are written out by hand from the contract, never computed by the code
 * under test: each fixture carries its expected media, prices per variant and timestamps.
 */

type Lang = TestVariant['lang'];
type PerLang<T> = Readonly<Record<Lang, T>>;

/** Every account's key, given explicitly on import (16 to 128 characters of A-Za-z0-9_-). */
export const KEYS = {
  alice: 'alice_KEY_0123456789abcdefABCDEF',
  bob: 'bob-key-0123456789-abcdef-0001',
  cleo: 'cleo_key_AAAAAAAAAAAAAAAA',
  dora: 'dora-key-BBBBBBBBBBBBBBBB',
  solo: 'solo_key_CCCCCCCCCCCCCCCC',
  sam: 'sam-key-suspended-DDDDDDDD',
  rory: 'rory_key_to_be_rotated_EEEE',
} as const;

/** A well-formed key no account holds: 32 random bytes in hex, the shape new keys have (SPEC 6). */
export const UNKNOWN_KEY = 'fedcba9876543210'.repeat(4);

/* ----------------------------------------------------------------------------------- accounts */

interface AccountFixture {
  readonly line: Record<string, unknown>;
  /** `data` of /api/account/details, per variant, keys in contract order (SPEC 3). */
  readonly expected: PerLang<unknown>;
}

function accountData(
  parts: {
    firstname: string;
    lastname: string;
    full_name: string;
    username: string;
    email: string;
    heading: string;
    description: string;
    contact: string;
    social_links: Record<string, string>;
    avatar: string;
    cover: string;
    registered_at: string;
  },
  balance: number,
  currency: string,
) {
  return {
    name: { firstname: parts.firstname, lastname: parts.lastname, full_name: parts.full_name },
    username: parts.username,
    email: parts.email,
    balance,
    currency,
    profile: {
      heading: parts.heading,
      description: parts.description,
      contact: { email: parts.contact },
      social_links: parts.social_links,
      media: { avatar: parts.avatar, cover: parts.cover },
    },
    registered_at: parts.registered_at,
  };
}

const aliceParts = {
  firstname: 'Alice',
  lastname: 'Liddell',
  full_name: 'Alice Liddell',
  username: 'alice',
  email: 'alice@example.com',
  heading: 'Digital crafts',
  description: 'Themes & plugins, "handmade" since 2010 <b>ü</b>',
  contact: 'contact@alice.example',
  // Alphabetical order, whatever order the import gave them in.
  social_links: {
    '500px': 'https://500px.com/alice',
    behance: 'https://www.behance.net/alice',
    github: 'https://github.com/alice',
    x: 'https://x.com/alice',
    youtube: 'https://youtube.com/@alice',
  },
  avatar: 'https://cdn.example.com/alice/avatar.png',
  cover: 'https://cdn.example.com/alice/cover.png',
  registered_at: '2023-01-02T03:04:05.000Z',
};

export const ACCOUNTS = {
  alice: {
    line: {
      type: 'account',
      username: 'alice',
      email: 'alice@example.com',
      firstname: 'Alice',
      lastname: 'Liddell',
      balance: '120.50',
      status: 'active',
      api_key: KEYS.alice,
      registered_at: '2023-01-02T03:04:05Z',
      profile: {
        heading: 'Digital crafts',
        description: aliceParts.description,
        contact_email: 'contact@alice.example',
        social_links: {
          x: 'https://x.com/alice',
          github: 'https://github.com/alice',
          youtube: 'https://youtube.com/@alice',
          '500px': 'https://500px.com/alice',
          behance: 'https://www.behance.net/alice',
        },
        avatar: 'https://cdn.example.com/alice/avatar.png',
        cover: 'https://cdn.example.com/alice/cover.png',
      },
    },
    expected: {
      en: accountData(aliceParts, 120.5, 'USD'),
      pt: accountData(aliceParts, 602.5, 'BRL'),
    },
  },
  // No last name; no profile at all: every text is "" and social_links is {}.
  bob: {
    line: {
      type: 'account',
      username: 'bob',
      email: 'bob@example.com',
      firstname: 'Bob',
      lastname: '',
      balance: '0',
      status: 'active',
      api_key: KEYS.bob,
      registered_at: '2022-12-31T23:30:00-02:00',
    },
    expected: (() => {
      const parts = {
        firstname: 'Bob',
        lastname: '',
        full_name: 'Bob',
        username: 'bob',
        email: 'bob@example.com',
        heading: '',
        description: '',
        contact: '',
        social_links: {},
        avatar: '',
        cover: '',
        registered_at: '2023-01-01T01:30:00.000Z',
      };
      return { en: accountData(parts, 0, 'USD'), pt: accountData(parts, 0, 'BRL') };
    })(),
  },
  // No first name; an explicit empty social_links; no items at all.
  cleo: {
    line: {
      type: 'account',
      username: 'cleo',
      email: 'cleo@example.com',
      firstname: '',
      lastname: 'Cleopatra',
      balance: 19.99,
      status: 'active',
      api_key: KEYS.cleo,
      registered_at: '2021-06-30T12:00:00.5Z',
      profile: {
        heading: 'Queen',
        description: '',
        contact_email: 'cleo@example.com',
        social_links: {},
        avatar: '',
        cover: '',
      },
    },
    expected: (() => {
      const parts = {
        firstname: '',
        lastname: 'Cleopatra',
        full_name: 'Cleopatra',
        username: 'cleo',
        email: 'cleo@example.com',
        heading: 'Queen',
        description: '',
        contact: 'cleo@example.com',
        social_links: {},
        avatar: '',
        cover: '',
        registered_at: '2021-06-30T12:00:00.500Z',
      };
      return { en: accountData(parts, 19.99, 'USD'), pt: accountData(parts, 99.95, 'BRL') };
    })(),
  },
  // Neither name: full_name is "". Items, but none approved.
  dora: {
    line: {
      type: 'account',
      username: 'dora',
      email: 'dora@example.com',
      firstname: '',
      lastname: '',
      balance: '1000000.01',
      status: 'active',
      api_key: KEYS.dora,
      registered_at: '2020-02-29T23:59:59.999Z',
      profile: { social_links: { website: 'http://dora.example' } },
    },
    expected: (() => {
      const parts = {
        firstname: '',
        lastname: '',
        full_name: '',
        username: 'dora',
        email: 'dora@example.com',
        heading: '',
        description: '',
        contact: '',
        social_links: { website: 'http://dora.example' },
        avatar: '',
        cover: '',
        registered_at: '2020-02-29T23:59:59.999Z',
      };
      return { en: accountData(parts, 1000000.01, 'USD'), pt: accountData(parts, 5000000.05, 'BRL') };
    })(),
  },
  // Exactly one approved item (MarketBob answers 404 here; the contract says 200).
  solo: {
    line: {
      type: 'account',
      username: 'solo',
      email: 'solo@example.com',
      firstname: 'Han',
      lastname: 'Solo',
      balance: '3.33',
      status: 'active',
      api_key: KEYS.solo,
      registered_at: '2019-05-25T00:00:00Z',
    },
    expected: { en: null, pt: null },
  },
  sam: {
    line: {
      type: 'account',
      username: 'sam',
      email: 'sam@example.com',
      firstname: 'Sam',
      lastname: 'Suspended',
      balance: '5',
      status: 'suspended',
      api_key: KEYS.sam,
      registered_at: '2019-05-25T00:00:00Z',
    },
    expected: { en: null, pt: null },
  },
  rory: {
    line: {
      type: 'account',
      username: 'rory',
      email: 'rory@example.com',
      firstname: 'Rory',
      lastname: 'Rotated',
      balance: '1',
      status: 'active',
      api_key: KEYS.rory,
      registered_at: '2019-05-25T00:00:00Z',
    },
    expected: { en: null, pt: null },
  },
} as const satisfies Record<string, AccountFixture>;

/* -------------------------------------------------------------------------------------- items */

export interface ItemFixture {
  readonly line: {
    readonly type: 'item';
    readonly id: number;
    readonly account: string;
    readonly name: string;
    readonly description: string;
    readonly category: string;
    readonly sub_category: string;
    readonly options: readonly string[];
    readonly version: string;
    readonly demo_link: string;
    readonly tags: readonly string[];
    readonly preview_type: 'image' | 'video' | 'audio';
    readonly thumbnail: string;
    readonly preview_image?: string;
    readonly preview_video?: string;
    readonly preview_audio?: string;
    readonly screenshots?: readonly string[];
    readonly price: { readonly regular: string | number; readonly extended: string | number };
    readonly supported: boolean;
    readonly status: 'approved' | 'pending' | 'rejected' | 'removed';
    readonly published_at: string;
  };
  /** `media` as SPEC 3's table says, keys in order. */
  readonly media: Record<string, unknown>;
  readonly price: PerLang<{ regular: number; extended: number }>;
  readonly published_at: string;
}

const cdn = (path: string) => `https://cdn.example.com/${path}`;

function item(
  fields: Omit<ItemFixture['line'], 'type' | 'description' | 'category' | 'sub_category' | 'demo_link'> &
    Partial<Pick<ItemFixture['line'], 'description' | 'category' | 'sub_category' | 'demo_link'>>,
  media: Record<string, unknown>,
  price: ItemFixture['price'],
  publishedAt: string,
): ItemFixture {
  return {
    line: {
      type: 'item',
      description: `Description of item ${fields.id}`,
      category: 'Scripts',
      sub_category: 'PHP',
      demo_link: `https://demo.example.com/${fields.id}`,
      ...fields,
    },
    media,
    price,
    published_at: publishedAt,
  };
}

export const ITEMS = {
  // alice: approved 7, 101, 102, 103, 104, 108; not approved 105, 106, 107.
  i101: item(
    {
      id: 101,
      account: 'alice',
      name: 'Clean Admin',
      options: ['Responsive', 'Dark mode'],
      version: '1.2.3',
      tags: ['admin', 'dashboard'],
      preview_type: 'image',
      thumbnail: cdn('101/t.png'),
      preview_image: cdn('101/p.png'),
      screenshots: [cdn('101/s1.png'), cdn('101/s2.png')],
      price: { regular: '19.99', extended: '49.00' },
      supported: true,
      status: 'approved',
      published_at: '2023-02-01T00:00:00Z',
    },
    {
      thumbnail: cdn('101/t.png'),
      preview_image: cdn('101/p.png'),
      screenshots: [cdn('101/s1.png'), cdn('101/s2.png')],
    },
    { en: { regular: 19.99, extended: 49 }, pt: { regular: 99.95, extended: 245 } },
    '2023-02-01T00:00:00.000Z',
  ),
  i7: item(
    {
      id: 7,
      account: 'alice',
      name: 'Lucky Seven',
      description: '',
      category: '',
      sub_category: '',
      demo_link: '',
      options: [],
      version: '10.0.1',
      tags: [],
      preview_type: 'image',
      thumbnail: cdn('7/t.png'),
      preview_image: cdn('7/p.png'),
      price: { regular: '5', extended: '25.5' },
      supported: false,
      status: 'approved',
      published_at: '2020-01-01T00:00:00+01:00',
    },
    { thumbnail: cdn('7/t.png'), preview_image: cdn('7/p.png') },
    { en: { regular: 5, extended: 25.5 }, pt: { regular: 25, extended: 127.5 } },
    '2019-12-31T23:00:00.000Z',
  ),
  i103: item(
    {
      id: 103,
      account: 'alice',
      name: 'Calm Loops',
      category: 'Music',
      sub_category: 'Ambient',
      options: ['WAV', 'MP3'],
      version: '0.0.1',
      tags: ['loop'],
      preview_type: 'audio',
      thumbnail: cdn('103/t.png'),
      preview_audio: cdn('103/a.mp3'),
      screenshots: [cdn('103/s1.png')],
      price: { regular: '0.99', extended: '12.34' },
      supported: true,
      status: 'approved',
      published_at: '2023-03-01T10:20:30.123Z',
    },
    { thumbnail: cdn('103/t.png'), preview_audio: cdn('103/a.mp3'), screenshots: [cdn('103/s1.png')] },
    { en: { regular: 0.99, extended: 12.34 }, pt: { regular: 4.95, extended: 61.7 } },
    '2023-03-01T10:20:30.123Z',
  ),
  i108: item(
    {
      id: 108,
      account: 'alice',
      name: 'Quiet Audio',
      options: [],
      version: '2.0.0',
      tags: [],
      preview_type: 'audio',
      thumbnail: cdn('108/t.png'),
      preview_audio: cdn('108/a.mp3'),
      screenshots: [],
      price: { regular: 1, extended: 2.5 },
      supported: false,
      status: 'approved',
      published_at: '2024-01-01T00:00:00Z',
    },
    { thumbnail: cdn('108/t.png'), preview_audio: cdn('108/a.mp3') },
    { en: { regular: 1, extended: 2.5 }, pt: { regular: 5, extended: 12.5 } },
    '2024-01-01T00:00:00.000Z',
  ),
  i102: item(
    {
      id: 102,
      account: 'alice',
      name: 'Promo Video',
      category: 'Video',
      sub_category: 'Intro',
      options: ['4K'],
      version: '3.10.0',
      tags: ['promo', 'intro', 'video'],
      preview_type: 'video',
      thumbnail: cdn('102/t.png'),
      preview_image: cdn('102/p.png'),
      preview_video: cdn('102/v.mp4'),
      price: { regular: '19.9', extended: '99' },
      supported: false,
      status: 'approved',
      published_at: '2023-02-15T00:00:00Z',
    },
    { thumbnail: cdn('102/t.png'), preview_image: cdn('102/p.png'), preview_video: cdn('102/v.mp4') },
    { en: { regular: 19.9, extended: 99 }, pt: { regular: 99.5, extended: 495 } },
    '2023-02-15T00:00:00.000Z',
  ),
  i104: item(
    {
      id: 104,
      account: 'alice',
      name: 'Big Video',
      options: [],
      version: '1.0.0',
      tags: [],
      preview_type: 'video',
      thumbnail: cdn('104/t.png'),
      preview_image: cdn('104/p.png'),
      preview_video: cdn('104/v.mp4'),
      screenshots: [cdn('104/s1.png'), cdn('104/s2.png'), cdn('104/s3.png')],
      price: { regular: '1234567.89', extended: '0' },
      supported: true,
      status: 'approved',
      published_at: '2023-12-31T23:59:59Z',
    },
    {
      thumbnail: cdn('104/t.png'),
      preview_image: cdn('104/p.png'),
      preview_video: cdn('104/v.mp4'),
      screenshots: [cdn('104/s1.png'), cdn('104/s2.png'), cdn('104/s3.png')],
    },
    { en: { regular: 1234567.89, extended: 0 }, pt: { regular: 6172839.45, extended: 0 } },
    '2023-12-31T23:59:59.000Z',
  ),
  i105: item(
    {
      id: 105,
      account: 'alice',
      name: 'Pending Thing',
      options: [],
      version: '1.0.0',
      tags: [],
      preview_type: 'image',
      thumbnail: cdn('105/t.png'),
      preview_image: cdn('105/p.png'),
      price: { regular: '10', extended: '20' },
      supported: true,
      status: 'pending',
      published_at: '2024-02-01T00:00:00Z',
    },
    { thumbnail: cdn('105/t.png'), preview_image: cdn('105/p.png') },
    { en: { regular: 10, extended: 20 }, pt: { regular: 50, extended: 100 } },
    '2024-02-01T00:00:00.000Z',
  ),
  i106: item(
    {
      id: 106,
      account: 'alice',
      name: 'Rejected Thing',
      options: [],
      version: '1.0.0',
      tags: [],
      preview_type: 'audio',
      thumbnail: cdn('106/t.png'),
      preview_audio: cdn('106/a.mp3'),
      price: { regular: '10', extended: '20' },
      supported: true,
      status: 'rejected',
      published_at: '2024-02-02T00:00:00Z',
    },
    { thumbnail: cdn('106/t.png'), preview_audio: cdn('106/a.mp3') },
    { en: { regular: 10, extended: 20 }, pt: { regular: 50, extended: 100 } },
    '2024-02-02T00:00:00.000Z',
  ),
  i107: item(
    {
      id: 107,
      account: 'alice',
      name: 'Removed Thing',
      options: [],
      version: '1.0.0',
      tags: [],
      preview_type: 'video',
      thumbnail: cdn('107/t.png'),
      preview_image: cdn('107/p.png'),
      preview_video: cdn('107/v.mp4'),
      screenshots: [cdn('107/s1.png')],
      price: { regular: '10', extended: '20' },
      supported: true,
      status: 'removed',
      published_at: '2024-02-03T00:00:00Z',
    },
    {
      thumbnail: cdn('107/t.png'),
      preview_image: cdn('107/p.png'),
      preview_video: cdn('107/v.mp4'),
      screenshots: [cdn('107/s1.png')],
    },
    { en: { regular: 10, extended: 20 }, pt: { regular: 50, extended: 100 } },
    '2024-02-03T00:00:00.000Z',
  ),
  // bob
  i201: item(
    {
      id: 201,
      account: 'bob',
      name: "Bob's Theme",
      options: [],
      version: '1.0.0',
      tags: [],
      preview_type: 'image',
      thumbnail: cdn('201/t.png'),
      preview_image: cdn('201/p.png'),
      price: { regular: '30', extended: '60' },
      supported: true,
      status: 'approved',
      published_at: '2023-05-01T00:00:00Z',
    },
    { thumbnail: cdn('201/t.png'), preview_image: cdn('201/p.png') },
    { en: { regular: 30, extended: 60 }, pt: { regular: 150, extended: 300 } },
    '2023-05-01T00:00:00.000Z',
  ),
  // solo: one approved item among others
  i301: item(
    {
      id: 301,
      account: 'solo',
      name: 'The Only One',
      options: ['Single'],
      version: '1.0.0',
      tags: ['one'],
      preview_type: 'image',
      thumbnail: cdn('301/t.png'),
      preview_image: cdn('301/p.png'),
      price: { regular: '9.99', extended: '19.99' },
      supported: true,
      status: 'approved',
      published_at: '2023-05-01T00:00:00Z',
    },
    { thumbnail: cdn('301/t.png'), preview_image: cdn('301/p.png') },
    { en: { regular: 9.99, extended: 19.99 }, pt: { regular: 49.95, extended: 99.95 } },
    '2023-05-01T00:00:00.000Z',
  ),
  i302: item(
    {
      id: 302,
      account: 'solo',
      name: 'Not Yet',
      options: [],
      version: '1.0.0',
      tags: [],
      preview_type: 'image',
      thumbnail: cdn('302/t.png'),
      price: { regular: '1', extended: '2' },
      supported: true,
      status: 'pending',
      published_at: '2023-05-02T00:00:00Z',
    },
    { thumbnail: cdn('302/t.png'), preview_image: '' },
    { en: { regular: 1, extended: 2 }, pt: { regular: 5, extended: 10 } },
    '2023-05-02T00:00:00.000Z',
  ),
  // dora: items, none approved
  i401: item(
    {
      id: 401,
      account: 'dora',
      name: 'Dora Pending',
      options: [],
      version: '1.0.0',
      tags: [],
      preview_type: 'audio',
      thumbnail: cdn('401/t.png'),
      price: { regular: '1', extended: '2' },
      supported: false,
      status: 'pending',
      published_at: '2023-05-02T00:00:00Z',
    },
    { thumbnail: cdn('401/t.png'), preview_audio: '' },
    { en: { regular: 1, extended: 2 }, pt: { regular: 5, extended: 10 } },
    '2023-05-02T00:00:00.000Z',
  ),
  i402: item(
    {
      id: 402,
      account: 'dora',
      name: 'Dora Rejected',
      options: [],
      version: '1.0.0',
      tags: [],
      preview_type: 'audio',
      thumbnail: cdn('402/t.png'),
      price: { regular: '1', extended: '2' },
      supported: false,
      status: 'rejected',
      published_at: '2023-05-02T00:00:00Z',
    },
    { thumbnail: cdn('402/t.png'), preview_audio: '' },
    { en: { regular: 1, extended: 2 }, pt: { regular: 5, extended: 10 } },
    '2023-05-02T00:00:00.000Z',
  ),
  i403: item(
    {
      id: 403,
      account: 'dora',
      name: 'Dora Removed',
      options: [],
      version: '1.0.0',
      tags: [],
      preview_type: 'audio',
      thumbnail: cdn('403/t.png'),
      price: { regular: '1', extended: '2' },
      supported: false,
      status: 'removed',
      published_at: '2023-05-02T00:00:00Z',
    },
    { thumbnail: cdn('403/t.png'), preview_audio: '' },
    { en: { regular: 1, extended: 2 }, pt: { regular: 5, extended: 10 } },
    '2023-05-02T00:00:00.000Z',
  ),
  // sam (suspended)
  i501: item(
    {
      id: 501,
      account: 'sam',
      name: 'Suspended Seller Item',
      options: [],
      version: '1.0.0',
      tags: [],
      preview_type: 'image',
      thumbnail: cdn('501/t.png'),
      price: { regular: '1', extended: '2' },
      supported: true,
      status: 'approved',
      published_at: '2023-05-02T00:00:00Z',
    },
    { thumbnail: cdn('501/t.png'), preview_image: '' },
    { en: { regular: 1, extended: 2 }, pt: { regular: 5, extended: 10 } },
    '2023-05-02T00:00:00.000Z',
  ),
  // rory
  i601: item(
    {
      id: 601,
      account: 'rory',
      name: 'Rory Item',
      options: [],
      version: '1.0.0',
      tags: [],
      preview_type: 'image',
      thumbnail: cdn('601/t.png'),
      price: { regular: '1', extended: '2' },
      supported: true,
      status: 'approved',
      published_at: '2023-05-02T00:00:00Z',
    },
    { thumbnail: cdn('601/t.png'), preview_image: '' },
    { en: { regular: 1, extended: 2 }, pt: { regular: 5, extended: 10 } },
    '2023-05-02T00:00:00.000Z',
  ),
} as const satisfies Record<string, ItemFixture>;

/** Alice's approved items as /api/items/all must list them: newest id first. */
export const ALICE_APPROVED_NEWEST_FIRST = [ITEMS.i108, ITEMS.i104, ITEMS.i103, ITEMS.i102, ITEMS.i101, ITEMS.i7];

/** An Item (SPEC 3) as the variant shows it, keys in contract order. */
export function expectedItem(fixture: ItemFixture, variant: TestVariant) {
  const { line } = fixture;
  return {
    id: line.id,
    name: line.name,
    description: line.description,
    category: line.category,
    sub_category: line.sub_category,
    options: line.options,
    version: line.version,
    demo_link: line.demo_link,
    tags: line.tags,
    media: fixture.media,
    price: fixture.price[variant.lang],
    currency: variant.currency,
    published_at: fixture.published_at,
  };
}

/* ---------------------------------------------------------------------------------- purchases */

export interface PurchaseFixture {
  readonly line: {
    readonly type: 'purchase';
    readonly code: string;
    readonly item_id: number;
    readonly license_type: 'regular' | 'extended';
    readonly price: string | number;
    readonly supported_until?: string;
    readonly downloaded: boolean;
    readonly status: 'active' | 'refunded' | 'cancelled';
    readonly date: string;
  };
  readonly item: ItemFixture;
  readonly license: 'Regular' | 'Extended';
  readonly price: PerLang<number>;
  /** The stored support end date, when the purchase has one. */
  readonly supported_until: string | undefined;
  readonly date: string;
}

function purchase(
  line: Omit<PurchaseFixture['line'], 'type'>,
  item: ItemFixture,
  price: PerLang<number>,
  expected: { supported_until?: string; date: string },
): PurchaseFixture {
  return {
    line: { type: 'purchase', ...line },
    item,
    license: line.license_type === 'regular' ? 'Regular' : 'Extended',
    price,
    supported_until: expected.supported_until,
    date: expected.date,
  };
}

export const LONGEST_CODE = `LONG-${'x'.repeat(95)}`;

export const PURCHASES = {
  // Supported item, end date set: supported_until shows (when support is on).
  regular: purchase(
    {
      code: 'ALICE-REG-0001',
      item_id: 101,
      license_type: 'regular',
      price: '19.99',
      supported_until: '2025-02-01T00:00:00Z',
      downloaded: false,
      status: 'active',
      date: '2024-02-01T10:00:00Z',
    },
    ITEMS.i101,
    { en: 19.99, pt: 99.95 },
    { supported_until: '2025-02-01T00:00:00.000Z', date: '2024-02-01T10:00:00.000Z' },
  ),
  // Unsupported item: no supported_until even with an end date.
  extendedUnsupportedItem: purchase(
    {
      code: 'Alice-Ext-0002',
      item_id: 102,
      license_type: 'extended',
      price: 99,
      supported_until: '2025-02-01T00:00:00Z',
      downloaded: true,
      status: 'active',
      date: '2024-02-02T10:00:00.250+02:00',
    },
    ITEMS.i102,
    { en: 99, pt: 495 },
    { supported_until: '2025-02-01T00:00:00.000Z', date: '2024-02-02T08:00:00.250Z' },
  ),
  // Supported item, no end date: no supported_until.
  noEndDate: purchase(
    {
      code: 'alice_nosupport_3',
      item_id: 101,
      license_type: 'regular',
      price: '19.9',
      downloaded: true,
      status: 'active',
      date: '2024-02-03T00:00:00Z',
    },
    ITEMS.i101,
    { en: 19.9, pt: 99.5 },
    { date: '2024-02-03T00:00:00.000Z' },
  ),
  refunded: purchase(
    {
      code: 'ALICE-REFUNDED-4',
      item_id: 101,
      license_type: 'regular',
      price: '19.99',
      supported_until: '2025-02-01T00:00:00Z',
      downloaded: true,
      status: 'refunded',
      date: '2024-02-04T00:00:00Z',
    },
    ITEMS.i101,
    { en: 19.99, pt: 99.95 },
    { supported_until: '2025-02-01T00:00:00.000Z', date: '2024-02-04T00:00:00.000Z' },
  ),
  cancelled: purchase(
    {
      code: 'ALICE-CANCELLED-5',
      item_id: 101,
      license_type: 'extended',
      price: '49',
      downloaded: false,
      status: 'cancelled',
      date: '2024-02-05T00:00:00Z',
    },
    ITEMS.i101,
    { en: 49, pt: 245 },
    { date: '2024-02-05T00:00:00.000Z' },
  ),
  // The item's own status does not matter (SPEC 2.2 rule 4).
  pendingItem: purchase(
    {
      code: 'ALICE-PENDING-ITEM-6',
      item_id: 105,
      license_type: 'regular',
      price: '10',
      supported_until: '2026-06-30T12:00:00Z',
      downloaded: false,
      status: 'active',
      date: '2024-02-06T00:00:00Z',
    },
    ITEMS.i105,
    { en: 10, pt: 50 },
    { supported_until: '2026-06-30T12:00:00.000Z', date: '2024-02-06T00:00:00.000Z' },
  ),
  rejectedItem: purchase(
    {
      code: 'alice-rejected-item-7',
      item_id: 106,
      license_type: 'extended',
      price: '20',
      downloaded: true,
      status: 'active',
      date: '2024-02-07T00:00:00Z',
    },
    ITEMS.i106,
    { en: 20, pt: 100 },
    { date: '2024-02-07T00:00:00.000Z' },
  ),
  removedItem: purchase(
    {
      code: 'Alice_Removed_Item_8',
      item_id: 107,
      license_type: 'regular',
      price: '10',
      supported_until: '2030-01-01T00:00:00-03:00',
      downloaded: false,
      status: 'active',
      date: '2024-02-08T00:00:00Z',
    },
    ITEMS.i107,
    { en: 10, pt: 50 },
    { supported_until: '2030-01-01T03:00:00.000Z', date: '2024-02-08T00:00:00.000Z' },
  ),
  // Exactly 100 characters: the longest code there can be.
  longest: purchase(
    {
      code: LONGEST_CODE,
      item_id: 103,
      license_type: 'regular',
      price: '0.01',
      downloaded: false,
      status: 'active',
      date: '2024-02-09T00:00:00Z',
    },
    ITEMS.i103,
    { en: 0.01, pt: 0.05 },
    { date: '2024-02-09T00:00:00.000Z' },
  ),
  bobs: purchase(
    {
      code: 'BOB-0001',
      item_id: 201,
      license_type: 'regular',
      price: '30',
      supported_until: '2025-01-01T00:00:00Z',
      downloaded: false,
      status: 'active',
      date: '2024-01-01T00:00:00Z',
    },
    ITEMS.i201,
    { en: 30, pt: 150 },
    { supported_until: '2025-01-01T00:00:00.000Z', date: '2024-01-01T00:00:00.000Z' },
  ),
  sams: purchase(
    {
      code: 'SAM-0001',
      item_id: 501,
      license_type: 'regular',
      price: '1',
      downloaded: false,
      status: 'active',
      date: '2024-01-01T00:00:00Z',
    },
    ITEMS.i501,
    { en: 1, pt: 5 },
    { date: '2024-01-01T00:00:00.000Z' },
  ),
  rorys: purchase(
    {
      code: 'RORY-0001',
      item_id: 601,
      license_type: 'regular',
      price: '1',
      downloaded: false,
      status: 'active',
      date: '2024-01-01T00:00:00Z',
    },
    ITEMS.i601,
    { en: 1, pt: 5 },
    { date: '2024-01-01T00:00:00.000Z' },
  ),
} as const satisfies Record<string, PurchaseFixture>;

/** A Purchase (SPEC 3) as the variant shows it, keys in contract order. */
export function expectedPurchase(fixture: PurchaseFixture, variant: TestVariant, support = true) {
  const showSupport = support && fixture.item.line.supported && fixture.supported_until !== undefined;
  return {
    purchase_code: fixture.line.code,
    license_type: fixture.license,
    price: fixture.price[variant.lang],
    currency: variant.currency,
    item: expectedItem(fixture.item, variant),
    ...(showSupport ? { supported_until: fixture.supported_until } : {}),
    downloaded: fixture.line.downloaded,
    date: fixture.date,
  };
}

/* ------------------------------------------------------------------------------ the whole set */

/**
 * Every line, deliberately out of order: items before their purchases but not sorted by id, so
 * "newest id first" cannot come from insertion order.
 */
export const ALL_LINES: readonly object[] = [
  ...Object.values(ACCOUNTS).map((account) => account.line),
  ...[
    ITEMS.i101,
    ITEMS.i7,
    ITEMS.i103,
    ITEMS.i108,
    ITEMS.i102,
    ITEMS.i104,
    ITEMS.i105,
    ITEMS.i106,
    ITEMS.i107,
    ITEMS.i201,
    ITEMS.i302,
    ITEMS.i301,
    ITEMS.i401,
    ITEMS.i402,
    ITEMS.i403,
    ITEMS.i501,
    ITEMS.i601,
  ].map((fixture) => fixture.line),
  ...Object.values(PURCHASES).map((fixture) => fixture.line),
];
