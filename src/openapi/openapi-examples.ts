import { DEMO_ITEM_ID, DEMO_PURCHASE_CODE } from '../demo/demo-data.js';
import type { AccountRow, ItemRow, PurchaseRow } from '../records/rows.js';
import { serializeAccount, serializeItem, serializePurchaseAroundItem } from '../records/serialize.js';
import type { VariantConfig } from '../variants/variant-config.js';

/**
 * The document's example bodies, made by the very serialisers the routes use (over example
 * records), so an example can never show a shape the API does not answer with. The item id and
 * purchase code are the demo data's, so the docs page's "Try it out" answers 200 against a store
 * holding the demo data; the records' words are put in the variant's language.
 */

const account: AccountRow = {
  username: 'jdoe',
  email: 'jdoe@example.com',
  firstname: 'Jo',
  lastname: 'Doe',
  balance: 12050,
  status: 'active',
  registered_at: '2023-01-02T03:04:05.000Z',
  heading: 'Themes and plugins',
  description: 'Handmade admin themes since 2015.',
  contact_email: 'support@jdoe.example.com',
  social_links: JSON.stringify([
    ['github', 'https://github.com/jdoe'],
    ['x', 'https://x.com/jdoe'],
  ]),
  avatar: 'https://cdn.example.com/jdoe/avatar.png',
  cover: 'https://cdn.example.com/jdoe/cover.png',
  marketbob: '',
  key_digest: '',
  key_cipher: '',
};

const item: ItemRow = {
  id: DEMO_ITEM_ID,
  account: 'jdoe',
  name: 'Clean Admin',
  description: 'A responsive admin dashboard template.',
  category: 'Scripts',
  sub_category: 'PHP',
  options: JSON.stringify(['Responsive', 'Dark mode']),
  version: '1.2.3',
  demo_link: 'https://demo.example.com/clean-admin',
  tags: JSON.stringify(['admin', 'dashboard']),
  preview_type: 'image',
  thumbnail: `https://cdn.example.com/${DEMO_ITEM_ID}/thumbnail.png`,
  preview_image: `https://cdn.example.com/${DEMO_ITEM_ID}/preview.png`,
  preview_video: '',
  preview_audio: '',
  screenshots: JSON.stringify([`https://cdn.example.com/${DEMO_ITEM_ID}/screen-1.png`]),
  price_regular: 1999,
  price_extended: 4900,
  supported: 1,
  status: 'approved',
  published_at: '2023-02-01T00:00:00.000Z',
  marketbob: '',
};

const audioItem: ItemRow = {
  ...item,
  id: DEMO_ITEM_ID + 1,
  name: 'Calm Loops',
  description: 'Ambient loops for videos.',
  category: 'Music',
  sub_category: 'Ambient',
  options: '[]',
  version: '2.0.0',
  demo_link: '',
  tags: JSON.stringify(['ambient']),
  preview_type: 'audio',
  thumbnail: `https://cdn.example.com/${DEMO_ITEM_ID + 1}/thumbnail.png`,
  preview_image: '',
  preview_audio: `https://cdn.example.com/${DEMO_ITEM_ID + 1}/preview.mp3`,
  screenshots: '[]',
  price_regular: 900,
  price_extended: 9000,
  published_at: '2023-01-15T09:30:00.000Z',
};

const purchase: PurchaseRow = {
  code_key: DEMO_PURCHASE_CODE.toLowerCase(),
  code: DEMO_PURCHASE_CODE,
  item_id: DEMO_ITEM_ID,
  license_type: 'regular',
  price: 1999,
  supported_until: '2025-02-01T00:00:00.000Z',
  downloaded: 0,
  status: 'active',
  date: '2024-02-01T10:00:00.000Z',
  marketbob: '',
};

/** The success envelopes' members after `status`, per endpoint, in a variant's currency. */
export function exampleSuccessMembers(
  variant: VariantConfig,
  support: boolean,
  t: (english: string) => string,
): Readonly<Record<string, unknown>> {
  const parse = (text: string): unknown => JSON.parse(text);
  const words = (list: string) => JSON.stringify((JSON.parse(list) as string[]).map(t));
  const localAccount = { ...account, heading: t(account.heading), description: t(account.description) };
  const local = (row: ItemRow): ItemRow => ({
    ...row,
    description: t(row.description),
    category: row.category === 'Scripts' ? row.category : t(row.category),
    sub_category: row.sub_category === 'PHP' ? row.sub_category : t(row.sub_category),
    options: words(row.options),
  });
  const [localItem, localAudio] = [local(item), local(audioItem)];
  const [before, after] = serializePurchaseAroundItem(purchase, item.supported === 1, variant, support);
  return {
    accountDetails: { data: parse(serializeAccount(localAccount, variant)) },
    itemsAll: { items: [parse(serializeItem(localAudio, variant)), parse(serializeItem(localItem, variant))] },
    itemsItem: { item: parse(serializeItem(localItem, variant)) },
    purchaseValidation: { data: { purchase: parse(`${before}${serializeItem(localItem, variant)}${after}`) } },
    purchaseActivity: {
      data: {
        activity: {
          purchase_code: purchase.code,
          validations: 412,
          networks: 57,
          first_seen: '2024-02-01T10:02:13.118Z',
          last_seen: '2024-03-14T21:40:07.502Z',
          days: [
            { date: '2024-03-14', validations: 96, networks: 31 },
            { date: '2024-03-13', validations: 4, networks: 2 },
          ],
        },
      },
    },
    purchaseActivation: {
      data: {
        activation: EXAMPLE_ACTIVATION,
        activations: { used: 1, limit: 3 },
        purchase: parse(`${before}${serializeItem(localItem, variant)}${after}`),
      },
    },
    purchaseDeactivation: { data: { activations: { used: 0, limit: 3 } } },
    purchaseLicense: {
      data: {
        license:
          'eyJhbGciOiJFZERTQSIsInR5cCI6IkpXVCIsImtpZCI6Ik56YkxzWGg4dURDY2QtNk1Od1hGNFdfN25vV1hGWkFmSGt4WnNSR0M5WHMifQ.' +
          'eyJpc3MiOiIvIiwiaWF0IjoxNzE0NTY0ODAwLCJleHAiOjE3MTcxNTY4MDB9.' +
          'c2lnbmF0dXJlLWV4YW1wbGUtb25seS1ub3QtYS1yZWFsLXNpZ25hdHVyZS1vZi1hbnl0aGluZy1hdC1hbGwtMDAwMA',
        expires_at: '2024-05-31T12:00:00.000Z',
      },
    },
    purchaseActivityTop: {
      data: {
        days: 30,
        codes: [
          {
            purchase_code: purchase.code,
            item_id: purchase.item_id,
            purchase_status: purchase.status,
            validations: 100,
            networks: 33,
            first_seen: '2024-03-13T08:15:44.030Z',
            last_seen: '2024-03-14T21:40:07.502Z',
          },
        ],
      },
    },
  };
}

/** An install's name for the document's examples. */
export const EXAMPLE_INSTANCE = 'shop.example.com';

const EXAMPLE_ACTIVATION = {
  id: 'act_6f1d2c3b4a5968778695a4b3c2d1e0f1',
  instance: EXAMPLE_INSTANCE,
  created_at: '2024-03-14T21:40:07.502Z',
};

/** A purchase code for the document's examples. */
export const EXAMPLE_PURCHASE_CODE = purchase.code;
/** An item id for the document's examples. */
export const EXAMPLE_ITEM_ID = item.id;
