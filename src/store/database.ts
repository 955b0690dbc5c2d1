import type { AccountRow, ItemRecord, PurchaseRecord } from '../domain/records.js';

/** The tables as Kysely sees them. */
export interface Database {
  accounts: AccountRow;
  items: ItemRecord;
  purchases: PurchaseRecord;
}
