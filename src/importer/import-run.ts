import { digestApiKey, encryptApiKey, generateApiKey, isKeyDigest, noKey } from '../keys/api-keys.js';
import type { KeyMaterial } from '../keys/server-secret.js';
import type { ImportedActivation } from '../records/purchase-table.js';
import type { ItemRecord, PurchaseRecord } from '../records/rows.js';
import { newActivationId } from '../store/activations/activation-store.js';
import {
  type AccountUpsert,
  type ActivationLimitUpsert,
  type ActivationsUpsert,
  ImportRowRejectedError,
  type ImportSession,
  type NamedKeyState,
  type PasswordHashUpsert,
  type ReplacedKey,
  type StoredKey,
  type StoredNamedKey,
  type UpsertCounts,
} from '../store/store.js';
import type { AccountEntry } from './account-line.js';
import { type LineType, parseLine } from './parse-line.js';

/** A bad line: its physical 1-based number and what is wrong (never a key). */
export interface LineError {
  readonly line: number;
  readonly message: string;
}

/** Rows inserted, updated and left unchanged, per line type. */
export type ImportCounts = Record<LineType, UpsertCounts>;

/** How many bad lines an import lists; it counts them all. */
export const MAX_LISTED_ERRORS = 50;

/** Lines per batch: each batch costs a few store round trips, and a larger one holds more in memory. */
const BATCH_LINES = 4096;

type Pending =
  | {
      readonly kind: 'account';
      readonly line: number;
      readonly entry: AccountEntry;
      readonly digest: string | undefined;
      /** The digests of the line's named keys (`api_keys`), in order. */
      readonly namedDigests: readonly string[];
    }
  | {
      readonly kind: 'item';
      readonly line: number;
      readonly record: ItemRecord;
      readonly limit: number | null | undefined;
      readonly accountSeen: boolean;
    }
  | {
      readonly kind: 'purchase';
      readonly line: number;
      readonly record: PurchaseRecord;
      readonly activations: readonly ImportedActivation[] | undefined;
      readonly itemSeen: boolean;
    };

/** Lines read together and written together, in file order; no natural key repeats within one. */
class Batch {
  readonly entries: Pending[] = [];
  /** Lines rejected on reading. */
  readonly errors: LineError[] = [];
  readonly accounts = new Set<string>();
  readonly items = new Set<number>();
  readonly purchases = new Set<string>();
}

const NOT_FOUND = 'does not exist (not in this file before this line, nor in the store)';

/** A key another account had and lost: refused unless the import replaces keys (it would revive a leaked key). */
const ANOTHER_ACCOUNTS_FORMER_KEY =
  'api_key is a key another account had before and that was replaced; importing it would bring it back ' +
  'for this account (to do so: import --replace-keys, or replace_keys=true in the admin API)';

const zeroCounts = (): UpsertCounts => ({ inserted: 0, updated: 0, unchanged: 0 });

function isBlank(text: string): boolean {
  return text.length === 0 || (text.charCodeAt(0) !== 0x7b /* { */ && text.trim() === '');
}

/**
 * One import, line by line: reads and checks each line as it comes, then checks references and
 * keys and writes a batch at a time, in file order.
 *
 * References honour the order of the file: an item may name an account from an earlier line or
 * from the store, not from a later line. Lines are checked against what the file has said so far
 * (kept in memory: the usernames and item ids named, and the keys given) and, for anything else,
 * against the store, asked before the batch is written, so the store then holds only rows from
 * earlier lines and rows that were there before the import.
 *
 * After the first bad line nothing more is written (the import will be rolled back), but every
 * line is still checked, so one run reports every problem.
 */
export class ImportRun {
  /** Usernames and item ids named by earlier lines, including bad ones: one mistake, one message. */
  private readonly seenAccounts = new Set<string>();
  private readonly seenItems = new Set<number>();
  /** Found in the store (so there before the import): asked once. */
  private readonly storedAccounts = new Set<string>();
  private readonly storedItems = new Set<number>();
  /** Keys given by earlier lines: digest to username, and each such account's current digest. */
  private readonly keyHolders = new Map<string, string>();
  private readonly givenKeys = new Map<string, string>();
  /** Accounts whose line without `api_key` means "no key" rather than "keep the key" (see `withoutKey`). */
  private readonly keyless = new Set<string>();

  private batch = new Batch();
  private readonly sealed: Batch[] = [];
  private readonly listed: LineError[] = [];
  private errorCount = 0;
  private readonly counts: ImportCounts = { account: zeroCounts(), item: zeroCounts(), purchase: zeroCounts() };

  constructor(
    private readonly session: ImportSession,
    private readonly keys: KeyMaterial,
    /** An account line may replace the account's current key (see `ImportOptions.replaceKeys`). */
    private readonly replaceKeys = false,
  ) {}

  /**
   * The account's next line, if it has no `api_key`, means the account has no key (MarketBob's
   * user without one): its key, if it had one, stops working, and a new account gets none. An
   * NDJSON import never says so: there a line without a key keeps the account's key.
   */
  withoutKey(username: string): void {
    this.keyless.add(username);
  }

  /** Reads one physical line. True when batches are ready: call `flush()` before the next line. */
  add(line: number, text: string): boolean {
    if (isBlank(text)) return false;
    const parsed = parseLine(text);
    switch (parsed.kind) {
      case 'account': {
        const { username } = parsed.entry.record;
        if (this.batch.accounts.has(username)) this.seal();
        this.batch.accounts.add(username);
        const apiKey = parsed.entry.extras.api_key;
        const digest = apiKey === undefined ? undefined : digestApiKey(this.keys, apiKey);
        const namedDigests = (parsed.entry.extras.api_keys ?? []).map((named) => digestApiKey(this.keys, named.key));
        this.batch.entries.push({ kind: 'account', line, entry: parsed.entry, digest, namedDigests });
        this.seenAccounts.add(username);
        break;
      }
      case 'item': {
        const { record } = parsed;
        if (this.batch.items.has(record.id)) this.seal();
        this.batch.items.add(record.id);
        const limit = parsed.extras.activation_limit;
        this.batch.entries.push({
          kind: 'item',
          line,
          record,
          limit,
          accountSeen: this.seenAccounts.has(record.account),
        });
        this.seenItems.add(record.id);
        break;
      }
      case 'purchase': {
        const { record } = parsed;
        if (this.batch.purchases.has(record.code_key)) this.seal();
        this.batch.purchases.add(record.code_key);
        const { activations } = parsed.extras;
        const itemSeen = this.seenItems.has(record.item_id);
        this.batch.entries.push({ kind: 'purchase', line, record, activations, itemSeen });
        break;
      }
      case 'bad': {
        this.batch.errors.push({ line, message: parsed.message });
        const declared = parsed.declares;
        if (declared !== undefined) {
          if ('username' in declared) this.seenAccounts.add(declared.username);
          else this.seenItems.add(declared.itemId);
        }
        break;
      }
    }
    if (this.batch.entries.length + this.batch.errors.length >= BATCH_LINES) this.seal();
    return this.sealed.length > 0;
  }

  /**
   * A line over the length cap (ndjson-lines.ts): bad, and nothing of it was read. True when
   * batches are ready, as `add`.
   */
  /** A line read elsewhere (a signing key's) and found bad. As `add`. */
  addBad(line: number, message: string): boolean {
    this.batch.errors.push({ line, message });
    if (this.batch.entries.length + this.batch.errors.length >= BATCH_LINES) this.seal();
    return this.sealed.length > 0;
  }

  addTooLong(line: number, maxChars: number): boolean {
    this.batch.errors.push({ line, message: `longer than ${maxChars} characters, the most a line may hold` });
    if (this.batch.entries.length + this.batch.errors.length >= BATCH_LINES) this.seal();
    return this.sealed.length > 0;
  }

  /** Checks and writes the batches that are ready, in order. */
  async flush(): Promise<void> {
    for (let batch = this.sealed.shift(); batch !== undefined; batch = this.sealed.shift()) await this.process(batch);
  }

  /** Checks and writes what is left; then the outcome. */
  async finish(): Promise<{ ok: true; counts: ImportCounts } | { ok: false; errors: LineError[]; errorCount: number }> {
    this.seal();
    await this.flush();
    return this.errorCount === 0
      ? { ok: true, counts: this.counts }
      : { ok: false, errors: this.listed, errorCount: this.errorCount };
  }

  private get writing(): boolean {
    return this.errorCount === 0;
  }

  private seal(): void {
    if (this.batch.entries.length === 0 && this.batch.errors.length === 0) return;
    this.sealed.push(this.batch);
    this.batch = new Batch();
  }

  private async process(batch: Batch): Promise<void> {
    const errors = batch.errors;
    const { storedKeys, owners, formerHolders, storedItems, namedKeys } = await this.lookUp(batch);
    const named: StoredNamedKey[] = [];
    const accounts: AccountUpsert[] = [];
    const accountLines: number[] = [];
    const passwords: PasswordHashUpsert[] = [];
    /** Accounts in the store given another key by this batch: their retired keys end with the old one. */
    const rekeyed: ReplacedKey[] = [];
    const items: ItemRecord[] = [];
    const itemLines: number[] = [];
    /** Limits the batch's item lines set: a line without one leaves the item's as it is. */
    const limits: ActivationLimitUpsert[] = [];
    const purchases: PurchaseRecord[] = [];
    const purchaseLines: number[] = [];
    /** Activations the batch's purchase lines give (replacing the code's), and the purchases that end theirs. */
    const activations: ActivationsUpsert[] = [];
    const ended: PurchaseRecord[] = [];
    // Once a line is bad nothing will be written: from there on, only look for more problems.
    let writing = this.writing && errors.length === 0;
    for (const pending of batch.entries) {
      switch (pending.kind) {
        case 'account': {
          const storedDigest = storedKeys.get(pending.entry.record.username);
          const decided = this.accountKey(pending, storedDigest, owners, formerHolders, writing);
          const namedProblem = this.namedKeysProblem(pending, namedKeys);
          if (namedProblem !== undefined) {
            errors.push({ line: pending.line, message: `account: ${namedProblem}` });
            writing = false;
          } else if ('rejected' in decided) {
            errors.push({ line: pending.line, message: `account: ${decided.rejected}` });
            writing = false;
          } else if (writing) {
            accounts.push({ record: pending.entry.record, key: decided.key });
            if (storedDigest !== undefined && decided.key !== undefined && isKeyDigest(storedDigest)) {
              rekeyed.push({ username: pending.entry.record.username, formerDigest: storedDigest });
            }
            accountLines.push(pending.line);
            const passwordHash = pending.entry.extras.password_hash;
            if (passwordHash !== undefined) passwords.push({ username: pending.entry.record.username, passwordHash });
            named.push(...this.namedKeyRows(pending));
          }
          break;
        }
        case 'item': {
          const { account } = pending.record;
          if (!pending.accountSeen && !this.storedAccounts.has(account)) {
            if (storedKeys.has(account)) this.storedAccounts.add(account);
            else {
              const name = JSON.stringify(account);
              errors.push({ line: pending.line, message: `item: account ${name} ${NOT_FOUND}` });
              writing = false;
              break;
            }
          }
          if (writing) {
            items.push(pending.record);
            itemLines.push(pending.line);
            if (pending.limit !== undefined) limits.push({ itemId: pending.record.id, limit: pending.limit });
          }
          break;
        }
        case 'purchase': {
          const itemId = pending.record.item_id;
          if (!pending.itemSeen && !this.storedItems.has(itemId)) {
            if (storedItems.has(itemId)) this.storedItems.add(itemId);
            else {
              errors.push({ line: pending.line, message: `purchase: item_id ${itemId} ${NOT_FOUND}` });
              writing = false;
              break;
            }
          }
          if (writing) {
            purchases.push(pending.record);
            purchaseLines.push(pending.line);
            const codeKey = pending.record.code_key;
            if (pending.record.status !== 'active') ended.push(pending.record);
            else if (pending.activations !== undefined) {
              const rows = pending.activations.map((given) => ({
                ...given,
                id: given.id ?? newActivationId(),
                code_key: codeKey,
              }));
              activations.push({ codeKey, activations: rows });
            }
          }
          break;
        }
      }
    }
    if (writing) {
      const rejected =
        (await this.write('account', accountLines, async () => {
          const counts = await this.session.upsertAccounts(accounts);
          await this.session.upsertPasswordHashes(passwords);
          if (rekeyed.length > 0) await this.session.keysReplaced(rekeyed);
          await this.session.upsertNamedKeys(named);
          return counts;
        })) ??
        (await this.write('item', itemLines, async () => {
          const counts = await this.session.upsertItems(items);
          if (limits.length > 0) await this.session.setActivationLimits(limits);
          return counts;
        })) ??
        (await this.write('purchase', purchaseLines, async () => {
          const counts = await this.session.upsertPurchases(purchases);
          if (activations.length > 0) await this.session.replaceActivations(activations);
          // A purchase refunded or cancelled (here, or by the MarketBob bridge) ends its activations.
          if (ended.length > 0) await this.session.endActivations(ended);
          return counts;
        }));
      if (rejected !== undefined) errors.push(rejected);
    }
    this.report(errors);
  }

  /** What the store holds for the batch's accounts, keys and referenced items, before it is written. */
  private async lookUp(batch: Batch) {
    const usernames = new Set<string>();
    const digests = new Set<string>();
    const itemIds = new Set<number>();
    const namedIds: string[] = [];
    const namedDigests: string[] = [];
    for (const pending of batch.entries) {
      if (pending.kind === 'account') {
        usernames.add(pending.entry.record.username);
        if (pending.digest !== undefined) digests.add(pending.digest);
        for (const named of pending.entry.extras.api_keys ?? []) namedIds.push(named.id);
        namedDigests.push(...pending.namedDigests);
      } else if (pending.kind === 'item') {
        if (!pending.accountSeen && !this.storedAccounts.has(pending.record.account))
          usernames.add(pending.record.account);
      } else if (!pending.itemSeen && !this.storedItems.has(pending.record.item_id)) {
        itemIds.add(pending.record.item_id);
      }
    }
    return {
      storedKeys: usernames.size > 0 ? await this.session.accountKeys([...usernames]) : new Map<string, string>(),
      owners: digests.size > 0 ? await this.session.keyOwners([...digests]) : new Map<string, string>(),
      formerHolders:
        digests.size > 0 && !this.replaceKeys
          ? await this.session.formerKeyHolders([...digests])
          : new Map<string, Set<string>>(),
      storedItems: itemIds.size > 0 ? await this.session.existingItems([...itemIds]) : new Set<number>(),
      namedKeys: namedIds.length > 0 ? await this.session.namedKeysFound(namedIds, namedDigests) : [],
    };
  }

  /**
   * Why the line's named keys cannot be written, if they cannot: an id or a key that is another
   * account's or another key's, or a key revoked since (an old export would bring it back: only
   * with replaceKeys, as a replaced account key). Never names a key.
   */
  private namedKeysProblem(
    pending: Pending & { kind: 'account' },
    stored: readonly NamedKeyState[],
  ): string | undefined {
    const { username } = pending.entry.record;
    const keys = pending.entry.extras.api_keys ?? [];
    for (const [index, named] of keys.entries()) {
      const digest = pending.namedDigests[index];
      const at = `api_keys[${index}]`;
      const byId = stored.find((state) => state.id === named.id);
      const byDigest = stored.find((state) => state.digest === digest);
      if (byId !== undefined && byId.username !== username) return `${at}.id is a key of another account`;
      if (byDigest !== undefined && byDigest.id !== named.id) return `${at}.key is already another named key`;
      if (!this.replaceKeys && (byId?.revoked || byDigest?.revoked)) {
        return (
          `${at} is a key that was revoked; importing it would bring it back ` +
          '(to do so: import --replace-keys, or replace_keys=true in the admin API)'
        );
      }
    }
    return undefined;
  }

  /** The line's named keys as the store keeps them: a digest and a ciphertext each. */
  private namedKeyRows(pending: Pending & { kind: 'account' }): StoredNamedKey[] {
    const username = pending.entry.record.username;
    return (pending.entry.extras.api_keys ?? []).map((named, index) => ({
      id: named.id,
      username,
      name: named.name,
      scope: named.scope,
      key: { digest: pending.namedDigests[index] as string, cipher: encryptApiKey(this.keys, named.key) },
      createdAt: named.createdAt,
    }));
  }

  /**
   * The key to write for an account line (undefined keeps the stored one), or why the line is
   * rejected. A key given in the file must not be another account's current key, in the store or
   * given by an earlier line, unless that account has been given another key since.
   */
  private accountKey(
    pending: Pending & { kind: 'account' },
    storedDigest: string | undefined,
    owners: ReadonlyMap<string, string>,
    formerHolders: ReadonlyMap<string, ReadonlySet<string>>,
    writing: boolean,
  ): { key: StoredKey | undefined } | { rejected: string } {
    const { username } = pending.entry.record;
    const { digest } = pending;
    if (digest === undefined && this.keyless.has(username)) {
      const current = this.givenKeys.get(username) ?? storedDigest;
      if ((current !== undefined && !isKeyDigest(current)) || !writing) return { key: undefined };
      const none = noKey();
      // Whatever key it held is free from here on, for a later line to give another account.
      this.givenKeys.set(username, none.digest);
      return { key: none };
    }
    if (digest === undefined) {
      // An existing account keeps its key; a new one gets a fresh key.
      if (storedDigest !== undefined || !writing) return { key: undefined };
      const key = generateApiKey();
      return { key: { digest: digestApiKey(this.keys, key), cipher: encryptApiKey(this.keys, key) } };
    }
    // The account's key before this line: the store's, or the one an earlier line gave it.
    const currentDigest = this.givenKeys.get(username) ?? storedDigest;
    // A key the account had and lost (rotated away: leaked, maybe) is not brought back by an old
    // file without being asked to; a key it never had works from then on, as the contract says.
    if (currentDigest !== undefined && currentDigest !== digest && formerHolders.get(digest)?.has(username)) {
      return {
        rejected:
          'api_key is a key this account had before and that was replaced; importing it would bring it back ' +
          'in place of the current key (to do so: import --replace-keys, or replace_keys=true in the admin API)',
      };
    }
    // Nor is a key another account lost (in the store, or to an earlier line of the file): a leaked
    // key rotated away must not come back as a second account's.
    if (currentDigest !== digest && formerHolders.has(digest)) return { rejected: ANOTHER_ACCOUNTS_FORMER_KEY };
    if (storedDigest !== digest) {
      const holder = this.currentHolder(digest, owners.get(digest), username);
      if (holder !== undefined) {
        return {
          rejected: `api_key is already the key of account ${JSON.stringify(holder)} (two accounts cannot share a key)`,
        };
      }
      if (!this.replaceKeys && this.heldByAnother(digest, owners.get(digest), username)) {
        return { rejected: ANOTHER_ACCOUNTS_FORMER_KEY };
      }
    }
    this.keyHolders.set(digest, username);
    this.givenKeys.set(username, digest);
    // The same key as stored: keep the row as it is, rather than encrypt it again.
    if (storedDigest === digest || !writing) return { key: undefined };
    return { key: { digest, cipher: encryptApiKey(this.keys, pending.entry.extras.api_key as string) } };
  }

  /** Whether another account held this key digest, in the store or by an earlier line (and was given another since). */
  private heldByAnother(digest: string, storeHolder: string | undefined, username: string): boolean {
    const fileHolder = this.keyHolders.get(digest);
    return (
      (fileHolder !== undefined && fileHolder !== username) || (storeHolder !== undefined && storeHolder !== username)
    );
  }

  /** Another account that holds this key digest now, if any. */
  private currentHolder(digest: string, storeHolder: string | undefined, username: string): string | undefined {
    const fileHolder = this.keyHolders.get(digest);
    if (fileHolder !== undefined && fileHolder !== username && this.givenKeys.get(fileHolder) === digest) {
      return fileHolder;
    }
    // A stored holder still holds it unless an earlier line gave it another key.
    if (
      storeHolder !== undefined &&
      storeHolder !== username &&
      (this.givenKeys.get(storeHolder) ?? digest) === digest
    ) {
      return storeHolder;
    }
    return undefined;
  }

  /** Writes one type's rows of a batch; a row the store refuses becomes that line's error. */
  private async write(type: LineType, lines: readonly number[], upsert: () => Promise<UpsertCounts>) {
    if (lines.length === 0) return undefined;
    try {
      const written = await upsert();
      const counts = this.counts[type];
      counts.inserted += written.inserted;
      counts.updated += written.updated;
      counts.unchanged += written.unchanged;
      return undefined;
    } catch (error) {
      if (!(error instanceof ImportRowRejectedError)) throw error;
      const line = lines[error.index] ?? 0;
      return { line, message: `${type}: the store refused this line (${error.reason})` };
    }
  }

  private report(errors: LineError[]): void {
    if (errors.length === 0) return;
    errors.sort((a, b) => a.line - b.line);
    for (const error of errors) if (this.listed.length < MAX_LISTED_ERRORS) this.listed.push(error);
    this.errorCount += errors.length;
  }
}
