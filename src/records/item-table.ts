import { type Static, Type } from '@sinclair/typebox';
import { MAX_ACTIVATION_LIMIT } from '../domain/activation-instance.js';
import {
  allowsPreviewField,
  PREVIEW_FIELDS_BY_TYPE,
  PREVIEW_TYPES,
  type PreviewField,
  type PreviewType,
} from '../domain/media.js';
import { ItemIdSchema, MoneySchema } from './field-reader.js';
import { MarketbobColumnSchema, MarketbobItemSchema, marketbobText } from './marketbob-values.js';
import { defineRecordTable, type ExtrasOf, lineOnly, optional, type RecordOf, required } from './record-table.js';

/** An item's status (SPEC 5). */
export const ItemStatusSchema = Type.Union([
  Type.Literal('approved'),
  Type.Literal('pending'),
  Type.Literal('rejected'),
  Type.Literal('removed'),
]);
export type ItemStatus = Static<typeof ItemStatusSchema>;

/** Which media an item previews with (SPEC 3; the rule is domain/media.ts's). */
export const PreviewTypeSchema = Type.Union(PREVIEW_TYPES.map((type) => Type.Literal(type)));
export type { PreviewType };

const Text = Type.String();
const Url = (description = 'An http(s) URL') => Type.String({ description });
const JsonList = (description: string) => Type.String({ description });
const Flag = Type.Union([Type.Literal(0), Type.Literal(1)]);
const orEmpty = (value: string | undefined) => value ?? '';
const VERSION = /^\d+\.\d+\.\d+$/;

/** A preview URL, kept only when the item's preview type takes it (SPEC 3, the media table). */
function preview(field: PreviewField, description: string) {
  return optional({ sql: 'text', stored: Text, field: Url(description) }, (url, reader, line) => {
    if (url === undefined || url === '') return '';
    const type = line.preview_type as PreviewType;
    if (allowsPreviewField(type, field)) return reader.url(field, url);
    const allowed = PREVIEW_FIELDS_BY_TYPE[type].join(' and ');
    reader.problem(`${field} is not allowed for preview_type ${type} (it takes ${allowed})`);
    return '';
  });
}

/** The `items` table and the `item` import line (SPEC 5), one entry per column in table order. */
export const ITEMS = defineRecordTable({
  table: 'items',
  lineType: 'item',
  key: 'id',
  groups: { price: 'required' },
  entries: {
    id: required({ sql: 'bigint', stored: Type.Integer(), field: ItemIdSchema }, (id, reader) =>
      reader.itemId('id', id),
    ),
    /** The owner's username. */
    account: required(
      {
        sql: 'text',
        stored: Text,
        field: Type.String({ description: "The owner's username: in the store, or on an earlier line" }),
      },
      (account) => account,
    ),
    name: required({ sql: 'text', stored: Text, field: Text }, (name) => name),
    description: optional({ sql: 'text', stored: Text, field: Text }, orEmpty),
    category: optional({ sql: 'text', stored: Text, field: Text }, orEmpty),
    sub_category: optional({ sql: 'text', stored: Text, field: Text }, orEmpty),
    options: optional(
      { sql: 'text', stored: JsonList('JSON array of strings'), field: Type.Array(Type.String()) },
      (options) => JSON.stringify(options ?? []),
    ),
    version: required(
      { sql: 'text', stored: Text, field: Type.String({ description: 'major.minor.patch, such as 1.2.3' }) },
      (version, reader) => {
        if (!VERSION.test(version)) reader.problem('version must be major.minor.patch, such as 1.2.3');
        return version;
      },
    ),
    demo_link: optional({ sql: 'text', stored: Text, field: Url('An http(s) URL, or "" for none') }, (url, reader) =>
      reader.optionalUrl('demo_link', url),
    ),
    tags: optional(
      { sql: 'text', stored: JsonList('JSON array of strings'), field: Type.Array(Type.String()) },
      (tags) => JSON.stringify(tags ?? []),
    ),
    preview_type: required({ sql: 'text', stored: PreviewTypeSchema, field: PreviewTypeSchema }, (type) => type),
    thumbnail: required({ sql: 'text', stored: Text, field: Url() }, (url, reader) => reader.url('thumbnail', url)),
    preview_image: preview('preview_image', 'Only for image and video items'),
    preview_video: preview('preview_video', 'Only for video items'),
    preview_audio: preview('preview_audio', 'Only for audio items'),
    screenshots: optional(
      { sql: 'text', stored: JsonList('JSON array of URLs'), field: Type.Array(Url()) },
      (screenshots = [], reader) => {
        for (const [index, url] of screenshots.entries()) reader.url(`screenshots[${index}]`, url);
        return JSON.stringify(screenshots);
      },
    ),
    /** Minor units of the store currency, as are the other prices. */
    price_regular: required(
      { sql: 'bigint', stored: Type.Integer(), field: MoneySchema, at: 'price.regular' },
      (price, reader) => reader.money('price.regular', price),
    ),
    price_extended: required(
      { sql: 'bigint', stored: Type.Integer(), field: MoneySchema, at: 'price.extended' },
      (price, reader) => reader.money('price.extended', price),
    ),
    supported: optional({ sql: 'integer', stored: Flag, field: Type.Boolean() }, (supported) => (supported ? 1 : 0)),
    status: required({ sql: 'text', stored: ItemStatusSchema, field: ItemStatusSchema }, (status) => status),
    published_at: required(
      { sql: 'text', stored: Text, field: Type.String({ description: 'ISO 8601 with Z or an offset' }) },
      (at, reader) => reader.timestamp('published_at', at),
    ),
    /** MarketBob's own values (see marketbob-values.ts), as JSON; '' when the line had none. */
    marketbob: optional({ sql: 'text', stored: MarketbobColumnSchema, field: MarketbobItemSchema }, marketbobText),
    /**
     * How many instances each purchase of the item may activate at once, `"none"` for no limit;
     * left out, the item keeps the limit it has (a new item: none). Kept in its own table (migration 0015).
     */
    activation_limit: lineOnly(
      {
        field: Type.Union([Type.Integer({ minimum: 1, maximum: MAX_ACTIVATION_LIMIT }), Type.Literal('none')], {
          description: `1 to ${MAX_ACTIVATION_LIMIT}, or "none" for no limit; left out: unchanged`,
        }),
      },
      (limit): number | null | undefined => (limit === undefined ? undefined : limit === 'none' ? null : limit),
    ),
  },
});

/** An item line's fields kept elsewhere: its activation limit. */
export type ItemExtras = ExtrasOf<typeof ITEMS.entries>;

/** An item as stored. */
export type ItemRecord = RecordOf<typeof ITEMS.entries>;
/** An `item` import line. */
export type ItemLine = Static<typeof ITEMS.lineSchema>;
