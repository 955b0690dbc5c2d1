import type { MarketbobOperation } from '../schemas/marketbob-schemas.js';
import type { VariantConfig } from '../variants/variant-config.js';
import { EXAMPLE_ITEM_ID, EXAMPLE_PURCHASE_CODE } from './openapi-examples.js';

/**
 * The example bodies of a `marketbob` variant's document, as MarketBob's own API writes them:
 * floats unrounded, NULLs as null, tags one string, screenshots keyed "0", "1", ..., dates with six
 * decimals. Written here rather than made by the routes' code, so a test checks each against the
 * schemas. The item id and purchase code are the demo data's, as in the contract's document.
 */

const CDN = 'https://market.example.com/storage';

/** The success bodies' members after `status`, per endpoint, in a variant's currency and words. */
export function marketbobExampleMembers(
  variant: VariantConfig,
  support: boolean,
  t: (english: string) => string,
): Readonly<Record<MarketbobOperation, Record<string, unknown>>> {
  const { currency } = variant;
  const item = {
    id: EXAMPLE_ITEM_ID,
    name: 'Clean Admin',
    description: t('A responsive admin dashboard template.'),
    category: 'Scripts',
    sub_category: 'PHP',
    options: { [t('Layout')]: t('Responsive'), Browsers: ['Chrome', 'Firefox'] },
    version: '1.2',
    demo_link: 'https://demo.example.com/clean-admin',
    tags: 'admin,dashboard,bootstrap',
    media: {
      thumbnail: `${CDN}/items/${EXAMPLE_ITEM_ID}/thumbnail.png`,
      preview_image: `${CDN}/items/${EXAMPLE_ITEM_ID}/preview.png`,
      screenshots: { '0': `${CDN}/items/${EXAMPLE_ITEM_ID}/screenshot-1.png` },
    },
    price: { regular: 21.99, extended: 54.9 },
    currency,
    published_at: '2023-02-01T00:00:00.000000Z',
  };
  const audioItem = {
    id: EXAMPLE_ITEM_ID - 1,
    name: 'Calm Loops',
    description: t('Ambient loops for videos.'),
    category: t('Music'),
    sub_category: t('Ambient'),
    options: null,
    version: null,
    demo_link: null,
    tags: 'ambient,loops',
    media: {
      thumbnail: `${CDN}/items/${EXAMPLE_ITEM_ID - 1}/thumbnail.png`,
      preview_audio: `${CDN}/items/${EXAMPLE_ITEM_ID - 1}/preview.mp3`,
    },
    price: { regular: 10.5, extended: 94.995 },
    currency,
    published_at: '2023-01-15T09:30:00.000000Z',
  };
  return {
    accountDetails: {
      data: {
        name: { firstname: 'Jo', lastname: 'Doe', full_name: 'Jo Doe' },
        username: 'jdoe',
        email: 'jdoe@example.com',
        balance: 120.5,
        currency,
        profile: {
          heading: t('Themes and plugins'),
          description: null,
          contact: { email: 'support@jdoe.example.com' },
          social_links: { facebook: null, x: 'https://x.com/jdoe', github: 'https://github.com/jdoe' },
          media: { avatar: `${CDN}/avatars/jdoe.png`, cover: 'https://market.example.com/images/cover.jpg' },
        },
        registered_at: '2023-01-02T03:04:05.000000Z',
      },
    },
    itemsAll: { items: [item, audioItem] },
    itemsItem: { item },
    purchaseValidation: {
      item: {
        purchase_code: EXAMPLE_PURCHASE_CODE,
        license_type: 'Regular',
        price: 21.99,
        currency,
        item,
        ...(support && { supported_until: '2025-02-01T00:00:00.000000Z' }),
        downloaded: false,
        date: '2024-02-01T10:00:00.000000Z',
      },
    },
  };
}
