/**
 * The records the store keeps, one per table, in the store's own terms: money in minor units
 * of the store currency, timestamps as ISO 8601 UTC text, lists as JSON text, flags as 0 or 1
 * (portable across SQLite and PostgreSQL, and bindable by every driver). Text with no value is ''.
 *
 * Each record's columns are defined once, in its table (`src/records/`); the types here are
 * derived from those tables.
 */

export type { AccountRecord, AccountRow, AccountStatus } from './account-table.js';
export type { ItemRecord, ItemStatus, PreviewType } from './item-table.js';
export type { LicenseType, PurchaseRecord, PurchaseStatus } from './purchase-table.js';

import type { ItemRecord } from './item-table.js';
import type { PurchaseRecord } from './purchase-table.js';

export type ItemRow = ItemRecord;

/** What an item's JSON needs after its head (see serializeItemTail). */
export type ItemTailFields = Pick<ItemRow, 'price_regular' | 'price_extended' | 'published_at'>;

/** An item of a seller's list as the store reads it: its JSON head made by the store, and the fields of the tail. */
export interface ListedItem extends ItemTailFields {
  readonly id: number;
  /** Exactly serializeItemHead's text for this item. */
  readonly head: string;
}

export type PurchaseRow = PurchaseRecord;
