import { type Static, Type } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { MAX_PURCHASE_CODE_LENGTH, purchaseCodeKey } from '../domain/purchase-code.js';
import type { PurchaseRecord } from '../domain/records.js';
import { FieldReader, ItemIdSchema, type LineReading, MoneySchema, reading } from './field-reader.js';
import { schemaProblems } from './schema-problems.js';

/** A `purchase` line (SPEC 5). Fields left out take their defaults. */
export const PurchaseLineSchema = Type.Object(
  {
    type: Type.Literal('purchase'),
    code: Type.String({ description: `Trimmed; 1 to ${MAX_PURCHASE_CODE_LENGTH} characters of A-Za-z0-9_-` }),
    item_id: ItemIdSchema,
    license_type: Type.Union([Type.Literal('regular'), Type.Literal('extended')]),
    price: MoneySchema,
    supported_until: Type.Optional(Type.String({ description: 'ISO 8601 with Z or an offset; "" for none' })),
    downloaded: Type.Optional(Type.Boolean()),
    status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('refunded'), Type.Literal('cancelled')])),
    date: Type.String({ description: 'ISO 8601 with Z or an offset' }),
  },
  { additionalProperties: false },
);
export type PurchaseLine = Static<typeof PurchaseLineSchema>;

const checker = TypeCompiler.Compile(PurchaseLineSchema);

/** Reads a purchase line (an object whose `type` is `purchase`). */
export function readPurchaseLine(value: unknown): LineReading<PurchaseRecord> {
  if (!checker.Check(value)) return { ok: false, problems: schemaProblems(checker, value) };
  const line = value;
  const reader = new FieldReader();
  const code = line.code.trim();
  // A code no client could send (SPEC 2.2 rule 4) would be a purchase that never validates.
  const codeKey = purchaseCodeKey(code);
  if (codeKey === undefined) {
    reader.problem(`code must be 1 to ${MAX_PURCHASE_CODE_LENGTH} characters of A-Z, a-z, 0-9, - and _`);
  }
  const supportedUntil = line.supported_until;
  const record: PurchaseRecord = {
    code_key: codeKey ?? '',
    code,
    item_id: reader.itemId('item_id', line.item_id),
    license_type: line.license_type,
    price: reader.money('price', line.price),
    supported_until:
      supportedUntil === undefined || supportedUntil === '' ? '' : reader.timestamp('supported_until', supportedUntil),
    downloaded: line.downloaded ? 1 : 0,
    status: line.status ?? 'active',
    date: reader.timestamp('date', line.date),
  };
  return reading(reader, record);
}
