import BetterSqlite3 from 'better-sqlite3';
import { isKeyDigest } from '../../domain/api-key-format.js';
import { ACCOUNT_KEY_COLUMNS, ACCOUNTS } from '../../records/account-table.js';
import { ITEMS } from '../../records/item-table.js';
import { PURCHASES } from '../../records/purchase-table.js';
import type { AccountRecord, ItemRecord, PurchaseRecord } from '../../records/rows.js';
import { renameStatements } from '../accounts/account-rename.js';
import { type ActivationRow, activationEventData } from '../activations/activation-store.js';
import { type ChangeEntry, ImportChanges, SQLITE_MUTE_TABLE } from '../changes/change-log.js';
import {
  type AccountUpsert,
  type ActivationLimitUpsert,
  type ActivationsUpsert,
  ImportRowRejectedError,
  type ImportSession,
  type MarketbobLoginFacts,
  type MarketbobUserLink,
  type NamedKeyState,
  type PasswordHashUpsert,
  type ReplacedKey,
  type StoredNamedKey,
  type UpsertCounts,
} from '../store.js';
import {
  type Change,
  type PurchaseBefore,
  purchaseEventTypes,
  purchaseSnapshot,
  SqliteImportOutbox,
} from '../webhooks/webhook-outbox.js';

/**
 * Imports into SQLite: one transaction on a connection of its own, statements prepared once per
 * import, one row at a time (better-sqlite3 is synchronous, so a row costs little).
 *
 * The import gets its own connection so that the store's connection goes on serving the
 * committed data while the import writes (WAL lets one writer and many readers run together).
 * An in-memory database cannot be shared that way, so there the store's own connection is used.
 */
export async function runSqliteImport<T>(
  sqlite: BetterSqlite3.Database,
  work: (session: ImportSession) => Promise<T>,
): Promise<T> {
  const connection = sqlite.memory ? sqlite : openImportConnection(sqlite.name);
  try {
    // IMMEDIATE takes the write lock now, so a competing writer fails here rather than halfway.
    connection.exec('BEGIN IMMEDIATE');
    try {
      // The import names what it changed itself, as it commits (see change-log.ts).
      connection.exec(`INSERT INTO ${SQLITE_MUTE_TABLE} VALUES (1)`);
      const session = new SqliteImportSession(connection);
      const result = await work(session);
      connection.exec(`DELETE FROM ${SQLITE_MUTE_TABLE}`);
      logImportChanges(connection, session.changes.entries());
      connection.exec('COMMIT');
      return result;
    } catch (error) {
      if (connection.inTransaction) connection.exec('ROLLBACK');
      throw error;
    }
  } finally {
    if (connection !== sqlite) connection.close();
  }
}

/** The import's entries in the change log, the last rows of its transaction. */
function logImportChanges(connection: BetterSqlite3.Database, entries: readonly ChangeEntry[]): void {
  if (entries.length === 0) return;
  const log = connection.prepare<[string, string, number]>('INSERT INTO change_log (kind, key, at) VALUES (?, ?, ?)');
  const now = Date.now();
  for (const entry of entries) log.run(entry.kind, entry.key, now);
}

function openImportConnection(path: string): BetterSqlite3.Database {
  const connection = new BetterSqlite3(path, { fileMustExist: true });
  try {
    connection.pragma('synchronous = NORMAL');
    connection.pragma('foreign_keys = ON');
    connection.pragma('busy_timeout = 5000');
    // A large cache keeps the indexes being written in memory until the commit.
    connection.pragma('cache_size = -262144');
    return connection;
  } catch (error) {
    connection.close();
    throw error;
  }
}

/** The columns written besides the natural key, in binding order: those of the record tables. */
const ACCOUNT_COLUMNS = ACCOUNTS.valueColumns;
const ITEM_COLUMNS = ITEMS.valueColumns;
const PURCHASE_COLUMNS = PURCHASES.valueColumns;
const KEY_COLUMNS = Object.keys(ACCOUNT_KEY_COLUMNS);

const placeholders = (count: number) => Array.from({ length: count }, () => '?').join(', ');

/** `INSERT ... ON CONFLICT DO NOTHING`: one change when the row is new, none when its key is taken. */
function insertSql(table: string, key: string, columns: readonly string[]): string {
  const all = [key, ...columns];
  return `INSERT INTO ${table} (${all.join(', ')}) VALUES (${placeholders(all.length)}) ON CONFLICT (${key}) DO NOTHING`;
}

/**
 * `UPDATE` of every column, only where one of them differs: one change when the row was
 * updated, none when it already held these values. Binds the values, the key, the values again.
 * (Every column is NOT NULL, so a row-value `IS NOT` is a plain "differs".)
 */
function updateSql(table: string, key: string, columns: readonly string[]): string {
  const list = columns.join(', ');
  const values = placeholders(columns.length);
  return `UPDATE ${table} SET (${list}) = (${values}) WHERE ${key} = ? AND (${list}) IS NOT (${values})`;
}

type Value = string | number;

function accountValues(record: AccountRecord): Value[] {
  const values: Value[] = [];
  for (const column of ACCOUNT_COLUMNS) values.push(record[column]);
  return values;
}

function itemValues(record: ItemRecord): Value[] {
  const values: Value[] = [];
  for (const column of ITEM_COLUMNS) values.push(record[column]);
  return values;
}

function purchaseValues(record: PurchaseRecord): Value[] {
  const values: Value[] = [];
  for (const column of PURCHASE_COLUMNS) values.push(record[column]);
  return values;
}

const zeroCounts = (): UpsertCounts => ({ inserted: 0, updated: 0, unchanged: 0 });

/** A constraint failure names the row the store refused; anything else is not the row's fault. */
function rejected(error: unknown, index: number): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code.startsWith('SQLITE_CONSTRAINT') && error instanceof Error) {
    return new ImportRowRejectedError(index, error.message, { cause: error });
  }
  return error;
}

class SqliteImportSession implements ImportSession {
  /** What the import changed, for the change log (see runSqliteImport). */
  readonly changes = new ImportChanges();
  private readonly itemAccount: BetterSqlite3.Statement<[number], string>;
  private readonly accountKey: BetterSqlite3.Statement<[string], string>;
  private readonly keyOwner: BetterSqlite3.Statement<[string], string>;
  private readonly itemExists: BetterSqlite3.Statement<[number], number>;
  private readonly insertAccount: BetterSqlite3.Statement<unknown[]>;
  private readonly updateAccount: BetterSqlite3.Statement<unknown[]>;
  private readonly updateAccountKeepingKey: BetterSqlite3.Statement<unknown[]>;
  private readonly dateImportedKey: BetterSqlite3.Statement<[string, string, number]>;
  private readonly insertItem: BetterSqlite3.Statement<unknown[]>;
  private readonly updateItem: BetterSqlite3.Statement<unknown[]>;
  private readonly insertPurchase: BetterSqlite3.Statement<unknown[]>;
  private readonly updatePurchase: BetterSqlite3.Statement<unknown[]>;
  /** The import's webhook events; none when no endpoint was enabled as it began: purchases are written as they are. */
  private readonly webhooks: ImportWebhooks | undefined;

  constructor(private readonly db: BetterSqlite3.Database) {
    const outbox = new SqliteImportOutbox(db);
    this.webhooks = outbox.subscriptions.empty ? undefined : new ImportWebhooks(db, outbox);
    this.accountKey = db.prepare<[string], string>('SELECT key_digest FROM accounts WHERE username = ?').pluck();
    this.keyOwner = db.prepare<[string], string>('SELECT username FROM accounts WHERE key_digest = ?').pluck();
    this.itemExists = db.prepare<[number], number>('SELECT 1 FROM items WHERE id = ?').pluck();
    this.itemAccount = db.prepare<[number], string>('SELECT account FROM items WHERE id = ?').pluck();
    this.insertAccount = db.prepare(insertSql(ACCOUNTS.table, ACCOUNTS.key, [...ACCOUNT_COLUMNS, ...KEY_COLUMNS]));
    this.updateAccount = db.prepare(updateSql(ACCOUNTS.table, ACCOUNTS.key, [...ACCOUNT_COLUMNS, ...KEY_COLUMNS]));
    this.updateAccountKeepingKey = db.prepare(updateSql(ACCOUNTS.table, ACCOUNTS.key, ACCOUNT_COLUMNS));
    this.dateImportedKey = db.prepare(
      "INSERT INTO key_dates (username, key_digest, created_at, origin) VALUES (?, ?, ?, 'imported') " +
        'ON CONFLICT (username) DO UPDATE SET key_digest = excluded.key_digest, created_at = excluded.created_at, ' +
        'origin = excluded.origin',
    );
    this.insertItem = db.prepare(insertSql(ITEMS.table, ITEMS.key, ITEM_COLUMNS));
    this.updateItem = db.prepare(updateSql(ITEMS.table, ITEMS.key, ITEM_COLUMNS));
    this.insertPurchase = db.prepare(insertSql(PURCHASES.table, PURCHASES.key, PURCHASE_COLUMNS));
    this.updatePurchase = db.prepare(updateSql(PURCHASES.table, PURCHASES.key, PURCHASE_COLUMNS));
  }

  async accountKeys(usernames: readonly string[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    for (const username of usernames) {
      const digest = this.accountKey.get(username);
      if (digest !== undefined) found.set(username, digest);
    }
    return found;
  }

  async keyOwners(digests: readonly string[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    for (const digest of digests) {
      const username = this.keyOwner.get(digest);
      if (username !== undefined) found.set(digest, username);
    }
    return found;
  }

  async existingItems(ids: readonly number[]): Promise<Set<number>> {
    const found = new Set<number>();
    for (const id of ids) if (this.itemExists.get(id) !== undefined) found.add(id);
    return found;
  }

  async upsertAccounts(rows: readonly AccountUpsert[]): Promise<UpsertCounts> {
    const counts = zeroCounts();
    const now = Date.now();
    for (let index = 0; index < rows.length; index++) {
      const { record, key } = rows[index];
      try {
        const values = accountValues(record);
        if (key === undefined) {
          // Keeping the key: the account must already be there.
          if (this.updateAccountKeepingKey.run(values, record.username, values).changes > 0) {
            counts.updated++;
            this.changes.add('account', record.username);
          } else if (this.accountKey.get(record.username) !== undefined) counts.unchanged++;
          else throw new Error(`account ${JSON.stringify(record.username)} is new and needs a key`);
          continue;
        }
        values.push(key.digest, key.cipher);
        if (this.insertAccount.run(record.username, values).changes > 0) counts.inserted++;
        else if (this.updateAccount.run(values, record.username, values).changes > 0) counts.updated++;
        else {
          // The same key as stored after all: it keeps its date.
          counts.unchanged++;
          continue;
        }
        this.changes.add('account', record.username);
        // A key taken away (no key) has no date to show.
        if (isKeyDigest(key.digest)) this.dateImportedKey.run(record.username, key.digest, now);
      } catch (error) {
        throw rejected(error, index);
      }
    }
    return counts;
  }

  async upsertItems(rows: readonly ItemRecord[]): Promise<UpsertCounts> {
    const { changes, itemAccount } = this;
    let was: string | undefined;
    return this.upsert(rows, (record) => record.id, itemValues, this.insertItem, this.updateItem, {
      // The seller a stored item had: an item moved to another seller leaves that one's list too.
      beforeUpdate: (record) => {
        was = changes.isWhole('items') ? undefined : itemAccount.get(record.id);
      },
      changed: (record) => {
        changes.add('item', record.id);
        changes.add('item_list', record.account);
        if (was !== undefined && was !== record.account) changes.add('item_list', was);
        was = undefined;
      },
    });
  }

  async upsertPurchases(rows: readonly PurchaseRecord[]): Promise<UpsertCounts> {
    const { webhooks } = this;
    // With endpoints to tell: each purchase's state before, for the events its write makes.
    const before = webhooks && rows.map((row) => webhooks.purchaseBefore(row.code_key));
    const { changes } = this;
    const counts = this.upsert(
      rows,
      (record) => record.code_key,
      purchaseValues,
      this.insertPurchase,
      this.updatePurchase,
      { changed: (record) => changes.add('purchase', record.code_key) },
    );
    if (webhooks && before) webhooks.purchasesWritten(rows, before);
    return counts;
  }

  /**
   * Items and purchases alike: insert the row when its key is new, else update it when a value
   * differs (the update's WHERE compares them), counting which. A failing row names its index.
   */
  private upsert<R, K, V>(
    rows: readonly R[],
    keyOf: (record: R) => K,
    valuesOf: (record: R) => V,
    insert: { run(key: K, values: V): { changes: number } },
    update: { run(values: V, key: K, same: V): { changes: number } },
    log: { beforeUpdate?(record: R): void; changed(record: R): void },
  ): UpsertCounts {
    const counts = zeroCounts();
    for (let index = 0; index < rows.length; index++) {
      const record = rows[index] as R;
      try {
        const values = valuesOf(record);
        const key = keyOf(record);
        if (insert.run(key, values).changes > 0) {
          counts.inserted++;
          log.changed(record);
          continue;
        }
        log.beforeUpdate?.(record);
        if (update.run(values, key, values).changes > 0) {
          counts.updated++;
          log.changed(record);
        } else counts.unchanged++;
      } catch (error) {
        throw rejected(error, index);
      }
    }
    return counts;
  }

  /** Activation limits go to their own table (see migration 0015), prepared on first use. */
  async setActivationLimits(rows: readonly ActivationLimitUpsert[]): Promise<void> {
    const set = this.db.prepare(
      'INSERT INTO item_activation_limits (item_id, activation_limit) VALUES (?, ?) ' +
        'ON CONFLICT (item_id) DO UPDATE SET activation_limit = excluded.activation_limit',
    );
    const clear = this.db.prepare('DELETE FROM item_activation_limits WHERE item_id = ?');
    for (const row of rows) {
      if (row.limit === null) clear.run(row.itemId);
      else set.run(row.itemId, row.limit);
    }
  }

  async replaceActivations(rows: readonly ActivationsUpsert[]): Promise<void> {
    const clear = this.db.prepare('DELETE FROM activations WHERE code_key = ?');
    const insert = this.db.prepare(
      'INSERT INTO activations (id, code_key, instance, created_at, last_validated_at) ' +
        'VALUES (@id, @code_key, @instance, @created_at, @last_validated_at)',
    );
    for (const row of rows) {
      clear.run(row.codeKey);
      for (const activation of row.activations) insert.run(activation);
    }
  }

  async endActivations(rows: readonly PurchaseRecord[]): Promise<void> {
    const held = this.db.prepare<[string], ActivationRow>('SELECT * FROM activations WHERE code_key = ?');
    const clear = this.db.prepare('DELETE FROM activations WHERE code_key = ?');
    for (const row of rows) {
      const activations = held.all(row.code_key);
      if (activations.length === 0) continue;
      clear.run(row.code_key);
      this.webhooks?.activationsEnded(row, activations);
    }
  }

  async formerKeyHolders(digests: readonly string[]): Promise<Map<string, Set<string>>> {
    const holders = this.db
      .prepare<[string], string>('SELECT username FROM replaced_keys WHERE key_digest = ?')
      .pluck();
    const found = new Map<string, Set<string>>();
    for (const digest of digests) {
      const usernames = holders.all(digest);
      if (usernames.length > 0) found.set(digest, new Set(usernames));
    }
    return found;
  }

  async keysReplaced(rows: readonly ReplacedKey[]): Promise<void> {
    const end = this.db.prepare('DELETE FROM retired_keys WHERE username = ?');
    const unused = this.db.prepare('DELETE FROM key_usage WHERE username = ?');
    const remember = this.db.prepare(
      'INSERT INTO replaced_keys (username, key_digest, replaced_at) VALUES (?, ?, ?) ' +
        'ON CONFLICT (username, key_digest) DO UPDATE SET replaced_at = excluded.replaced_at',
    );
    const now = Date.now();
    for (const { username, formerDigest } of rows) {
      end.run(username);
      unused.run(username);
      remember.run(username, formerDigest, now);
    }
    this.webhooks?.keysReplaced(rows.map((row) => row.username));
  }

  /** Password hashes go to their own table (see migration 0002), prepared on first use. */
  async namedKeysFound(ids: readonly string[], digests: readonly string[]): Promise<NamedKeyState[]> {
    const select = 'SELECT id, username, key_digest, revoked_at FROM api_keys WHERE ';
    const byId = this.db.prepare<[string], NamedKeyStateRow>(`${select}id = ?`);
    const byDigest = this.db.prepare<[string], NamedKeyStateRow>(`${select}key_digest = ?`);
    const found = new Map<string, NamedKeyState>();
    const keep = (row: NamedKeyStateRow | undefined) => {
      if (row) found.set(row.id, namedKeyState(row));
    };
    for (const id of ids) keep(byId.get(id));
    for (const digest of digests) keep(byDigest.get(digest));
    return [...found.values()];
  }

  async upsertNamedKeys(rows: readonly StoredNamedKey[]): Promise<void> {
    if (rows.length === 0) return;
    // A key may move from one account to another: the caches' accounts go whole (imports are rare).
    this.changes.whole('accounts');
    const upsert = this.db.prepare(
      'INSERT INTO api_keys (id, username, name, scope, key_digest, key_cipher, created_at, revoked_at) ' +
        'VALUES (?, ?, ?, ?, ?, ?, ?, NULL) ON CONFLICT (id) DO UPDATE SET username = excluded.username, ' +
        'name = excluded.name, scope = excluded.scope, key_digest = excluded.key_digest, ' +
        'key_cipher = excluded.key_cipher, created_at = excluded.created_at, revoked_at = NULL',
    );
    for (const row of rows) {
      upsert.run(row.id, row.username, row.name, row.scope, row.key.digest, row.key.cipher, row.createdAt);
    }
  }

  async upsertPasswordHashes(rows: readonly PasswordHashUpsert[]): Promise<void> {
    if (rows.length === 0) return;
    const upsert = this.db.prepare(
      'INSERT INTO account_credentials (username, password_hash) VALUES (?, ?) ' +
        'ON CONFLICT (username) DO UPDATE SET password_hash = excluded.password_hash',
    );
    for (const row of rows) upsert.run(row.username, row.passwordHash);
  }

  async removePasswordHashes(usernames: readonly string[]): Promise<void> {
    const remove = this.db.prepare('DELETE FROM account_credentials WHERE username = ?');
    for (const username of usernames) remove.run(username);
  }

  async marketbobUsers(): Promise<MarketbobUserLink[]> {
    const rows = this.db
      .prepare<[], { username: string; user_id: number; password_digest: string }>(
        'SELECT username, user_id, password_digest FROM marketbob_users',
      )
      .all();
    return rows.map((row) => ({
      username: row.username,
      userId: Number(row.user_id),
      passwordDigest: row.password_digest,
    }));
  }

  async linkMarketbobUsers(rows: readonly MarketbobUserLink[]): Promise<void> {
    if (rows.length === 0) return;
    const unlink = this.db.prepare('DELETE FROM marketbob_users WHERE username = ? OR user_id = ?');
    const link = this.db.prepare('INSERT INTO marketbob_users (username, user_id, password_digest) VALUES (?, ?, ?)');
    for (const row of rows) {
      unlink.run(row.username, row.userId);
      link.run(row.username, row.userId, row.passwordDigest);
    }
  }

  async setMarketbobLoginFacts(rows: readonly MarketbobLoginFacts[]): Promise<void> {
    const set = this.db.prepare(
      'UPDATE marketbob_users SET is_author = ?, two_factor = ? WHERE user_id = ? AND (is_author <> ? OR two_factor <> ?)',
    );
    for (const row of rows) {
      const isAuthor = row.isAuthor ? 1 : 0;
      set.run(isAuthor, row.twoFactor, row.userId, isAuthor, row.twoFactor);
    }
  }

  async unlinkMarketbobUsers(usernames: readonly string[]): Promise<void> {
    const unlink = this.db.prepare('DELETE FROM marketbob_users WHERE username = ?');
    for (const username of usernames) unlink.run(username);
  }

  async renameAccount(from: string, to: string): Promise<boolean> {
    if (this.accountKey.get(from) === undefined || this.accountKey.get(to) !== undefined) return false;
    // Every row that names the account moves to another key: its tables are named whole.
    this.changes.whole('accounts');
    this.changes.whole('items');
    for (const statement of renameStatements('@from', '@to')) this.db.prepare(statement).run({ from, to });
    return true;
  }
}

/** An import's webhook events: found row by row, handed to the outbox with the batch that made them. */
class ImportWebhooks {
  private readonly before: BetterSqlite3.Statement<[string], PurchaseBefore>;
  private readonly itemAccount: BetterSqlite3.Statement<[number], string>;
  private readonly accounts = new Map<number, string | undefined>();

  constructor(
    db: BetterSqlite3.Database,
    private readonly outbox: SqliteImportOutbox,
  ) {
    this.before = db.prepare<[string], PurchaseBefore>('SELECT status, downloaded FROM purchases WHERE code_key = ?');
    this.itemAccount = db.prepare<[number], string>('SELECT account FROM items WHERE id = ?').pluck();
  }

  purchaseBefore(codeKey: string): PurchaseBefore | undefined {
    return this.before.get(codeKey);
  }

  purchasesWritten(rows: readonly PurchaseRecord[], before: readonly (PurchaseBefore | undefined)[]): void {
    const changes: Change[] = [];
    rows.forEach((row, index) => {
      const account = this.accountOf(row.item_id);
      if (account === undefined || !this.outbox.subscriptions.hasAccount(account)) return;
      const types = purchaseEventTypes(before[index], row);
      if (types.length === 0) return;
      const data = purchaseSnapshot(row);
      for (const type of types) changes.push({ account, type, codeKey: row.code_key, data });
    });
    this.outbox.record(changes);
  }

  activationsEnded(row: PurchaseRecord, activations: readonly ActivationRow[]): void {
    const account = this.accountOf(row.item_id);
    if (account === undefined || !this.outbox.subscriptions.hasAccount(account)) return;
    const reason = row.status === 'cancelled' ? 'cancelled' : 'refunded';
    const changes = activations.map((activation) => ({
      account,
      type: 'activation.released',
      codeKey: row.code_key,
      data: activationEventData(row.code, activation, { reason }),
    }));
    this.outbox.record(changes);
  }

  keysReplaced(usernames: readonly string[]): void {
    const changes = usernames.map((account) => ({
      account,
      type: 'api_key.rotated',
      codeKey: '',
      data: KEY_EVENT_DATA,
    }));
    this.outbox.record(changes);
  }

  private accountOf(itemId: number): string | undefined {
    if (!this.accounts.has(itemId)) this.accounts.set(itemId, this.itemAccount.get(itemId));
    return this.accounts.get(itemId);
  }
}

/** An imported key ends the former one at once. */
const KEY_EVENT_DATA = JSON.stringify({ old_key_works_until: null });

/** A named key's row as an import reads it. */
interface NamedKeyStateRow {
  id: string;
  username: string;
  key_digest: string;
  revoked_at: number | string | null;
}

function namedKeyState(row: NamedKeyStateRow): NamedKeyState {
  return { id: row.id, username: row.username, digest: row.key_digest, revoked: row.revoked_at !== null };
}
