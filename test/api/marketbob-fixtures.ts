/**
 * A store as the MarketBob bridge fills it (import lines carrying `marketbob` objects) beside
 * plain lines (no object: every value derived), and the answers MarketBob's own API gives for
 * them (docs/marketbob.md, "MarketBob's own answers"), written out by hand.
 */

/** MarketBob's keys: 64 lower-case hex characters. */
export const MB_KEYS = {
  maker: '0123456789abcdef'.repeat(4),
  banned: 'aaaabbbbccccdddd'.repeat(4),
  halfway: '1111222233334444'.repeat(4),
  buyer: '5555666677778888'.repeat(4),
  plain: 'plain_key_0123456789ABCdef',
} as const;

export const MB_UNKNOWN_KEY = 'fedcba9876543210'.repeat(4);

const cdn = (path: string) => `https://market.example.com/storage/${path}`;

export const MB_ACCOUNT_LINES = [
  {
    type: 'account',
    username: 'maker',
    email: 'mara@example.com',
    firstname: 'Mara',
    lastname: 'Kerr',
    balance: '1259.50',
    api_key: MB_KEYS.maker,
    registered_at: '2023-05-06T07:08:09Z',
    marketbob: {
      firstname: 'Mara',
      lastname: 'Kerr',
      email: 'mara@example.com',
      complete: true,
      balance: 1259.4995,
      heading: 'Themes & "plugins"',
      contact_email: 'sales@mara.example',
      social_links: { facebook: 'https://facebook.com/mara', x: null, '2nd': 'https://two.example/mara' },
      avatar: cdn('avatars/mara.png'),
      cover: cdn('default/cover.png'),
      is_author: true,
    },
  },
  {
    type: 'account',
    username: 'banned',
    email: 'ben@example.com',
    status: 'suspended',
    api_key: MB_KEYS.banned,
    registered_at: '2023-06-01T00:00:00Z',
    marketbob: {
      firstname: 'Ben',
      lastname: 'Ned',
      email: 'ben@example.com',
      complete: true,
      balance: 0,
      is_author: true,
    },
  },
  {
    type: 'account',
    username: 'halfway',
    email: 'hal@example.com',
    api_key: MB_KEYS.halfway,
    registered_at: '2023-07-01T00:00:00Z',
    // Came through social login: no password, so MarketBob's account details refuse it.
    marketbob: { firstname: 'Hal', email: 'hal@example.com', complete: false, balance: 3.5, is_author: true },
  },
  {
    type: 'account',
    username: 'buyer',
    email: 'bea@example.com',
    api_key: MB_KEYS.buyer,
    registered_at: '2023-08-01T00:00:00Z',
    marketbob: {
      firstname: 'Bea',
      lastname: 'Buys',
      email: 'bea@example.com',
      complete: true,
      balance: 12,
      avatar: cdn('default/avatar.png'),
      cover: cdn('default/cover.png'),
      is_author: false,
    },
  },
  {
    type: 'account',
    username: 'plain',
    email: 'pat@example.com',
    firstname: 'Pat',
    lastname: 'Plain',
    balance: '19.99',
    api_key: MB_KEYS.plain,
    registered_at: '2024-02-01T16:00:00.123Z',
    profile: {
      heading: 'Plain goods',
      social_links: { x: 'https://x.com/pat', github: 'https://github.com/pat' },
      avatar: 'https://cdn.example.com/pat.png',
    },
  },
];

const item = (id: number, account: string, fields: object) => ({
  type: 'item',
  id,
  account,
  name: `Item ${id}`,
  description: `<p>Item ${id}</p>`,
  category: 'Scripts',
  version: '1.0.0',
  preview_type: 'image',
  thumbnail: 'https://cdn.example.com/t.png',
  price: { regular: '10.00', extended: '20.00' },
  supported: true,
  status: 'approved',
  published_at: '2024-01-02T03:04:05Z',
  ...fields,
});

export const MB_ITEM_LINES = [
  item(1001, 'maker', {
    sub_category: 'Admin',
    options: ['Responsive'],
    tags: ['admin', 'dashboard'],
    preview_image: 'https://cdn.example.com/p.png',
    price: { regular: '30.00', extended: '150.00' },
    marketbob: {
      sub_category: 'Admin',
      options: { Layout: 'Responsive', Browsers: ['Chrome', 'Firefox'] },
      demo_link: 'https://demo.example.com/1001',
      tags: 'admin, dashboard,dark mode',
      thumbnail: cdn('items/1001/thumb.png'),
      preview_image: cdn('items/1001/preview.png'),
      screenshots: [cdn('items/1001/s1.png'), cdn('items/1001/s2.png')],
      price_regular: 29.999,
      price_extended: 150,
    },
  }),
  item(1002, 'maker', {
    preview_type: 'video',
    published_at: '2024-03-04T05:06:07Z',
    marketbob: {
      version: '2.1',
      tags: 'video intro',
      thumbnail: cdn('items/1002/preview.png'),
      preview_image: cdn('items/1002/preview.png'),
      preview_video: cdn('items/1002/video.mp4'),
      price_regular: 30,
      price_extended: 1259.4995,
    },
  }),
  item(1003, 'maker', {
    preview_type: 'audio',
    marketbob: {
      sub_category: 'Ambient',
      tags: '',
      thumbnail: cdn('items/1003/thumb.png'),
      preview_audio: cdn('items/1003/track.mp3'),
      screenshots: [cdn('items/1003/s1.png')],
      price_regular: 5,
      price_extended: 25.5,
    },
  }),
  item(1004, 'maker', { status: 'pending', marketbob: { price_regular: 1, price_extended: 2 } }),
  item(2001, 'banned', { marketbob: { tags: 'solo', price_regular: 10.5, price_extended: 99 } }),
  item(3001, 'halfway', { marketbob: { price_regular: 1, price_extended: 2 } }),
  item(4001, 'plain', {
    sub_category: '',
    options: ['Responsive', 'Dark mode'],
    tags: ['one', 'two words'],
    demo_link: 'https://demo.example.com/4001',
    preview_image: 'https://cdn.example.com/4001.png',
    screenshots: ['https://cdn.example.com/4001-s1.png'],
    price: { regular: '19.99', extended: '49.00' },
  }),
  item(4002, 'plain', {
    preview_type: 'audio',
    category: 'Music',
    sub_category: 'Loops',
    preview_audio: 'https://cdn.example.com/4002.mp3',
    supported: false,
    price: { regular: '0.50', extended: '5.00' },
  }),
];

export const MB_CODES = {
  made: 'c0ffee00-0000-4000-8000-000000000001',
  noSupport: 'c0ffee00-0000-4000-8000-000000000002',
  refunded: 'c0ffee00-0000-4000-8000-000000000003',
  banned: 'c0ffee00-0000-4000-8000-000000000004',
  plain: 'c0ffee00-0000-4000-8000-000000000005',
  plainUnsupported: 'c0ffee00-0000-4000-8000-000000000006',
} as const;

const purchase = (code: string, itemId: number, fields: object) => ({
  type: 'purchase',
  code,
  item_id: itemId,
  license_type: 'regular',
  price: '10.00',
  date: '2024-02-01T16:00:00Z',
  ...fields,
});

export const MB_PURCHASE_LINES = [
  purchase(MB_CODES.made, 1001, {
    price: '30.00',
    supported_until: '2025-02-01T16:00:00Z',
    downloaded: true,
    marketbob: { price: 29.999, supported_until: '2025-02-01T16:00:00Z' },
  }),
  purchase(MB_CODES.noSupport, 1002, {
    license_type: 'extended',
    supported_until: '2025-02-01T16:00:00Z',
    marketbob: { price: 30 },
  }),
  purchase(MB_CODES.refunded, 1001, { status: 'refunded', marketbob: { price: 29.999 } }),
  purchase(MB_CODES.banned, 2001, { marketbob: { price: 10.5 } }),
  purchase(MB_CODES.plain, 4001, { price: '19.99', supported_until: '2025-03-01T00:00:00Z' }),
  purchase(MB_CODES.plainUnsupported, 4002, { price: '0.50', supported_until: '2025-03-01T00:00:00Z' }),
];

export const MB_LINES = [...MB_ACCOUNT_LINES, ...MB_ITEM_LINES, ...MB_PURCHASE_LINES];

/* ------------------------------------------------------------------ MarketBob's answers, by hand */

export const MAKER_DETAILS = {
  name: { firstname: 'Mara', lastname: 'Kerr', full_name: 'Mara Kerr' },
  username: 'maker',
  email: 'mara@example.com',
  balance: 1259.4995,
  currency: 'USD',
  profile: {
    heading: 'Themes & "plugins"',
    description: null,
    contact: { email: 'sales@mara.example' },
    // As stored, every key kept (a JS object puts "2nd" where MarketBob's would too: it is no integer).
    social_links: { facebook: 'https://facebook.com/mara', x: null, '2nd': 'https://two.example/mara' },
    media: { avatar: cdn('avatars/mara.png'), cover: cdn('default/cover.png') },
  },
  registered_at: '2023-05-06T07:08:09.000000Z',
};

export const BUYER_DETAILS = {
  name: { firstname: 'Bea', lastname: 'Buys', full_name: 'Bea Buys' },
  username: 'buyer',
  email: 'bea@example.com',
  balance: 12,
  currency: 'USD',
  profile: {
    heading: null,
    description: null,
    contact: { email: null },
    social_links: null,
    media: { avatar: cdn('default/avatar.png'), cover: cdn('default/cover.png') },
  },
  registered_at: '2023-08-01T00:00:00.000000Z',
};

/** Derived from a plain line: '' is null, the links an object in stored (alphabetical) order. */
export const PLAIN_DETAILS = {
  name: { firstname: 'Pat', lastname: 'Plain', full_name: 'Pat Plain' },
  username: 'plain',
  email: 'pat@example.com',
  balance: 19.99,
  currency: 'USD',
  profile: {
    heading: 'Plain goods',
    description: null,
    contact: { email: null },
    social_links: { github: 'https://github.com/pat', x: 'https://x.com/pat' },
    media: { avatar: 'https://cdn.example.com/pat.png', cover: null },
  },
  registered_at: '2024-02-01T16:00:00.123000Z',
};

export const ITEM_1001 = {
  id: 1001,
  name: 'Item 1001',
  description: '<p>Item 1001</p>',
  category: 'Scripts',
  sub_category: 'Admin',
  options: { Layout: 'Responsive', Browsers: ['Chrome', 'Firefox'] },
  version: null,
  demo_link: 'https://demo.example.com/1001',
  tags: 'admin, dashboard,dark mode',
  media: {
    thumbnail: cdn('items/1001/thumb.png'),
    preview_image: cdn('items/1001/preview.png'),
    screenshots: { '0': cdn('items/1001/s1.png'), '1': cdn('items/1001/s2.png') },
  },
  price: { regular: 29.999, extended: 150 },
  currency: 'USD',
  published_at: '2024-01-02T03:04:05.000000Z',
};

export const ITEM_1002 = {
  id: 1002,
  name: 'Item 1002',
  description: '<p>Item 1002</p>',
  category: 'Scripts',
  sub_category: null,
  options: null,
  version: '2.1',
  demo_link: null,
  tags: 'video intro',
  media: {
    thumbnail: cdn('items/1002/preview.png'),
    preview_image: cdn('items/1002/preview.png'),
    preview_video: cdn('items/1002/video.mp4'),
  },
  price: { regular: 30, extended: 1259.4995 },
  currency: 'USD',
  published_at: '2024-03-04T05:06:07.000000Z',
};

export const ITEM_1003 = {
  id: 1003,
  name: 'Item 1003',
  description: '<p>Item 1003</p>',
  category: 'Scripts',
  sub_category: 'Ambient',
  options: null,
  version: null,
  demo_link: null,
  tags: '',
  media: { thumbnail: cdn('items/1003/thumb.png'), preview_audio: cdn('items/1003/track.mp3') },
  price: { regular: 5, extended: 25.5 },
  currency: 'USD',
  published_at: '2024-01-02T03:04:05.000000Z',
};

export const ITEM_2001 = {
  id: 2001,
  name: 'Item 2001',
  description: '<p>Item 2001</p>',
  category: 'Scripts',
  sub_category: null,
  options: null,
  version: null,
  demo_link: null,
  tags: 'solo',
  media: { thumbnail: null, preview_image: null, screenshots: null },
  price: { regular: 10.5, extended: 99 },
  currency: 'USD',
  published_at: '2024-01-02T03:04:05.000000Z',
};

/** Derived: the tags joined with `,`, the options list, no sub-category null, minor units / 100. */
export const ITEM_4001 = {
  id: 4001,
  name: 'Item 4001',
  description: '<p>Item 4001</p>',
  category: 'Scripts',
  sub_category: null,
  options: ['Responsive', 'Dark mode'],
  version: '1.0.0',
  demo_link: 'https://demo.example.com/4001',
  tags: 'one,two words',
  media: {
    thumbnail: 'https://cdn.example.com/t.png',
    preview_image: 'https://cdn.example.com/4001.png',
    screenshots: { '0': 'https://cdn.example.com/4001-s1.png' },
  },
  price: { regular: 19.99, extended: 49 },
  currency: 'USD',
  published_at: '2024-01-02T03:04:05.000000Z',
};

export const ITEM_4002 = {
  id: 4002,
  name: 'Item 4002',
  description: '<p>Item 4002</p>',
  category: 'Music',
  sub_category: 'Loops',
  options: null,
  version: '1.0.0',
  demo_link: null,
  tags: '',
  media: { thumbnail: 'https://cdn.example.com/t.png', preview_audio: 'https://cdn.example.com/4002.mp3' },
  price: { regular: 0.5, extended: 5 },
  currency: 'USD',
  published_at: '2024-01-02T03:04:05.000000Z',
};

export const PURCHASE_MADE = {
  purchase_code: MB_CODES.made,
  license_type: 'Regular',
  price: 29.999,
  currency: 'USD',
  item: ITEM_1001,
  supported_until: '2025-02-01T16:00:00.000000Z',
  downloaded: true,
  date: '2024-02-01T16:00:00.000000Z',
};

/** MarketBob would not show support here (its object has no date): none, whatever the record says. */
export const PURCHASE_NO_SUPPORT = {
  purchase_code: MB_CODES.noSupport,
  license_type: 'Extended',
  price: 30,
  currency: 'USD',
  item: ITEM_1002,
  downloaded: false,
  date: '2024-02-01T16:00:00.000000Z',
};

export const PURCHASE_BANNED = {
  purchase_code: MB_CODES.banned,
  license_type: 'Regular',
  price: 10.5,
  currency: 'USD',
  item: ITEM_2001,
  downloaded: false,
  date: '2024-02-01T16:00:00.000000Z',
};

export const PURCHASE_PLAIN = {
  purchase_code: MB_CODES.plain,
  license_type: 'Regular',
  price: 19.99,
  currency: 'USD',
  item: ITEM_4001,
  supported_until: '2025-03-01T00:00:00.000000Z',
  downloaded: false,
  date: '2024-02-01T16:00:00.000000Z',
};

/** The item is not supported: no `supported_until`, as the contract's rule says. */
export const PURCHASE_PLAIN_UNSUPPORTED = {
  purchase_code: MB_CODES.plainUnsupported,
  license_type: 'Regular',
  price: 0.5,
  currency: 'USD',
  item: ITEM_4002,
  downloaded: false,
  date: '2024-02-01T16:00:00.000000Z',
};

/** The same resource in another currency: amounts times the rate. */
export function inCurrency<T>(value: T, currency: string, times: (amount: number) => number): T {
  const walk = (node: unknown, key?: string): unknown => {
    if (Array.isArray(node)) return node.map((entry) => walk(entry));
    if (node !== null && typeof node === 'object') {
      if (key === 'options' || key === 'social_links') return node;
      return Object.fromEntries(Object.entries(node).map(([name, entry]) => [name, walk(entry, name)]));
    }
    if (key === 'currency') return currency;
    if ((key === 'price' || key === 'regular' || key === 'extended' || key === 'balance') && typeof node === 'number')
      return times(node);
    return node;
  };
  return walk(value) as T;
}
