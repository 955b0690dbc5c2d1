import { type Kysely, sql } from 'kysely';
import type { Database } from '../database.js';
import type {
  AccountQueries,
  KeyDate,
  KeyQueries,
  KeyUse,
  NamedKey,
  NamedKeyHolder,
  NamedKeyUse,
  RetiredKeyAccount,
  StoredKey,
  StoredNamedKey,
} from '../store.js';
import type { StoreContext } from '../store-context.js';
import { recordChanges } from '../webhooks/webhook-outbox.js';
import { writeTransaction } from '../write-transaction.js';

/** The accounts' API keys: rotation and its grace period, key dates and uses, named keys. */
export class KeyRepository implements KeyQueries {
  private readonly db: Kysely<Database>;
  private readonly dialect: StoreContext['dialect'];

  constructor(
    private readonly context: StoreContext,
    private readonly accounts: Pick<AccountQueries, 'accountByUsername'>,
  ) {
    this.db = context.db;
    this.dialect = context.dialect;
  }

  accountByRetiredKeyDigest(digest: string, now: number): Promise<RetiredKeyAccount | undefined> {
    return this.guard(async () => {
      const retired = await this.db
        .selectFrom('retired_keys')
        .select(['username', 'expires_at'])
        .where('key_digest', '=', digest)
        .where('expires_at', '>', now)
        .executeTakeFirst();
      const account = retired && (await this.accounts.accountByUsername(retired.username));
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

  accountByNamedKeyDigest(digest: string): Promise<NamedKeyHolder | undefined> {
    return this.guard(async () => {
      const key = await this.db
        .selectFrom('api_keys')
        .select(['id', 'username', 'scope'])
        .where('key_digest', '=', digest)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      const account = key && (await this.accounts.accountByUsername(key.username));
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

  private write<T>(work: () => Promise<T>, changesAccounts = true): Promise<T> {
    return this.context.write(work, changesAccounts);
  }

  private guard<T>(query: () => Promise<T>): Promise<T> {
    return this.context.guard(query);
  }
}
