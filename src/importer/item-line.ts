import { type Static, Type } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { allowsPreviewField, PREVIEW_FIELDS, PREVIEW_FIELDS_BY_TYPE } from '../domain/media.js';
import type { ItemRecord } from '../domain/records.js';
import { FieldReader, ItemIdSchema, type LineReading, MoneySchema, reading } from './field-reader.js';
import { schemaProblems } from './schema-problems.js';

const Url = (description = 'An http(s) URL') => Type.String({ description });

/** An `item` line (SPEC 5). Fields left out take their defaults. */
export const ItemLineSchema = Type.Object(
  {
    type: Type.Literal('item'),
    id: ItemIdSchema,
    account: Type.String({ description: "The owner's username: in the store, or on an earlier line" }),
    name: Type.String(),
    description: Type.Optional(Type.String()),
    category: Type.Optional(Type.String()),
    sub_category: Type.Optional(Type.String()),
    options: Type.Optional(Type.Array(Type.String())),
    tags: Type.Optional(Type.Array(Type.String())),
    version: Type.String({ description: 'major.minor.patch, such as 1.2.3' }),
    demo_link: Type.Optional(Url('An http(s) URL, or "" for none')),
    preview_type: Type.Union([Type.Literal('image'), Type.Literal('video'), Type.Literal('audio')]),
    thumbnail: Url(),
    preview_image: Type.Optional(Url('Only for image and video items')),
    preview_video: Type.Optional(Url('Only for video items')),
    preview_audio: Type.Optional(Url('Only for audio items')),
    screenshots: Type.Optional(Type.Array(Url())),
    price: Type.Object({ regular: MoneySchema, extended: MoneySchema }, { additionalProperties: false }),
    supported: Type.Optional(Type.Boolean()),
    status: Type.Union([
      Type.Literal('approved'),
      Type.Literal('pending'),
      Type.Literal('rejected'),
      Type.Literal('removed'),
    ]),
    published_at: Type.String({ description: 'ISO 8601 with Z or an offset' }),
  },
  { additionalProperties: false },
);
export type ItemLine = Static<typeof ItemLineSchema>;

const checker = TypeCompiler.Compile(ItemLineSchema);

const VERSION = /^\d+\.\d+\.\d+$/;

/** Reads an item line (an object whose `type` is `item`). */
export function readItemLine(value: unknown): LineReading<ItemRecord> {
  if (!checker.Check(value)) return { ok: false, problems: schemaProblems(checker, value) };
  const line = value;
  const reader = new FieldReader();
  if (!VERSION.test(line.version)) reader.problem('version must be major.minor.patch, such as 1.2.3');
  const previews = { preview_image: '', preview_video: '', preview_audio: '' };
  for (const field of PREVIEW_FIELDS) {
    const url = line[field];
    if (url === undefined || url === '') continue;
    if (allowsPreviewField(line.preview_type, field)) previews[field] = reader.url(field, url);
    else {
      const allowed = PREVIEW_FIELDS_BY_TYPE[line.preview_type].join(' and ');
      reader.problem(`${field} is not allowed for preview_type ${line.preview_type} (it takes ${allowed})`);
    }
  }
  const screenshots = line.screenshots ?? [];
  for (const [index, url] of screenshots.entries()) reader.url(`screenshots[${index}]`, url);
  const record: ItemRecord = {
    id: reader.itemId('id', line.id),
    account: line.account,
    name: line.name,
    description: line.description ?? '',
    category: line.category ?? '',
    sub_category: line.sub_category ?? '',
    options: JSON.stringify(line.options ?? []),
    version: line.version,
    demo_link: reader.optionalUrl('demo_link', line.demo_link),
    tags: JSON.stringify(line.tags ?? []),
    preview_type: line.preview_type,
    thumbnail: reader.url('thumbnail', line.thumbnail),
    ...previews,
    screenshots: JSON.stringify(screenshots),
    price_regular: reader.money('price.regular', line.price.regular),
    price_extended: reader.money('price.extended', line.price.extended),
    supported: line.supported ? 1 : 0,
    status: line.status,
    published_at: reader.timestamp('published_at', line.published_at),
  };
  return reading(reader, record);
}
