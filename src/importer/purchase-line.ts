import type { LineReading } from '../records/field-reader.js';
import type { PurchaseRecord } from '../records/purchase-table.js';
import { PURCHASES } from '../records/purchase-table.js';

export type { PurchaseLine } from '../records/purchase-table.js';

/** Reads a purchase line (an object whose `type` is `purchase`). */
export function readPurchaseLine(value: unknown): LineReading<PurchaseRecord> {
  const read = PURCHASES.readLine(value);
  return read.ok ? { ok: true, value: read.value.record } : read;
}
