import { type ImportCounts, ImportRun, type LineError } from '../importer/import-run.js';
import type { KeyMaterial } from '../keys/server-secret.js';
import type { ImportSession, Store } from '../store/store.js';
import {
  type AccountMapped,
  type ItemRow,
  type MappingContext,
  mapItem,
  mapPurchase,
  mapUser,
  type PurchaseRow,
  type UserRow,
} from './row-mapping.js';

/** A MarketBob row named in a report: its table and id. */
export interface RowReport {
  readonly table: 'users' | 'items' | 'purchases';
  readonly id: number;
  readonly message: string;
}

/** Reports kept per kind (every one is counted). */
const MAX_LISTED = 200;

export class Reports {
  readonly listed: RowReport[] = [];
  count = 0;
  add(report: RowReport): void {
    this.count++;
    if (this.listed.length < MAX_LISTED) this.listed.push(report);
  }
}

/**
 * What the bridge knows of MarketBob between runs: which users and items it took (a full sync
 * fills it, the follower keeps it up to date), so that an item finds its author's username and a
 * purchase knows its item was taken.
 */
export class SourceState {
  /** MarketBob user id to the username we keep the account under. */
  readonly usernames = new Map<number, string>();
  /** Lower-cased key to the user id holding it (MarketBob compares keys without case). */
  readonly keyHolders = new Map<string, number>();
  /** Item ids taken. */
  readonly items = new Set<number>();
}

/**
 * Turns MarketBob rows into import lines and feeds them to one `ImportRun` (one store transaction):
 * users first, then items, then purchases. Rows that cannot be served are skipped and reported;
 * what they change in the state is applied by `commit()` only, once the store has committed.
 */
export class RowWriter {
  readonly skipped = new Reports();
  readonly notes = new Reports();
  private readonly run: ImportRun;
  /** Which MarketBob row each line came from, to name it when the importer refuses a line. */
  private readonly lineTables: RowReport['table'][] = [];
  private readonly lineIds: number[] = [];
  private readonly newUsernames = new Map<number, string>();
  private readonly newKeyHolders = new Map<string, number>();
  private readonly newItems = new Set<number>();

  constructor(
    session: ImportSession,
    keys: KeyMaterial,
    private readonly context: MappingContext,
    private readonly state: SourceState,
    /** Password hashes to write, by username (see `changedPasswords`). */
    private readonly passwords: ReadonlyMap<string, string>,
  ) {
    // MarketBob owns the keys: a key regenerated there replaces ours at once, with no grace.
    this.run = new ImportRun(session, keys, true);
  }

  private username(id: number): string | undefined {
    return this.newUsernames.get(id) ?? this.state.usernames.get(id);
  }

  private async add(table: RowReport['table'], id: number, line: object): Promise<void> {
    this.lineTables.push(table);
    this.lineIds.push(id);
    if (this.run.add(this.lineTables.length, JSON.stringify(line))) await this.run.flush();
  }

  /** A user already mapped (see `mapUsers`): its line, with its key and password hash. */
  async user(id: number, account: AccountMapped): Promise<void> {
    const password = this.passwords.get(account.line.username);
    this.newUsernames.set(id, account.line.username);
    if (account.apiKey !== undefined) this.newKeyHolders.set(account.apiKey.toLowerCase(), id);
    await this.add('users', id, {
      ...account.line,
      ...(account.apiKey === undefined ? {} : { api_key: account.apiKey }),
      ...(password === undefined ? {} : { password_hash: password }),
    });
  }

  async item(row: ItemRow): Promise<void> {
    const id = Number(row.id);
    const account = this.username(Number(row.author_id));
    if (account === undefined) {
      this.skipped.add({ table: 'items', id, message: `its author (user ${row.author_id}) is missing or skipped` });
      return;
    }
    const mapped = mapItem({ ...row, id }, account, this.context);
    if (!mapped.ok) {
      this.skipped.add({ table: 'items', id, message: mapped.reason });
      return;
    }
    for (const note of mapped.notes) this.notes.add({ table: 'items', id, message: note });
    this.newItems.add(id);
    await this.add('items', id, mapped.line);
  }

  /** A purchase; `duplicateOf` names the purchase with a lower id that has the same code. */
  async purchase(row: PurchaseRow, duplicateOf?: number): Promise<void> {
    const id = Number(row.id);
    const itemId = Number(row.item_id);
    if (duplicateOf !== undefined) {
      this.skipped.add({ table: 'purchases', id, message: `its code is also purchase ${duplicateOf}'s (kept there)` });
      return;
    }
    if (!this.newItems.has(itemId) && !this.state.items.has(itemId)) {
      this.skipped.add({ table: 'purchases', id, message: `its item ${row.item_id} is missing or skipped` });
      return;
    }
    const mapped = mapPurchase({ ...row, item_id: itemId }, this.context);
    if (!mapped.ok) {
      this.skipped.add({ table: 'purchases', id, message: mapped.reason });
      return;
    }
    for (const note of mapped.notes) this.notes.add({ table: 'purchases', id, message: note });
    await this.add('purchases', id, mapped.line);
  }

  /** Checks and writes what is left: the counts, or the refused rows (then the transaction must roll back). */
  async finish(): Promise<{ ok: true; counts: ImportCounts } | { ok: false; errors: RowReport[]; errorCount: number }> {
    const result = await this.run.finish();
    if (result.ok) return result;
    return { ok: false, errors: result.errors.map((error) => this.rowOf(error)), errorCount: result.errorCount };
  }

  /** Once the store has committed: the state learns the users and items written. */
  commit(): void {
    for (const [id, username] of this.newUsernames) this.state.usernames.set(id, username);
    for (const [key, id] of this.newKeyHolders) this.state.keyHolders.set(key, id);
    for (const id of this.newItems) this.state.items.add(id);
  }

  private rowOf(error: LineError): RowReport {
    return {
      table: this.lineTables[error.line - 1] ?? 'users',
      id: this.lineIds[error.line - 1] ?? 0,
      message: error.message,
    };
  }
}

/**
 * Maps users, checking them against each other and the state: a username another user id
 * already has, or a key another user holds (the lowest id keeps it: MarketBob's own lookup,
 * `where api_key = ?` and the first row, finds that one), is reported. A user whose username
 * changed in MarketBob is skipped: our accounts are keyed by username (see docs/marketbob.md).
 */
export function mapUsers(
  rows: readonly UserRow[],
  context: MappingContext,
  state: SourceState,
  skipped: Reports,
  notes: Reports,
): Map<number, AccountMapped> {
  const accounts = new Map<number, AccountMapped>();
  const names = new Map<string, number>();
  for (const [id, username] of state.usernames) names.set(username, id);
  const keys = new Map(state.keyHolders);
  for (const row of rows) {
    const id = Number(row.id);
    const mapped = mapUser({ ...row, id }, context);
    if (!mapped.ok) {
      skipped.add({ table: 'users', id, message: mapped.reason });
      continue;
    }
    for (const note of mapped.notes) notes.add({ table: 'users', id, message: note });
    const { username } = mapped.line.line;
    const known = state.usernames.get(id);
    if (known !== undefined && known !== username) {
      skipped.add({ table: 'users', id, message: 'its username changed: not followed (sync again into a new store)' });
      continue;
    }
    const nameHolder = names.get(username);
    if (nameHolder !== undefined && nameHolder !== id) {
      skipped.add({ table: 'users', id, message: `its username is also user ${nameHolder}'s (kept there)` });
      continue;
    }
    names.set(username, id);
    let account = mapped.line;
    if (account.apiKey !== undefined) {
      const folded = account.apiKey.toLowerCase();
      const holder = keys.get(folded);
      if (holder !== undefined && holder !== id && holder < id) {
        notes.add({ table: 'users', id, message: `its api_key is also user ${holder}'s: not carried over` });
        account = { ...account, apiKey: undefined };
      } else keys.set(folded, id);
    }
    accounts.set(id, account);
  }
  return accounts;
}

/**
 * The MarketBob password hashes to write: those that differ from the store's, except where the
 * store holds one of its own scrypt hashes (the seller logged in here and the bcrypt hash was
 * upgraded: writing MarketBob's again would end their sessions at every sync). Asked before the
 * import's transaction, one account at a time.
 */
export async function changedPasswords(
  store: Store,
  accounts: ReadonlyMap<number, AccountMapped>,
): Promise<Map<string, string>> {
  const changed = new Map<string, string>();
  for (const { line, passwordHash } of accounts.values()) {
    if (passwordHash === undefined) continue;
    const stored = await store.passwordHash(line.username);
    if (stored === passwordHash || stored?.startsWith('$scrypt$')) continue;
    changed.set(line.username, passwordHash);
  }
  return changed;
}
