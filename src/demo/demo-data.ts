/**
 * The demo data set loaded into an empty default store on first start: two sellers, items of
 * every preview type with and without screenshots, and purchases in every status. Written as
 * import lines so it goes through the same importer (and the same rules) as real data.
 */

const cdn = (name: string) => `https://cdn.example.com/demo/${name}`;

export const DEMO_SELLER = 'demo-seller';
export const DEMO_ITEM_ID = 1003;
export const DEMO_PURCHASE_CODE = 'DEMO-VALID-0001';

const accounts = [
  {
    type: 'account',
    username: DEMO_SELLER,
    email: 'seller@example.com',
    firstname: 'Ada',
    lastname: 'Lovelace',
    balance: '1234.56',
    status: 'active',
    registered_at: '2023-01-02T03:04:05Z',
    profile: {
      heading: 'Themes and plugins since 2023',
      description: 'Demo seller: every preview type, every purchase status.',
      contact_email: 'support@example.com',
      social_links: { x: 'https://x.com/demo', github: 'https://github.com/demo' },
      avatar: cdn('avatar.png'),
      cover: cdn('cover.png'),
    },
  },
  {
    type: 'account',
    username: 'demo-other',
    email: 'other@example.com',
    firstname: 'José',
    lastname: 'Araújo',
    balance: 0,
    status: 'active',
    registered_at: '2024-03-04T05:06:07.250-03:00',
    profile: { heading: 'Áudio e vídeo', description: '', contact_email: '', social_links: {}, avatar: '', cover: '' },
  },
];

const item = (id: number, account: string, fields: Record<string, unknown>) => ({
  type: 'item',
  id,
  account,
  description: 'A demo item.',
  category: 'Scripts',
  sub_category: 'PHP',
  options: ['Responsive'],
  version: '1.2.3',
  demo_link: 'https://demo.example.com',
  tags: ['demo'],
  thumbnail: cdn(`t${id}.png`),
  supported: true,
  status: 'approved',
  published_at: '2023-02-01T00:00:00Z',
  ...fields,
});

const items = [
  item(1001, DEMO_SELLER, {
    name: 'Clean Admin',
    preview_type: 'image',
    preview_image: cdn('p1001.png'),
    screenshots: [cdn('s1001-1.png'), cdn('s1001-2.png')],
    price: { regular: '19.99', extended: '49.00' },
  }),
  item(1002, DEMO_SELLER, {
    name: 'Promo Video Kit',
    preview_type: 'video',
    preview_image: cdn('p1002.png'),
    preview_video: cdn('p1002.mp4'),
    price: { regular: '24.50', extended: '99.99' },
    supported: false,
  }),
  item(DEMO_ITEM_ID, DEMO_SELLER, {
    name: 'Ambient Loops',
    category: 'Music',
    sub_category: 'Ambient',
    preview_type: 'audio',
    preview_audio: cdn('p1003.mp3'),
    screenshots: [cdn('s1003-1.png')],
    price: { regular: '0.99', extended: '9.95' },
  }),
  item(1004, DEMO_SELLER, {
    name: 'Draft Theme (pending review)',
    preview_type: 'image',
    preview_image: cdn('p1004.png'),
    price: { regular: '10', extended: '30' },
    status: 'pending',
  }),
  item(2001, 'demo-other', {
    name: 'Outro Tema',
    preview_type: 'image',
    preview_image: cdn('p2001.png'),
    price: { regular: '5.00', extended: '15.00' },
  }),
];

const purchase = (code: string, itemId: number, fields: Record<string, unknown>) => ({
  type: 'purchase',
  code,
  item_id: itemId,
  license_type: 'regular',
  price: '19.99',
  downloaded: false,
  status: 'active',
  date: '2024-02-01T10:00:00Z',
  ...fields,
});

const purchases = [
  purchase(DEMO_PURCHASE_CODE, 1001, { supported_until: '2030-02-01T00:00:00Z', downloaded: true }),
  purchase('DEMO-VALID-0002', DEMO_ITEM_ID, { license_type: 'extended', price: '9.95' }),
  purchase('DEMO-VALID-0003', 1004, { price: '10' }),
  purchase('DEMO-REFUNDED-0001', 1002, { status: 'refunded', price: '24.50' }),
  purchase('DEMO-CANCELLED-0001', 1001, { status: 'cancelled' }),
  purchase('DEMO-OTHER-0001', 2001, { price: '5.00' }),
];

/** The demo data as NDJSON lines. */
export function demoLines(): string[] {
  return [...accounts, ...items, ...purchases].map((record) => JSON.stringify(record));
}
