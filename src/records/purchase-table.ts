import { type Static, Type } from '@sinclair/typebox';
import { MAX_PURCHASE_CODE_LENGTH, purchaseCodeKey } from '../domain/purchase-code.js';
import { ItemIdSchema, MoneySchema } from './field-reader.js';
import { MarketbobColumnSchema, MarketbobPurchaseSchema, marketbobPurchaseText } from './marketbob-values.js';
import { defineRecordTable, derived, optional, type RecordOf, required } from './record-table.js';

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
  },
});

/** A purchase as stored. */
export type PurchaseRecord = RecordOf<typeof PURCHASES.entries>;
/** A `purchase` import line. */
export type PurchaseLine = Static<typeof PURCHASES.lineSchema>;
