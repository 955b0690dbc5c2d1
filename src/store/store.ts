import type { KeyScope } from '../domain/key-scope.js';
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
} from '../records/rows.js';
import type { ActivationRow, ActivationStore } from './activations/activation-store.js';
import type { StoreChanges } from './changes/change-log.js';
import type { Dialect } from './dialect.js';
import type { KeyOrigin } from './keys/key-rows.js';
import type { SigningKeyStore } from './keys/signing-key-store.js';
import type { SessionRow } from './sessions/session-rows.js';
import type { WebhookStore } from './webhooks/webhook-store.js';

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
  /**
   * Upserts by username; a new account must come with a key. A row comes with a key only when its
   * key is new or changes (undefined keeps the stored one): that key is dated as imported now.
   */
  upsertAccounts(rows: readonly AccountUpsert[]): Promise<UpsertCounts>;
  /** Upserts by id; each item's account must exist. */
  upsertItems(rows: readonly ItemRecord[]): Promise<UpsertCounts>;
  /** Upserts by `code_key`; each purchase's item must exist. */
  upsertPurchases(rows: readonly PurchaseRecord[]): Promise<UpsertCounts>;
  /** Sets these items' activation limits (null: none); each item written earlier in the session or stored. */
  setActivationLimits(rows: readonly ActivationLimitUpsert[]): Promise<void>;
  /** Replaces these purchases' activations with the given ones (each purchase written earlier in the session). */
  replaceActivations(rows: readonly ActivationsUpsert[]): Promise<void>;
  /**
   * Ends the activations of these purchases, just written as refunded or cancelled, telling
   * `activation.released` for each (see `Store.activations`).
   */
  endActivations(rows: readonly PurchaseRecord[]): Promise<void>;
  /** For each of these key digests, the accounts that had it and lost it (see `ReplacedKey`). */
  formerKeyHolders(digests: readonly string[]): Promise<Map<string, Set<string>>>;
  /**
   * Called for accounts whose key the import replaced: remembers each one's former key as
   * replaced, and ends every key a rotation retired for them (their grace period), so that only
   * the imported key opens them from then on.
   */
  keysReplaced(rows: readonly ReplacedKey[]): Promise<void>;
  /** Sets these accounts' password hashes (each account written earlier in the session or stored). */
  upsertPasswordHashes(rows: readonly PasswordHashUpsert[]): Promise<void>;
  /** Takes these accounts' password hashes away: no workspace login until another is set. */
  removePasswordHashes(usernames: readonly string[]): Promise<void>;
  /** Every account that comes from a MarketBob user (see migration 0007). */
  marketbobUsers(): Promise<MarketbobUserLink[]>;
  /**
   * Records which MarketBob user each of these accounts is (each written earlier in the session or
   * stored). A link that held the same user id or the same username before is replaced.
   */
  linkMarketbobUsers(rows: readonly MarketbobUserLink[]): Promise<void>;
  /** Forgets which MarketBob user these accounts are: their keys are this service's again. */
  unlinkMarketbobUsers(usernames: readonly string[]): Promise<void>;
  /**
   * Sets who may log in, for these MarketBob users already linked (after `linkMarketbobUsers`,
   * which writes a new link with the defaults): writes only the rows that differ.
   */
  setMarketbobLoginFacts(rows: readonly MarketbobLoginFacts[]): Promise<void>;
  /**
   * Renames an account, with everything that refers to it (its items, password, sessions, keys'
   * history); false, changing nothing, when there is no account `from` or `to` is taken.
   */
  renameAccount(from: string, to: string): Promise<boolean>;
  /** The named keys (migration 0014) stored under these ids or these digests, revoked ones included. */
  namedKeysFound(ids: readonly string[], digests: readonly string[]): Promise<NamedKeyState[]>;
  /** Upserts these named keys by id, each working (not revoked) from then on; each account written earlier or stored. */
  upsertNamedKeys(rows: readonly StoredNamedKey[]): Promise<void>;
}

/** A stored named key as an import checks it. */
export interface NamedKeyState {
  readonly id: string;
  readonly username: string;
  readonly digest: string;
  readonly revoked: boolean;
}

/** An item's activation limit as an import line sets it (null: no limit). */
export interface ActivationLimitUpsert {
  readonly itemId: number;
  readonly limit: number | null;
}

/** A purchase's activations as an import line gives them (ids made for those without one). */
export interface ActivationsUpsert {
  readonly codeKey: string;
  readonly activations: readonly ActivationRow[];
}

/** Who may log in, for one MarketBob user (migration 0012; see src/marketbob/login-facts.ts). */
export interface MarketbobLoginFacts {
  readonly userId: number;
  readonly isAuthor: boolean;
  /** MarketBob's `google2fa_secret` as it stores it, a marker when unreadable, '' when two-factor login is off. */
  readonly twoFactor: string;
}

/** An account and the MarketBob user it comes from. */
export interface MarketbobUserLink {
  readonly username: string;
  readonly userId: number;
  /** SHA-256 (hex) of the MarketBob password hash last taken; '' when MarketBob had none. */
  readonly passwordDigest: string;
}

/** When an account's current key was made here or arrived by an import (see `Store.keyDate`). */
export interface KeyDate {
  /** Ms since the epoch. */
  readonly at: number;
  readonly origin: KeyOrigin;
}

/** An account whose key was used, and when (ms since the epoch). */
export interface KeyUse {
  readonly username: string;
  readonly at: number;
}

/** One purchase code's validations on one UTC day, as stored (see src/activity). */
export interface ActivityDay {
  /** The seller the code belonged to when it was validated. */
  readonly account: string;
  /** The code's lower-case key. */
  readonly codeKey: string;
  /** The UTC day, `YYYY-MM-DD`. */
  readonly day: string;
  readonly validations: number;
  /** The day's first and last validation, in ms since the epoch. */
  readonly firstSeen: number;
  readonly lastSeen: number;
  /** The distinct networks' sketch, as text. */
  readonly sketch: string;
  /** The sketch's estimate, kept beside it: lists are ordered by it without reading sketches. */
  readonly networks: number;
}

/**
 * What one flush adds to a code's stored day (see src/activity): the validations gathered since
 * the last flush and the networks seen. The sketch is opaque to the store: the delta merges it
 * into the stored one itself.
 */
export interface ActivityDelta extends Omit<ActivityDay, 'sketch' | 'networks'> {
  /**
   * True when every network of the delta is in the stored day already (this process wrote it
   * there): only the counts move, and no sketch is read or written. A day not stored after all
   * is written whole.
   */
  readonly networksStored: boolean;
  /** The day's sketch with the delta's networks added to `stored` (the stored day's, or none), and its estimate. */
  sketchWith(stored: string | undefined): { readonly sketch: string; readonly networks: number };
  /**
   * Where the store said it keeps the day, when it said so after an earlier write (SQLite: the
   * row's id): a hint that spares the next write its search by key. A stale one is harmless: the
   * store checks the row's key and searches by key when it does not match.
   */
  readonly storedRow?: number | undefined;
  /** Told by the store where it keeps the day once written, when the store has such a thing. */
  rowStored?(row: number): void;
}

/** One code's stored days within a window, summed (see `Store.activitySummaries`). */
export interface ActivitySummary {
  readonly codeKey: string;
  readonly validations: number;
  /** The days' network counts added up: at least as many as the window's distinct networks. */
  readonly networkDays: number;
  /** The most networks of any one day: at most as many as the window's distinct networks. */
  readonly busiestDay: number;
  /** How many days of the window had validations. */
  readonly days: number;
  readonly firstSeen: number;
  readonly lastSeen: number;
}

/** An account and the digest of the key it has just lost. */
export interface ReplacedKey {
  readonly username: string;
  readonly formerDigest: string;
}

/** An account's password hash, as an import line gives it. */
export interface PasswordHashUpsert {
  readonly username: string;
  readonly passwordHash: string;
}

/** An account reached through a key replaced less than the grace period ago. */
export interface RetiredKeyAccount {
  readonly account: AccountRow;
  /** When the replaced key stops working, in ms since the epoch. */
  readonly expiresAt: number;
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

/**
 * What a log may say of why the store is unavailable: the driver's error code and its first line,
 * cut short. Never the driver's error itself, whose stack, query text or file names would go with it.
 */
export interface UnavailableReason {
  readonly code: string | undefined;
  readonly message: string;
}

const MAX_REASON_LENGTH = 120;

/** The code and the first line of an error's message (of its cause when it has neither). */
export function unavailableReason(error: unknown, depth = 0): UnavailableReason {
  if (!(error instanceof Error)) return { code: undefined, message: 'unknown error' };
  const code = (error as { code?: unknown }).code;
  const message = error.message.split('\n', 1)[0]?.slice(0, MAX_REASON_LENGTH) ?? '';
  if (typeof code !== 'string' && message === '' && error.cause !== undefined && depth < 4) {
    return unavailableReason(error.cause, depth + 1);
  }
  return { code: typeof code === 'string' ? code : undefined, message: message || error.name };
}

/**
 * Thrown by a store when it cannot be reached or used right now (answered with 503). Its `cause`
 * is only an UnavailableReason: the HTTP layer logs the cause at error level, and such a line
 * must carry no SQL, no file path and no key.
 */
export class StoreUnavailableError extends Error {
  declare readonly cause: UnavailableReason;

  constructor(options?: ErrorOptions) {
    super('store unavailable', { cause: unavailableReason(options?.cause) });
    this.name = 'StoreUnavailableError';
  }
}

/** The accounts: found by key, name or email, their status and password hashes (see accounts/). */
export interface AccountQueries {
  accountByKeyDigest(digest: string): Promise<AccountRow | undefined>;
  accountByUsername(username: string): Promise<AccountRow | undefined>;
  /** The one account with this email (letter case aside); undefined when none, or more than one, has it. */
  accountByEmail(email: string): Promise<AccountRow | undefined>;
  /** True when the store holds no account at all. */
  isEmpty(): Promise<boolean>;
  /**
   * Any one account that has a key (the start checks the server secret against it); undefined when
   * there is none.
   */
  anyAccount(): Promise<AccountRow | undefined>;
  /** Sets the account's status; false when there is no such account. */
  setAccountStatus(username: string, status: AccountStatus): Promise<boolean>;
  /** The account's password hash, if it has one. */
  passwordHash(username: string): Promise<string | undefined>;
  /** Sets the account's password hash; false when there is no such account. */
  setPasswordHash(username: string, passwordHash: string): Promise<boolean>;
  /** Up to `limit` stored password hashes (any accounts): the workspace reads their usual kind and cost. */
  passwordHashSample(limit: number): Promise<string[]>;
}

/** The items and each seller's list of them (see catalog/). */
export interface CatalogQueries {
  item(id: number): Promise<ItemRow | undefined>;
  /**
   * One page of the account's approved items, newest id first: at most `limit` items with an id
   * below `beforeId`. Lets a seller with thousands of items be answered without holding every row.
   */
  approvedItemsPage(username: string, beforeId: number, limit: number): Promise<ListedItem[]>;
  /**
   * Every approved item of the account as a whole row, newest id first, a page as
   * `approvedItemsPage`: for answers that the store's item heads do not make (MarketBob's shape).
   */
  approvedItemRowsPage(username: string, beforeId: number, limit: number): Promise<ItemRow[]>;
}

/** The purchases, found by code, and the changes a seller or the source makes to them (see purchases/). */
export interface PurchaseQueries {
  /** By the code's lower-case key. */
  purchase(codeKey: string): Promise<PurchaseRow | undefined>;
  /**
   * Sets the purchase's status, by its code's lower-case key; the purchase as it is then, or
   * undefined when there is no such purchase. Other instances hear of it as of any write.
   */
  setPurchaseStatus(codeKey: string, status: PurchaseStatus): Promise<PurchaseRow | undefined>;
  /** Marks the purchase downloaded, by its code's lower-case key; as `setPurchaseStatus`. */
  markPurchaseDownloaded(codeKey: string): Promise<PurchaseRow | undefined>;
}

/** The accounts' API keys: rotation and its grace period, key dates and uses, named keys (see keys/). */
export interface KeyQueries {
  /**
   * The account a replaced key still opens, while its grace period lasts (see `replaceAccountKey`).
   * Asked only when `accountByKeyDigest` finds nothing, so the usual lookup costs no more.
   */
  accountByRetiredKeyDigest(digest: string, now: number): Promise<RetiredKeyAccount | undefined>;
  /**
   * Replaces the account's key; false when there is no such account. With `retireOldUntil` (ms
   * since the epoch) the old key keeps opening the account until then; any key retired before
   * stops at once (one previous key at most), and without `retireOldUntil` none is left working.
   */
  replaceAccountKey(username: string, key: StoredKey, retireOldUntil?: number): Promise<boolean>;
  /**
   * When the account's current key was made by `replaceAccountKey` or set by an import, and which;
   * undefined for none, or for a key an import set before imports were dated.
   */
  keyDate(username: string): Promise<KeyDate | undefined>;
  /** Records when these accounts' keys were last used (each keeps the latest time it was told). */
  recordKeyUses(uses: readonly KeyUse[]): Promise<void>;
  /** When the account's current key was last used (ms since the epoch), if it has been since it was made. */
  keyLastUsedAt(username: string): Promise<number | undefined>;
  /**
   * The account a named key opens (migration 0014), with the key's id and scope. Asked only when
   * `accountByKeyDigest` finds nothing, so the usual lookup costs no more.
   */
  accountByNamedKeyDigest(digest: string): Promise<NamedKeyHolder | undefined>;
  /** Adds a named key to its account; false, adding nothing, when there is no such account. */
  addNamedKey(key: StoredNamedKey): Promise<boolean>;
  /** The account's named keys, oldest first, with their last use: never their digest or ciphertext. */
  namedKeys(username: string): Promise<NamedKey[]>;
  /** The ciphertext of the account's named key (to show it to its owner); undefined when it has no such key. */
  namedKeyCipher(username: string, id: string): Promise<string | undefined>;
  /**
   * Revokes the account's named key: it opens nothing from then on, in every process and instance
   * (the caches hear of it as of any key change). False when the account has no such key.
   */
  revokeNamedKey(username: string, id: string): Promise<boolean>;
  /** Records when these named keys were last used (each keeps the latest time it was told; a revoked one is skipped). */
  recordNamedKeyUses(uses: readonly NamedKeyUse[]): Promise<void>;
}

/** Workspace login sessions (see sessions/). */
export interface SessionQueries {
  /** Workspace login sessions, found by a hash of their id (the id itself is never stored). */
  createSession(session: SessionRow): Promise<void>;
  session(idHash: string): Promise<SessionRow | undefined>;
  touchSession(idHash: string, lastSeenAt: number): Promise<void>;
  /** Sets (or, with null, clears) what the session's next page shows once. */
  setSessionFlash(idHash: string, flash: string | null): Promise<void>;
  deleteSession(idHash: string): Promise<void>;
  /** Ends every session last seen before `cutoff` (ms since the epoch). */
  deleteSessionsIdleSince(cutoff: number): Promise<void>;
}

/** The data's source, MarketBob: which user an account comes from, its login, the source's settings (see source/). */
export interface SourceQueries {
  /**
   * The MarketBob user the account comes from (migration 0007), if it does: such an account's key
   * is MarketBob's, and this service does not generate one for it.
   */
  marketbobUserId(username: string): Promise<number | undefined>;
  /** Who may log in, for an account that comes from MarketBob (migration 0012); undefined for any other. */
  marketbobLogin(username: string): Promise<MarketbobLoginFacts | undefined>;
  /**
   * Records that the MarketBob user logged in with the code of time step `step`: false, changing
   * nothing, when a code of that step or a later one was used already (one atomic statement, so
   * that two processes given the same code cannot both take it).
   */
  claimLoginStep(userId: number, step: number): Promise<boolean>;
  /** A setting of the data's source (migration 0010), such as `api_enabled`; undefined when never set. */
  sourceSetting(name: SourceSettingName): Promise<string | undefined>;
  /**
   * Sets a setting of the data's source (the MarketBob follower does, from MarketBob's settings).
   * A change the API's caches hear of, in every process, as of any write; writing the value it
   * already has changes nothing and tells nobody.
   */
  setSourceSetting(name: SourceSettingName, value: string): Promise<void>;
}

/** Purchase codes' validations per day (see activity/). */
export interface ActivityQueries {
  /**
   * Adds these gathered counts and networks to the stored days, in one transaction that other
   * processes' and instances' flushes wait for. Not a change the API's caches hear of.
   */
  recordActivity(deltas: readonly ActivityDelta[]): Promise<void>;
  /** The stored days of these codes of the account, from `sinceDay` (`YYYY-MM-DD`) on, newest first. */
  activityDays(account: string, codeKeys: readonly string[], sinceDay: string): Promise<ActivityDay[]>;
  /** Every code of the account with a stored day from `sinceDay` on, its days summed. */
  activitySummaries(account: string, sinceDay: string): Promise<ActivitySummary[]>;
  /** Drops every stored day before `day` (retention); how many were dropped. */
  dropActivityBefore(day: string): Promise<number>;
}

/**
 * Everything the service reads and writes, by aggregate (the interfaces above) and the rest. One interface; SQLite and PostgreSQL differ only in
 * how they are opened, bulk-written, and which errors mean "unavailable".
 */
export interface Store
  extends AccountQueries,
    CatalogQueries,
    PurchaseQueries,
    KeyQueries,
    SessionQueries,
    SourceQueries,
    ActivityQueries {
  readonly dialect: Dialect;
  /**
   * The webhook endpoints and their delivery queue. Events themselves are written by
   * the changes above and by imports, in their own transactions, for the accounts that have an
   * endpoint subscribed: a purchase created, refunded, cancelled or downloaded, a key replaced.
   */
  webhooks(): WebhookStore;
  /** The deployment's key pairs that sign answers and license tokens (migration 0017). */
  signingKeys(): SigningKeyStore;
  /**
   * Activation limits per item and the instances each purchase code holds (migration 0015). A
   * refund or cancellation (here, by an import, by the MarketBob bridge) ends the code's activations.
   */
  activations(): ActivationStore;
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
   * `now`: a performance.now() reading the caller has made already (a request's), so that asking
   * reads no clock of its own.
   */
  changedSinceLastCheck(now?: number): boolean;
  /**
   * What changed since the previous call (this one and `changedSinceLastCheck` share the signal):
   * undefined for nothing; else the accounts, items, item lists, purchases and settings the store's
   * change log names (see change-log.ts), whole tables, or everything (`all`: when the log was not
   * followed, or named too much to be worth naming). Writes to tables the caches do not hold
   * (sessions, key usage, webhook bookkeeping, activity) name nothing.
   */
  changesSinceLastCheck(now?: number): StoreChanges | undefined;
  close(): Promise<void>;
}

/** A named key as stored (migration 0014): its digest and ciphertext, as an account's own key. */
export interface StoredNamedKey {
  readonly id: string;
  readonly username: string;
  readonly name: string;
  readonly scope: KeyScope;
  readonly key: StoredKey;
  /** Ms since the epoch. */
  readonly createdAt: number;
}

/** A named key as listed to its owner: no secret, no digest. */
export interface NamedKey {
  readonly id: string;
  readonly name: string;
  readonly scope: KeyScope;
  /** Ms since the epoch. */
  readonly createdAt: number;
  /** Ms since the epoch; undefined when never used. */
  readonly lastUsedAt: number | undefined;
}

/** The account a named key opens, and the key. */
export interface NamedKeyHolder {
  readonly account: AccountRow;
  readonly keyId: string;
  readonly scope: KeyScope;
}

/** A named key that was used, and when (ms since the epoch). */
export interface NamedKeyUse {
  readonly keyId: string;
  readonly at: number;
}

/**
 * The settings of the data's source the API's answers depend on: `api_enabled` is MarketBob's
 * `actions.api`, `'1'` or `'0'` (none means on): off, a variant in MarketBob's shape answers 404.
 */
export type SourceSettingName = 'api_enabled';
