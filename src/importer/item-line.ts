import type { LineReading } from '../records/field-reader.js';
import type { ItemExtras, ItemRecord } from '../records/item-table.js';
import { ITEMS } from '../records/item-table.js';
import type { LineRecord } from '../records/record-table.js';

export type { ItemLine } from '../records/item-table.js';

/** Reads an item line (an object whose `type` is `item`): the row, and its activation limit. */
export function readItemLine(value: unknown): LineReading<LineRecord<ItemRecord, ItemExtras>> {
  return ITEMS.readLine(value);
}
