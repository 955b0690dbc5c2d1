import { type Static, type TSchema, Type } from '@sinclair/typebox';

/**
 * The resources of SPEC 3, one schema each, keys in the contract's order. Responses are written
 * as bytes (src/records/serialize.ts); these schemas describe those bytes, and a test runs every
 * answer of the HTTP suite through them. The same schemas make the OpenAPI document and the SDK's types.
 */

/**
 * Extension keyword: a number with at most this many decimals. `multipleOf: 0.01` would say the
 * same, but binary floats make 19.99 fail it in common validators. Our tests' Ajv checks it; the
 * published OpenAPI document leaves it out (strict validators reject unknown keywords).
 */
export const MAX_DECIMALS = 'x-max-decimals';

const closed = { additionalProperties: false } as const;

/** ISO 8601 UTC with milliseconds and `Z`. */
const timestamp = (description = 'ISO 8601 UTC with milliseconds, such as 2024-05-01T12:00:00.000Z') =>
  Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$', description });
export const Timestamp = timestamp();

/** An amount in the variant's currency, at most two decimals. */
const money = (description = "An amount in the variant's currency, at most two decimals") =>
  Type.Number({ minimum: 0, [MAX_DECIMALS]: 2, description });
export const Money = money();

export const Currency = Type.String({ pattern: '^[A-Z]{3}$', description: "The variant's ISO 4217 currency code" });

export const Account = Type.Object(
  {
    name: Type.Object(
      {
        firstname: Type.String(),
        lastname: Type.String(),
        full_name: Type.String({ description: 'First and last name joined by one space, trimmed' }),
      },
      closed,
    ),
    username: Type.String({ minLength: 1 }),
    email: Type.String(),
    balance: Money,
    currency: Currency,
    profile: Type.Object(
      {
        heading: Type.String(),
        description: Type.String(),
        contact: Type.Object({ email: Type.String() }, closed),
        social_links: Type.Record(Type.String(), Type.String(), {
          description: 'Network name to link, keys in alphabetical order; {} when none',
        }),
        media: Type.Object({ avatar: Type.String(), cover: Type.String() }, closed),
      },
      closed,
    ),
    registered_at: Timestamp,
  },
  { ...closed, title: 'Account' },
);
export type Account = Static<typeof Account>;

const Url = Type.String();
const Screenshots = Type.Optional(
  Type.Array(Url, { minItems: 1, description: 'Only when the item has at least one screenshot' }),
);

/** An item's media by its preview type (SPEC 3's table): `thumbnail` always, then the preview fields. */
export const ImageMedia = Type.Object(
  { thumbnail: Url, preview_image: Url, screenshots: Screenshots },
  { ...closed, title: 'ImageMedia' },
);
export const VideoMedia = Type.Object(
  { thumbnail: Url, preview_image: Url, preview_video: Url, screenshots: Screenshots },
  { ...closed, title: 'VideoMedia' },
);
export const AudioMedia = Type.Object(
  { thumbnail: Url, preview_audio: Url, screenshots: Screenshots },
  { ...closed, title: 'AudioMedia' },
);
export const ItemMedia = Type.Union([ImageMedia, VideoMedia, AudioMedia], {
  description: "By the item's preview type: image, video or audio",
});

export const Item = Type.Object(
  {
    id: Type.Integer({ minimum: 1 }),
    name: Type.String(),
    description: Type.String(),
    category: Type.String(),
    sub_category: Type.String(),
    options: Type.Array(Type.String()),
    version: Type.String({ pattern: '^\\d+\\.\\d+\\.\\d+$', description: 'major.minor.patch' }),
    demo_link: Type.String(),
    tags: Type.Array(Type.String()),
    media: ItemMedia,
    price: Type.Object({ regular: Money, extended: Money }, closed),
    currency: Currency,
    published_at: Timestamp,
  },
  { ...closed, title: 'Item' },
);
export type Item = Static<typeof Item>;

export const LicenseType = Type.Union([Type.Literal('Regular'), Type.Literal('Extended')]);

export const Purchase = Type.Object(
  {
    purchase_code: Type.String({ minLength: 1, description: 'The code as stored' }),
    license_type: LicenseType,
    price: money("The price paid, in the variant's currency, at most two decimals"),
    currency: Currency,
    item: Item,
    supported_until: Type.Optional(
      timestamp('Only when support is enabled, the item is supported and the purchase has an end date'),
    ),
    downloaded: Type.Boolean(),
    date: Timestamp,
  },
  { ...closed, title: 'Purchase' },
);
export type Purchase = Static<typeof Purchase>;

const Count = (description: string) => Type.Integer({ minimum: 0, description });
const Day = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'A UTC day, YYYY-MM-DD' });
const Networks = Count('Distinct client networks (IPv4 /24, IPv6 /48): exact below 1,024, then estimated within 2 %');

/** One of the seller's codes, how it has been used over the retained days. */
export const PurchaseActivity = Type.Object(
  {
    purchase_code: Type.String({ minLength: 1, description: 'The code as stored' }),
    validations: Count('Validations of the code over the retained days (90 by default)'),
    networks: Networks,
    first_seen: Type.Union([Timestamp, Type.Null()], { description: 'The first validation kept; null when none' }),
    last_seen: Type.Union([Timestamp, Type.Null()], { description: 'The last validation; null when none' }),
    days: Type.Array(
      Type.Object(
        { date: Day, validations: Count('Validations that day'), networks: Count('Distinct networks that day') },
        closed,
      ),
      { maxItems: 30, description: 'The last 30 days with any validation, newest first' },
    ),
  },
  { ...closed, title: 'PurchaseActivity' },
);
export type PurchaseActivity = Static<typeof PurchaseActivity>;

export const PurchaseStatus = Type.Union([Type.Literal('active'), Type.Literal('refunded'), Type.Literal('cancelled')]);

/** A code of the seller's top list: how it was used within the window asked for. */
export const ActiveCode = Type.Object(
  {
    purchase_code: Type.String({ minLength: 1, description: 'The code as stored' }),
    item_id: Type.Integer({ minimum: 1 }),
    purchase_status: PurchaseStatus,
    validations: Count('Validations within the window'),
    networks: Networks,
    first_seen: timestamp('The first validation within the window'),
    last_seen: timestamp('The last validation within the window'),
  },
  { ...closed, title: 'ActiveCode' },
);
export type ActiveCode = Static<typeof ActiveCode>;

/** An instance activated on a purchase code (docs/api.md, activations). */
export const Activation = Type.Object(
  {
    id: Type.String({ pattern: '^act_[0-9a-f]{32}$', description: 'The activation id' }),
    instance: Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'What the client named the install by (a domain, a machine id), trimmed',
    }),
    created_at: timestamp('When the instance was activated'),
  },
  { ...closed, title: 'Activation' },
);
export type Activation = Static<typeof Activation>;

/** How many instances a code holds, and how many its item allows. */
export const ActivationCounts = Type.Object(
  {
    used: Count('Instances the code holds now'),
    limit: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
      description: "The item's activation limit; null when it has none",
    }),
  },
  { ...closed, title: 'ActivationCounts' },
);
export type ActivationCounts = Static<typeof ActivationCounts>;

/** The resource schemas by name, for a document's `components.schemas`. */
export const resourceSchemas: Readonly<
  Record<
    'Account' | 'Item' | 'Purchase' | 'PurchaseActivity' | 'ActiveCode' | 'Activation' | 'ActivationCounts',
    TSchema
  >
> = { Account, Item, Purchase, PurchaseActivity, ActiveCode, Activation, ActivationCounts };

/** An offline license token and when it expires (`POST /api/purchases/license`). */
export const License = Type.Object(
  {
    license: Type.String({
      pattern: '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$',
      description: 'A JWS compact serialisation (EdDSA), verified with the keys at `{base}/.well-known/jwks.json`',
    }),
    expires_at: Timestamp,
  },
  { additionalProperties: false },
);
