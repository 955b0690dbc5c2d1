import type { LineReading } from '../records/field-reader.js';
import type { PurchaseExtras, PurchaseRecord } from '../records/purchase-table.js';
import { PURCHASES } from '../records/purchase-table.js';
import type { LineRecord } from '../records/record-table.js';

export type { PurchaseLine } from '../records/purchase-table.js';

/** Reads a purchase line (an object whose `type` is `purchase`): the row, and its activations. */
export function readPurchaseLine(value: unknown): LineReading<LineRecord<PurchaseRecord, PurchaseExtras>> {
  return PURCHASES.readLine(value);
}
