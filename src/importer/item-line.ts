import type { LineReading } from '../records/field-reader.js';
import type { ItemRecord } from '../records/item-table.js';
import { ITEMS } from '../records/item-table.js';

export type { ItemLine } from '../records/item-table.js';

/** Reads an item line (an object whose `type` is `item`). */
export function readItemLine(value: unknown): LineReading<ItemRecord> {
  const read = ITEMS.readLine(value);
  return read.ok ? { ok: true, value: read.value.record } : read;
}
