/**
 * Bodies as MarketBob's own API writes them (docs/marketbob.md; its code), written by hand as
 * the bytes a seller's software receives: floats as PHP's json_encode writes them, NULLs as null,
 * tags one string, screenshots an object keyed "0", "1", ..., dates with six decimals.
 */

const imageItem = {
  id: 7,
  name: 'Clean Admin',
  description: 'A responsive admin dashboard template.',
  category: 'Scripts',
  sub_category: 'PHP',
  options: { Layout: 'Responsive', Browsers: ['Chrome', 'Firefox'] },
  version: '1.2',
  demo_link: 'https://demo.example.com/clean-admin',
  tags: 'admin,dashboard, bootstrap',
  media: {
    thumbnail: 'https://market.example.com/storage/items/7/thumbnail.png',
    preview_image: 'https://market.example.com/storage/items/7/preview.png',
    screenshots: {
      '0': 'https://market.example.com/storage/items/7/screenshots/1.png',
      '1': 'https://market.example.com/storage/items/7/screenshots/2.png',
    },
  },
  price: { regular: 29.999, extended: 1259.4995 },
  currency: 'USD',
  published_at: '2024-02-01T16:00:00.000000Z',
};

const videoItem = {
  id: 6,
  name: 'Intro Pack',
  description: 'Video intros.',
  category: 'Video',
  sub_category: null,
  options: ['4K', 'No plugins'],
  version: null,
  demo_link: null,
  tags: '',
  media: {
    thumbnail: 'https://market.example.com/storage/items/6/preview.jpg',
    preview_image: 'https://market.example.com/storage/items/6/preview.jpg',
    preview_video: 'https://market.example.com/storage/items/6/preview.mp4',
  },
  price: { regular: 30, extended: 120 },
  currency: 'USD',
  published_at: '2023-12-24T08:15:30.000000Z',
};

const audioItem = {
  id: 3,
  name: 'Calm Loops',
  description: 'Ambient loops for videos.',
  category: 'Music',
  sub_category: 'Ambient',
  options: null,
  version: '2',
  demo_link: null,
  tags: 'ambient,loops',
  media: {
    thumbnail: 'https://market.example.com/storage/items/3/thumbnail.png',
    preview_audio: 'https://market.example.com/storage/items/3/preview.mp3',
  },
  price: { regular: 9.5, extended: 90.5 },
  currency: 'USD',
  published_at: '2023-01-15T09:30:00.000000Z',
};

/** An image item without screenshots: the key stays, as null. */
const bareImageItem = {
  ...imageItem,
  id: 2,
  media: { thumbnail: imageItem.media.thumbnail, preview_image: imageItem.media.preview_image, screenshots: null },
};

export const MARKETBOB_RESOURCES = { imageItem, videoItem, audioItem, bareImageItem } as const;

export const MARKETBOB_ACCOUNT = {
  name: { firstname: 'John', lastname: 'Doe', full_name: 'John Doe' },
  username: 'johndoe',
  email: 'john@example.com',
  balance: 1259.4995,
  currency: 'USD',
  profile: {
    heading: null,
    description: 'Themes and plugins since 2015.',
    contact: { email: null },
    social_links: { facebook: 'https://facebook.com/johndoe', x: null, linkedin: '' },
    media: {
      avatar: 'https://market.example.com/images/avatars/default.png',
      cover: 'https://market.example.com/storage/covers/johndoe.jpg',
    },
  },
  registered_at: '2022-05-03T11:02:09.000000Z',
};

export const MARKETBOB_PURCHASE = {
  purchase_code: 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d',
  license_type: 'Regular',
  price: 29.999,
  currency: 'USD',
  item: imageItem,
  supported_until: '2025-02-01T16:00:00.000000Z',
  downloaded: true,
  date: '2024-02-01T16:00:00.000000Z',
};

/** A purchase whose support end is not shown (support off, or no end date): the key is absent. */
export const MARKETBOB_PURCHASE_UNSUPPORTED = {
  purchase_code: 'F0E1D2C3-B4A5-4968-8776-655443322110',
  license_type: 'Extended',
  price: 120,
  currency: 'USD',
  item: videoItem,
  downloaded: false,
  date: '2024-03-09T23:59:59.123456Z',
};

/** The four success bodies as the bytes MarketBob sends. */
export const MARKETBOB_BODIES = {
  accountDetails: JSON.stringify({ status: 'success', data: MARKETBOB_ACCOUNT }),
  itemsAll: JSON.stringify({ status: 'success', items: [imageItem, videoItem, audioItem, bareImageItem] }),
  itemsItem: JSON.stringify({ status: 'success', item: audioItem }),
  purchaseValidation: JSON.stringify({ status: 'success', item: MARKETBOB_PURCHASE }),
  purchaseValidationUnsupported: JSON.stringify({ status: 'success', item: MARKETBOB_PURCHASE_UNSUPPORTED }),
} as const;
