import { type ImportCounts, ImportRun } from '../importer/import-run.js';
import type { KeyMaterial } from '../keys/server-secret.js';
import type { Store } from '../store/store.js';
import type { MarketbobConfig } from './marketbob-config.js';
import { currentDatabase, type MarketbobDb } from './marketbob-connection.js';
import { MarketbobReader } from './marketbob-reader.js';
import { type MarketbobSettings, readSettings } from './marketbob-settings.js';
import { type AccountMapped, type MappingContext, mapItem, mapPurchase, mapUser } from './row-mapping.js';
import { REQUIRED_COLUMNS, tableColumns } from './schema-check.js';
import { createWallClock } from './wall-clock.js';

/** A MarketBob row named in a report: its table and id. */
export interface RowReport {
  readonly table: 'users' | 'items' | 'purchases';
  readonly id: number;
  readonly message: string;
}

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
      /** Rows left out, and why (see docs/marketbob.md). */
      readonly skipped: readonly RowReport[];
      /** Rows served with a value changed or left out, and what. */
      readonly notes: readonly RowReport[];
      readonly settings: MarketbobSettings;
    }
  | { readonly ok: false; readonly errors: readonly RowReport[]; readonly errorCount: number };

export interface SyncOptions {
  onProgress?(progress: SyncProgress): void;
}

/** Rows per read: a page is one index range, and its lines are checked and written by the importer's batches. */
const PAGE_ROWS = 5000;
/** Reports kept per kind (every one is counted). */
const MAX_LISTED = 200;

class Reports {
  readonly listed: RowReport[] = [];
  count = 0;
  add(report: RowReport): void {
    this.count++;
    if (this.listed.length < MAX_LISTED) this.listed.push(report);
  }
}

/** Thrown inside the store's transaction to roll it back, carrying the bad rows out. */
class DiscardedSync extends Error {
  constructor(readonly result: SyncResult & { ok: false }) {
    super('sync discarded: the store refused rows');
  }
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
 *
 * MarketBob owns the keys: a key regenerated there replaces ours at once (the import's
 * replace-keys mode: no grace, MarketBob has none).
 */
export async function syncMarketbob(
  db: MarketbobDb,
  store: Store,
  keys: KeyMaterial,
  config: MarketbobConfig,
  options: SyncOptions = {},
): Promise<SyncResult> {
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
  const reader = new MarketbobReader(db, columns.get('items')?.has('validity_prices') ?? false);
  const settings = readSettings(await reader.settings());
  const context: MappingContext = {
    mediaBaseUrl: config.mediaBaseUrl,
    clock: createWallClock(config.timezone),
    settings,
  };
  const skipped = new Reports();
  const notes = new Reports();
  const totalRows = (await reader.count('users')) + (await reader.count('items')) + (await reader.count('purchases'));
  let rowsRead = 0;
  const progress = (rows: number) => {
    rowsRead += rows;
    options.onProgress?.({ rowsRead, totalRows });
  };

  // Users first, whole: they are the fewest, and their keys and names are checked against each other.
  const users = await readUsers(reader, context, skipped, notes, progress);
  const passwords = await changedPasswords(store, users.accounts);
  const duplicateCodes = await reader.duplicateCodes();

  /** Which MarketBob row each line came from, to name it when the importer refuses a line. */
  const lineRows: RowReport['table'][] = [];
  const lineIds: number[] = [];
  try {
    return await store.runImport(async (session) => {
      const run = new ImportRun(session, keys, true);
      const add = async (table: RowReport['table'], id: number, line: object) => {
        lineRows.push(table);
        lineIds.push(id);
        if (run.add(lineRows.length, JSON.stringify(line))) await run.flush();
      };
      for (const [id, account] of users.accounts) {
        const password = passwords.get(account.line.username);
        await add('users', id, {
          ...account.line,
          ...(account.apiKey === undefined ? {} : { api_key: account.apiKey }),
          ...(password === undefined ? {} : { password_hash: password }),
        });
      }
      const items = new Set<number>();
      for (let after = 0; ; ) {
        const page = await reader.itemsPage(after, PAGE_ROWS);
        if (page.length === 0) break;
        for (const row of page) {
          const id = Number(row.id);
          const account = users.usernames.get(Number(row.author_id));
          if (account === undefined) {
            skipped.add({ table: 'items', id, message: `its author (user ${row.author_id}) is missing or skipped` });
            continue;
          }
          const mapped = mapItem({ ...row, id }, account, context);
          if (!mapped.ok) {
            skipped.add({ table: 'items', id, message: mapped.reason });
            continue;
          }
          for (const note of mapped.notes) notes.add({ table: 'items', id, message: note });
          items.add(id);
          await add('items', id, mapped.line);
        }
        after = Number(page[page.length - 1]?.id);
        progress(page.length);
      }
      for (let after = 0; ; ) {
        const page = await reader.purchasesPage(after, PAGE_ROWS);
        if (page.length === 0) break;
        for (const row of page) {
          const id = Number(row.id);
          const first = duplicateCodes.get(id);
          if (first !== undefined) {
            skipped.add({ table: 'purchases', id, message: `its code is also purchase ${first}'s (kept there)` });
            continue;
          }
          if (!items.has(Number(row.item_id))) {
            skipped.add({ table: 'purchases', id, message: `its item ${row.item_id} is missing or skipped` });
            continue;
          }
          const mapped = mapPurchase({ ...row, item_id: Number(row.item_id) }, context);
          if (!mapped.ok) {
            skipped.add({ table: 'purchases', id, message: mapped.reason });
            continue;
          }
          await add('purchases', id, mapped.line);
        }
        after = Number(page[page.length - 1]?.id);
        progress(page.length);
      }
      const result = await run.finish();
      if (!result.ok) {
        const errors = result.errors.map((error) => ({
          table: lineRows[error.line - 1] ?? 'users',
          id: lineIds[error.line - 1] ?? 0,
          message: error.message,
        }));
        throw new DiscardedSync({ ok: false, errors, errorCount: result.errorCount });
      }
      return {
        ok: true,
        counts: result.counts,
        passwordsSet: passwords.size,
        skipped: skipped.listed,
        notes: notes.listed,
        settings,
      };
    });
  } catch (error) {
    if (error instanceof DiscardedSync) return error.result;
    throw error;
  }
}

interface ReadUsers {
  /** By MarketBob id, in id order. */
  readonly accounts: Map<number, AccountMapped>;
  /** MarketBob user id to username, for the users taken. */
  readonly usernames: Map<number, string>;
}

async function readUsers(
  reader: MarketbobReader,
  context: MappingContext,
  skipped: Reports,
  notes: Reports,
  progress: (rows: number) => void,
): Promise<ReadUsers> {
  const accounts = new Map<number, AccountMapped>();
  const usernames = new Map<number, string>();
  /** Lower-cased (MarketBob compares them without case) to the user that has it. */
  const keyHolders = new Map<string, number>();
  const nameHolders = new Map<string, number>();
  for (let after = 0; ; ) {
    const page = await reader.usersPage(after, PAGE_ROWS);
    if (page.length === 0) break;
    for (const row of page) {
      const id = Number(row.id);
      const mapped = mapUser({ ...row, id }, context);
      if (!mapped.ok) {
        skipped.add({ table: 'users', id, message: mapped.reason });
        continue;
      }
      for (const note of mapped.notes) notes.add({ table: 'users', id, message: note });
      const { line } = mapped.line;
      const nameHolder = nameHolders.get(line.username);
      if (nameHolder !== undefined) {
        skipped.add({ table: 'users', id, message: `its username is also user ${nameHolder}'s (kept there)` });
        continue;
      }
      nameHolders.set(line.username, id);
      let account = mapped.line;
      if (account.apiKey !== undefined) {
        const folded = account.apiKey.toLowerCase();
        const holder = keyHolders.get(folded);
        if (holder !== undefined) {
          // MarketBob's own lookup (`where api_key = ?`, first row) would find the lowest id.
          notes.add({ table: 'users', id, message: `its api_key is also user ${holder}'s: not carried over` });
          account = { ...account, apiKey: undefined };
        } else keyHolders.set(folded, id);
      }
      accounts.set(id, account);
      usernames.set(id, line.username);
    }
    after = Number(page[page.length - 1]?.id);
    progress(page.length);
  }
  return { accounts, usernames };
}

/**
 * The MarketBob password hashes to write: those that differ from the store's, except where the
 * store holds one of its own scrypt hashes (the seller logged in here and the bcrypt hash was
 * upgraded: writing MarketBob's again would end their sessions at every sync). Asked before the
 * import's transaction, one account at a time.
 */
async function changedPasswords(store: Store, accounts: ReadonlyMap<number, AccountMapped>) {
  const changed = new Map<string, string>();
  for (const { line, passwordHash } of accounts.values()) {
    if (passwordHash === undefined) continue;
    const stored = await store.passwordHash(line.username);
    if (stored === passwordHash || stored?.startsWith('$scrypt$')) continue;
    changed.set(line.username, passwordHash);
  }
  return changed;
}
