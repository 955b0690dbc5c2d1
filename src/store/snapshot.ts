import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, type Transaction } from 'kysely';
import type { KeyScope } from '../domain/key-scope.js';
import type { AccountRow, ItemRow, PurchaseRow } from '../records/rows.js';
import type { ActivationRow } from './activations/activation-store.js';
import type { Database } from './database.js';
import type { SigningKeyRow } from './keys/key-rows.js';
import { createPostgresPool } from './postgres/postgres-store.js';
import type { StoreLocation } from './store-location.js';

/**
 * The whole store as it was at one moment, read a page at a time in key order: each call gives
 * the rows after the given key (from the first for undefined), at most `limit` of them.
 */
export interface StoreSnapshot {
  accounts(after: string | undefined, limit: number): Promise<AccountRow[]>;
  /** The password hashes of those of these accounts that have one. */
  passwordHashes(usernames: readonly string[]): Promise<Map<string, string>>;
  /** The MarketBob user ids of those of these accounts that come from one (migration 0007). */
  marketbobUserIds(usernames: readonly string[]): Promise<Map<string, number>>;
  items(after: number | undefined, limit: number): Promise<ItemRow[]>;
  /** The named keys (migration 0014) of these accounts that work (revoked ones left out), oldest first. */
  namedKeys(usernames: readonly string[]): Promise<Map<string, SnapshotNamedKey[]>>;
  purchases(after: string | undefined, limit: number): Promise<PurchaseRow[]>;
  /** The activation limits of those of these items that have one (migration 0015). */
  activationLimits(itemIds: readonly number[]): Promise<Map<number, number>>;
  /** The activations of these purchases (by code key), oldest first per code. */
  activations(codeKeys: readonly string[]): Promise<Map<string, ActivationRow[]>>;
  /** The deployment's signing key pairs (migration 0017), oldest first. */
  signingKeys(): Promise<SigningKeyRow[]>;
}

/** A named key as an export reads it: its ciphertext, to be decrypted into the line. */
export interface SnapshotNamedKey {
  readonly id: string;
  readonly name: string;
  readonly scope: KeyScope;
  readonly cipher: string;
  /** Ms since the epoch. */
  readonly createdAt: number;
}

/** The page queries, written once for both stores. */
function pagesOf(trx: Transaction<Database>): StoreSnapshot {
  return {
    signingKeys: () => trx.selectFrom('signing_keys').selectAll().orderBy('generation').execute(),
    accounts: (after, limit) =>
      trx
        .selectFrom('accounts')
        .selectAll()
        .$if(after !== undefined, (query) => query.where('username', '>', after as string))
        .orderBy('username')
        .limit(limit)
        .execute(),
    passwordHashes: async (usernames) => {
      if (usernames.length === 0) return new Map();
      const rows = await trx
        .selectFrom('account_credentials')
        .select(['username', 'password_hash'])
        .where('username', 'in', usernames)
        .execute();
      return new Map(rows.map((row) => [row.username, row.password_hash]));
    },
    marketbobUserIds: async (usernames) => {
      if (usernames.length === 0) return new Map();
      const rows = await trx
        .selectFrom('marketbob_users')
        .select(['username', 'user_id'])
        .where('username', 'in', usernames)
        .execute();
      return new Map(rows.map((row) => [row.username, Number(row.user_id)]));
    },
    namedKeys: async (usernames) => {
      const found = new Map<string, SnapshotNamedKey[]>();
      if (usernames.length === 0) return found;
      const rows = await trx
        .selectFrom('api_keys')
        .select(['username', 'id', 'name', 'scope', 'key_cipher', 'created_at'])
        .where('username', 'in', usernames)
        .where('revoked_at', 'is', null)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      for (const row of rows) {
        const keys = found.get(row.username) ?? [];
        keys.push({
          id: row.id,
          name: row.name,
          scope: row.scope,
          cipher: row.key_cipher,
          createdAt: Number(row.created_at),
        });
        found.set(row.username, keys);
      }
      return found;
    },
    items: (after, limit) =>
      trx
        .selectFrom('items')
        .selectAll()
        .$if(after !== undefined, (query) => query.where('id', '>', after as number))
        .orderBy('id')
        .limit(limit)
        .execute(),
    purchases: (after, limit) =>
      trx
        .selectFrom('purchases')
        .selectAll()
        .$if(after !== undefined, (query) => query.where('code_key', '>', after as string))
        .orderBy('code_key')
        .limit(limit)
        .execute(),
    activationLimits: async (itemIds) => {
      if (itemIds.length === 0) return new Map();
      const rows = await trx.selectFrom('item_activation_limits').selectAll().where('item_id', 'in', itemIds).execute();
      return new Map(rows.map((row) => [Number(row.item_id), Number(row.activation_limit)]));
    },
    activations: async (codeKeys) => {
      const found = new Map<string, ActivationRow[]>();
      if (codeKeys.length === 0) return found;
      const rows = await trx
        .selectFrom('activations')
        .selectAll()
        .where('code_key', 'in', codeKeys)
        .orderBy('code_key')
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      for (const row of rows) {
        const list = found.get(row.code_key) ?? [];
        list.push({ ...row, created_at: Number(row.created_at), last_validated_at: Number(row.last_validated_at) });
        found.set(row.code_key, list);
      }
      return found;
    },
  };
}

/**
 * Runs `work` over a consistent snapshot of the (already migrated) store, in one read-only
 * transaction on a connection of its own: writes committed meanwhile (an import, a key
 * rotation) are not seen, so a purchase never names an item the snapshot does not hold.
 */
export async function readSnapshot<T>(
  location: StoreLocation,
  work: (snapshot: StoreSnapshot) => Promise<T>,
): Promise<T> {
  if (location.kind === 'sqlite') {
    const connection = new BetterSqlite3(location.path, { readonly: true, fileMustExist: true });
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: connection }) });
    try {
      // A deferred transaction: its first read fixes what it sees (WAL keeps that view for it).
      return await db.transaction().execute((trx) => work(pagesOf(trx)));
    } finally {
      await db.destroy();
    }
  }
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: createPostgresPool(location.url, 1) }) });
  try {
    return await db
      .transaction()
      .setIsolationLevel('repeatable read')
      .setAccessMode('read only')
      .execute((trx) => work(pagesOf(trx)));
  } finally {
    await db.destroy();
  }
}
