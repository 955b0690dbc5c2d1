import type {
  AccountRecord,
  AccountRow,
  AccountStatus,
  ItemRecord,
  ItemRow,
  ListedItem,
  PurchaseRecord,
  PurchaseRow,
  PurchaseStatus,
  PurchaseWithItem,
} from '../domain/records.js';
import type { Dialect } from './dialect.js';

/** The key columns of an account: the digest to find it by, the ciphertext to show it again. */
export interface StoredKey {
  readonly digest: string;
  readonly cipher: string;
}

/** How many rows of one write were inserted, updated, or left as they were (already equal). */
export interface UpsertCounts {
  inserted: number;
  updated: number;
  unchanged: number;
}

/** One account to write, with what to do about its key. */
export interface AccountUpsert {
  readonly record: AccountRecord;
  /**
   * The key to store. Undefined keeps the account's current key, and is only given for an
   * account that is already in the store.
   */
  readonly key: StoredKey | undefined;
}

/**
 * The writes of one import, all inside one transaction, which the store commits or rolls back
 * as a whole (see `Store.runImport`). Lookups see the rows written earlier in the same session.
 *
 * Writes take batches, so that a store may send each as one multi-row statement. Within one call
 * no two rows share a natural key (username, item id, purchase code key); the importer splits
 * batches where a key repeats. Each row replaces the stored one whole; a row equal to the stored
 * one is left alone and counted unchanged, so running the same import twice changes nothing.
 */
export interface ImportSession {
  /** The key digest of each of these usernames that has an account. */
  accountKeys(usernames: readonly string[]): Promise<Map<string, string>>;
  /** The username holding each of these key digests, for the digests in use. */
  keyOwners(digests: readonly string[]): Promise<Map<string, string>>;
  /** Which of these item ids have an item. */
  existingItems(ids: readonly number[]): Promise<Set<number>>;
  /** Upserts by username; a new account must come with a key. */
  upsertAccounts(rows: readonly AccountUpsert[]): Promise<UpsertCounts>;
  /** Upserts by id; each item's account must exist. */
  upsertItems(rows: readonly ItemRecord[]): Promise<UpsertCounts>;
  /** Upserts by `code_key`; each purchase's item must exist. */
  upsertPurchases(rows: readonly PurchaseRecord[]): Promise<UpsertCounts>;
}

/**
 * Thrown by an upsert when the store refuses one row of the batch (a uniqueness or reference
 * constraint). Nothing of that call after the row is written; the import is to be rolled back.
 */
export class ImportRowRejectedError extends Error {
  constructor(
    /** The row's index in the batch. */
    readonly index: number,
    /** What the store objected to, without any value: e.g. "UNIQUE constraint failed: accounts.key_digest". */
    readonly reason: string,
    options?: ErrorOptions,
  ) {
    super(`the store refused row ${index} of the batch: ${reason}`, options);
    this.name = 'ImportRowRejectedError';
  }
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
  /**
   * One page of the account's approved items, newest id first: at most `limit` items with an id
   * below `beforeId`. Lets a seller with thousands of items be answered without holding every row.
   */
  approvedItemsPage(username: string, beforeId: number, limit: number): Promise<ListedItem[]>;
  item(id: number): Promise<ItemRow | undefined>;
  /** By the code's lower-case key. */
  purchase(codeKey: string): Promise<PurchaseRow | undefined>;
  /** By the code's lower-case key, with its item. */
  purchaseWithItem(codeKey: string): Promise<PurchaseWithItem | undefined>;
  /** Replaces the account's key; false when there is no such account. */
  replaceAccountKey(username: string, key: StoredKey): Promise<boolean>;
  /**
   * Sets the purchase's status, by its code's lower-case key; the purchase as it is then, or
   * undefined when there is no such purchase. Other instances hear of it as of any write.
   */
  setPurchaseStatus(codeKey: string, status: PurchaseStatus): Promise<PurchaseRow | undefined>;
  /** Marks the purchase downloaded, by its code's lower-case key; as `setPurchaseStatus`. */
  markPurchaseDownloaded(codeKey: string): Promise<PurchaseRow | undefined>;
  /** Sets the account's status; false when there is no such account. */
  setAccountStatus(username: string, status: AccountStatus): Promise<boolean>;
  /** True when the store holds no account at all. */
  isEmpty(): Promise<boolean>;
  /**
   * Runs `work` in one transaction: committed when it resolves, rolled back when it throws
   * (the importer throws to discard an import with bad lines). Other queries of the store keep
   * seeing it as it was until the commit (except on an in-memory SQLite store, which has one
   * connection only).
   */
  runImport<T>(work: (session: ImportSession) => Promise<T>): Promise<T>;
  /**
   * True when another writer (a CLI command, an import, another instance) may have changed the
   * store since the previous call. Cheap enough to ask on every request; caches clear on true.
   */
  changedSinceLastCheck(): boolean;
  close(): Promise<void>;
}
