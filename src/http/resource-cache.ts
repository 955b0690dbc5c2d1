import { hash, randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { AccountRow, AccountStatus, ItemRow, ItemStatus, ListedItem, PurchaseRow } from '../domain/records.js';
import { serializeAccount, serializeItem, serializeItemTail } from '../domain/serialize.js';
import type { CacheMetrics, ServiceMetrics } from '../metrics/service-metrics.js';
import type { Store } from '../store/store.js';
import { keptBytes } from './body-bytes.js';
import type { VariantRuntime } from './variant-runtime.js';

/** What the hot path needs of an account: who it is, whether it may call, and its JSON per variant. */
export interface CachedAccount {
  readonly username: string;
  readonly status: AccountStatus;
  /** By variant index; made when first asked for (see ResourceCache). */
  readonly json: readonly (Buffer | undefined)[];
}

/** What the hot path needs of an item: its owner, its status, and its JSON per variant. */
export interface CachedItem {
  readonly account: string;
  readonly status: ItemStatus;
  readonly supported: boolean;
  /** By variant index; made when first asked for (see ResourceCache). */
  readonly json: readonly (Buffer | undefined)[];
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
 * callers validate some tens of thousands of codes again and again: 65,536 purchases and about
 * 55,000 items (an item's JSON is 700–900 bytes), about 100 MB at most in all. A cache smaller
 * than the working set misses on a share of requests as large as what it lacks (an LRU under
 * random access), and each miss costs a query: with 16,384 purchases for 20,000 codes, one
 * validation in five went to the store.
 */
export const DEFAULT_CACHE_BUDGETS: CacheBudgets = {
  accounts: 8 * 1024 * 1024,
  items: 48 * 1024 * 1024,
  itemLists: 4 * 1024 * 1024,
  purchases: 32 * 1024 * 1024,
};

/**
 * Unknown keys and missing items remembered, at most, in a cache of their own (see ResourceCache):
 * each entry is a hash or a number, about 200 bytes with the LRU's bookkeeping, so each negative
 * cache holds well under half a megabyte.
 */
export const NEGATIVE_CACHE_ENTRIES = 2_000;

const ENTRY_OVERHEAD = 128;
/** A purchase row in memory, object and strings, measured on the benchmark store (about 400 bytes) and rounded up. */
const PURCHASE_ENTRY_SIZE = 512;
const LIST_PAGE_SIZE = 500;
/** Items per chunk of a streamed list: about 30 KB of text. */
const STREAM_CHUNK_ITEMS = 50;
function sizeOfEntry<Entry extends { readonly json: readonly (Buffer | undefined)[] }>(entry: Entry): number {
  return entry.json.reduce((size, json) => size + (json?.length ?? 0), ENTRY_OVERHEAD);
}

/** The entry with `json` as its text in `variant`, the other variants' texts kept. */
function withJson<Entry extends { readonly json: readonly (Buffer | undefined)[] }>(
  entry: Entry,
  variant: VariantRuntime,
  json: Buffer,
): Entry {
  const texts = [...entry.json];
  texts[variant.index] = json;
  return { ...entry, json: texts };
}

/**
 * What the hot path reads again and again, kept in memory and bounded: API key → account and
 * item id → item, each serialised once per variant when first read; a seller's approved items
 * list per variant; and the purchases most recently validated. Everything is dropped at once
 * whenever the store says another writer changed it (asked once per request, by `refresh`), so no
 * answer is ever staler than the store.
 *
 * Each clearing starts a new generation. A lookup notes the generation before it asks the store
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
 * (every install, every licence check of the buyer's copy), so the recent ones are kept. Only
 * found purchases are: codes that do not exist are what a guesser sends, and must not push out
 * the real ones.
 *
 * An account's or item's JSON is made for a variant only when an answer in that variant needs it:
 * most callers use one variant, and most requests need no account JSON at all. Texts made and
 * dropped at the rate of a cache that churns are what fill the process's memory between two
 * collections (measured on the benchmark's whole-store validation: about 30 MB less at the peak).
 */
export class ResourceCache {
  private readonly accounts: LRUCache<string, CachedAccount>;
  private readonly unknownKeys = new LRUCache<string, true>({ max: NEGATIVE_CACHE_ENTRIES });
  private readonly items: LRUCache<number, CachedItem>;
  private readonly missingItems = new LRUCache<number, true>({ max: NEGATIVE_CACHE_ENTRIES });
  private readonly itemLists: LRUCache<string, Buffer | false>;
  private readonly purchases: LRUCache<string, PurchaseRow>;
  private readonly keyHashPrefix = randomBytes(32).toString('hex');
  /** Counts the clearings: what a lookup read is kept only if none happened while it waited. */
  private generation = 0;
  /** Hits and misses per cache, each resolved once. */
  private readonly counted: Readonly<Record<'accounts' | 'items' | 'itemLists' | 'purchases', CacheMetrics>>;

  /** `digestOf` gives an API key's digest, the store's index for it (see authenticate). */
  constructor(
    private readonly store: Store,
    private readonly digestOf: (apiKey: string) => string,
    budgets: CacheBudgets = DEFAULT_CACHE_BUDGETS,
    metrics?: ServiceMetrics,
  ) {
    const counter = (name: string): CacheMetrics => metrics?.cache(name) ?? { hit: () => {}, miss: () => {} };
    this.counted = {
      accounts: counter('accounts'),
      items: counter('items'),
      itemLists: counter('item_lists'),
      purchases: counter('purchases'),
    };
    this.accounts = new LRUCache({ maxSize: budgets.accounts, sizeCalculation: sizeOfEntry<CachedAccount> });
    this.items = new LRUCache({ maxSize: budgets.items, sizeCalculation: sizeOfEntry<CachedItem> });
    // Only lists shorter than one page of the store's query are kept whole (longer ones are
    // streamed, never cached), and one larger than a tenth of the budget is not kept either: one
    // big seller must not push out everyone.
    this.itemLists = new LRUCache({
      maxSize: budgets.itemLists,
      maxEntrySize: Math.floor(budgets.itemLists / 10),
      sizeCalculation: (json) => (json === false ? ENTRY_OVERHEAD : json.length),
    });
    this.purchases = new LRUCache({ maxSize: budgets.purchases, sizeCalculation: () => PURCHASE_ENTRY_SIZE });
  }

  /** Drops everything if the store was changed elsewhere since the last call. */
  refresh(): void {
    if (this.store.changedSinceLastCheck()) {
      this.generation++;
      this.accounts.clear();
      this.unknownKeys.clear();
      this.items.clear();
      this.missingItems.clear();
      this.itemLists.clear();
      this.purchases.clear();
    }
  }

  /**
   * The account holding this API key (unknown keys are remembered too); with `variant`, its JSON in
   * that variant is there too. On a miss, the store is asked by the key's digest.
   *
   * Entries are found by a hash of the key under a random prefix of this process's own: one
   * SHA-256 of it costs a quarter of the HMAC digest (0.6–1.0 µs against 3.2–3.7 µs here), and a
   * cached key is asked on nearly every request. Neither keeps the key: whoever could read this
   * hash in memory could read the HMAC's secret there too.
   */
  async account(apiKey: string, variant?: VariantRuntime): Promise<CachedAccount | undefined> {
    const keyHash = hash('sha256', `${this.keyHashPrefix}${apiKey}`, 'base64');
    const entry = this.accounts.get(keyHash);
    if ((entry && (!variant || entry.json[variant.index])) || (entry === undefined && this.unknownKeys.has(keyHash))) {
      this.counted.accounts.hit();
      return entry;
    }
    this.counted.accounts.miss();
    const generation = this.generation;
    const digest = this.digestOf(apiKey);
    const row = await this.store.accountByKeyDigest(digest);
    if (!row) return this.retiredKeyAccount(keyHash, digest, variant, generation);
    const current = generation === this.generation;
    const found = this.cachedAccount(current ? this.accounts.get(keyHash) : undefined, row, variant);
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

  /** The purchase with this code key (see purchaseCodeKey). */
  async purchase(codeKey: string): Promise<PurchaseRow | undefined> {
    const cached = this.purchases.get(codeKey);
    if (cached !== undefined) {
      this.counted.purchases.hit();
      return cached;
    }
    this.counted.purchases.miss();
    const generation = this.generation;
    const purchase = await this.store.purchase(codeKey);
    if (purchase && generation === this.generation) this.purchases.set(codeKey, purchase);
    return purchase;
  }

  /** The item with this id, its JSON in `variant` included. */
  async item(id: number, variant: VariantRuntime): Promise<CachedItem | undefined> {
    const entry = this.items.get(id);
    if (entry?.json[variant.index] || (entry === undefined && this.missingItems.has(id))) {
      this.counted.items.hit();
      return entry;
    }
    this.counted.items.miss();
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
   * The seller's approved items as a JSON array, newest first; undefined when there are none.
   * A list that fits one page of the store's query is kept whole (and cached); a longer one is
   * given as chunks, serialised page by page while they are sent, so a seller with tens of
   * thousands of items never has all its rows, nor all its text, in memory at once.
   */
  async approvedItems(username: string, variant: VariantRuntime): Promise<Buffer | AsyncIterable<string> | undefined> {
    const key = `${variant.index}\u0000${username}`;
    const cached = this.itemLists.get(key);
    if (cached !== undefined) {
      this.counted.itemLists.hit();
      return cached || undefined;
    }
    this.counted.itemLists.miss();
    if (cached !== undefined) return cached || undefined;
    const generation = this.generation;
    const first = await this.store.approvedItemsPage(username, Number.MAX_SAFE_INTEGER, LIST_PAGE_SIZE);
    if (first.length < LIST_PAGE_SIZE) {
      const json = first.length === 0 ? false : keptBytes(`[${this.serializeItems(first, variant)}]`);
      if (generation === this.generation) this.itemLists.set(key, json);
      return json || undefined;
    }
    return this.streamItems(username, variant, first);
  }

  private async *streamItems(username: string, variant: VariantRuntime, first: ListedItem[]): AsyncGenerator<string> {
    let page = first;
    let separator = '[';
    for (;;) {
      // Small chunks die young: whole pages as text (about 300 KB each) went to V8's large-object
      // space and piled up until a full collection (RSS +80 MB over twenty lists of 10,000 items; +62 MB so).
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
  ): CachedAccount {
    const entry = held ?? { username: row.username, status: row.status, json: [] };
    return variant ? withJson(entry, variant, keptBytes(serializeAccount(row, variant.config))) : entry;
  }

  private cachedItem(held: CachedItem | undefined, row: ItemRow, variant: VariantRuntime): CachedItem {
    const entry = held ?? {
      account: row.account,
      status: row.status,
      supported: row.supported === 1,
      json: [],
    };
    return withJson(entry, variant, keptBytes(serializeItem(row, variant.config)));
  }
}
