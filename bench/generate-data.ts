import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';

/**
 * A deterministic data set for benchmarks: accounts, their items and purchases of those items,
 * as import NDJSON lines (SPEC 5). Every value is a pure function of the seed and the row's
 * index, so a benchmark can pick valid (or invalid) API keys, item ids and purchase codes at
 * random without reading the file back: see `accountApiKey`, `itemIdAt`, `purchaseCode`, and
 * `purchaseItemIndex` / `itemAccountIndex` to know who owns what.
 *
 * Lines come accounts first, then items, then purchases, so every reference points back.
 */
export interface DatasetOptions {
  readonly purchases: number;
  /** Default: one per 100 purchases (at least 1). */
  readonly accounts?: number;
  /** Default: one per 10 purchases (at least 1). */
  readonly items?: number;
  /** Default: 1. */
  readonly seed?: number;
}

export interface Dataset {
  readonly accounts: number;
  readonly items: number;
  readonly purchases: number;
  readonly seed: number;
}

/** The full benchmark: 10,000 accounts, 100,000 items, 1,000,000 purchases. */
export const FULL_DATASET: Dataset = dataset({ purchases: 1_000_000 });

export function dataset(options: DatasetOptions): Dataset {
  const purchases = Math.max(0, Math.floor(options.purchases));
  return {
    purchases,
    accounts: options.accounts ?? Math.max(1, Math.ceil(purchases / 100)),
    items: options.items ?? Math.max(1, Math.ceil(purchases / 10)),
    seed: options.seed ?? 1,
  };
}

/** A bijective 32-bit mixer (lowbias32): equal inputs, equal outputs; distinct inputs, distinct outputs. */
function mix32(value: number): number {
  let x = value >>> 0;
  x ^= x >>> 16;
  x = Math.imul(x, 0x7feb352d);
  x ^= x >>> 15;
  x = Math.imul(x, 0x846ca68b);
  x ^= x >>> 16;
  return x >>> 0;
}

/** A 32-bit pseudo-random number for (seed, stream, index, draw). */
function draw(data: Dataset, stream: number, index: number, n = 0): number {
  return mix32(mix32(mix32(data.seed + stream * 0x9e3779b9) + index) + n * 0x85ebca6b);
}

const hex8 = (value: number) => value.toString(16).padStart(8, '0');
const pick = <T>(values: readonly T[], random: number): T => values[random % values.length] as T;
const cents = (value: number) => `${Math.floor(value / 100)}.${String(value % 100).padStart(2, '0')}`;

const EPOCH_2020 = Date.UTC(2020, 0, 1);
/** A timestamp `days` (up to) after 2020-01-01, with whole seconds, as a file would have it. */
const timestamp = (random: number, days: number) =>
  new Date(EPOCH_2020 + (random % (days * 86_400)) * 1000).toISOString().replace('.000Z', 'Z');

const STREAM = { account: 1, item: 2, purchase: 3, key: 4, code: 5 } as const;

export function accountUsername(index: number): string {
  return `seller${index + 1}`;
}

/** The API key the file gives account `index`: 48 hex characters. */
export function accountApiKey(data: Dataset, index: number): string {
  let key = '';
  for (let n = 0; n < 6; n++) key += hex8(draw(data, STREAM.key, index, n));
  return key;
}

export function itemIdAt(index: number): number {
  return 1000 + index;
}

/** Items go to accounts round-robin. */
export function itemAccountIndex(data: Dataset, itemIndex: number): number {
  return itemIndex % data.accounts;
}

/** A purchase code shaped like a UUID v4; the first group alone tells purchases apart. */
export function purchaseCode(data: Dataset, index: number): string {
  const a = hex8(mix32(index ^ draw(data, STREAM.code, 0)));
  const b = hex8(draw(data, STREAM.code, index, 1));
  const c = hex8(draw(data, STREAM.code, index, 2));
  const d = hex8(draw(data, STREAM.code, index, 3));
  return `${a}-${b.slice(0, 4)}-4${b.slice(5, 8)}-${pick(['8', '9', 'a', 'b'], draw(data, STREAM.code, index, 4))}${c.slice(1, 4)}-${c.slice(4)}${d}`;
}

export function purchaseItemIndex(data: Dataset, index: number): number {
  return draw(data, STREAM.purchase, index) % data.items;
}

const CDN = 'https://cdn.example.com';
const NETWORKS = ['x', 'github', 'youtube', 'dribbble', 'behance'];
const FIRST_NAMES = ['Ada', 'Alan', 'Grace', 'Linus', 'Margaret', 'Ken', 'Barbara', 'Dennis', 'José', 'Zoë'];
const LAST_NAMES = ['Lovelace', 'Turing', 'Hopper', 'Torvalds', 'Hamilton', 'Thompson', 'Liskov', 'Ritchie'];
const CATEGORIES = ['Scripts', 'Themes', 'Plugins', 'Graphics', 'Audio', 'Video'];
const SUB_CATEGORIES = ['PHP', 'JavaScript', 'WordPress', 'Icons', 'Music', 'Intros'];
const TAGS = ['admin', 'dashboard', 'responsive', 'dark', 'minimal', 'ecommerce', 'blog', 'saas'];
const OPTIONS = ['Responsive', 'Retina ready', 'RTL', 'Documented', 'Gutenberg'];
const ITEM_STATUSES = ['approved', 'approved', 'approved', 'approved', 'approved', 'approved', 'pending', 'removed'];
const PURCHASE_STATUSES = [...Array<string>(18).fill('active'), 'refunded', 'cancelled'];

export function accountLine(data: Dataset, index: number): Record<string, unknown> {
  const r = (n: number) => draw(data, STREAM.account, index, n);
  const username = accountUsername(index);
  const links: Record<string, string> = {};
  for (let n = 0; n < r(0) % 3; n++) links[pick(NETWORKS, r(10 + n))] = `https://example.com/${username}/${n}`;
  return {
    type: 'account',
    username,
    email: `${username}@example.com`,
    firstname: pick(FIRST_NAMES, r(1)),
    lastname: pick(LAST_NAMES, r(2)),
    balance: cents(r(3) % 500_000),
    status: r(4) % 50 === 0 ? 'suspended' : 'active',
    api_key: accountApiKey(data, index),
    registered_at: timestamp(r(5), 1000),
    profile: {
      heading: `Products by ${username}`,
      description: 'Quality digital goods since forever.',
      contact_email: `support@${username}.example.com`,
      social_links: links,
      avatar: `${CDN}/avatars/${username}.png`,
      cover: r(6) % 4 === 0 ? '' : `${CDN}/covers/${username}.jpg`,
    },
  };
}

export function itemLine(data: Dataset, index: number): Record<string, unknown> {
  const r = (n: number) => draw(data, STREAM.item, index, n);
  const id = itemIdAt(index);
  const previewType = pick(['image', 'image', 'video', 'audio'] as const, r(0));
  const media: Record<string, unknown> = { thumbnail: `${CDN}/items/${id}/thumb.png` };
  if (previewType !== 'audio') media.preview_image = `${CDN}/items/${id}/preview.jpg`;
  if (previewType === 'video') media.preview_video = `${CDN}/items/${id}/preview.mp4`;
  if (previewType === 'audio') media.preview_audio = `${CDN}/items/${id}/preview.mp3`;
  const screenshots = Array.from({ length: r(1) % 4 }, (_, n) => `${CDN}/items/${id}/shot-${n + 1}.png`);
  const regular = 500 + (r(2) % 9500);
  return {
    type: 'item',
    id,
    account: accountUsername(itemAccountIndex(data, index)),
    name: `Item ${id}: ${pick(CATEGORIES, r(3))} kit`,
    description: 'A well made item with documentation and free updates.',
    category: pick(CATEGORIES, r(3)),
    sub_category: pick(SUB_CATEGORIES, r(4)),
    options: [pick(OPTIONS, r(5)), pick(OPTIONS, r(6))],
    version: `${r(7) % 5}.${r(8) % 20}.${r(9) % 10}`,
    demo_link: r(10) % 3 === 0 ? '' : `https://demo.example.com/${id}`,
    tags: [pick(TAGS, r(11)), pick(TAGS, r(12)), pick(TAGS, r(13))],
    preview_type: previewType,
    ...media,
    screenshots,
    price: { regular: cents(regular), extended: cents(regular * 5) },
    supported: r(14) % 4 !== 0,
    status: pick(ITEM_STATUSES, r(15)),
    published_at: timestamp(r(16), 1200),
  };
}

export function purchaseStatus(data: Dataset, index: number): string {
  return pick(PURCHASE_STATUSES, draw(data, STREAM.purchase, index, 6));
}

export function purchaseLine(data: Dataset, index: number): Record<string, unknown> {
  const r = (n: number) => draw(data, STREAM.purchase, index, n);
  const extended = r(1) % 10 === 0;
  const line: Record<string, unknown> = {
    type: 'purchase',
    code: purchaseCode(data, index),
    item_id: itemIdAt(purchaseItemIndex(data, index)),
    license_type: extended ? 'extended' : 'regular',
    price: cents((extended ? 5 : 1) * (500 + (r(2) % 9500))),
  };
  if (r(3) % 10 < 7) line.supported_until = timestamp(r(4), 2500);
  line.downloaded = r(5) % 2 === 0;
  line.status = purchaseStatus(data, index);
  line.date = timestamp(r(7), 1800);
  return line;
}

/** Every line of the data set, in file order. */
export function* datasetLines(data: Dataset): Generator<string> {
  for (let index = 0; index < data.accounts; index++) yield JSON.stringify(accountLine(data, index));
  for (let index = 0; index < data.items; index++) yield JSON.stringify(itemLine(data, index));
  for (let index = 0; index < data.purchases; index++) yield JSON.stringify(purchaseLine(data, index));
}

const FLUSH_CHARS = 1 << 20;

/** Writes the data set as NDJSON to `out`, respecting back-pressure; does not end the stream. */
export async function writeDataset(
  data: Dataset,
  out: NodeJS.WritableStream,
): Promise<{ lines: number; bytes: number }> {
  let lines = 0;
  let bytes = 0;
  let buffer = '';
  const flush = async () => {
    bytes += Buffer.byteLength(buffer, 'utf8');
    if (!out.write(buffer)) await once(out, 'drain');
    buffer = '';
  };
  for (const line of datasetLines(data)) {
    buffer += `${line}\n`;
    lines++;
    if (buffer.length >= FLUSH_CHARS) await flush();
  }
  if (buffer !== '') await flush();
  return { lines, bytes };
}

/** Writes the data set to a new NDJSON file at `path`. */
export async function writeDatasetFile(data: Dataset, path: string): Promise<{ lines: number; bytes: number }> {
  const out = createWriteStream(path);
  const written = await writeDataset(data, out);
  out.end();
  await finished(out);
  return written;
}
