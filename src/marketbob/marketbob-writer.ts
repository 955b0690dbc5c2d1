import { type ImportCounts, ImportRun, type LineError } from '../importer/import-run.js';
import type { KeyMaterial } from '../keys/server-secret.js';
import type { ImportSession, MarketbobLoginFacts, MarketbobUserLink, Store } from '../store/store.js';
import { loginFactsOf } from './login-facts.js';
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
 * fills it, from the store's links (migration 0007) and MarketBob's rows; the follower keeps it up
 * to date), so that an item finds its author's username, a purchase knows its item was taken, a
 * renamed user is known by id, and a changed password is told from one taken before.
 */
export class SourceState {
  /** MarketBob user id to the username we keep the account under. */
  readonly usernames = new Map<number, string>();
  /** MarketBob user id to the digest of the password last taken from MarketBob ('' for none). */
  readonly passwordDigests = new Map<number, string>();
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
  private readonly links: MarketbobUserLink[] = [];
  private readonly loginFacts: MarketbobLoginFacts[] = [];
  /** Accounts renamed by `renames`. */
  renamed = 0;

  constructor(
    private readonly session: ImportSession,
    keys: KeyMaterial,
    private readonly context: MappingContext,
    private readonly state: SourceState,
    /** What to do about passwords (see `passwordChanges`). */
    private readonly passwords: PasswordChanges,
  ) {
    // MarketBob owns the keys: a key regenerated there replaces ours at once, with no grace.
    this.run = new ImportRun(session, keys, true);
  }

  /**
   * Usernames changed in MarketBob, before any line: each account is renamed with all that refers
   * to it. One whose new name is an account not from MarketBob is skipped (it stays as it was).
   */
  async renames(accounts: Map<number, MappedUser>): Promise<void> {
    for (const [id, account] of accounts) {
      const from = account.renamedFrom;
      if (from === undefined) continue;
      const to = account.line.username;
      if (await this.session.renameAccount(from, to)) {
        this.renamed++;
        continue;
      }
      this.skipped.add({
        table: 'users',
        id,
        message: `its username changed, and the new one is another account's here (not from MarketBob): not renamed`,
      });
      accounts.delete(id);
    }
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
  async user(id: number, account: MappedUser): Promise<void> {
    const { username } = account.line;
    const password = this.passwords.set.get(username);
    this.newUsernames.set(id, username);
    if (account.apiKey !== undefined) this.newKeyHolders.set(account.apiKey.toLowerCase(), id);
    // MarketBob owns the keys: a user without one has none here either.
    else this.run.withoutKey(username);
    if (this.state.usernames.get(id) !== username || this.state.passwordDigests.get(id) !== account.passwordDigest) {
      this.links.push({ username, userId: id, passwordDigest: account.passwordDigest });
    }
    if (account.loginFacts !== undefined) this.loginFacts.push(account.loginFacts);
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

  /**
   * A row deleted in MarketBob, as the line that stops it being served (an account suspended, an
   * item removed, a purchase cancelled); `keyless` names an account whose key goes with it.
   */
  async gone(table: RowReport['table'], id: number, line: object, keyless?: string): Promise<void> {
    if (keyless !== undefined) this.run.withoutKey(keyless);
    await this.add(table, id, line);
  }

  /** Checks and writes what is left: the counts, or the refused rows (then the transaction must roll back). */
  async finish(): Promise<{ ok: true; counts: ImportCounts } | { ok: false; errors: RowReport[]; errorCount: number }> {
    const result = await this.run.finish();
    if (result.ok) {
      await this.session.removePasswordHashes(this.passwords.remove);
      await this.session.linkMarketbobUsers(this.links);
      await this.session.setMarketbobLoginFacts(this.loginFacts);
      return result;
    }
    return { ok: false, errors: result.errors.map((error) => this.rowOf(error)), errorCount: result.errorCount };
  }

  /** Once the store has committed: the state learns the users and items written. */
  commit(): void {
    for (const [id, username] of this.newUsernames) this.state.usernames.set(id, username);
    for (const link of this.links) this.state.passwordDigests.set(link.userId, link.passwordDigest);
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

/** A user as mapped and checked: its line, key and password, and the username it had here if MarketBob renamed it. */
export interface MappedUser extends AccountMapped {
  readonly renamedFrom?: string;
  /** Who may log in (login-facts.ts), written beside the link. */
  readonly loginFacts?: MarketbobLoginFacts;
}

/**
 * Maps users, checking them against each other and the state: a username another user id
 * already has, or a key another user holds (the lowest id keeps it: MarketBob's own lookup,
 * `where api_key = ?` and the first row, finds that one, so the others have no key here), is
 * reported. A user known by id under another username was renamed in MarketBob: the account is
 * renamed (`RowWriter.renames`).
 */
export function mapUsers(
  rows: readonly UserRow[],
  context: MappingContext,
  state: SourceState,
  skipped: Reports,
  notes: Reports,
): Map<number, MappedUser> {
  const accounts = new Map<number, MappedUser>();
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
    const nameHolder = names.get(username);
    if (nameHolder !== undefined && nameHolder !== id) {
      skipped.add({ table: 'users', id, message: `its username is also user ${nameHolder}'s (kept there)` });
      continue;
    }
    const known = state.usernames.get(id);
    const renamedFrom = known !== undefined && known !== username ? known : undefined;
    if (renamedFrom !== undefined) names.delete(renamedFrom);
    names.set(username, id);
    let account: MappedUser = renamedFrom === undefined ? mapped.line : { ...mapped.line, renamedFrom };
    if (account.apiKey !== undefined) {
      const folded = account.apiKey.toLowerCase();
      const holder = keys.get(folded);
      if (holder !== undefined && holder !== id && holder < id) {
        notes.add({ table: 'users', id, message: `its api_key is also user ${holder}'s: no key here` });
        account = { ...account, apiKey: undefined };
      } else keys.set(folded, id);
    }
    accounts.set(id, { ...account, loginFacts: loginFactsOf(id, row) });
  }
  return accounts;
}

/** What a run does about passwords: hashes to set, by username, and accounts whose hash goes. */
export interface PasswordChanges {
  readonly set: Map<string, string>;
  readonly remove: string[];
}

/**
 * MarketBob owns the passwords: when its `password` differs from the one last taken (the state's
 * digest, from migration 0007's links), it is taken, even over a hash our workspace upgraded to
 * scrypt at a login since; a password MarketBob took away (NULL), or one we cannot take, takes
 * ours away. While it is the one last taken, ours stays as it is (an upgraded hash is not undone
 * at every poll, which would end the seller's sessions).
 *
 * A user never linked (a store synced before migration 0007, or a new user): MarketBob's hash is
 * written where it differs from ours, except over one of our own scrypt hashes, which it cannot
 * be told from (asked of the store, one account at a time).
 */
export async function passwordChanges(
  store: Store,
  accounts: ReadonlyMap<number, MappedUser>,
  state: SourceState,
): Promise<PasswordChanges> {
  const changes: PasswordChanges = { set: new Map(), remove: [] };
  for (const [id, { line, passwordHash, passwordDigest }] of accounts) {
    const taken = state.passwordDigests.get(id);
    if (taken === passwordDigest) continue;
    if (taken !== undefined) {
      if (passwordHash !== undefined) changes.set.set(line.username, passwordHash);
      else if (taken !== '') changes.remove.push(line.username);
      continue;
    }
    if (passwordHash === undefined) continue;
    // Asked under the name the account has here now (it is renamed in the same run).
    const stored = await store.passwordHash(state.usernames.get(id) ?? line.username);
    if (stored === passwordHash || stored?.startsWith('$scrypt$')) continue;
    changes.set.set(line.username, passwordHash);
  }
  return changes;
}
