import { type Static, type TSchema, Type } from '@sinclair/typebox';
import type { FieldReader } from './field-reader.js';

/**
 * The `marketbob` object of an import line: MarketBob's own values of a record, kept beside its
 * columns so that a variant in MarketBob's shape answers what MarketBob's API would (raw tag
 * strings, options objects, NULLs, unrounded float prices). Every property may be left out, and
 * one left out is NULL in MarketBob. Strict: an unknown property is refused, as anywhere in a line.
 */

const Text = (description?: string) => Type.Optional(Type.String(description === undefined ? {} : { description }));
const Flag = (description: string) => Type.Optional(Type.Boolean({ description }));
const Float = (description: string) => Type.Optional(Type.Number({ description }));
const strict = <P extends Record<string, TSchema>>(properties: P, description: string) =>
  Type.Object(properties, { additionalProperties: false, description });

/** An account line's `marketbob`. */
export const MarketbobAccountSchema = strict(
  {
    firstname: Text(),
    lastname: Text(),
    email: Text(),
    complete: Flag(
      "MarketBob's account-details rule holds: non-NULL firstname, lastname, username, email and password",
    ),
    balance: Float('The stored double, unrounded'),
    heading: Text(),
    description: Text(),
    contact_email: Text(),
    // Any JSON object, as stored: its null values are kept (an object with no known properties).
    social_links: Type.Optional(
      Type.Object({}, { additionalProperties: true, description: 'The stored JSON object as it is, every key kept' }),
    ),
    avatar: Text("URL: the user's path, else the default-avatar setting"),
    cover: Text("URL: the user's cover path, else the default-cover setting"),
    is_author: Flag('MarketBob\'s "is_author"'),
  },
  "MarketBob's own values of the account; a property left out is NULL there",
);

/** An item line's `marketbob`. */
export const MarketbobItemSchema = strict(
  {
    sub_category: Text(),
    options: Type.Optional(Type.Unknown({ description: 'The stored JSON, decoded' })),
    version: Text('As stored'),
    demo_link: Text('As stored'),
    tags: Text('The stored comma-separated string, unchanged'),
    thumbnail: Text('URL; already preview_image when the thumbnail is NULL or empty'),
    preview_image: Text('URL'),
    preview_video: Text('URL'),
    preview_audio: Text('URL'),
    screenshots: Type.Optional(Type.Array(Type.String(), { description: 'URLs' })),
    price_regular: Float('As the API computes it: fees and an active discount included, not rounded'),
    price_extended: Float('As the API computes it: fees and an active discount included, not rounded'),
  },
  "MarketBob's own values of the item; a property left out is NULL there",
);

/** A purchase line's `marketbob`. */
export const MarketbobPurchaseSchema = strict(
  {
    price: Float("The sale's price, unrounded"),
    supported_until: Text('ISO 8601 UTC; present only when MarketBob would show it'),
  },
  "MarketBob's own values of the purchase; a property left out is NULL there",
);

export type MarketbobAccount = Static<typeof MarketbobAccountSchema>;
export type MarketbobItem = Static<typeof MarketbobItemSchema>;
export type MarketbobPurchase = Static<typeof MarketbobPurchaseSchema>;

/** How a column keeps the object: its JSON text, '' when the line had none. */
export const MarketbobColumnSchema = Type.String({ description: "The line's marketbob object as JSON; '' for none" });

/** The object as the column keeps it. */
export function marketbobText(value: object | undefined): string {
  return value === undefined ? '' : JSON.stringify(value);
}

/** A purchase's object as kept: its date in the store's own UTC text. */
export function marketbobPurchaseText(value: MarketbobPurchase | undefined, reader: FieldReader): string {
  if (value?.supported_until === undefined) return marketbobText(value);
  return marketbobText({
    ...value,
    supported_until: reader.timestamp('marketbob.supported_until', value.supported_until),
  });
}

/** The kept object, or undefined when the record has none. */
export function readMarketbob<T>(stored: string): T | undefined {
  return stored === '' ? undefined : (JSON.parse(stored) as T);
}
