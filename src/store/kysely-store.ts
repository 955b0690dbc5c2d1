import { type Kysely, Migrator } from 'kysely';
import type { AccountRow, ItemRow, PurchaseWithItem } from '../domain/records.js';
import type { Database } from './database.js';
import type { Dialect } from './dialect.js';
import { migrationProvider } from './migrations/index.js';
import { type ImportSession, type Store, type StoredKey, StoreUnavailableError } from './store.js';

/** What a dialect adds to the shared queries. */
export interface DialectParts {
  readonly dialect: Dialect;
  /** True for errors that mean the store cannot be used right now, rather than a bug. */
  isUnavailable(error: unknown): boolean;
  runImport<T>(db: Kysely<Database>, work: (session: ImportSession) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** Migrates the store to the newest schema; throws with the failing migration's error. */
export async function migrateToLatest(db: Kysely<Database>): Promise<void> {
  const migrator = new Migrator({ db, provider: migrationProvider() });
  const { error } = await migrator.migrateToLatest();
  if (error) throw error;
}

/** The queries both stores share, written once against Kysely. */
export class KyselyStore implements Store {
  readonly dialect: Dialect;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly parts: DialectParts,
  ) {
    this.dialect = parts.dialect;
  }

  accountByKeyDigest(digest: string): Promise<AccountRow | undefined> {
    return this.guard(() =>
      this.db.selectFrom('accounts').selectAll().where('key_digest', '=', digest).executeTakeFirst(),
    );
  }

  accountByUsername(username: string): Promise<AccountRow | undefined> {
    return this.guard(() =>
      this.db.selectFrom('accounts').selectAll().where('username', '=', username).executeTakeFirst(),
    );
  }

  approvedItemsOf(username: string): Promise<ItemRow[]> {
    return this.guard(() =>
      this.db
        .selectFrom('items')
        .selectAll()
        .where('account', '=', username)
        .where('status', '=', 'approved')
        .orderBy('id', 'desc')
        .execute(),
    );
  }

  item(id: number): Promise<ItemRow | undefined> {
    return this.guard(() => this.db.selectFrom('items').selectAll().where('id', '=', id).executeTakeFirst());
  }

  purchaseWithItem(codeKey: string): Promise<PurchaseWithItem | undefined> {
    return this.guard(async () => {
      const purchase = await this.db
        .selectFrom('purchases')
        .selectAll()
        .where('code_key', '=', codeKey)
        .executeTakeFirst();
      if (!purchase) return undefined;
      const item = await this.db.selectFrom('items').selectAll().where('id', '=', purchase.item_id).executeTakeFirst();
      return item ? { purchase, item } : undefined;
    });
  }

  replaceAccountKey(username: string, key: StoredKey): Promise<boolean> {
    return this.guard(async () => {
      const result = await this.db
        .updateTable('accounts')
        .set({ key_digest: key.digest, key_cipher: key.cipher })
        .where('username', '=', username)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    });
  }

  isEmpty(): Promise<boolean> {
    return this.guard(
      async () => !(await this.db.selectFrom('accounts').select('username').limit(1).executeTakeFirst()),
    );
  }

  runImport<T>(work: (session: ImportSession) => Promise<T>): Promise<T> {
    return this.guard(() => this.parts.runImport(this.db, work));
  }

  async close(): Promise<void> {
    await this.parts.close();
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
