import { sql } from 'kysely';
import type { StoreLocation } from '../config.js';
import { accountLine, itemLine, purchaseLine } from '../exporter/export-lines.js';
import { type ImportCounts, ImportRun } from '../importer/import-run.js';
import { decryptApiKey } from '../keys/api-keys.js';
import type { KeyMaterial } from '../keys/server-secret.js';
import { readSnapshot } from '../store/snapshot.js';
import type { Store } from '../store/store.js';
import type { MarketbobDb } from './marketbob-connection.js';

/** Our rows per page, and so MarketBob keys per `IN (...)` lookup (each by its unique index). */
const PAGE = 2000;

/** What a reconciliation found gone from MarketBob and stopped serving. */
export interface ReconcileResult {
  readonly suspended: number;
  readonly removed: number;
  readonly cancelled: number;
  readonly counts?: ImportCounts;
}

/** Which of these keys MarketBob still has in `table.column` (an indexed column: the primary key, or unique). */
async function present(
  db: MarketbobDb,
  table: 'users' | 'items' | 'purchases',
  column: 'username' | 'id' | 'code',
  keys: readonly (string | number)[],
): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const { rows } = await sql<{ k: string | number }>`
    SELECT ${sql.ref(column)} AS k FROM ${sql.table(table)} WHERE ${sql.ref(column)} IN (${sql.join(keys)})`.execute(
    db,
  );
  // MarketBob compares usernames and codes without case: so do we here.
  return new Set(rows.map((row) => String(row.k).toLowerCase()));
}

/**
 * Rows deleted in MarketBob stop being served: our accounts, items and purchases are read a page
 * at a time from a snapshot of the store, each page's keys looked up in MarketBob through its
 * indexes (`users.username`, `items.id`, `purchases.code`), and those gone are written again
 * through the importer as `suspended`, `removed` and `cancelled` (rows are kept, so that nothing
 * refers to a row that is not there; a deleted row that comes back is taken again by the next
 * poll or sync as any saved row). Only rows still served are touched; a run that finds nothing
 * gone writes nothing.
 */
export async function reconcileMarketbob(
  db: MarketbobDb,
  store: Store,
  location: StoreLocation,
  keys: KeyMaterial,
): Promise<ReconcileResult> {
  const lines: object[] = [];
  let suspended = 0;
  let removed = 0;
  let cancelled = 0;
  await readSnapshot(location, async (snapshot) => {
    for (let after: string | undefined; ; ) {
      const rows = await snapshot.accounts(after, PAGE);
      if (rows.length === 0) break;
      const there = await present(
        db,
        'users',
        'username',
        rows.map((row) => row.username),
      );
      const gone = rows.filter((row) => row.status === 'active' && !there.has(row.username.toLowerCase()));
      const hashes = await snapshot.passwordHashes(gone.map((row) => row.username));
      for (const row of gone) {
        lines.push({
          ...accountLine(row, decryptApiKey(keys, row.key_cipher), hashes.get(row.username)),
          status: 'suspended',
        });
        suspended++;
      }
      after = rows[rows.length - 1]?.username;
    }
    for (let after: number | undefined; ; ) {
      const rows = await snapshot.items(after, PAGE);
      if (rows.length === 0) break;
      const there = await present(
        db,
        'items',
        'id',
        rows.map((row) => row.id),
      );
      for (const row of rows) {
        if (row.status === 'removed' || there.has(String(row.id))) continue;
        lines.push({ ...itemLine(row), status: 'removed' });
        removed++;
      }
      after = rows[rows.length - 1]?.id;
    }
    for (let after: string | undefined; ; ) {
      const rows = await snapshot.purchases(after, PAGE);
      if (rows.length === 0) break;
      const there = await present(
        db,
        'purchases',
        'code',
        rows.map((row) => row.code),
      );
      for (const row of rows) {
        if (row.status !== 'active' || there.has(row.code_key)) continue;
        lines.push({ ...purchaseLine(row), status: 'cancelled' });
        cancelled++;
      }
      after = rows[rows.length - 1]?.code_key;
    }
  });
  if (lines.length === 0) return { suspended, removed, cancelled };
  const counts = await store.runImport(async (session) => {
    const run = new ImportRun(session, keys, true);
    let line = 0;
    for (const entry of lines) if (run.add(++line, JSON.stringify(entry))) await run.flush();
    const result = await run.finish();
    if (!result.ok) {
      throw new Error(`reconciliation refused by the store: ${result.errors.map((e) => e.message).join('; ')}`);
    }
    return result.counts;
  });
  return { suspended, removed, cancelled, counts };
}
