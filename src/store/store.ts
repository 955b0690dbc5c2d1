import type { AccountRecord, AccountRow, ItemRecord, ItemRow, PurchaseRecord, PurchaseRow } from '../domain/records.js';
import type { Dialect } from './dialect.js';

/** A purchase together with the item it is for. */
export interface PurchaseWithItem {
  readonly purchase: PurchaseRow;
  readonly item: ItemRow;
}

/** The key columns of an account: the digest to find it by, the ciphertext to show it again. */
export interface StoredKey {
  readonly digest: string;
  readonly cipher: string;
}

/** How an upsert left a row. */
export type UpsertOutcome = 'inserted' | 'updated' | 'unchanged';

/**
 * The writes of one import, all inside one transaction. Lookups see the rows written earlier
 * in the same session.
 */
export interface ImportSession {
  /** Usernames among these that are neither in the store nor written earlier in this session. */
  missingAccounts(usernames: readonly string[]): Promise<Set<string>>;
  /** Item ids among these that are neither in the store nor written earlier in this session. */
  missingItems(ids: readonly number[]): Promise<Set<number>>;
  /** The username holding each of these key digests, for digests already in use. */
  keyOwners(digests: readonly string[]): Promise<Map<string, string>>;
  /** `key` undefined keeps the account's existing key; a new account must be given one. */
  upsertAccounts(rows: readonly { record: AccountRecord; key: StoredKey | undefined; newKey: StoredKey }[]): Promise<UpsertOutcome[]>;
  upsertItems(rows: readonly ItemRecord[]): Promise<UpsertOutcome[]>;
  upsertPurchases(rows: readonly PurchaseRecord[]): Promise<UpsertOutcome[]>;
}

/** Thrown by a store when it cannot be reached or used right now (answered with 503). */
export class StoreUnavailableError extends Error {
  constructor(options?: ErrorOptions) {
    super('store unavailable', options);
    this.name = 'StoreUnavailableError';
  }
}

/**
 * Everything the service reads and writes. One interface; SQLite and PostgreSQL differ only in
 * how they are opened, bulk-written, and which errors mean "unavailable".
 */
export interface Store {
  readonly dialect: Dialect;
  accountByKeyDigest(digest: string): Promise<AccountRow | undefined>;
  accountByUsername(username: string): Promise<AccountRow | undefined>;
  /** The account's approved items, newest id first. */
  approvedItemsOf(username: string): Promise<ItemRow[]>;
  item(id: number): Promise<ItemRow | undefined>;
  /** By the code's lower-case key. */
  purchaseWithItem(codeKey: string): Promise<PurchaseWithItem | undefined>;
  /** Replaces the account's key; false when there is no such account. */
  replaceAccountKey(username: string, key: StoredKey): Promise<boolean>;
  /** True when the store holds no account at all. */
  isEmpty(): Promise<boolean>;
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  runImport<T>(work: (session: ImportSession) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
