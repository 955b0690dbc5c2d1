import { afterAll, beforeAll, describe, it } from 'vitest';
import { createTestApp, TEST_STORES, type TestApp, VARIANTS } from '../helpers/test-app.js';
import { expectJson, url } from './http-assertions.js';

/**
 * A seller's list has the store write each item's JSON head (the part no variant changes) while
 * reading it, where one item is serialised by the app. Both must give the same text, escaping
 * included: every control character, quotes, backslashes, and characters JSON may carry as they
 * are. Checked byte for byte against JSON.stringify of the contract's objects, on both stores,
 * for a list sent whole and for one streamed page by page.
 */

// NUL is text SQLite keeps and PostgreSQL refuses (its import reports the line).
const controls = (withNul: boolean) =>
  Array.from({ length: 32 }, (_, code) => String.fromCharCode(code)).slice(withNul ? 0 : 1);
const tricky = (withNul: boolean, label: string) =>
  `${label} ${controls(withNul).join('')} "quoted" back\\slash /slash </script> \u007f\u0080 \u2028\u2029 é ü 😀 end`;

const cdn = (path: string) => `https://cdn.example.com/${path}`;
const PREVIEW_TYPES = ['image', 'video', 'audio'] as const;

interface ItemSpec {
  readonly id: number;
  readonly account: string;
  readonly text: string;
  readonly previewType: (typeof PREVIEW_TYPES)[number];
  readonly screenshots: readonly string[];
}

/** The preview fields each type takes (SPEC 3's media table), in the order `media` lists them. */
function previews({ id, previewType }: ItemSpec): Record<string, string> {
  if (previewType === 'image') return { preview_image: cdn(`${id}/p.png`) };
  if (previewType === 'video') return { preview_image: cdn(`${id}/p.png`), preview_video: cdn(`${id}/v.mp4`) };
  return { preview_audio: cdn(`${id}/a.mp3`) };
}

/** The fields an item is imported with and shown with alike, in contract order. */
function textFields(spec: ItemSpec) {
  return {
    name: `Name ${spec.text}`,
    description: `Description ${spec.text}`,
    category: `Category ${spec.text}`,
    sub_category: `Sub ${spec.text}`,
    options: [`Option ${spec.text}`, 'plain'],
    version: '2.0.1',
    demo_link: `https://demo.example.com/${spec.id}`,
    tags: [spec.text],
  };
}

function itemLine(spec: ItemSpec) {
  return {
    type: 'item',
    id: spec.id,
    account: spec.account,
    ...textFields(spec),
    preview_type: spec.previewType,
    thumbnail: cdn(`${spec.id}/t.png`),
    ...previews(spec),
    screenshots: spec.screenshots,
    price: { regular: '1.00', extended: '2.50' },
    supported: true,
    status: 'approved',
    published_at: '2024-01-02T00:00:00Z',
  };
}

/** The item as SPEC 3 shows it, keys in contract order, written out from the spec alone. */
function expectedItem(spec: ItemSpec, variant: (typeof VARIANTS)[number]) {
  const media: Record<string, unknown> = { thumbnail: cdn(`${spec.id}/t.png`), ...previews(spec) };
  if (spec.screenshots.length > 0) media.screenshots = spec.screenshots;
  return {
    id: spec.id,
    ...textFields(spec),
    media,
    price: variant.lang === 'en' ? { regular: 1, extended: 2.5 } : { regular: 5, extended: 12.5 },
    currency: variant.currency,
    published_at: '2024-01-02T00:00:00.000Z',
  };
}

const KEYS = { few: 'few-items-key-0123456789abcdef', many: 'many-items-key-0123456789abcde' } as const;
/** More than one page of the store's list query (500): that list is streamed. */
const MANY = 503;

describe.each(TEST_STORES)('item text in lists and alone, %s store', (kind) => {
  const withNul = kind === 'sqlite';
  const specs: ItemSpec[] = [];
  // Every preview type, with and without screenshots, each with text to escape.
  PREVIEW_TYPES.forEach((previewType, n) => {
    for (const screenshots of [[cdn(`s/${n}.png`), cdn(`s/${n}b.png`)], []]) {
      specs.push({
        id: 10 + specs.length,
        account: 'few',
        text: tricky(withNul, `few ${n}`),
        previewType,
        screenshots,
      });
    }
  });
  for (let n = 0; n < MANY; n++) {
    // Text to escape on the first and the last page, plain text between.
    const escaped = n < 3 || n >= MANY - 3;
    specs.push({
      id: 1000 + n,
      account: 'many',
      text: escaped ? tricky(withNul, `many ${n}`) : `plain ${n}`,
      previewType: PREVIEW_TYPES[n % 3] as ItemSpec['previewType'],
      screenshots: n % 2 ? [cdn(`m/${n}.png`)] : [],
    });
  }
  const account = (username: keyof typeof KEYS) => ({
    type: 'account',
    username,
    email: `${username}@example.com`,
    api_key: KEYS[username],
    registered_at: '2024-01-01T00:00:00Z',
  });

  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind, { lines: [account('few'), account('many'), ...specs.map(itemLine)] });
  });
  afterAll(() => t.close());

  for (const variant of VARIANTS) {
    for (const seller of ['few', 'many'] as const) {
      it(`lists ${seller}'s items in ${variant.lang} exactly as the contract writes them`, async () => {
        const response = await t.app.inject({
          url: url(variant, '/api/items/all'),
          headers: { 'x-api-key': KEYS[seller] },
        });
        const expected = specs
          .filter((spec) => spec.account === seller)
          .sort((a, b) => b.id - a.id)
          .map((spec) => expectedItem(spec, variant));
        expectJson(response, 200, { status: variant.ok, items: expected });
      });
    }

    it(`answers each item with text to escape alone, in ${variant.lang}, with the same text`, async () => {
      for (const spec of specs.filter((s) => s.text.includes('"quoted"'))) {
        const response = await t.app.inject({
          url: url(variant, '/api/items/item', [['item_id', String(spec.id)]]),
          headers: { 'x-api-key': KEYS[spec.account as keyof typeof KEYS] },
        });
        expectJson(response, 200, { status: variant.ok, item: expectedItem(spec, variant) });
      }
    });
  }
});
