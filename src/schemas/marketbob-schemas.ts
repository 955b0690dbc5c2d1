import { type Static, type TSchema, Type } from '@sinclair/typebox';
import type { MarketbobMessages } from '../variants/marketbob-texts.js';

/**
 * What a variant in MarketBob's own shape answers (docs/marketbob.md; the facts are MarketBob's
 * API code), one schema per resource and per body, keys in MarketBob's order. Unlike the
 * contract's resources, NULL columns come out as `null`, money is the float MarketBob computes
 * (no rounding to cents), tags stay one string and dates carry six decimals. The OpenAPI document
 * of a `marketbob` variant and the SDK's `shape: 'marketbob'` types come from here, and the API's
 * tests check its answers against these schemas.
 */

const closed = { additionalProperties: false } as const;

/** Carbon's JSON form: UTC with six decimals. */
const timestamp = (description = 'ISO 8601 UTC with six decimals, such as 2024-02-01T16:00:00.000000Z') =>
  Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{6}Z$', description });
export const MarketbobTimestamp = timestamp();

/** A float as PHP's json_encode writes it: MarketBob does not round amounts to cents. */
const amount = (description: string) => Type.Number({ description });

const nullable = (schema: TSchema, description: string) => Type.Union([schema, Type.Null()], { description });

const Url = Type.String();
/** A stored path as a URL; null when the row has none (and, for a profile, no default is set). */
const MediaUrl = (description: string) => nullable(Type.String(), description);
const Currency = Type.String({ description: "The marketplace's currency code setting" });

export const MarketbobAccount = Type.Object(
  {
    name: Type.Object(
      {
        firstname: Type.String(),
        lastname: Type.String(),
        full_name: Type.String({
          description:
            'First and last name joined by a space when both are set, else the username, else the part of the email before @',
        }),
      },
      closed,
    ),
    username: Type.String(),
    email: Type.String(),
    balance: amount('The stored balance, unrounded'),
    currency: Currency,
    profile: Type.Object(
      {
        heading: nullable(Type.String(), 'null when not set'),
        description: nullable(Type.String(), 'null when not set'),
        contact: Type.Object({ email: nullable(Type.String(), 'null when not set') }, closed),
        social_links: nullable(
          Type.Record(Type.String(), Type.Unknown()),
          'The stored object as it is, every key kept; null when not set',
        ),
        media: Type.Object(
          {
            avatar: MediaUrl("The user's avatar as a URL, else the default avatar's; null when neither is set"),
            cover: MediaUrl("The user's cover as a URL, else the default cover's; null when neither is set"),
          },
          closed,
        ),
      },
      closed,
    ),
    registered_at: MarketbobTimestamp,
  },
  { ...closed, title: 'MarketbobAccount' },
);
export type MarketbobAccount = Static<typeof MarketbobAccount>;

const Screenshots = nullable(
  Type.Record(Type.String({ pattern: '^(0|[1-9]\\d*)$' }), Url, closed),
  'URLs keyed "0", "1", ... in order; null when the item has none',
);

/** An item's media by its preview type: `thumbnail` always, then what that type has. */
const Thumbnail = MediaUrl("The thumbnail as a URL, else the preview image's; null when neither is set");
const Preview = MediaUrl('A URL; null when not set');

export const MarketbobImageMedia = Type.Object(
  { thumbnail: Thumbnail, preview_image: Preview, screenshots: Screenshots },
  { ...closed, title: 'MarketbobImageMedia' },
);
export const MarketbobVideoMedia = Type.Object(
  { thumbnail: Thumbnail, preview_image: Preview, preview_video: Preview },
  { ...closed, title: 'MarketbobVideoMedia' },
);
export const MarketbobAudioMedia = Type.Object(
  { thumbnail: Thumbnail, preview_audio: Preview },
  { ...closed, title: 'MarketbobAudioMedia' },
);
export const MarketbobItemMedia = Type.Union([MarketbobImageMedia, MarketbobVideoMedia, MarketbobAudioMedia], {
  description: "By the item's preview type: image (with screenshots), video or audio",
});

export const MarketbobItem = Type.Object(
  {
    id: Type.Integer({ minimum: 1 }),
    name: Type.String(),
    description: Type.String(),
    category: Type.String({ description: "The category's name" }),
    sub_category: nullable(Type.String(), "The sub-category's name; null when not set"),
    options: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Array(Type.Unknown()), Type.Null()], {
      description: 'The stored JSON as it is (an object or a list); null when not set',
    }),
    version: nullable(Type.String(), 'As stored; null when not set'),
    demo_link: nullable(Type.String(), 'As stored; null when not set'),
    tags: Type.String({ description: 'The stored comma-separated tags, unchanged' }),
    media: MarketbobItemMedia,
    price: Type.Object(
      {
        regular: amount('The regular price plus the buyer fee (the active discount when there is one), unrounded'),
        extended: amount('The extended price plus the buyer fee (the active discount when there is one), unrounded'),
      },
      closed,
    ),
    currency: Currency,
    published_at: MarketbobTimestamp,
  },
  { ...closed, title: 'MarketbobItem' },
);
export type MarketbobItem = Static<typeof MarketbobItem>;

export const MarketbobPurchase = Type.Object(
  {
    purchase_code: Type.String({ minLength: 1, description: 'The code as stored' }),
    license_type: Type.Union([Type.Literal('Regular'), Type.Literal('Extended')]),
    price: amount('The price paid, unrounded'),
    currency: Currency,
    item: MarketbobItem,
    supported_until: Type.Optional(timestamp('Only when support is enabled and the purchase has a support end date')),
    downloaded: Type.Boolean(),
    date: MarketbobTimestamp,
  },
  { ...closed, title: 'MarketbobPurchase' },
);
export type MarketbobPurchase = Static<typeof MarketbobPurchase>;

/** The resource schemas by name, for a document's `components.schemas`. */
export const marketbobResourceSchemas: Readonly<
  Record<'MarketbobAccount' | 'MarketbobItem' | 'MarketbobPurchase', TSchema>
> = { MarketbobAccount, MarketbobItem, MarketbobPurchase };

/** MarketBob's status words: the same in every language. */
const Success = Type.Literal('success');

/** The four endpoints' success bodies, by the contract's operation ids. */
export const MarketbobAccountDetailsBody = Type.Object({ status: Success, data: MarketbobAccount }, closed);
export const MarketbobItemsAllBody = Type.Object(
  {
    status: Success,
    items: Type.Array(MarketbobItem, {
      minItems: 1,
      description:
        "The author's approved items, newest id first; none answer 404 (MarketBob's own code also answers 404 for one: we answer the list)",
    }),
  },
  closed,
);
export const MarketbobItemsItemBody = Type.Object({ status: Success, item: MarketbobItem }, closed);
/** The purchase comes under the key `item`, as MarketBob answers it. */
export const MarketbobValidationBody = Type.Object({ status: Success, item: MarketbobPurchase }, closed);

/** Every error body: `{ "status": "error", "msg": ... }`. */
export const MarketbobErrorBody = Type.Object(
  { status: Type.Literal('error'), msg: Type.String({ minLength: 1 }) },
  closed,
);
export type MarketbobErrorBody = Static<typeof MarketbobErrorBody>;

/** An error body with one of the given messages. */
export function marketbobErrorBody(messages: readonly string[]): TSchema {
  const msg =
    messages.length === 1
      ? Type.Literal(messages[0] as string)
      : Type.Unsafe<string>({ type: 'string', enum: messages });
  return Type.Object({ status: Type.Literal('error'), msg }, closed);
}

/** The four endpoints a `marketbob` variant answers, by the contract's operation ids. */
export type MarketbobOperation = 'accountDetails' | 'itemsAll' | 'itemsItem' | 'purchaseValidation';

/** What an endpoint answers, by HTTP status: its success body, then its errors with their messages. */
export function marketbobResponseSchemas(
  contract: { readonly success: TSchema; readonly messages: MarketbobContractMessages },
  messages: MarketbobMessages,
): ReadonlyMap<number, TSchema> {
  const schemas = new Map<number, TSchema>([[200, contract.success]]);
  for (const [status, names] of Object.entries(contract.messages)) {
    schemas.set(Number(status), marketbobErrorBody(names.map((name) => messages[name])));
  }
  return schemas;
}

/** A MarketBob message's name (see src/variants/marketbob-texts.ts). */
export type MarketbobMessageName = Exclude<keyof MarketbobMessages, 'statusOk' | 'statusError'>;

/** An endpoint's error messages by status, by their names. */
type MarketbobContractMessages = Readonly<Record<number, readonly MarketbobMessageName[]>>;
