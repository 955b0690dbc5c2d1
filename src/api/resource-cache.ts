import { hash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { ActivityMark } from '../activity/activity-counter.js';
import type { KeyScope } from '../domain/key-scope.js';
import type { CacheMetrics, ServiceMetrics } from '../metrics/service-metrics.js';
import { type MarketbobAccess, marketbobAccess, serializeMarketbobItem } from '../records/marketbob-serialize.js';
import type { AccountRow, AccountStatus, ItemRow, ItemStatus, ListedItem, PurchaseRow } from '../records/rows.js';
import { serializeItemTail } from '../records/serialize.js';
import type { StoreChanges } from '../store/changes/change-log.js';
import type { Store } from '../store/store.js';
import type { VariantRuntime } from '../variants/variant-runtime.js';
import { answerShapeOf } from './answer-shape.js';
import type { BudgetHolder, KeyClientMemo } from './api-limits.js';
import type { MaybePromise } from './maybe-async.js';

/**
 * What the API writes onto a cached account as it answers it, not read from the store: the key's
 * budgets' memo (see KeyClientMemo) and when its use was last noted. Kept as long as the entry;
 * an entry made again (the account changed) starts afresh.
 */
export interface CachedAccountState extends KeyClientMemo {
  /** When the key's use was last given to KeyUsage (ms since the epoch; see authenticate). */
  keyUseNoted: number;
}

/** What the hot path needs of an account: who it is, whether it may call, and its answer per variant. */
export interface CachedAccount extends BudgetHolder {
  readonly username: string;
  readonly status: AccountStatus;
  /** What MarketBob's shape asks of the account beside its key (see MarketbobAccess). */
  readonly marketbob: MarketbobAccess;
  /** The whole account-details answer, by variant index; made when first asked for (see ResourceCache). */
  readonly json: readonly (Buffer | undefined)[];
  /** The only part written after the entry is made (see CachedAccountState). */
  readonly state: CachedAccountState;
  /** What the key that found this entry may call: `full` for the account's own key (see src/keys/key-scopes.ts). */
  readonly scope: KeyScope;
}

/** What the hot path needs of an item: its owner, its status, and its answer and JSON per variant. */
export interface CachedItem {
  readonly account: string;
  readonly status: ItemStatus;
  readonly supported: boolean;
  /**
   * The whole one-item answer by variant index, made when first asked for (see ResourceCache): a
   * request for the item copies nothing (building it per request cost a 1 KB buffer and its copy).
   */
  readonly answer: readonly (Buffer | undefined)[];
  /** The item's own JSON by variant index, for validation answers to embed: a view into `answer`'s bytes. */
  readonly json: readonly (Buffer | undefined)[];
}

/**
 * What validation needs of a purchase: the row, its item's owner, and the whole success answer per
 * variant, so that a code validated again costs two lookups (the key's account, this) and no
 * serialisation.
 */
export interface CachedPurchase {
  readonly row: PurchaseRow;
  /** The owner of the purchase's item; undefined when the item is gone. */
  readonly owner: string | undefined;
  /**
   * The validation answer by variant index, made when first asked for; only for an active
   * purchase whose item exists (any other answers an error).
   */
  readonly json: readonly (Buffer | undefined)[];
  /** The only part written after the entry is made (see CachedPurchaseState). */
  readonly state: CachedPurchaseState;
}

/** What the API writes onto a cached purchase as it validates it, not read from the store; kept as long as the entry. */
export interface CachedPurchaseState {
  /** The code's activity mark, kept for its next validation (see ActivityCounter.validated). */
  activity: ActivityMark | undefined;
}

/** How much memory each cache may hold, roughly, in bytes. */
export interface CacheBudgets {
  readonly accounts: number;
  readonly items: number;
  readonly itemLists: number;
  readonly purchases: number;
}

/**
 * Sized for a store like the benchmark's (10,000 sellers, 100,000 items, 1,000,000 purchases) whose
 * callers validate some tens of thousands of codes again and again: about 50,000 purchases with
 * their answer in one variant (an answer is about 1 KB), about 55,000 items (an item's JSON is
 * 700–900 bytes), 130 MB at most in all. A cache smaller than the working set misses on a share
 * of requests as large as what it lacks (an LRU under random access), and each miss costs
 * queries: with 16,384 purchases for 20,000 codes, one validation in five went to the store.
 */
export const DEFAULT_CACHE_BUDGETS: CacheBudgets = {
  accounts: 8 * 1024 * 1024,
  items: 48 * 1024 * 1024,
  itemLists: 8 * 1024 * 1024,
  purchases: 64 * 1024 * 1024,
};

/**
 * Unknown keys and missing items remembered, at most, in a cache of their own (see ResourceCache):
 * each entry is a hash or a number, about 200 bytes with the LRU's bookkeeping, so each negative
 * cache holds well under half a megabyte.
 */
export const NEGATIVE_CACHE_ENTRIES = 2_000;

/**
 * Unknown purchase codes remembered, at most (see ResourceCache): a code is at most 100
 * characters, and an entry about 110 bytes for a code of the usual 36, so about 6 MB when full.
 * Larger than the other negative caches because the codes of a popular item's pirated copies
 * are many, and each copy asks again on every install.
 */
export const UNKNOWN_CODE_ENTRIES = 50_000;

export interface ResourceCacheOptions {
  readonly budgets?: CacheBudgets;
  /** Where hits and misses are counted. */
  readonly metrics?: ServiceMetrics | undefined;
  /** Whether purchases show `supported_until` (config `support`). */
  readonly support?: boolean;
}

/** The items list's place in its answer. */
const ITEMS_HEAD = '"items":';
/** The item's place in the one-item answer. */
const ITEM_HEAD = '"item":';

/** Only an active purchase whose item exists validates: any other answers an error, and keeps no answer. */
const answerable = (purchase: CachedPurchase) => purchase.row.status === 'active' && purchase.owner !== undefined;

const ENTRY_OVERHEAD = 128;
/** A purchase row in memory, object and strings, measured on the benchmark store (about 400 bytes) and rounded up. */
const PURCHASE_ROW_SIZE = 512;
const LIST_PAGE_SIZE = 500;
/** Items per chunk of a streamed list: about 30 KB of text. */
const STREAM_CHUNK_ITEMS = 50;
function sizeOfEntry<Entry extends { readonly json: readonly (Buffer | undefined)[] }>(entry: Entry): number {
  return entry.json.reduce((size, json) => size + (json?.length ?? 0), ENTRY_OVERHEAD);
}

const sizeOfPurchase = (entry: CachedPurchase) => sizeOfEntry(entry) + PURCHASE_ROW_SIZE;
/** An item's JSON is a view into its answer: only the answers hold bytes. */
const sizeOfItem = (entry: CachedItem) =>
  entry.answer.reduce((size, answer) => size + (answer?.length ?? 0), ENTRY_OVERHEAD);

/**
 * Per-variant texts with `text` as `variant`'s, the other variants' kept. Made at its length: a
 * store past the end of a copy grew it to V8's 17 slots, 152 bytes: on the bench's caches 157,824
 * such lists, some 24 MB of heap, where 2 slots take 32 bytes.
 */
function withText(texts: readonly (Buffer | undefined)[], variant: VariantRuntime, text: Buffer) {
  const copy = new Array<Buffer | undefined>(Math.max(texts.length, variant.index + 1));
  for (let index = 0; index < texts.length; index++) copy[index] = texts[index];
  copy[variant.index] = text;
  return copy;
}

/** The entry with `json` as its text in `variant`, the other variants' texts kept. */
function withJson<Entry extends { readonly json: readonly (Buffer | undefined)[] }>(
  entry: Entry,
  variant: VariantRuntime,
  json: Buffer,
): Entry {
  return { ...entry, json: withText(entry.json, variant, json) };
}

/**
 * What the hot path reads again and again, kept in memory and bounded: API key → account and
 * item id → item, each serialised once per variant when first read; a seller's approved items
 * list per variant; and the purchases most recently validated. What a write changed is dropped
 * once the store's change log names it (asked once per request, by `refresh`), whoever wrote it,
 * so no answer is ever staler than the store; what it did not change stays cached.
 *
 * Each change heard starts a new generation. A lookup notes the generation before it asks the store
 * and keeps what it read only if no clearing happened meanwhile: a read that began before a change
 * (a key rotated, an account suspended, a code refunded) and lands after the change was heard
 * would otherwise put the old row back, to be served until some unrelated write cleared it again.
 *
 * Unknown keys and missing item ids are remembered apart, in small caches bounded by entry count
 * (NEGATIVE_CACHE_ENTRIES): a key rotated away but still shipped in a seller's old software keeps
 * calling, and each call would cost a store query; yet a flood of random keys or ids only churns
 * those caches and never pushes a real account or item out.
 *
 * Purchases: a store holds far more than memory should, but one code is validated again and again
 * (every install, every licence check of the buyer's copy), so the recent ones are kept, each
 * with its item's owner and its whole answer. Codes that do not exist are remembered apart
 * (UNKNOWN_CODE_ENTRIES), for the same reason as unknown keys: a made-up code shipped with
 * copies of an item is asked again on every install of every copy, and each ask would cost a
 * store query; a guesser's codes, each new, only churn that cache and never push out a real
 * purchase (and the guesser's failure budget stops it).
 *
 * Answers are kept whole where a request asks for nothing else (an account's details, a
 * validation, a short list): a cached answer then costs no serialisation and no copy, and a
 * validation reads two entries, not three. An item's JSON is kept bare, since validation answers
 * embed it.
 *
 * An account's or item's JSON is made for a variant only when an answer in that variant needs it:
 * most callers use one variant, and most requests need no account JSON at all. Texts made and
 * dropped at the rate of a cache that churns are what fill the process's memory between two
 * collections (the benchmark's whole-store validation peaked lower for it).
 */
export class ResourceCache {
  private readonly accounts: LRUCache<string, CachedAccount>;
  private readonly unknownKeys = new LRUCache<string, true>({ max: NEGATIVE_CACHE_ENTRIES });
  private readonly items: LRUCache<number, CachedItem>;
  private readonly missingItems = new LRUCache<number, true>({ max: NEGATIVE_CACHE_ENTRIES });
  private readonly itemLists: LRUCache<string, Buffer | false>;
  private readonly purchases: LRUCache<string, CachedPurchase>;
  private readonly unknownCodes = new LRUCache<string, true>({ max: UNKNOWN_CODE_ENTRIES });
  /** MarketBob's `actions.api` as the store last said (see apiEnabled); undefined until asked again. */
  private sourceApiEnabled: boolean | undefined;
  /** Counts the clearings: what a lookup read is kept only if none happened while it waited. */
  private generation = 0;
  /** Hits and misses per cache, each resolved once. */
  private readonly counted: Readonly<Record<'accounts' | 'items' | 'itemLists' | 'purchases', CacheMetrics>>;

  private readonly support: boolean;

  /** `digestOf` gives an API key's digest, the store's index for it (see authenticate). */
  constructor(
    private readonly store: Store,
    private readonly digestOf: (apiKey: string) => string,
    { budgets = DEFAULT_CACHE_BUDGETS, metrics, support = true }: ResourceCacheOptions = {},
  ) {
    this.support = support;
    const counter = (name: string): CacheMetrics => metrics?.cache(name) ?? { hit: () => {}, miss: () => {} };
    this.counted = {
      accounts: counter('accounts'),
      items: counter('items'),
      itemLists: counter('item_lists'),
      purchases: counter('purchases'),
    };
    this.accounts = new LRUCache({ maxSize: budgets.accounts, sizeCalculation: sizeOfEntry<CachedAccount> });
    this.items = new LRUCache({ maxSize: budgets.items, sizeCalculation: sizeOfItem });
    // Only lists shorter than one page of the store's query are kept whole (longer ones are
    // streamed, never cached), and one larger than a tenth of the budget is not kept either: one
    // big seller must not push out everyone.
    this.itemLists = new LRUCache({
      maxSize: budgets.itemLists,
      maxEntrySize: Math.floor(budgets.itemLists / 10),
      sizeCalculation: (json) => (json === false ? ENTRY_OVERHEAD : json.length),
    });
    this.purchases = new LRUCache({ maxSize: budgets.purchases, sizeCalculation: sizeOfPurchase });
  }

  /** Counts the changes heard: an answer built from cached entries holds while this stays the same. */
  get changesHeard(): number {
    return this.generation;
  }

  /**
   * Drops what the store says changed since the last call (by any writer: this process, another,
   * the CLI, another instance), and only that; `now` as Store.changedSinceLastCheck.
   */
  refresh(now?: number): void {
    const changes = this.store.changesSinceLastCheck(now);
    if (changes === undefined) return;
    this.generation++;
    if (changes.all) {
      this.clear();
      return;
    }
    this.drop(changes);
  }

  private clear(): void {
    this.accounts.clear();
    this.unknownKeys.clear();
    this.items.clear();
    this.missingItems.clear();
    this.itemLists.clear();
    this.purchases.clear();
    this.unknownCodes.clear();
    this.sourceApiEnabled = undefined;
  }

  /**
   * Drops the entries `changes` names. Accounts are kept by key, so a changed account is looked
   * for among them by username (a pass over that cache, only when accounts changed); a changed
   * item takes with it the purchases that embed it (a pass over the purchases, only when items
   * changed) and its sellers' lists. A whole table named clears its caches.
   */
  private drop(changes: StoreChanges): void {
    const { tables } = changes;
    if (tables.has('source_settings') || changes.settings.size > 0) this.sourceApiEnabled = undefined;
    if (tables.has('accounts')) {
      this.accounts.clear();
      this.unknownKeys.clear();
    } else if (changes.accounts.size > 0) {
      // A key unknown until now may be the one this change gave an account.
      this.unknownKeys.clear();
      const gone: string[] = [];
      this.accounts.forEach((account, keyHash) => {
        if (changes.accounts.has(account.username)) gone.push(keyHash);
      });
      for (const keyHash of gone) this.accounts.delete(keyHash);
    }
    if (tables.has('items')) {
      this.items.clear();
      this.missingItems.clear();
      this.itemLists.clear();
      this.purchases.clear();
    } else {
      const lists = changes.itemLists;
      if (changes.items.size > 0) {
        for (const id of changes.items) {
          const item = this.items.get(id);
          if (item !== undefined) lists.add(item.account);
          this.items.delete(id);
          this.missingItems.delete(id);
        }
        const gone: string[] = [];
        this.purchases.forEach((purchase, codeKey) => {
          if (changes.items.has(purchase.row.item_id)) gone.push(codeKey);
        });
        for (const codeKey of gone) this.purchases.delete(codeKey);
      }
      if (lists.size > 0) {
        const gone = [...this.itemLists.keys()].filter((key) => lists.has(key.slice(key.indexOf('\u0000') + 1)));
        for (const key of gone) this.itemLists.delete(key);
      }
    }
    if (tables.has('purchases')) {
      this.purchases.clear();
      this.unknownCodes.clear();
    } else {
      for (const codeKey of changes.purchases) {
        this.purchases.delete(codeKey);
        this.unknownCodes.delete(codeKey);
      }
    }
  }

  /**
   * Whether the data's source has its API on (the `api_enabled` source setting, on when never
   * set): read once, and again after any change to the store, as every entry here is.
   */
  apiEnabled(): MaybePromise<boolean> {
    return this.sourceApiEnabled ?? this.readApiEnabled();
  }

  private async readApiEnabled(): Promise<boolean> {
    const generation = this.generation;
    const enabled = (await this.store.sourceSetting('api_enabled')) !== '0';
    if (generation === this.generation) this.sourceApiEnabled = enabled;
    return enabled;
  }

  /**
   * The account holding this API key (unknown keys are remembered too); with `variant`, its JSON in
   * that variant is there too. On a miss, the store is asked by the key's digest.
   *
   * Entries are found by the key's SHA-256, so that memory holds no key: one SHA-256 costs a
   * fraction of the HMAC digest, and a cached key is asked on nearly every request. Not salted: a
   * salt kept in the same memory adds nothing against whoever reads it (who could read the HMAC's
   * secret there too), and it pushed a 48-character key past SHA-256's one block of 55 bytes, with
   * a longer text to build per request (a share of the API's own work on account details that the
   * benchmarks showed).
   */
  account(apiKey: string, variant?: VariantRuntime): MaybePromise<CachedAccount | undefined> {
    const keyHash = hash('sha256', apiKey, 'base64');
    const entry = this.accounts.get(keyHash);
    if ((entry && (!variant || entry.json[variant.index])) || (entry === undefined && this.unknownKeys.has(keyHash))) {
      this.counted.accounts.hit();
      return entry;
    }
    this.counted.accounts.miss();
    return this.readAccount(apiKey, keyHash, variant);
  }

  private async readAccount(
    apiKey: string,
    keyHash: string,
    variant: VariantRuntime | undefined,
  ): Promise<CachedAccount | undefined> {
    const generation = this.generation;
    const digest = this.digestOf(apiKey);
    const row = await this.store.accountByKeyDigest(digest);
    if (!row) return this.namedKeyAccount(keyHash, digest, variant, generation);
    const current = generation === this.generation;
    const found = this.cachedAccount(current ? this.accounts.get(keyHash) : undefined, row, variant);
    if (current) this.accounts.set(keyHash, found);
    return found;
  }

  /**
   * A named key's account (migration 0014), its entry carrying the key's id and scope; else, as
   * for any key the accounts do not hold, a retired one. Cached as the account's own key is, so a
   * revoked key stops at the next clearing: a revocation is a write every process hears of.
   */
  private async namedKeyAccount(
    keyHash: string,
    digest: string,
    variant: VariantRuntime | undefined,
    generation: number,
  ): Promise<CachedAccount | undefined> {
    const named = await this.store.accountByNamedKeyDigest(digest);
    if (!named) return this.retiredKeyAccount(keyHash, digest, variant, generation);
    const current = generation === this.generation;
    const found = this.cachedAccount(current ? this.accounts.get(keyHash) : undefined, named.account, variant, named);
    if (current) this.accounts.set(keyHash, found);
    return found;
  }

  /**
   * A key replaced less than `keyRotationGraceSeconds` ago still opens its account, cached only
   * until it stops working; any other unknown key is remembered as unknown. Asked only for keys the
   * store does not know, so a known key costs nothing more.
   */
  private async retiredKeyAccount(
    keyHash: string,
    digest: string,
    variant: VariantRuntime | undefined,
    generation: number,
  ): Promise<CachedAccount | undefined> {
    const retired = await this.store.accountByRetiredKeyDigest(digest, Date.now());
    const ttl = retired ? retired.expiresAt - Date.now() : 0;
    const current = generation === this.generation;
    if (!retired || ttl <= 0) {
      if (current) this.unknownKeys.set(keyHash, true);
      return undefined;
    }
    const found = this.cachedAccount(current ? this.accounts.get(keyHash) : undefined, retired.account, variant);
    if (current) this.accounts.set(keyHash, found, { ttl });
    return found;
  }

  /**
   * The purchase with this code key (see purchaseCodeKey), its item's owner, and, when it is active
   * and its item exists, its validation answer in `variant`. Unknown codes are remembered too.
   */
  purchase(codeKey: string, variant: VariantRuntime): MaybePromise<CachedPurchase | undefined> {
    const cached = this.purchases.get(codeKey);
    if (
      cached === undefined
        ? this.unknownCodes.has(codeKey)
        : cached.json[variant.index] !== undefined || !answerable(cached)
    ) {
      this.counted.purchases.hit();
      return cached;
    }
    this.counted.purchases.miss();
    return this.readPurchase(codeKey, cached, variant);
  }

  private async readPurchase(
    codeKey: string,
    cached: CachedPurchase | undefined,
    variant: VariantRuntime,
  ): Promise<CachedPurchase | undefined> {
    const generation = this.generation;
    const row = cached?.row ?? (await this.store.purchase(codeKey));
    if (!row) {
      if (generation === this.generation) this.unknownCodes.set(codeKey, true);
      return undefined;
    }
    const item = await this.item(row.item_id, variant);
    const found = this.cachedPurchase(cached, row, item, variant);
    // The item was read after the purchase: both are of this generation only if no clearing came in between.
    if (generation === this.generation) this.purchases.set(codeKey, found);
    return found;
  }

  /** The item with this id, its JSON in `variant` included. */
  item(id: number, variant: VariantRuntime): MaybePromise<CachedItem | undefined> {
    const entry = this.items.get(id);
    if (entry?.json[variant.index] || (entry === undefined && this.missingItems.has(id))) {
      this.counted.items.hit();
      return entry;
    }
    this.counted.items.miss();
    return this.readItem(id, variant);
  }

  private async readItem(id: number, variant: VariantRuntime): Promise<CachedItem | undefined> {
    const generation = this.generation;
    const row = await this.store.item(id);
    const current = generation === this.generation;
    if (!row) {
      if (current) this.missingItems.set(id, true);
      return undefined;
    }
    const found = this.cachedItem(current ? this.items.get(id) : undefined, row, variant);
    if (current) this.items.set(id, found);
    return found;
  }

  /**
   * The answer listing the seller's approved items in `variant`, newest first; undefined when there
   * are none. A list that fits one page of the store's query comes whole (and cached); a longer one
   * as chunks, serialised page by page while they are sent, so a seller with tens of thousands of
   * items never has all its rows, nor all its text, in memory at once.
   */
  approvedItems(username: string, variant: VariantRuntime): MaybePromise<Buffer | AsyncIterable<string> | undefined> {
    const key = `${variant.index}\u0000${username}`;
    const cached = this.itemLists.get(key);
    if (cached !== undefined) {
      this.counted.itemLists.hit();
      return cached || undefined;
    }
    this.counted.itemLists.miss();
    return variant.config.shape === 'marketbob'
      ? this.readApprovedItemRows(key, username, variant)
      : this.readApprovedItems(key, username, variant);
  }

  /**
   * As readApprovedItems, from whole rows: MarketBob's shape serialises every part of an item
   * itself (the store's item heads are the contract's).
   */
  private async readApprovedItemRows(
    key: string,
    username: string,
    variant: VariantRuntime,
  ): Promise<Buffer | AsyncIterable<string> | undefined> {
    const generation = this.generation;
    const first = await this.store.approvedItemRowsPage(username, Number.MAX_SAFE_INTEGER, LIST_PAGE_SIZE);
    if (first.length < LIST_PAGE_SIZE) {
      const answer =
        first.length === 0 ? false : variant.keptOkBody(ITEMS_HEAD, `[${this.serializeItemRows(first, variant)}]`);
      if (generation === this.generation) this.itemLists.set(key, answer);
      return answer || undefined;
    }
    return variant.okChunks(ITEMS_HEAD, this.streamItemRows(username, variant, first));
  }

  private async *streamItemRows(username: string, variant: VariantRuntime, first: ItemRow[]): AsyncGenerator<string> {
    let page = first;
    let separator = '[';
    for (;;) {
      for (let start = 0; start < page.length; start += STREAM_CHUNK_ITEMS) {
        yield `${separator}${this.serializeItemRows(page.slice(start, start + STREAM_CHUNK_ITEMS), variant)}`;
        separator = ',';
      }
      if (page.length < LIST_PAGE_SIZE) break;
      page = await this.store.approvedItemRowsPage(username, (page[page.length - 1] as ItemRow).id, LIST_PAGE_SIZE);
    }
    yield ']';
  }

  private serializeItemRows(items: readonly ItemRow[], variant: VariantRuntime): string {
    return items.map((item) => serializeMarketbobItem(item, variant.config)).join(',');
  }

  private async readApprovedItems(
    key: string,
    username: string,
    variant: VariantRuntime,
  ): Promise<Buffer | AsyncIterable<string> | undefined> {
    const generation = this.generation;
    const first = await this.store.approvedItemsPage(username, Number.MAX_SAFE_INTEGER, LIST_PAGE_SIZE);
    if (first.length < LIST_PAGE_SIZE) {
      const answer =
        first.length === 0 ? false : variant.keptOkBody(ITEMS_HEAD, `[${this.serializeItems(first, variant)}]`);
      if (generation === this.generation) this.itemLists.set(key, answer);
      return answer || undefined;
    }
    return variant.okChunks(ITEMS_HEAD, this.streamItems(username, variant, first));
  }

  private async *streamItems(username: string, variant: VariantRuntime, first: ListedItem[]): AsyncGenerator<string> {
    let page = first;
    let separator = '[';
    for (;;) {
      // Small chunks die young: whole pages as text went to V8's large-object space and piled up
      // until a full collection, so a process listing large catalogues grew; chunks of a page do not.
      for (let start = 0; start < page.length; start += STREAM_CHUNK_ITEMS) {
        yield `${separator}${this.serializeItems(page.slice(start, start + STREAM_CHUNK_ITEMS), variant)}`;
        separator = ',';
      }
      if (page.length < LIST_PAGE_SIZE) break;
      page = await this.store.approvedItemsPage(username, (page[page.length - 1] as ListedItem).id, LIST_PAGE_SIZE);
    }
    yield ']';
  }

  private serializeItems(items: readonly ListedItem[], variant: VariantRuntime): string {
    return items.map((item) => `${item.head}${serializeItemTail(item, variant.config)}`).join(',');
  }

  /**
   * The entry for this row, with its JSON in `variant` added to `held`: what the cache holds for
   * it, read from this same version of the store (it is given only when no clearing happened
   * since the row was read).
   */
  private cachedAccount(
    held: CachedAccount | undefined,
    row: AccountRow,
    variant: VariantRuntime | undefined,
    named?: { readonly keyId: string; readonly scope: KeyScope },
  ): CachedAccount {
    const entry = held ?? {
      username: row.username,
      status: row.status,
      marketbob: marketbobAccess(row),
      json: [],
      keyId: named?.keyId,
      scope: named?.scope ?? 'full',
      state: { keyUseNoted: 0, limitsClient: undefined, limitsKeyClient: undefined, counterSlot: undefined },
    };
    return variant
      ? withJson(entry, variant, variant.keptOkBody('"data":', answerShapeOf(variant).account(row, variant.config)))
      : entry;
  }

  private cachedPurchase(
    held: CachedPurchase | undefined,
    row: PurchaseRow,
    item: CachedItem | undefined,
    variant: VariantRuntime,
  ): CachedPurchase {
    const entry = held ?? { row, owner: item?.account, json: [], state: { activity: undefined } };
    if (!item || !answerable(entry)) return entry;
    const shape = answerShapeOf(variant);
    const [before, after] = shape.purchaseAroundItem(row, item.supported, variant.config, this.support);
    // The last part closes the answer's own objects (the contract's `data`); the envelope's brace comes after it.
    const itemJson = item.json[variant.index] as Buffer;
    const answer = variant.keptOkBody(shape.validationHead, before, itemJson, after, shape.validationClose);
    return withJson(entry, variant, answer);
  }

  private cachedItem(held: CachedItem | undefined, row: ItemRow, variant: VariantRuntime): CachedItem {
    const entry = held ?? {
      account: row.account,
      status: row.status,
      supported: row.supported === 1,
      answer: [],
      json: [],
    };
    const json = answerShapeOf(variant).item(row, variant.config);
    const answer = variant.keptOkBody(ITEM_HEAD, json);
    // The answer ends with the item's JSON and the envelope's closing brace.
    const end = answer.length - 1;
    return {
      ...entry,
      answer: withText(entry.answer, variant, answer),
      json: withText(entry.json, variant, answer.subarray(end - Buffer.byteLength(json), end)),
    };
  }
}
