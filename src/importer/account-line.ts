import { ACCOUNTS, type AccountExtras, type AccountRecord } from '../records/account-table.js';
import type { LineReading } from '../records/field-reader.js';

export { type AccountLine, isUsername } from '../records/account-table.js';

/**
 * An account as the store keeps it, and the values of the line's fields that are kept elsewhere
 * (`api_key`: the key the line gave, if any).
 */
export interface AccountEntry {
  readonly record: AccountRecord;
  readonly extras: AccountExtras;
}

/** Reads an account line (an object whose `type` is `account`). */
export function readAccountLine(value: unknown): LineReading<AccountEntry> {
  return ACCOUNTS.readLine(value);
}
