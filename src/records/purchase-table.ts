import { type Static, Type } from '@sinclair/typebox';
import { INSTANCE_RULE, isActivationInstance } from '../domain/activation-instance.js';
import { MAX_PURCHASE_CODE_LENGTH, purchaseCodeKey } from '../domain/purchase-code.js';
import { ItemIdSchema, MoneySchema } from './field-reader.js';
import { MarketbobColumnSchema, MarketbobPurchaseSchema, marketbobPurchaseText } from './marketbob-values.js';
import {
  defineRecordTable,
  derived,
  type ExtrasOf,
  lineOnly,
  optional,
  type RecordOf,
  required,
} from './record-table.js';

/** A purchase's status (SPEC 5). */
export const PurchaseStatusSchema = Type.Union([
  Type.Literal('active'),
  Type.Literal('refunded'),
  Type.Literal('cancelled'),
]);
export type PurchaseStatus = Static<typeof PurchaseStatusSchema>;

/** A purchase's license (SPEC 5). */
export const LicenseTypeSchema = Type.Union([Type.Literal('regular'), Type.Literal('extended')]);
export type LicenseType = Static<typeof LicenseTypeSchema>;

const Text = Type.String();
const Timestamp = (description = 'ISO 8601 with Z or an offset') => Type.String({ description });
const Flag = Type.Union([Type.Literal(0), Type.Literal(1)]);
/** An instance a purchase code holds, as an import line gives it. */
const ActivationLineSchema = Type.Object(
  {
    id: Type.Optional(Type.String({ description: 'The activation id (act_ and 32 hex digits); made when left out' })),
    instance: Type.String({ description: INSTANCE_RULE }),
    created_at: Timestamp(),
    last_validated_at: Type.Optional(Timestamp('ISO 8601 with Z or an offset; left out: never')),
  },
  { additionalProperties: false },
);

const ACTIVATION_ID = /^act_[0-9a-f]{32}$/;

/** An activation read from a line: the store's row but for the code it belongs to (its line's). */
export interface ImportedActivation {
  readonly id: string | undefined;
  readonly instance: string;
  readonly created_at: number;
  readonly last_validated_at: number;
}

const CODE_RULE = `1 to ${MAX_PURCHASE_CODE_LENGTH} characters of A-Z, a-z, 0-9, - and _`;

/** The `purchases` table and the `purchase` import line (SPEC 5), one entry per column in table order. */
export const PURCHASES = defineRecordTable({
  table: 'purchases',
  lineType: 'purchase',
  key: 'code_key',
  groups: {},
  entries: {
    /** The code in lower case: codes are unique regardless of letter case. */
    code_key: derived({ sql: 'text', stored: Text }, (reader, line) => {
      // A code no client could send (SPEC 2.2 rule 4) would be a purchase that never validates.
      const key = purchaseCodeKey((line.code as string).trim());
      if (key !== undefined) return key;
      reader.problem(`code must be ${CODE_RULE}`);
      return '';
    }),
    /** The code as it was last imported. */
    code: required(
      {
        sql: 'text',
        stored: Text,
        field: Type.String({ description: `Trimmed; 1 to ${MAX_PURCHASE_CODE_LENGTH} characters of A-Za-z0-9_-` }),
      },
      (code) => code.trim(),
    ),
    item_id: required({ sql: 'bigint', stored: Type.Integer(), field: ItemIdSchema }, (id, reader) =>
      reader.itemId('item_id', id),
    ),
    license_type: required({ sql: 'text', stored: LicenseTypeSchema, field: LicenseTypeSchema }, (type) => type),
    /** Minor units of the store currency. */
    price: required({ sql: 'bigint', stored: Type.Integer(), field: MoneySchema }, (price, reader) =>
      reader.money('price', price),
    ),
    /** '' when the purchase has no support end date. */
    supported_until: optional(
      { sql: 'text', stored: Text, field: Timestamp('ISO 8601 with Z or an offset; "" for none') },
      (until, reader) => (until === undefined || until === '' ? '' : reader.timestamp('supported_until', until)),
    ),
    downloaded: optional({ sql: 'integer', stored: Flag, field: Type.Boolean() }, (downloaded) => (downloaded ? 1 : 0)),
    status: optional(
      { sql: 'text', stored: PurchaseStatusSchema, field: PurchaseStatusSchema },
      (status) => status ?? 'active',
    ),
    date: required({ sql: 'text', stored: Text, field: Timestamp() }, (date, reader) => reader.timestamp('date', date)),
    /** MarketBob's own values (see marketbob-values.ts), as JSON; '' when the line had none. */
    marketbob: optional(
      { sql: 'text', stored: MarketbobColumnSchema, field: MarketbobPurchaseSchema },
      marketbobPurchaseText,
    ),
    /**
     * The instances the code holds (see docs/api.md, activations); left out, it keeps those it has,
     * given, they replace them. Kept in their own table (migration 0015).
     */
    activations: lineOnly({ field: Type.Array(ActivationLineSchema) }, (given, reader, line) => {
      if (given === undefined) return undefined;
      if (given.length > 0 && line.status !== undefined && line.status !== 'active') {
        reader.problem('activations are only held by an active purchase');
      }
      const seen = new Set<string>();
      return given.map((activation, index): ImportedActivation => {
        const instance = activation.instance.trim();
        if (!isActivationInstance(instance)) reader.problem(`activations[${index}].instance must be ${INSTANCE_RULE}`);
        if (seen.has(instance)) reader.problem(`activations[${index}].instance is given twice`);
        seen.add(instance);
        if (activation.id !== undefined && !ACTIVATION_ID.test(activation.id)) {
          reader.problem(`activations[${index}].id must be act_ and 32 hex digits`);
        }
        const at = (field: string, value: string | undefined) =>
          value === undefined ? 0 : Date.parse(reader.timestamp(`activations[${index}].${field}`, value));
        return {
          id: activation.id,
          instance,
          created_at: at('created_at', activation.created_at),
          last_validated_at: at('last_validated_at', activation.last_validated_at),
        };
      });
    }),
  },
});

/** A purchase line's fields kept elsewhere: its activations. */
export type PurchaseExtras = ExtrasOf<typeof PURCHASES.entries>;

/** A purchase as stored. */
export type PurchaseRecord = RecordOf<typeof PURCHASES.entries>;
/** A `purchase` import line. */
export type PurchaseLine = Static<typeof PURCHASES.lineSchema>;
