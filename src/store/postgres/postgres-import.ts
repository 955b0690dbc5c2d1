import type pg from 'pg';
import { isKeyDigest } from '../../domain/api-key-format.js';
import { ACCOUNT_KEY_COLUMNS, ACCOUNTS } from '../../records/account-table.js';
import { ITEMS } from '../../records/item-table.js';
import { PURCHASES } from '../../records/purchase-table.js';
import type { ColumnName, SqlType } from '../../records/record-table.js';
import type { ItemRecord, PurchaseRecord } from '../../records/rows.js';
import { renameStatements } from '../accounts/account-rename.js';
import { type ActivationRow, activationEventData } from '../activations/activation-store.js';
import {
  CHANGE_CHANNEL,
  CHANGE_LOG_LOCK,
  type ChangeEntry,
  ImportChanges,
  MUTE_SETTING,
  POSTGRES_NOW,
} from '../changes/change-log.js';
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
  PostgresImportOutbox,
  type PurchaseBefore,
  purchaseEventTypes,
  purchaseSnapshot,
} from '../webhooks/webhook-outbox.js';

/** Any constant: one import at a time, as SQLite's write lock gives. */
const IMPORT_LOCK = 7_310_455_022;

/**
 * Imports into PostgreSQL: one transaction on one pooled connection. Each batch the importer
 * hands over is written with one multi-row statement (`INSERT ... SELECT FROM unnest(arrays)
 * ... ON CONFLICT DO UPDATE ... WHERE IS DISTINCT FROM`), so a million rows cost a few hundred
 * round trips. Other connections go on seeing the committed data until the commit.
 */
export async function runPostgresImport<T>(pool: pg.Pool, work: (session: ImportSession) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    try {
      // An import's statements write thousands of rows each: the serving pool's statement timeout is not for them.
      await client.query('SET LOCAL statement_timeout = 0');
      await client.query('SELECT pg_advisory_xact_lock($1)', [IMPORT_LOCK]);
      // The import names what it changed itself, as it commits (see change-log.ts).
      await client.query(`SET LOCAL ${MUTE_SETTING} = 'off'`);
      const session = new PostgresImportSession(client);
      const result = await work(session);
      await analyzeWrittenTables(client, session.rowsWritten);
      await logImportChanges(client, session.changes.entries());
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch((rollbackError: Error) => {
        broken = rollbackError;
      });
      throw error;
    }
  } finally {
    // A connection whose rollback failed is in an unknown state: the pool closes it.
    client.release(broken);
  }
}

/** Rows written into a table by one import from which its planner statistics are taken again. */
export const ANALYZE_AFTER_ROWS = 1_000;

/**
 * Takes the planner's statistics again of each table the import wrote many rows into, inside its
 * transaction (ANALYZE counts the transaction's own rows, and its statistics commit or roll back
 * with them). Until a table is analyzed PostgreSQL plans over guesses: on a freshly imported
 * store of a million purchases, a 10,000-item seller's list took 200 ms a request, and 85 ms once
 * analyzed (1.4 s for the whole store). Autovacuum would take them later, where it is on.
 */
async function analyzeWrittenTables(client: pg.PoolClient, rowsWritten: ReadonlyMap<string, number>): Promise<void> {
  const tables = [...rowsWritten].filter(([, rows]) => rows >= ANALYZE_AFTER_ROWS).map(([table]) => table);
  if (tables.length > 0)
    await client.query(`ANALYZE ${tables.map((table) => client.escapeIdentifier(table)).join(', ')}`);
}

/**
 * The import's entries in the change log, the last statements of its transaction: the log's lock
 * is held from here to the commit only, so other writers wait for it briefly (see CHANGE_LOG_LOCK).
 */
async function logImportChanges(client: pg.PoolClient, entries: readonly ChangeEntry[]): Promise<void> {
  if (entries.length === 0) return;
  await client.query('SELECT pg_advisory_xact_lock($1)', [CHANGE_LOG_LOCK]);
  await client.query(
    `INSERT INTO change_log (kind, key, at) SELECT k, v, ${POSTGRES_NOW} FROM unnest($1::text[], $2::text[]) AS e(k, v)`,
    [entries.map((entry) => entry.kind), entries.map((entry) => entry.key)],
  );
  await client.query(`SELECT pg_notify('${CHANGE_CHANNEL}', '')`);
}

/** The array type a column's values are bound as. */
const ARRAY_TYPES: Readonly<Record<SqlType, string>> = { text: 'text', bigint: 'int8', integer: 'int4' };

interface Column {
  readonly name: string;
  readonly type: string;
}

interface Table {
  readonly name: string;
  readonly key: Column;
  /** Every column but the key. */
  readonly columns: readonly Column[];
}

/** A record table's columns as written here, with more columns after them (the account's key columns). */
function tableOf(
  record: { table: string; key: string; columns: readonly ColumnName[] },
  more: readonly ColumnName[] = [],
): Table {
  const columns = [...record.columns, ...more].map(({ name, sql }) => ({ name, type: ARRAY_TYPES[sql] }));
  const key = columns.find((column) => column.name === record.key) as Column;
  return { name: record.table, key, columns: columns.filter((column) => column !== key) };
}

const KEY_COLUMNS = Object.entries(ACCOUNT_KEY_COLUMNS).map(([name, { sql }]) => ({ name, sql }));
const ACCOUNTS_TABLE = tableOf(ACCOUNTS, KEY_COLUMNS);
const ACCOUNTS_KEEPING_KEY = tableOf(ACCOUNTS);
const ITEMS_TABLE = tableOf(ITEMS);
const PURCHASES_TABLE = tableOf(PURCHASES);

const list = (columns: readonly Column[], prefix = '') => columns.map((c) => `${prefix}${c.name}`).join(', ');

/** `unnest($1::text[], $2::int8[], ...)`: one array parameter per column, rows in batch order. */
function unnest(columns: readonly Column[]): string {
  return `unnest(${columns.map((column, index) => `$${index + 1}::${column.type}[]`).join(', ')})`;
}

/**
 * Inserts the new rows and updates the rows that differ; a row equal to the stored one is not
 * touched (the `WHERE` of `DO UPDATE`) and so not returned. `xmax = 0` tells an inserted row
 * from an updated one. The rows go in batch order (`WITH ORDINALITY`): a key a row gives up
 * may be taken by a later row of the same batch, as when written one at a time.
 */
function upsertSql(table: Table): string {
  const all = [table.key, ...table.columns];
  return `WITH written AS (
  INSERT INTO ${table.name} AS t (${list(all)})
  SELECT ${list(all)} FROM ${unnest(all)} WITH ORDINALITY AS v(${list(all)}, n) ORDER BY n
  ON CONFLICT (${table.key.name}) DO UPDATE SET (${list(table.columns)}) = (${list(table.columns, 'EXCLUDED.')})
  WHERE (${list(table.columns, 't.')}) IS DISTINCT FROM (${list(table.columns, 'EXCLUDED.')})
  RETURNING t.xmax = 0 AS inserted, t.${table.key.name}::text AS key
)
SELECT count(*) FILTER (WHERE inserted)::int AS inserted, count(*) FILTER (WHERE NOT inserted)::int AS updated,
  array_agg(key) FILTER (WHERE $${all.length + 1}::boolean) AS keys
FROM written`;
}

/**
 * Updates existing rows only (an account keeping its key), where they differ; also counts the
 * rows found, so that a row with no stored counterpart is noticed.
 */
function updateSql(table: Table): string {
  const all = [table.key, ...table.columns];
  return `WITH v AS (SELECT * FROM ${unnest(all)} AS v(${list(all)})),
written AS (
  UPDATE ${table.name} AS t SET (${list(table.columns)}) = (${list(table.columns, 'v.')})
  FROM v WHERE t.${table.key.name} = v.${table.key.name}
  AND (${list(table.columns, 't.')}) IS DISTINCT FROM (${list(table.columns, 'v.')})
  RETURNING t.${table.key.name}::text AS key
)
SELECT 0 AS inserted, (SELECT count(*) FROM written)::int AS updated,
  (SELECT array_agg(key) FROM written WHERE $${all.length + 1}::boolean) AS keys,
  (SELECT count(*) FROM ${table.name} AS t JOIN v ON t.${table.key.name} = v.${table.key.name})::int AS found`;
}

/** A write statement, named so that PostgreSQL plans it once per import. */
interface Statement {
  readonly name: string;
  readonly table: Table;
  readonly text: string;
}

const UPSERT_ACCOUNTS: Statement = { name: 'import_accounts', table: ACCOUNTS_TABLE, text: upsertSql(ACCOUNTS_TABLE) };
const UPDATE_ACCOUNTS_KEEPING_KEY: Statement = {
  name: 'import_accounts_keeping_key',
  table: ACCOUNTS_KEEPING_KEY,
  text: updateSql(ACCOUNTS_KEEPING_KEY),
};
const UPSERT_ITEMS: Statement = { name: 'import_items', table: ITEMS_TABLE, text: upsertSql(ITEMS_TABLE) };
const UPSERT_PURCHASES: Statement = {
  name: 'import_purchases',
  table: PURCHASES_TABLE,
  text: upsertSql(PURCHASES_TABLE),
};

/** One array per column (the key first), each holding that column of every row. */
function columnArrays(table: Table, rows: readonly Record<string, unknown>[]): unknown[][] {
  const all = [table.key, ...table.columns];
  const arrays: unknown[][] = all.map(() => new Array(rows.length));
  for (let row = 0; row < rows.length; row++) {
    const record = rows[row] as Record<string, unknown>;
    for (let column = 0; column < all.length; column++) {
      (arrays[column] as unknown[])[row] = record[(all[column] as Column).name];
    }
  }
  return arrays;
}

interface Written {
  inserted: number;
  updated: number;
  found?: number;
  /** The keys of the rows inserted or updated, when asked for (see `write`); null for none. */
  keys?: string[] | null;
}

/** The primary key of each table, to name it as SQLite does. */
const PRIMARY_KEYS: Readonly<Record<string, string>> = Object.fromEntries(
  [ACCOUNTS, ITEMS, PURCHASES].map((record) => [record.table, record.key]),
);

/**
 * The store's objection to a row, worded as SQLite words it ("UNIQUE constraint failed:
 * accounts.key_digest"), so an import reports the same line the same way on both stores. Never
 * a value: PostgreSQL puts those in `detail`, which is left out.
 */
function reasonOf(error: pg.DatabaseError): string {
  const table = error.table ?? '';
  switch (error.code) {
    case '23505': {
      const constraint = error.constraint ?? '';
      const column =
        constraint === `${table}_pkey`
          ? PRIMARY_KEYS[table]
          : constraint.startsWith(`${table}_`) && constraint.endsWith('_key')
            ? constraint.slice(table.length + 1, -'_key'.length)
            : undefined;
      return column === undefined
        ? `UNIQUE constraint failed: ${constraint}`
        : `UNIQUE constraint failed: ${table}.${column}`;
    }
    case '23503':
      return 'FOREIGN KEY constraint failed';
    case '23502':
      return `NOT NULL constraint failed: ${table}.${error.column ?? ''}`;
    default:
      return error.message;
  }
}

/** Integrity (23) and data (22, such as a NUL character in text) errors are the row's fault. */
function isRowError(error: unknown): error is pg.DatabaseError {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^2[23]/.test(code) && error instanceof Error;
}

const zeroCounts = (): UpsertCounts => ({ inserted: 0, updated: 0, unchanged: 0 });

class PostgresImportSession implements ImportSession {
  /** What the import changed, for the change log (see runPostgresImport). */
  readonly changes = new ImportChanges();
  /** Rows inserted or updated, by table, for the planner's statistics (see analyzeWrittenTables). */
  readonly rowsWritten = new Map<string, number>();
  /** The import's webhook events: none when no endpoint is enabled, and purchases are written as they are. */
  private readonly outbox: PostgresImportOutbox;

  constructor(private readonly client: pg.PoolClient) {
    this.outbox = new PostgresImportOutbox(client);
  }

  async accountKeys(usernames: readonly string[]): Promise<Map<string, string>> {
    const { rows } = await this.client.query<{ username: string; key_digest: string }>({
      name: 'import_account_keys',
      text: 'SELECT username, key_digest FROM accounts WHERE username = ANY($1::text[])',
      values: [usernames],
    });
    return new Map(rows.map((row) => [row.username, row.key_digest]));
  }

  async keyOwners(digests: readonly string[]): Promise<Map<string, string>> {
    const { rows } = await this.client.query<{ username: string; key_digest: string }>({
      name: 'import_key_owners',
      text: 'SELECT key_digest, username FROM accounts WHERE key_digest = ANY($1::text[])',
      values: [digests],
    });
    return new Map(rows.map((row) => [row.key_digest, row.username]));
  }

  async existingItems(ids: readonly number[]): Promise<Set<number>> {
    const { rows } = await this.client.query<{ id: number }>({
      name: 'import_existing_items',
      text: 'SELECT id FROM items WHERE id = ANY($1::int8[])',
      values: [ids],
    });
    return new Set(rows.map((row) => row.id));
  }

  async upsertAccounts(rows: readonly AccountUpsert[]): Promise<UpsertCounts> {
    const keyed: Record<string, unknown>[] = [];
    const keyedIndexes: number[] = [];
    const keeping: Record<string, unknown>[] = [];
    const keepingIndexes: number[] = [];
    rows.forEach(({ record, key }, index) => {
      if (key === undefined) {
        keeping.push(record as unknown as Record<string, unknown>);
        keepingIndexes.push(index);
      } else {
        keyed.push({ ...record, key_digest: key.digest, key_cipher: key.cipher });
        keyedIndexes.push(index);
      }
    });
    const counts = await this.write(UPSERT_ACCOUNTS, keyed, keyedIndexes);
    await this.dateImportedKeys(keyed);
    // Keeping the key: each account must already be there (the importer only says so of stored ones).
    const kept = await this.write(UPDATE_ACCOUNTS_KEEPING_KEY, keeping, keepingIndexes);
    for (const key of [...(counts.keys ?? []), ...(kept.keys ?? [])]) this.changes.add('account', key);
    if (kept.found !== undefined && kept.found < keeping.length) {
      const found = await this.accountKeys(keeping.map((record) => record.username as string));
      const missing = keeping.find((record) => !found.has(record.username as string));
      throw new Error(`account ${JSON.stringify(missing?.username)} is new and needs a key`);
    }
    return {
      inserted: counts.inserted,
      updated: counts.updated + kept.updated,
      unchanged: rows.length - counts.inserted - counts.updated - kept.updated,
    };
  }

  /** Dates the keys these rows set as imported now; a key taken away (no key) has no date to show. */
  private async dateImportedKeys(keyed: readonly Record<string, unknown>[]): Promise<void> {
    const dated = keyed.filter((row) => isKeyDigest(row.key_digest as string));
    if (dated.length === 0) return;
    await this.client.query({
      name: 'import_key_dates',
      text:
        "INSERT INTO key_dates (username, key_digest, created_at, origin) SELECT u, d, $3::int8, 'imported' " +
        'FROM unnest($1::text[], $2::text[]) AS r(u, d) ' +
        'ON CONFLICT (username) DO UPDATE SET key_digest = EXCLUDED.key_digest, created_at = EXCLUDED.created_at, ' +
        'origin = EXCLUDED.origin',
      values: [dated.map((row) => row.username), dated.map((row) => row.key_digest), Date.now()],
    });
  }

  async upsertItems(rows: readonly ItemRecord[]): Promise<UpsertCounts> {
    if (this.changes.isWhole('items')) return this.upsert(UPSERT_ITEMS, rows);
    // The seller each stored item had: an item moved to another seller leaves that one's list too.
    const { rows: stored } = await this.client.query<{ id: number; account: string }>({
      name: 'import_item_accounts_before',
      text: 'SELECT id, account FROM items WHERE id = ANY($1::int8[])',
      values: [rows.map((row) => row.id)],
    });
    const before = new Map(stored.map((row) => [String(row.id), row.account]));
    const after = new Map(rows.map((row) => [String(row.id), row.account]));
    return this.upsert(UPSERT_ITEMS, rows, (id) => {
      this.changes.add('item', id);
      const account = after.get(id);
      if (account !== undefined) this.changes.add('item_list', account);
      const was = before.get(id);
      if (was !== undefined && was !== account) this.changes.add('item_list', was);
    });
  }

  async upsertPurchases(rows: readonly PurchaseRecord[]): Promise<UpsertCounts> {
    const subscriptions = await this.outbox.subscriptions();
    const logged = (key: string) => this.changes.add('purchase', key);
    if (subscriptions.empty) return this.upsert(UPSERT_PURCHASES, rows, logged);
    // With endpoints to tell: each purchase's state before, and its item's account, for the events its write makes.
    const { rows: stored } = await this.client.query<PurchaseBefore & { code_key: string }>({
      name: 'import_webhook_purchases_before',
      text: 'SELECT code_key, status, downloaded FROM purchases WHERE code_key = ANY($1::text[])',
      values: [rows.map((row) => row.code_key)],
    });
    const { rows: items } = await this.client.query<{ id: number; account: string }>({
      name: 'import_webhook_item_accounts',
      text: 'SELECT id, account FROM items WHERE id = ANY($1::int8[])',
      values: [[...new Set(rows.map((row) => row.item_id))]],
    });
    const counts = await this.upsert(UPSERT_PURCHASES, rows, logged);
    const before = new Map(stored.map((row) => [row.code_key, row]));
    const accounts = new Map(items.map((item) => [Number(item.id), item.account]));
    const changes: Change[] = [];
    for (const row of rows) {
      const account = accounts.get(row.item_id);
      if (account === undefined || !subscriptions.hasAccount(account)) continue;
      const data = purchaseSnapshot(row);
      for (const type of purchaseEventTypes(before.get(row.code_key), row)) {
        changes.push({ account, type, codeKey: row.code_key, data });
      }
    }
    await this.outbox.record(changes);
    return counts;
  }

  /** Items and purchases alike: one statement writes them all; what it did not touch was unchanged. */
  private async upsert(
    statement: Statement,
    rows: readonly object[],
    changed?: (key: string) => void,
  ): Promise<UpsertCounts> {
    const written = await this.write(statement, rows as unknown as Record<string, unknown>[]);
    if (changed) for (const key of written.keys ?? []) changed(key);
    return {
      inserted: written.inserted,
      updated: written.updated,
      unchanged: rows.length - written.inserted - written.updated,
    };
  }

  /** Activation limits go to their own table (see migration 0015): two statements per batch. */
  async setActivationLimits(rows: readonly ActivationLimitUpsert[]): Promise<void> {
    const set = rows.filter((row) => row.limit !== null);
    const cleared = rows.filter((row) => row.limit === null).map((row) => row.itemId);
    if (set.length > 0) {
      await this.client.query({
        name: 'import_activation_limits',
        text:
          'INSERT INTO item_activation_limits (item_id, activation_limit) SELECT * FROM unnest($1::int8[], $2::int4[]) ' +
          'ON CONFLICT (item_id) DO UPDATE SET activation_limit = EXCLUDED.activation_limit',
        values: [set.map((row) => row.itemId), set.map((row) => row.limit)],
      });
    }
    if (cleared.length > 0) {
      await this.client.query({
        name: 'import_clear_activation_limits',
        text: 'DELETE FROM item_activation_limits WHERE item_id = ANY($1::int8[])',
        values: [cleared],
      });
    }
  }

  async replaceActivations(rows: readonly ActivationsUpsert[]): Promise<void> {
    await this.client.query({
      name: 'import_clear_activations',
      text: 'DELETE FROM activations WHERE code_key = ANY($1::text[])',
      values: [rows.map((row) => row.codeKey)],
    });
    const activations = rows.flatMap((row) => row.activations);
    if (activations.length === 0) return;
    await this.client.query({
      name: 'import_activations',
      text:
        'INSERT INTO activations (id, code_key, instance, created_at, last_validated_at) ' +
        'SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::int8[], $5::int8[])',
      values: [
        activations.map((a) => a.id),
        activations.map((a) => a.code_key),
        activations.map((a) => a.instance),
        activations.map((a) => a.created_at),
        activations.map((a) => a.last_validated_at),
      ],
    });
  }

  async endActivations(rows: readonly PurchaseRecord[]): Promise<void> {
    const { rows: ended } = await this.client.query<ActivationRow>({
      name: 'import_end_activations',
      text: 'DELETE FROM activations WHERE code_key = ANY($1::text[]) RETURNING *',
      values: [rows.map((row) => row.code_key)],
    });
    if (ended.length === 0) return;
    const subscriptions = await this.outbox.subscriptions();
    if (subscriptions.empty) return;
    const byCode = new Map(rows.map((row) => [row.code_key, row]));
    const { rows: items } = await this.client.query<{ id: number; account: string }>({
      name: 'import_webhook_item_accounts',
      text: 'SELECT id, account FROM items WHERE id = ANY($1::int8[])',
      values: [[...new Set(rows.map((row) => row.item_id))]],
    });
    const accounts = new Map(items.map((item) => [Number(item.id), item.account]));
    const changes: Change[] = [];
    for (const activation of ended) {
      const purchase = byCode.get(activation.code_key) as PurchaseRecord;
      const account = accounts.get(purchase.item_id);
      if (account === undefined) continue;
      const row = { ...activation, created_at: Number(activation.created_at), last_validated_at: 0 };
      const reason = purchase.status === 'cancelled' ? 'cancelled' : 'refunded';
      changes.push({
        account,
        type: 'activation.released',
        codeKey: activation.code_key,
        data: activationEventData(purchase.code, row, { reason }),
      });
    }
    await this.outbox.record(changes);
  }

  async formerKeyHolders(digests: readonly string[]): Promise<Map<string, Set<string>>> {
    const { rows } = await this.client.query<{ username: string; key_digest: string }>({
      name: 'import_former_key_holders',
      text: 'SELECT key_digest, username FROM replaced_keys WHERE key_digest = ANY($1::text[])',
      values: [digests],
    });
    const found = new Map<string, Set<string>>();
    for (const row of rows) {
      const holders = found.get(row.key_digest) ?? new Set<string>();
      holders.add(row.username);
      found.set(row.key_digest, holders);
    }
    return found;
  }

  async keysReplaced(rows: readonly ReplacedKey[]): Promise<void> {
    const usernames = rows.map((row) => row.username);
    await this.client.query({
      name: 'import_end_retired_keys',
      text: 'DELETE FROM retired_keys WHERE username = ANY($1::text[])',
      values: [usernames],
    });
    await this.client.query({
      name: 'import_unused_keys',
      text: 'DELETE FROM key_usage WHERE username = ANY($1::text[])',
      values: [usernames],
    });
    await this.client.query({
      name: 'import_replaced_keys',
      text:
        'INSERT INTO replaced_keys (username, key_digest, replaced_at) ' +
        'SELECT u, d, $3::int8 FROM unnest($1::text[], $2::text[]) AS r(u, d) ' +
        'ON CONFLICT (username, key_digest) DO UPDATE SET replaced_at = EXCLUDED.replaced_at',
      values: [usernames, rows.map((row) => row.formerDigest), Date.now()],
    });
    const subscriptions = await this.outbox.subscriptions();
    if (!subscriptions.empty) {
      const data = JSON.stringify({ old_key_works_until: null });
      const changes = usernames.map((account) => ({ account, type: 'api_key.rotated', codeKey: '', data }));
      await this.outbox.record(changes);
    }
  }

  async namedKeysFound(ids: readonly string[], digests: readonly string[]): Promise<NamedKeyState[]> {
    const { rows } = await this.client.query<{
      id: string;
      username: string;
      key_digest: string;
      revoked_at: string | null;
    }>({
      name: 'import_named_keys_found',
      text:
        'SELECT id, username, key_digest, revoked_at FROM api_keys ' +
        'WHERE id = ANY($1::text[]) OR key_digest = ANY($2::text[])',
      values: [ids, digests],
    });
    return rows.map((row) => ({
      id: row.id,
      username: row.username,
      digest: row.key_digest,
      revoked: row.revoked_at !== null,
    }));
  }

  async upsertNamedKeys(rows: readonly StoredNamedKey[]): Promise<void> {
    if (rows.length === 0) return;
    // A key may move from one account to another: the caches' accounts go whole (imports are rare).
    this.changes.whole('accounts');
    const column = <T>(read: (row: StoredNamedKey) => T) => rows.map(read);
    await this.client.query({
      name: 'import_named_keys',
      text:
        'INSERT INTO api_keys (id, username, name, scope, key_digest, key_cipher, created_at, revoked_at) ' +
        'SELECT i, u, n, s, d, c, t, NULL FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], ' +
        '$6::text[], $7::int8[]) AS r(i, u, n, s, d, c, t) ' +
        'ON CONFLICT (id) DO UPDATE SET username = EXCLUDED.username, name = EXCLUDED.name, scope = EXCLUDED.scope, ' +
        'key_digest = EXCLUDED.key_digest, key_cipher = EXCLUDED.key_cipher, created_at = EXCLUDED.created_at, ' +
        'revoked_at = NULL',
      values: [
        column((row) => row.id),
        column((row) => row.username),
        column((row) => row.name),
        column((row) => row.scope),
        column((row) => row.key.digest),
        column((row) => row.key.cipher),
        column((row) => row.createdAt),
      ],
    });
  }

  /** Password hashes go to their own table (see migration 0002), one statement per batch. */
  async upsertPasswordHashes(rows: readonly PasswordHashUpsert[]): Promise<void> {
    if (rows.length === 0) return;
    await this.client.query({
      name: 'import_password_hashes',
      text:
        'INSERT INTO account_credentials (username, password_hash) SELECT * FROM unnest($1::text[], $2::text[]) ' +
        'ON CONFLICT (username) DO UPDATE SET password_hash = EXCLUDED.password_hash',
      values: [rows.map((row) => row.username), rows.map((row) => row.passwordHash)],
    });
  }

  async removePasswordHashes(usernames: readonly string[]): Promise<void> {
    if (usernames.length === 0) return;
    await this.client.query({
      name: 'import_remove_password_hashes',
      text: 'DELETE FROM account_credentials WHERE username = ANY($1::text[])',
      values: [usernames],
    });
  }

  async marketbobUsers(): Promise<MarketbobUserLink[]> {
    const { rows } = await this.client.query<{ username: string; user_id: string; password_digest: string }>(
      'SELECT username, user_id, password_digest FROM marketbob_users',
    );
    return rows.map((row) => ({
      username: row.username,
      userId: Number(row.user_id),
      passwordDigest: row.password_digest,
    }));
  }

  async linkMarketbobUsers(rows: readonly MarketbobUserLink[]): Promise<void> {
    if (rows.length === 0) return;
    const usernames = rows.map((row) => row.username);
    const userIds = rows.map((row) => row.userId);
    await this.client.query({
      name: 'import_unlink_marketbob_users',
      text: 'DELETE FROM marketbob_users WHERE username = ANY($1::text[]) OR user_id = ANY($2::int8[])',
      values: [usernames, userIds],
    });
    await this.client.query({
      name: 'import_link_marketbob_users',
      text:
        'INSERT INTO marketbob_users (username, user_id, password_digest) ' +
        'SELECT * FROM unnest($1::text[], $2::int8[], $3::text[])',
      values: [usernames, userIds, rows.map((row) => row.passwordDigest)],
    });
  }

  async setMarketbobLoginFacts(rows: readonly MarketbobLoginFacts[]): Promise<void> {
    if (rows.length === 0) return;
    await this.client.query({
      name: 'import_marketbob_login_facts',
      text:
        'UPDATE marketbob_users m SET is_author = f.is_author, two_factor = f.two_factor ' +
        'FROM unnest($1::int8[], $2::int4[], $3::text[]) AS f(user_id, is_author, two_factor) ' +
        'WHERE m.user_id = f.user_id AND (m.is_author <> f.is_author OR m.two_factor <> f.two_factor)',
      values: [
        rows.map((row) => row.userId),
        rows.map((row) => (row.isAuthor ? 1 : 0)),
        rows.map((row) => row.twoFactor),
      ],
    });
  }

  async unlinkMarketbobUsers(usernames: readonly string[]): Promise<void> {
    await this.client.query('DELETE FROM marketbob_users WHERE username = ANY($1::text[])', [usernames]);
  }

  async renameAccount(from: string, to: string): Promise<boolean> {
    const found = await this.accountKeys([from, to]);
    if (!found.has(from) || found.has(to)) return false;
    // Every row that names the account moves to another key: its tables are named whole.
    this.changes.whole('accounts');
    this.changes.whole('items');
    // PostgreSQL wants exactly the parameters a statement uses: every one uses $1, some $2.
    for (const text of renameStatements('$1', '$2')) {
      await this.client.query(text, text.includes('$2') ? [from, to] : [from]);
    }
    return true;
  }

  /**
   * Writes the rows with one statement, inside a savepoint. When the store refuses the batch,
   * it is rolled back to the savepoint and written again one row at a time, to find the row to
   * blame: that row's index (in the caller's batch: `indexes[i]`, or `i`) goes into an
   * `ImportRowRejectedError`.
   */
  private async write(
    statement: Statement,
    rows: readonly Record<string, unknown>[],
    indexes?: readonly number[],
  ): Promise<Written> {
    if (rows.length === 0) return { ...zeroCounts() };
    const run = async (batch: readonly Record<string, unknown>[]) => {
      const {
        rows: [written],
      } = await this.client.query<Written>({
        name: statement.name,
        text: statement.text,
        // The written rows' keys only while the import names its changes one by one.
        values: [...columnArrays(statement.table, batch), !this.changes.isWhole(statement.table.name)],
      });
      return written as Written;
    };
    await this.client.query('SAVEPOINT import_batch');
    try {
      const written = await run(rows);
      await this.client.query('RELEASE SAVEPOINT import_batch');
      const table = statement.table.name;
      this.rowsWritten.set(table, (this.rowsWritten.get(table) ?? 0) + written.inserted + written.updated);
      return written;
    } catch (error) {
      if (!isRowError(error)) throw error;
      await this.client.query('ROLLBACK TO SAVEPOINT import_batch');
      await this.client.query('RELEASE SAVEPOINT import_batch');
      for (let index = 0; index < rows.length; index++) {
        await this.client.query('SAVEPOINT import_row');
        try {
          await run([rows[index] as Record<string, unknown>]);
          await this.client.query('RELEASE SAVEPOINT import_row');
        } catch (rowError) {
          if (!isRowError(rowError)) throw rowError;
          await this.client.query('ROLLBACK TO SAVEPOINT import_row');
          await this.client.query('RELEASE SAVEPOINT import_row');
          throw new ImportRowRejectedError(indexes?.[index] ?? index, reasonOf(rowError), { cause: rowError });
        }
      }
      throw error;
    }
  }
}
