import type { ImportCounts } from '../importer/import-run.js';
import type { KeyMaterial } from '../keys/server-secret.js';
import type { Store } from '../store/store.js';
import { DELETION_LOG } from './deletion-log.js';
import { hasTwoFactorColumns } from './login-facts.js';
import type { MarketbobConfig } from './marketbob-config.js';
import { currentDatabase, type MarketbobDb } from './marketbob-connection.js';
import { MarketbobReader } from './marketbob-reader.js';
import { effectiveTimezone, type MarketbobSettings, readSettings, type TimezoneSource } from './marketbob-settings.js';
import {
  mapUsers,
  passwordChanges,
  type Reports as ReportList,
  Reports,
  type RowReport,
  RowWriter,
  SourceState,
} from './marketbob-writer.js';
import type { MappingContext, UserRow } from './row-mapping.js';
import { DISCOUNT_COLUMNS, REQUIRED_COLUMNS, tableColumns } from './schema-check.js';
import { createWallClock } from './wall-clock.js';

export type { RowReport } from './marketbob-writer.js';

/** How far a sync has read. */
export interface SyncProgress {
  readonly rowsRead: number;
  readonly totalRows: number;
}

/** What a sync did; a failed one wrote nothing. Messages never hold a key or a password hash. */
export type SyncResult =
  | {
      readonly ok: true;
      readonly counts: ImportCounts;
      /** Password hashes written (new or changed in MarketBob). */
      readonly passwordsSet: number;
      /** Rows left out, and why (see docs/marketbob.md); the first 200. */
      readonly skipped: readonly RowReport[];
      /** Rows served with a value changed or left out, and what; the first 200. */
      readonly notes: readonly RowReport[];
      readonly settings: MarketbobSettings;
      /** What the follower goes on from. */
      readonly state: SourceState;
    }
  | { readonly ok: false; readonly errors: readonly RowReport[]; readonly errorCount: number };

export interface SyncOptions {
  onProgress?(progress: SyncProgress): void;
}

/** Rows per read: a page is one index range, and its lines are checked and written by the importer's batches. */
export const PAGE_ROWS = 5000;

/** Thrown inside the store's transaction to roll it back, carrying the refused rows out. */
export class DiscardedRows extends Error {
  constructor(readonly result: SyncResult & { ok: false }) {
    super('discarded: the store refused rows');
  }
}

/** What a run needs of MarketBob: the reader (which knows the optional columns) and the mapping context. */
export interface Source {
  readonly reader: MarketbobReader;
  readonly context: MappingContext;
  readonly settings: MarketbobSettings;
  /** The zone dates are read in, and where it comes from (the config overrides MarketBob's setting). */
  readonly timezone: { readonly zone: string; readonly source: TimezoneSource };
  /** Whether the deletion log exists (see deletion-log.ts). */
  readonly deletionLog: boolean;
  /** `purchases.code` has a unique index of its own and a case-insensitive collation, as MarketBob makes it. */
  readonly codesUnique: boolean;
}

/** Checks that the tables and columns the bridge reads exist, then reads the settings. */
export async function openSource(db: MarketbobDb, config: MarketbobConfig): Promise<Source> {
  const database = await currentDatabase(db);
  const columns = await tableColumns(db, database);
  const missing = Object.entries(REQUIRED_COLUMNS).flatMap(([table, names]) => {
    const present = columns.get(table);
    if (present === undefined) return [`table ${table}`];
    return names.filter((name) => !present.has(name)).map((name) => `${table}.${name}`);
  });
  if (missing.length > 0) {
    throw new Error(`not a MarketBob database this bridge can read: missing ${missing.join(', ')}`);
  }
  // Read only when it has every column the bridge reads (a table of another shape is ignored).
  const discounts = DISCOUNT_COLUMNS.every((column) => columns.get('item_discounts')?.has(column) === true);
  const reader = new MarketbobReader(db, columns.get('items')?.has('validity_prices') ?? false, discounts);
  reader.twoFactorColumns = hasTwoFactorColumns(columns);
  const settings = readSettings(await reader.settings());
  const timezone = effectiveTimezone(config.timezone, settings);
  return {
    reader,
    settings,
    timezone,
    deletionLog: columns.has(DELETION_LOG),
    codesUnique: await reader.codesUnique(database),
    context: { mediaBaseUrl: config.mediaBaseUrl, clock: createWallClock(timezone.zone), settings },
  };
}

/**
 * A full sync of a MarketBob database into the store, through the importer (`ImportRun`): the
 * same checks and writes as an NDJSON import, in one store transaction, all or nothing, and
 * idempotent (rows equal to the stored ones are counted unchanged).
 *
 * Rows that cannot be served (a NULL where a value is needed, an unknown status, a duplicate
 * key) are skipped and reported by table and id, with what hangs from them (a skipped user's
 * items, a skipped item's purchases). A row the importer still refuses fails the whole sync:
 * nothing is written, and the rows are listed.
 */
export async function syncMarketbob(
  db: MarketbobDb,
  store: Store,
  keys: KeyMaterial,
  config: MarketbobConfig,
  options: SyncOptions = {},
): Promise<SyncResult> {
  const source = await openSource(db, config);
  const { reader, context, settings } = source;
  const state = new SourceState();
  const skipped = new Reports();
  const notes = new Reports();
  const totalRows = (await reader.count('users')) + (await reader.count('items')) + (await reader.count('purchases'));
  let rowsRead = 0;
  const progress = (rows: number) => {
    rowsRead += rows;
    options.onProgress?.({ rowsRead, totalRows });
  };

  // Users first, whole: they are the fewest, and their names and keys are checked against each other.
  const userRows: UserRow[] = [];
  await readPages(
    (after) => reader.usersPage(after, PAGE_ROWS),
    async (page) => {
      userRows.push(...page);
      progress(page.length);
    },
  );
  // MarketBob's unique index on a case-insensitive `code` rules duplicates out: no need to look.
  const duplicateCodes = source.codesUnique ? new Map<number, number>() : await reader.duplicateCodes();

  try {
    return await store.runImport(async (session) => {
      // The accounts taken before, by MarketBob user id: a user renamed since is renamed here. A
      // link to a user gone from MarketBob holds no name (a new user may have taken it there).
      const present = new Set(userRows.map((row) => Number(row.id)));
      for (const link of await session.marketbobUsers()) {
        if (!present.has(link.userId)) continue;
        state.usernames.set(link.userId, link.username);
        state.passwordDigests.set(link.userId, link.passwordDigest);
      }
      const accounts = mapUsers(userRows, context, state, skipped, notes);
      userRows.length = 0;
      const passwords = await passwordChanges(store, accounts, state);
      const writer = new RowWriter(session, keys, context, state, passwords);
      await writer.renames(accounts);
      for (const [id, account] of accounts) await writer.user(id, account);
      await readPages(
        (after) => reader.itemsPage(after, PAGE_ROWS),
        async (page) => {
          for (const row of page) await writer.item(row);
          progress(page.length);
        },
      );
      await readPages(
        (after) => reader.purchasesPage(after, PAGE_ROWS),
        async (page) => {
          for (const row of page) await writer.purchase(row, duplicateCodes.get(Number(row.id)));
          progress(page.length);
        },
      );
      const result = await writer.finish();
      if (!result.ok) throw new DiscardedRows(result);
      writer.commit();
      return {
        ok: true,
        counts: result.counts,
        passwordsSet: passwords.set.size + passwords.remove.length,
        skipped: merged(skipped, writer.skipped),
        notes: merged(notes, writer.notes),
        settings,
        state,
      };
    });
  } catch (error) {
    if (error instanceof DiscardedRows) return error.result;
    throw error;
  }
}

/**
 * Reads a table page by page, by id, until a page comes back empty. The next page is asked for as
 * soon as a page arrives, while this one is written: MarketBob's answer and our writes overlap.
 */
export async function readPages<R extends { readonly id: number }>(
  page: (afterId: number) => Promise<R[]>,
  each: (rows: R[]) => Promise<void>,
): Promise<void> {
  let next = page(0);
  for (;;) {
    const rows = await next;
    if (rows.length === 0) return;
    next = page(Number(rows[rows.length - 1]?.id));
    // Awaited on the next turn; until then a failure of it must not count as unhandled.
    next.catch(() => {});
    await each(rows);
  }
}

/** Two lists of reports, the users' first (they were mapped first), cut as each list is. */
export function merged(first: ReportList, second: ReportList): RowReport[] {
  return [...first.listed, ...second.listed].slice(0, 200);
}
