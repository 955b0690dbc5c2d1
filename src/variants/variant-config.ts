import { type Static, Type } from '@sinclair/typebox';
import type { Rate } from '../domain/money.js';
import type { Lang } from './languages.js';
import type { VariantTexts } from './variant-texts.js';

export const CurrencySchema = Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code, such as USD' });

/** One variant in the config file (SPEC 4). */
export const VariantSchema = Type.Object(
  {
    lang: Type.Union([Type.Literal('en'), Type.Literal('pt')]),
    baseUrl: Type.String({ minLength: 1, description: 'A path prefix ("/pt") or a URL with a host' }),
    currency: CurrencySchema,
    rate: Type.Optional(
      Type.String({ pattern: '^\\d+(\\.\\d+)?$', description: 'Variant units per store unit, such as "5.25"' }),
    ),
    shape: Type.Optional(
      Type.Union([Type.Literal('contract'), Type.Literal('marketbob')], {
        description: "The answers' shape: the published contract (default), or MarketBob's own API",
      }),
    ),
  },
  { additionalProperties: false },
);

export type VariantFile = Static<typeof VariantSchema>;

/** A variant as the server runs it: its texts, where it is served, its money. */
export interface VariantConfig {
  readonly lang: Lang;
  readonly texts: VariantTexts;
  /** The base URL as configured ("/pt", "https://api.example.com.br/"): the OpenAPI document's server. */
  readonly baseUrl: string;
  /** Lower-case host name (with a port only when the base URL names one), or undefined for any host. */
  readonly host: string | undefined;
  /** Path prefix without a trailing slash: '' for the root. */
  readonly prefix: string;
  readonly currency: string;
  readonly rate: Rate;
  /** Whose answers the variant gives: the published contract's, or MarketBob's own API's. */
  readonly shape: VariantShape;
}

export type VariantShape = 'contract' | 'marketbob';
