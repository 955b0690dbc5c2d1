import { type Kysely, Migrator } from 'kysely';
import type { AccountRow, AccountStatus, ItemRow, ListedItem, PurchaseRow, PurchaseStatus } from '../records/rows.js';
import { AccountRepository } from './accounts/account-repository.js';
import { ActivationStore } from './activations/activation-store.js';
import type { ActivityTables } from './activity/activity-tables.js';
import { CatalogRepository } from './catalog/catalog-repository.js';
import type { StoreChanges } from './changes/change-log.js';
import type { Database } from './database.js';
import type { Dialect } from './dialect.js';
import { KeyRepository } from './keys/key-repository.js';
import { SigningKeyStore } from './keys/signing-key-store.js';
import { migrationProvider } from './migrations/index.js';
import { PurchaseRepository } from './purchases/purchase-repository.js';
import type { QueryRunner } from './query-runner.js';
import { SessionRepository } from './sessions/session-repository.js';
import type { SessionRow } from './sessions/session-rows.js';
import { SourceRepository } from './source/source-repository.js';
import {
  type ActivityDay,
  type ActivityDelta,
  type ActivitySummary,
  type ImportSession,
  type KeyDate,
  type KeyUse,
  type MarketbobLoginFacts,
  type NamedKey,
  type NamedKeyHolder,
  type NamedKeyUse,
  type RetiredKeyAccount,
  type SourceSettingName,
  type Store,
  type StoredKey,
  type StoredNamedKey,
  StoreUnavailableError,
} from './store.js';
import type { StoreContext } from './store-context.js';
import { WebhookStore } from './webhooks/webhook-store.js';

/** What a dialect adds to the shared queries. */
export interface DialectParts {
  readonly dialect: Dialect;
  /** Runs the read queries below, prepared once. */
  readonly runner: QueryRunner;
  /** True for errors that mean the store cannot be used right now, rather than a bug. */
  isUnavailable(error: unknown): boolean;
  /** The activity tables (see migration 0008): in the store's database, or in a file of their own. */
  readonly activity: ActivityTables;
  /** Runs an import session on the dialect's own write path (all or nothing). */
  runImport<T>(work: (session: ImportSession) => Promise<T>): Promise<T>;
  /** What the change log says changed since the previous call (see Store.changesSinceLastCheck). */
  changes(now?: number): StoreChanges | undefined;
  /**
   * Called after this store's own write that may have logged changes, before the write resolves:
   * the next `changes` names them (a dialect's signal may not tell a writer of its own commits).
   */
  ownWrite(): void | Promise<void>;
  /**
   * Ends a read snapshot the dialect keeps open, if any: called around this store's own writes,
   * so that they start on a connection without one and are seen by the very next read.
   */
  endReadSnapshot?(): void;
  close(): Promise<void>;
}

/** Migrates the store to the newest schema; throws with the failing migration's error. */
export async function migrateToLatest(db: Kysely<Database>, dialect: Dialect): Promise<void> {
  const migrator = new Migrator({ db, provider: migrationProvider(dialect) });
  const { error } = await migrator.migrateToLatest();
  if (error) throw error;
}

/**
 * The Store both dialects share, written once against Kysely: each aggregate's queries live in
 * its repository (accounts/, catalog/, purchases/, keys/, sessions/, source/), which this store
 * holds and answers through; the dialect adds its parts (reads' runner, imports, change feed).
 */
export class KyselyStore implements Store {
  readonly dialect: Dialect;
  private readonly accounts: AccountRepository;
  private readonly catalog: CatalogRepository;
  private readonly purchases: PurchaseRepository;
  private readonly keys: KeyRepository;
  private readonly sessions: SessionRepository;
  private readonly source: SourceRepository;
  private readonly webhookStore: WebhookStore;
  private readonly activationStore: ActivationStore;
  private readonly signingKeyStore: SigningKeyStore;

  constructor(
    db: Kysely<Database>,
    private readonly parts: DialectParts,
  ) {
    this.dialect = parts.dialect;
    const context: StoreContext = {
      db,
      dialect: parts.dialect,
      runner: parts.runner,
      guard: <T>(work: () => Promise<T>) => this.guard(work),
      write: <T>(work: () => Promise<T>, changesAccounts?: boolean) => this.write(work, changesAccounts),
    };
    this.accounts = new AccountRepository(context);
    this.catalog = new CatalogRepository(context);
    this.purchases = new PurchaseRepository(context);
    this.keys = new KeyRepository(context, this.accounts);
    this.sessions = new SessionRepository(context);
    this.source = new SourceRepository(context);
    // Its writes go through `write` without telling the caches: no account, item or purchase changes.
    this.webhookStore = new WebhookStore(db, parts.dialect, (work) => this.write(work, false));
    // Nor do activations: no answer the caches hold depends on them.
    this.activationStore = new ActivationStore(db, parts.dialect, (work) => this.write(work, false));
    this.signingKeyStore = new SigningKeyStore(
      db,
      (work) => this.guard(work),
      (work) => this.write(work, false),
    );
  }

  activations(): ActivationStore {
    return this.activationStore;
  }

  signingKeys(): SigningKeyStore {
    return this.signingKeyStore;
  }

  webhooks(): WebhookStore {
    return this.webhookStore;
  }

  // AccountRepository

  accountByKeyDigest(digest: string): Promise<AccountRow | undefined> {
    return this.accounts.accountByKeyDigest(digest);
  }

  accountByUsername(username: string): Promise<AccountRow | undefined> {
    return this.accounts.accountByUsername(username);
  }

  accountByEmail(email: string): Promise<AccountRow | undefined> {
    return this.accounts.accountByEmail(email);
  }

  isEmpty(): Promise<boolean> {
    return this.accounts.isEmpty();
  }

  anyAccount(): Promise<AccountRow | undefined> {
    return this.accounts.anyAccount();
  }

  setAccountStatus(username: string, status: AccountStatus): Promise<boolean> {
    return this.accounts.setAccountStatus(username, status);
  }

  passwordHash(username: string): Promise<string | undefined> {
    return this.accounts.passwordHash(username);
  }

  setPasswordHash(username: string, passwordHash: string): Promise<boolean> {
    return this.accounts.setPasswordHash(username, passwordHash);
  }

  passwordHashSample(limit: number): Promise<string[]> {
    return this.accounts.passwordHashSample(limit);
  }

  // CatalogRepository

  item(id: number): Promise<ItemRow | undefined> {
    return this.catalog.item(id);
  }

  approvedItemsPage(username: string, beforeId: number, limit: number): Promise<ListedItem[]> {
    return this.catalog.approvedItemsPage(username, beforeId, limit);
  }

  approvedItemRowsPage(username: string, beforeId: number, limit: number): Promise<ItemRow[]> {
    return this.catalog.approvedItemRowsPage(username, beforeId, limit);
  }

  // PurchaseRepository

  purchase(codeKey: string): Promise<PurchaseRow | undefined> {
    return this.purchases.purchase(codeKey);
  }

  setPurchaseStatus(codeKey: string, status: PurchaseStatus): Promise<PurchaseRow | undefined> {
    return this.purchases.setPurchaseStatus(codeKey, status);
  }

  markPurchaseDownloaded(codeKey: string): Promise<PurchaseRow | undefined> {
    return this.purchases.markPurchaseDownloaded(codeKey);
  }

  // KeyRepository

  accountByRetiredKeyDigest(digest: string, now: number): Promise<RetiredKeyAccount | undefined> {
    return this.keys.accountByRetiredKeyDigest(digest, now);
  }

  replaceAccountKey(username: string, key: StoredKey, retireOldUntil?: number): Promise<boolean> {
    return this.keys.replaceAccountKey(username, key, retireOldUntil);
  }

  keyDate(username: string): Promise<KeyDate | undefined> {
    return this.keys.keyDate(username);
  }

  recordKeyUses(uses: readonly KeyUse[]): Promise<void> {
    return this.keys.recordKeyUses(uses);
  }

  keyLastUsedAt(username: string): Promise<number | undefined> {
    return this.keys.keyLastUsedAt(username);
  }

  accountByNamedKeyDigest(digest: string): Promise<NamedKeyHolder | undefined> {
    return this.keys.accountByNamedKeyDigest(digest);
  }

  addNamedKey(key: StoredNamedKey): Promise<boolean> {
    return this.keys.addNamedKey(key);
  }

  namedKeys(username: string): Promise<NamedKey[]> {
    return this.keys.namedKeys(username);
  }

  namedKeyCipher(username: string, id: string): Promise<string | undefined> {
    return this.keys.namedKeyCipher(username, id);
  }

  revokeNamedKey(username: string, id: string): Promise<boolean> {
    return this.keys.revokeNamedKey(username, id);
  }

  recordNamedKeyUses(uses: readonly NamedKeyUse[]): Promise<void> {
    return this.keys.recordNamedKeyUses(uses);
  }

  // SessionRepository

  createSession(session: SessionRow): Promise<void> {
    return this.sessions.createSession(session);
  }

  session(idHash: string): Promise<SessionRow | undefined> {
    return this.sessions.session(idHash);
  }

  touchSession(idHash: string, lastSeenAt: number): Promise<void> {
    return this.sessions.touchSession(idHash, lastSeenAt);
  }

  setSessionFlash(idHash: string, flash: string | null): Promise<void> {
    return this.sessions.setSessionFlash(idHash, flash);
  }

  deleteSession(idHash: string): Promise<void> {
    return this.sessions.deleteSession(idHash);
  }

  deleteSessionsIdleSince(cutoff: number): Promise<void> {
    return this.sessions.deleteSessionsIdleSince(cutoff);
  }

  // SourceRepository

  marketbobUserId(username: string): Promise<number | undefined> {
    return this.source.marketbobUserId(username);
  }

  marketbobLogin(username: string): Promise<MarketbobLoginFacts | undefined> {
    return this.source.marketbobLogin(username);
  }

  claimLoginStep(userId: number, step: number): Promise<boolean> {
    return this.source.claimLoginStep(userId, step);
  }

  sourceSetting(name: SourceSettingName): Promise<string | undefined> {
    return this.source.sourceSetting(name);
  }

  setSourceSetting(name: SourceSettingName, value: string): Promise<void> {
    return this.source.setSourceSetting(name, value);
  }

  recordActivity(deltas: readonly ActivityDelta[]): Promise<void> {
    // Not a change the API's caches must hear of: the activity tables have no change trigger.
    return this.guard(() => this.parts.activity.record(deltas));
  }

  activityDays(account: string, codeKeys: readonly string[], sinceDay: string): Promise<ActivityDay[]> {
    return this.guard(() => this.parts.activity.days(account, codeKeys, sinceDay));
  }

  activitySummaries(account: string, sinceDay: string): Promise<ActivitySummary[]> {
    return this.guard(() => this.parts.activity.summaries(account, sinceDay));
  }

  dropActivityBefore(day: string): Promise<number> {
    return this.guard(() => this.parts.activity.dropBefore(day));
  }

  runImport<T>(work: (session: ImportSession) => Promise<T>): Promise<T> {
    return this.guard(async () => {
      this.parts.endReadSnapshot?.();
      try {
        return await this.parts.runImport(work);
      } finally {
        this.parts.endReadSnapshot?.();
        await this.parts.ownWrite();
      }
    });
  }

  changesSinceLastCheck(now?: number): StoreChanges | undefined {
    try {
      return this.parts.changes(now);
    } catch (error) {
      if (this.parts.isUnavailable(error)) throw new StoreUnavailableError({ cause: error });
      throw error;
    }
  }

  changedSinceLastCheck(now?: number): boolean {
    return this.changesSinceLastCheck(now) !== undefined;
  }

  async close(): Promise<void> {
    await this.parts.close();
  }

  /**
   * One of this store's own writes, on a connection without a read snapshot, seen by the very next
   * read. `changesAccounts` says whether it may write to a logged table (see change-log.ts), whose
   * entries this store then reads before the write resolves (a session write does not).
   */
  private write<T>(work: () => Promise<T>, changesAccounts = true): Promise<T> {
    return this.guard(async () => {
      this.parts.endReadSnapshot?.();
      try {
        return await work();
      } finally {
        this.parts.endReadSnapshot?.();
        if (changesAccounts) await this.parts.ownWrite();
      }
    });
  }

  /** Turns the dialect's "cannot reach the store" errors into one error the HTTP layer maps to 503. */
  private async guard<T>(query: () => Promise<T>): Promise<T> {
    try {
      return await query();
    } catch (error) {
      if (this.parts.isUnavailable(error)) throw new StoreUnavailableError({ cause: error });
      throw error;
    }
  }
}
