import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, type Transaction } from 'kysely';
import type { AccountRow, ItemRow, PurchaseRow } from '../records/rows.js';
import type { Database, SigningKeyRow } from './database.js';
import { createPostgresPool } from './postgres.js';
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
  purchases(after: string | undefined, limit: number): Promise<PurchaseRow[]>;
  /** The deployment's signing key pairs (migration 0017), oldest first. */
  signingKeys(): Promise<SigningKeyRow[]>;
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
