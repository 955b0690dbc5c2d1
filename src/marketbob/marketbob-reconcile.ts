import { sql } from 'kysely';
import { accountLine, itemLine, purchaseLine } from '../exporter/export-lines.js';
import { type ImportCounts, ImportRun } from '../importer/import-run.js';
import { decryptApiKey } from '../keys/api-keys.js';
import type { KeyMaterial } from '../keys/server-secret.js';
import { readSnapshot } from '../store/snapshot.js';
import type { Store } from '../store/store.js';
import type { StoreLocation } from '../store/store-location.js';
import type { MarketbobDb } from './marketbob-connection.js';
import { ACCOUNT_STATUSES, ITEM_STATUSES, PURCHASE_STATUSES } from './row-mapping.js';

/** Our rows per page, and so MarketBob keys per `IN (...)` lookup (each by its unique index). */
const PAGE = 2000;

/** What a reconciliation found gone from MarketBob (or with another status) and wrote. */
export interface ReconcileResult {
  readonly suspended: number;
  readonly removed: number;
  readonly cancelled: number;
  /** Rows whose status differed from MarketBob's (changed there without `updated_at`, so unseen by the polls). */
  readonly restated: number;
  readonly counts?: ImportCounts;
}

/**
 * The status MarketBob has for each of these keys of `table.column` (an indexed column: the
 * primary key, or unique), by the key lower-cased: MarketBob compares usernames and codes
 * without case.
 */
async function statuses(
  db: MarketbobDb,
  table: 'users' | 'items' | 'purchases',
  column: 'username' | 'id' | 'code',
  keys: readonly (string | number)[],
): Promise<Map<string, number>> {
  if (keys.length === 0) return new Map();
  const { rows } = await sql<{ k: string | number; status: number }>`
    SELECT ${sql.ref(column)} AS k, status FROM ${sql.table(table)}
    WHERE ${sql.ref(column)} IN (${sql.join(keys)})`.execute(db);
  return new Map(rows.map((row) => [String(row.k).toLowerCase(), Number(row.status)]));
}

/**
 * Rows deleted in MarketBob stop being served: our accounts, items and purchases are read a page
 * at a time from a snapshot of the store, each page's keys looked up in MarketBob through its
 * indexes (`users.username`, `items.id`, `purchases.code`), and those gone are written again
 * through the importer as `suspended`, `removed` and `cancelled` (rows are kept, so that nothing
 * refers to a row that is not there; a deleted row that comes back is taken again by the next
 * poll or sync as any saved row). A status that differs from MarketBob's (a row changed there
 * without its `updated_at`, by hand, which the polls cannot see) is set to MarketBob's. A run
 * that finds nothing to change writes nothing.
 */
export async function reconcileMarketbob(
  db: MarketbobDb,
  /** The store's `runImport`, or a wrapper that keeps it from running beside another writer of the follower. */
  runImport: Store['runImport'],
  location: StoreLocation,
  keys: KeyMaterial,
): Promise<ReconcileResult> {
  const lines: object[] = [];
  /** Accounts whose user is gone: their lines leave them with no key. */
  const keyless: string[] = [];
  let suspended = 0;
  let removed = 0;
  let cancelled = 0;
  let restated = 0;
  await readSnapshot(location, async (snapshot) => {
    for (let after: string | undefined; ; ) {
      const rows = await snapshot.accounts(after, PAGE);
      if (rows.length === 0) break;
      // By MarketBob user id where the account is linked to one (a rename there does not make it
      // look gone); by username for an account synced before the links (migration 0007).
      const ids = await snapshot.marketbobUserIds(rows.map((row) => row.username));
      const byId = await statuses(db, 'users', 'id', [...ids.values()]);
      const byName = await statuses(
        db,
        'users',
        'username',
        rows.filter((row) => !ids.has(row.username)).map((row) => row.username),
      );
      const found = new Set<string>();
      const changed = rows.flatMap((row) => {
        const id = ids.get(row.username);
        const status = id === undefined ? byName.get(row.username.toLowerCase()) : byId.get(String(id));
        // Only a linked account loses its key with its user: one looked up by name may not be MarketBob's.
        if (status !== undefined || id === undefined) found.add(row.username);
        const wanted = status === undefined ? 'suspended' : (ACCOUNT_STATUSES[status] ?? row.status);
        if (wanted === row.status && (found.has(row.username) || row.key_cipher === '')) return [];
        if (status === undefined) suspended++;
        else restated++;
        return [{ row, wanted }];
      });
      const hashes = await snapshot.passwordHashes(changed.map(({ row }) => row.username));
      for (const { row, wanted } of changed) {
        const gone = !found.has(row.username);
        // A user gone from MarketBob leaves the account with no key (see deleted-rows.ts). An
        // account without a key (key_cipher '') stays without: a line without a key keeps it as it is.
        if (gone) keyless.push(row.username);
        const key = gone || row.key_cipher === '' ? undefined : decryptApiKey(keys, row.key_cipher);
        lines.push({ ...accountLine(row, key, hashes.get(row.username)), status: wanted });
      }
      after = rows[rows.length - 1]?.username;
    }
    for (let after: number | undefined; ; ) {
      const rows = await snapshot.items(after, PAGE);
      if (rows.length === 0) break;
      const there = await statuses(
        db,
        'items',
        'id',
        rows.map((row) => row.id),
      );
      for (const row of rows) {
        const status = there.get(String(row.id));
        const wanted = status === undefined ? 'removed' : (ITEM_STATUSES[status] ?? row.status);
        if (wanted === row.status) continue;
        lines.push({ ...itemLine(row), status: wanted });
        if (status === undefined) removed++;
        else restated++;
      }
      after = rows[rows.length - 1]?.id;
    }
    for (let after: string | undefined; ; ) {
      const rows = await snapshot.purchases(after, PAGE);
      if (rows.length === 0) break;
      const there = await statuses(
        db,
        'purchases',
        'code',
        rows.map((row) => row.code),
      );
      for (const row of rows) {
        const status = there.get(row.code_key);
        // A purchase gone from MarketBob stops validating; one refunded before stays refunded.
        const gone = row.status === 'active' ? 'cancelled' : row.status;
        const wanted = status === undefined ? gone : (PURCHASE_STATUSES[status] ?? row.status);
        if (wanted === row.status) continue;
        lines.push({ ...purchaseLine(row), status: wanted });
        if (status === undefined) cancelled++;
        else restated++;
      }
      after = rows[rows.length - 1]?.code_key;
    }
  });
  if (lines.length === 0) return { suspended, removed, cancelled, restated };
  const counts = await runImport(async (session) => {
    const run = new ImportRun(session, keys, true);
    for (const username of keyless) run.withoutKey(username);
    let line = 0;
    for (const entry of lines) if (run.add(++line, JSON.stringify(entry))) await run.flush();
    const result = await run.finish();
    if (!result.ok) {
      throw new Error(`reconciliation refused by the store: ${result.errors.map((e) => e.message).join('; ')}`);
    }
    return result.counts;
  });
  return { suspended, removed, cancelled, restated, counts };
}
