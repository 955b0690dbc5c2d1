import { type Kysely, Migrator, sql } from 'kysely';
import type { AccountRow, AccountStatus, ItemRow, ListedItem, PurchaseRow, PurchaseStatus } from '../records/rows.js';
import { ActivationStore, endActivations } from './activations/activation-store.js';
import type { ActivityTables } from './activity/activity-tables.js';
import { itemHeadSql } from './catalog/item-head-sql.js';
import type { StoreChanges } from './changes/change-log.js';
import type { Database, SessionRow } from './database.js';
import type { Dialect } from './dialect.js';
import { SigningKeyStore } from './keys/signing-key-store.js';
import { migrationProvider } from './migrations/index.js';
import { namedQuery } from './named-query.js';
import type { QueryRunner } from './query-runner.js';
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
import { type Change, purchaseEventTypes, purchaseSnapshot, recordChanges } from './webhooks/webhook-outbox.js';
import { WebhookStore } from './webhooks/webhook-store.js';
import { writeTransaction } from './write-transaction.js';

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
 * The read queries, built once by Kysely with a stand-in per named parameter (see named-query.ts):
 * each call binds its own values by name.
 */
function compileReadQueries(db: Kysely<Database>, dialect: Dialect) {
  return {
    accountByKeyDigest: namedQuery({ digest: 'text' }, (p) =>
      db.selectFrom('accounts').selectAll().where('key_digest', '=', p.digest),
    ),
    accountByUsername: namedQuery({ username: 'text' }, (p) =>
      db.selectFrom('accounts').selectAll().where('username', '=', p.username),
    ),
    approvedItemsPage: namedQuery({ username: 'text', beforeId: 'number', limit: 'number' }, (p) =>
      db
        .selectFrom('items')
        .select(['id', itemHeadSql(dialect).as('head'), 'price_regular', 'price_extended', 'published_at'])
        .where('account', '=', p.username)
        .where('status', '=', 'approved')
        .where('id', '<', p.beforeId)
        .orderBy('id', 'desc')
        .limit(p.limit),
    ),
    approvedItemRowsPage: namedQuery({ username: 'text', beforeId: 'number', limit: 'number' }, (p) =>
      db
        .selectFrom('items')
        .selectAll()
        .where('account', '=', p.username)
        .where('status', '=', 'approved')
        .where('id', '<', p.beforeId)
        .orderBy('id', 'desc')
        .limit(p.limit),
    ),
    item: namedQuery({ id: 'number' }, (p) => db.selectFrom('items').selectAll().where('id', '=', p.id)),
    purchase: namedQuery({ codeKey: 'text' }, (p) =>
      db.selectFrom('purchases').selectAll().where('code_key', '=', p.codeKey),
    ),
    anyAccount: namedQuery({}, () => db.selectFrom('accounts').select('username').limit(1)),
  };
}

/** The queries both stores share, written once against Kysely. */
export class KyselyStore implements Store {
  readonly dialect: Dialect;
  private readonly queries: ReturnType<typeof compileReadQueries>;
  private readonly runner: QueryRunner;
  private readonly webhookStore: WebhookStore;
  private readonly activationStore: ActivationStore;
  private readonly signingKeyStore: SigningKeyStore;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly parts: DialectParts,
  ) {
    this.dialect = parts.dialect;
    this.runner = parts.runner;
    this.queries = compileReadQueries(db, parts.dialect);
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

  accountByKeyDigest(digest: string): Promise<AccountRow | undefined> {
    return this.guard(() => this.runner.first(this.queries.accountByKeyDigest, { digest }));
  }

  accountByUsername(username: string): Promise<AccountRow | undefined> {
    return this.guard(() => this.runner.first(this.queries.accountByUsername, { username }));
  }

  accountByEmail(email: string): Promise<AccountRow | undefined> {
    return this.guard(async () => {
      const rows = await this.db
        .selectFrom('accounts')
        .selectAll()
        .where(sql<string>`lower(email)`, '=', email.toLowerCase())
        .limit(2)
        .execute();
      return rows.length === 1 ? rows[0] : undefined;
    });
  }

  approvedItemsPage(username: string, beforeId: number, limit: number): Promise<ListedItem[]> {
    return this.guard(() => this.runner.all(this.queries.approvedItemsPage, { username, beforeId, limit }));
  }

  approvedItemRowsPage(username: string, beforeId: number, limit: number): Promise<ItemRow[]> {
    return this.guard(() => this.runner.all(this.queries.approvedItemRowsPage, { username, beforeId, limit }));
  }

  sourceSetting(name: SourceSettingName): Promise<string | undefined> {
    return this.guard(async () => {
      const row = await this.db
        .selectFrom('source_settings')
        .select('value')
        .where('name', '=', name)
        .executeTakeFirst();
      return row?.value;
    });
  }

  async setSourceSetting(name: SourceSettingName, value: string): Promise<void> {
    // Asked first: the follower writes its settings on every pass, and an unchanged one must not
    // clear every process's caches.
    if ((await this.sourceSetting(name)) === value) return;
    await this.write(() =>
      this.db
        .insertInto('source_settings')
        .values({ name, value })
        .onConflict((conflict) => conflict.column('name').doUpdateSet({ value }))
        .execute(),
    );
  }

  item(id: number): Promise<ItemRow | undefined> {
    return this.guard(() => this.runner.first(this.queries.item, { id }));
  }

  purchase(codeKey: string): Promise<PurchaseRow | undefined> {
    return this.guard(() => this.runner.first(this.queries.purchase, { codeKey }));
  }

  accountByRetiredKeyDigest(digest: string, now: number): Promise<RetiredKeyAccount | undefined> {
    return this.guard(async () => {
      const retired = await this.db
        .selectFrom('retired_keys')
        .select(['username', 'expires_at'])
        .where('key_digest', '=', digest)
        .where('expires_at', '>', now)
        .executeTakeFirst();
      const account = retired && (await this.accountByUsername(retired.username));
      return retired && account ? { account, expiresAt: Number(retired.expires_at) } : undefined;
    });
  }

  replaceAccountKey(username: string, key: StoredKey, retireOldUntil?: number): Promise<boolean> {
    return this.write(() =>
      writeTransaction(this.db, this.dialect, async (trx) => {
        const old = await trx
          .selectFrom('accounts')
          .select('key_digest')
          .where('username', '=', username)
          .executeTakeFirst();
        if (!old) return false;
        await trx
          .updateTable('accounts')
          .set({ key_digest: key.digest, key_cipher: key.cipher })
          .where('username', '=', username)
          .execute();
        const now = Date.now();
        await trx
          .insertInto('key_dates')
          .values({ username, key_digest: key.digest, created_at: now, origin: 'made' })
          .onConflict((conflict) =>
            conflict.column('username').doUpdateSet({ key_digest: key.digest, created_at: now, origin: 'made' }),
          )
          .execute();
        // The new key has not been used yet.
        await trx.deleteFrom('key_usage').where('username', '=', username).execute();
        await trx
          .insertInto('replaced_keys')
          .values({ username, key_digest: old.key_digest, replaced_at: now })
          .onConflict((conflict) => conflict.columns(['username', 'key_digest']).doUpdateSet({ replaced_at: now }))
          .execute();
        // A grace period keeps one previous key at most: this rotation ends any key an earlier one
        // retired (and, without a grace period, leaves none), so a leaked key can always be revoked.
        await trx
          .deleteFrom('retired_keys')
          .where((where) => where.or([where('expires_at', '<=', now), where('username', '=', username)]))
          .execute();
        if (retireOldUntil !== undefined && retireOldUntil > now) {
          await trx
            .insertInto('retired_keys')
            .values({ key_digest: old.key_digest, username, expires_at: retireOldUntil })
            .onConflict((conflict) =>
              conflict.column('key_digest').doUpdateSet({ username, expires_at: retireOldUntil }),
            )
            .execute();
        }
        await recordChanges(trx, [
          {
            account: username,
            type: 'api_key.rotated',
            codeKey: '',
            data: JSON.stringify({
              old_key_works_until: retireOldUntil !== undefined && retireOldUntil > now ? retireOldUntil : null,
            }),
          },
        ]);
        return true;
      }),
    );
  }

  keyDate(username: string): Promise<KeyDate | undefined> {
    return this.guard(async () => {
      // Only while the date is the current key's: an import before imports were dated, or one
      // that took the key away, leaves the row of an earlier key.
      const row = await this.db
        .selectFrom('key_dates')
        .innerJoin('accounts', (join) =>
          join
            .onRef('accounts.username', '=', 'key_dates.username')
            .onRef('accounts.key_digest', '=', 'key_dates.key_digest'),
        )
        .select(['key_dates.created_at', 'key_dates.origin'])
        .where('key_dates.username', '=', username)
        .executeTakeFirst();
      return row === undefined ? undefined : { at: Number(row.created_at), origin: row.origin };
    });
  }

  recordKeyUses(uses: readonly KeyUse[]): Promise<void> {
    if (uses.length === 0) return Promise.resolve();
    // Not a change the API's caches must hear of (and key_usage has no change trigger).
    return this.write(async () => {
      await this.db
        .insertInto('key_usage')
        .values(uses.map((use) => ({ username: use.username, last_used_at: use.at })))
        .onConflict((conflict) =>
          conflict.column('username').doUpdateSet((eb) => ({
            last_used_at: sql<number>`CASE WHEN ${eb.ref('excluded.last_used_at')} > ${eb.ref('key_usage.last_used_at')} THEN ${eb.ref('excluded.last_used_at')} ELSE ${eb.ref('key_usage.last_used_at')} END`,
          })),
        )
        .execute();
    }, false);
  }

  keyLastUsedAt(username: string): Promise<number | undefined> {
    return this.guard(async () => {
      const row = await this.db
        .selectFrom('key_usage')
        .select('last_used_at')
        .where('username', '=', username)
        .executeTakeFirst();
      if (row === undefined) return undefined;
      // A use gathered before a rotation and written after it was the old key's. (An import that
      // changes the key forgets the uses itself, when it writes, as it did before it dated keys.)
      const created = await this.keyDate(username);
      const at = Number(row.last_used_at);
      return created?.origin === 'made' && at < created.at ? undefined : at;
    });
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

  passwordHash(username: string): Promise<string | undefined> {
    return this.guard(async () => {
      const row = await this.db
        .selectFrom('account_credentials')
        .select('password_hash')
        .where('username', '=', username)
        .executeTakeFirst();
      return row?.password_hash;
    });
  }

  setPurchaseStatus(codeKey: string, status: PurchaseStatus): Promise<PurchaseRow | undefined> {
    return this.updatePurchase(codeKey, { status });
  }

  markPurchaseDownloaded(codeKey: string): Promise<PurchaseRow | undefined> {
    return this.updatePurchase(codeKey, { downloaded: 1 });
  }

  setAccountStatus(username: string, status: AccountStatus): Promise<boolean> {
    return this.write(async () => {
      const result = await this.db
        .updateTable('accounts')
        .set({ status })
        .where('username', '=', username)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    });
  }

  setPasswordHash(username: string, passwordHash: string): Promise<boolean> {
    return this.write(async () => {
      if (
        !(await this.db.selectFrom('accounts').select('username').where('username', '=', username).executeTakeFirst())
      )
        return false;
      await this.db
        .insertInto('account_credentials')
        .values({ username, password_hash: passwordHash })
        .onConflict((conflict) => conflict.column('username').doUpdateSet({ password_hash: passwordHash }))
        .execute();
      return true;
    }, false);
  }

  createSession(session: SessionRow): Promise<void> {
    return this.write(async () => {
      await this.db.insertInto('workspace_sessions').values(session).execute();
    }, false);
  }

  session(idHash: string): Promise<SessionRow | undefined> {
    return this.guard(async () => {
      const row = await this.db
        .selectFrom('workspace_sessions')
        .selectAll()
        .where('id_hash', '=', idHash)
        .executeTakeFirst();
      return row && { ...row, created_at: Number(row.created_at), last_seen_at: Number(row.last_seen_at) };
    });
  }

  touchSession(idHash: string, lastSeenAt: number): Promise<void> {
    return this.write(async () => {
      await this.db
        .updateTable('workspace_sessions')
        .set({ last_seen_at: lastSeenAt })
        .where('id_hash', '=', idHash)
        .execute();
    }, false);
  }

  setSessionFlash(idHash: string, flash: string | null): Promise<void> {
    return this.write(async () => {
      await this.db.updateTable('workspace_sessions').set({ flash }).where('id_hash', '=', idHash).execute();
    }, false);
  }

  passwordHashSample(limit: number): Promise<string[]> {
    return this.guard(async () => {
      const rows = await this.db.selectFrom('account_credentials').select('password_hash').limit(limit).execute();
      return rows.map((row) => row.password_hash);
    });
  }

  deleteSession(idHash: string): Promise<void> {
    return this.write(async () => {
      await this.db.deleteFrom('workspace_sessions').where('id_hash', '=', idHash).execute();
    }, false);
  }

  deleteSessionsIdleSince(cutoff: number): Promise<void> {
    return this.write(async () => {
      await this.db.deleteFrom('workspace_sessions').where('last_seen_at', '<', cutoff).execute();
    }, false);
  }

  isEmpty(): Promise<boolean> {
    return this.guard(async () => (await this.runner.first(this.queries.anyAccount, {})) === undefined);
  }

  anyAccount(): Promise<AccountRow | undefined> {
    // An account without a key (key_cipher '') has nothing to check the secret against.
    return this.guard(() =>
      this.db.selectFrom('accounts').selectAll().where('key_cipher', '<>', '').limit(1).executeTakeFirst(),
    );
  }

  marketbobUserId(username: string): Promise<number | undefined> {
    return this.guard(async () => {
      const row = await this.db
        .selectFrom('marketbob_users')
        .select('user_id')
        .where('username', '=', username)
        .executeTakeFirst();
      return row === undefined ? undefined : Number(row.user_id);
    });
  }

  marketbobLogin(username: string): Promise<MarketbobLoginFacts | undefined> {
    return this.guard(async () => {
      const row = await this.db
        .selectFrom('marketbob_users')
        .select(['user_id', 'is_author', 'two_factor'])
        .where('username', '=', username)
        .executeTakeFirst();
      return row && { userId: Number(row.user_id), isAuthor: Number(row.is_author) === 1, twoFactor: row.two_factor };
    });
  }

  claimLoginStep(userId: number, step: number): Promise<boolean> {
    return this.write(async () => {
      const result = await this.db
        .insertInto('marketbob_login_steps')
        .values({ user_id: userId, step })
        .onConflict((conflict) =>
          conflict
            .column('user_id')
            .doUpdateSet({ step: (eb) => eb.ref('excluded.step') })
            .where('marketbob_login_steps.step', '<', step),
        )
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
    }, false);
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

  accountByNamedKeyDigest(digest: string): Promise<NamedKeyHolder | undefined> {
    return this.guard(async () => {
      const key = await this.db
        .selectFrom('api_keys')
        .select(['id', 'username', 'scope'])
        .where('key_digest', '=', digest)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      const account = key && (await this.accountByUsername(key.username));
      return key && account ? { account, keyId: key.id, scope: key.scope } : undefined;
    });
  }

  addNamedKey(key: StoredNamedKey): Promise<boolean> {
    return this.write(async () => {
      const inserted = await this.db
        .insertInto('api_keys')
        .columns(['id', 'username', 'name', 'scope', 'key_digest', 'key_cipher', 'created_at'])
        // Only for an account that exists: one statement, no window for a rename or a deletion.
        .expression((eb) =>
          eb
            .selectFrom('accounts')
            .select([
              eb.val(key.id).as('id'),
              'username',
              eb.val(key.name).as('name'),
              eb.val(key.scope).as('scope'),
              eb.val(key.key.digest).as('key_digest'),
              eb.val(key.key.cipher).as('key_cipher'),
              eb.val(key.createdAt).as('created_at'),
            ])
            .where('username', '=', key.username),
        )
        .executeTakeFirst();
      return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
    });
  }

  namedKeys(username: string): Promise<NamedKey[]> {
    return this.guard(async () => {
      const rows = await this.db
        .selectFrom('api_keys')
        .leftJoin('api_key_usage', 'api_key_usage.key_id', 'api_keys.id')
        .select(['api_keys.id', 'api_keys.name', 'api_keys.scope', 'api_keys.created_at', 'api_key_usage.last_used_at'])
        .where('api_keys.username', '=', username)
        .where('api_keys.revoked_at', 'is', null)
        .orderBy('api_keys.created_at')
        .orderBy('api_keys.id')
        .execute();
      return rows.map((row) => ({
        id: row.id,
        name: row.name,
        scope: row.scope,
        createdAt: Number(row.created_at),
        lastUsedAt: row.last_used_at === null ? undefined : Number(row.last_used_at),
      }));
    });
  }

  namedKeyCipher(username: string, id: string): Promise<string | undefined> {
    return this.guard(async () => {
      const row = await this.db
        .selectFrom('api_keys')
        .select('key_cipher')
        .where('username', '=', username)
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return row?.key_cipher;
    });
  }

  revokeNamedKey(username: string, id: string): Promise<boolean> {
    return this.write(async () => {
      const revoked = await this.db
        .updateTable('api_keys')
        .set({ revoked_at: Date.now() })
        .where('username', '=', username)
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return revoked.numUpdatedRows > 0n;
    });
  }

  recordNamedKeyUses(uses: readonly NamedKeyUse[]): Promise<void> {
    if (uses.length === 0) return Promise.resolve();
    // Not a change the API's caches must hear of (api_key_usage has no change trigger).
    return this.write(async () => {
      // A key revoked since its use was gathered has no row left to date.
      const live = new Set(
        (
          await this.db
            .selectFrom('api_keys')
            .select('id')
            .where(
              'id',
              'in',
              uses.map((use) => use.keyId),
            )
            .where('revoked_at', 'is', null)
            .execute()
        ).map((row) => row.id),
      );
      const values = uses
        .filter((use) => live.has(use.keyId))
        .map((use) => ({ key_id: use.keyId, last_used_at: use.at }));
      if (values.length === 0) return;
      await this.db
        .insertInto('api_key_usage')
        .values(values)
        .onConflict((conflict) =>
          conflict.column('key_id').doUpdateSet((eb) => ({
            last_used_at: sql<number>`CASE WHEN ${eb.ref('excluded.last_used_at')} > ${eb.ref('api_key_usage.last_used_at')} THEN ${eb.ref('excluded.last_used_at')} ELSE ${eb.ref('api_key_usage.last_used_at')} END`,
          })),
        )
        .execute();
    }, false);
  }

  private updatePurchase(
    codeKey: string,
    change: Partial<Pick<PurchaseRow, 'status' | 'downloaded'>>,
  ): Promise<PurchaseRow | undefined> {
    return this.write(() =>
      // One transaction: the change and the webhook events it makes (the outbox) commit together.
      writeTransaction(this.db, this.dialect, async (trx) => {
        const before = await trx
          .selectFrom('purchases')
          .select(['status', 'downloaded'])
          .where('code_key', '=', codeKey)
          .executeTakeFirst();
        if (!before) return undefined;
        // RETURNING: both SQLite (3.35+) and PostgreSQL give the row as written, in one statement.
        const row = (await trx
          .updateTable('purchases')
          .set(change)
          .where('code_key', '=', codeKey)
          .returningAll()
          .executeTakeFirst()) as PurchaseRow | undefined;
        if (!row) return undefined;
        const types = purchaseEventTypes(before, row);
        const ended = row.status !== 'active' && before.status === 'active';
        if (types.length > 0 || ended) {
          const item = await trx.selectFrom('items').select('account').where('id', '=', row.item_id).executeTakeFirst();
          if (item) {
            const data = purchaseSnapshot(row);
            const changes: Change[] = types.map((type) => ({ account: item.account, type, codeKey, data }));
            await recordChanges(trx, changes);
            // A refund or cancellation ends the code's activations, in the same transaction.
            if (ended)
              await endActivations(trx, codeKey, row.code, item.account, row.status as 'refunded' | 'cancelled');
          }
        }
        return row;
      }),
    );
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
