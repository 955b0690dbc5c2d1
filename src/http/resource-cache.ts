import { LRUCache } from 'lru-cache';
import type { AccountRow, ItemRow } from '../domain/records.js';
import { serializeAccount, serializeItem } from '../domain/serialize.js';
import type { Store } from '../store/store.js';
import type { VariantRuntime } from './variant-runtime.js';

/** A row with its JSON, serialised lazily, once per variant. */
interface Serialised<Row> {
  readonly row: Row;
  readonly json: (string | undefined)[];
}

/** How much memory each cache may hold, roughly, in bytes of text. */
export interface CacheBudgets {
  readonly accounts: number;
  readonly items: number;
  readonly itemLists: number;
}

export const DEFAULT_CACHE_BUDGETS: CacheBudgets = {
  accounts: 16 * 1024 * 1024,
  items: 64 * 1024 * 1024,
  itemLists: 32 * 1024 * 1024,
};

/** A rough size of a row: its text, plus room for each variant's JSON of about the same size. */
function sizeOf(row: object, variants: number): number {
  let size = 64;
  for (const value of Object.values(row)) size += typeof value === 'string' ? value.length : 8;
  return size * (1 + variants);
}

/**
 * What the hot path reads again and again, kept in memory and bounded: key digest → account,
 * item id → item, and each serialised once per variant; a seller's approved items list per
 * variant. Everything is dropped at once whenever the store says another writer changed it
 * (asked once per request, by `refresh`), so no answer is ever staler than the request before.
 * Purchases are not cached: a store holds far more of them than memory should, and each is
 * asked for rarely.
 */
export class ResourceCache {
  private readonly accounts: LRUCache<string, Serialised<AccountRow> | false>;
  private readonly items: LRUCache<number, Serialised<ItemRow> | false>;
  private readonly itemLists: LRUCache<string, string | false>;

  constructor(
    private readonly store: Store,
    variantCount: number,
    budgets: CacheBudgets = DEFAULT_CACHE_BUDGETS,
  ) {
    const entrySize = <Row extends object>(entry: Serialised<Row> | false) =>
      entry === false ? 64 : sizeOf(entry.row, variantCount);
    this.accounts = new LRUCache({ maxSize: budgets.accounts, sizeCalculation: entrySize<AccountRow> });
    this.items = new LRUCache({ maxSize: budgets.items, sizeCalculation: entrySize<ItemRow> });
    // A list larger than a tenth of the budget is not kept: one big seller must not push out everyone.
    this.itemLists = new LRUCache({
      maxSize: budgets.itemLists,
      maxEntrySize: Math.floor(budgets.itemLists / 10),
      sizeCalculation: (json) => (json === false ? 64 : json.length),
    });
  }

  /** Drops everything if the store was changed elsewhere since the last call. */
  refresh(): void {
    if (this.store.changedSinceLastCheck()) {
      this.accounts.clear();
      this.items.clear();
      this.itemLists.clear();
    }
  }

  /** The account holding this key digest (unknown digests are remembered too). */
  async account(digest: string): Promise<Serialised<AccountRow> | undefined> {
    let entry = this.accounts.get(digest);
    if (entry === undefined) {
      const row = await this.store.accountByKeyDigest(digest);
      entry = row ? { row, json: [] } : false;
      this.accounts.set(digest, entry);
    }
    return entry || undefined;
  }

  accountJson(account: Serialised<AccountRow>, variant: VariantRuntime): string {
    let json = account.json[variant.index];
    if (json === undefined) {
      json = serializeAccount(account.row, variant.config);
      account.json[variant.index] = json;
    }
    return json;
  }

  async item(id: number): Promise<Serialised<ItemRow> | undefined> {
    let entry = this.items.get(id);
    if (entry === undefined) {
      const row = await this.store.item(id);
      entry = row ? { row, json: [] } : false;
      this.items.set(id, entry);
    }
    return entry || undefined;
  }

  itemJson(item: Serialised<ItemRow>, variant: VariantRuntime): string {
    let json = item.json[variant.index];
    if (json === undefined) {
      json = serializeItem(item.row, variant.config);
      item.json[variant.index] = json;
    }
    return json;
  }

  /** `[item,...]` of the seller's approved items, newest first; undefined when there are none. */
  async approvedItemsJson(username: string, variant: VariantRuntime): Promise<string | undefined> {
    const key = `${variant.index}\u0000${username}`;
    let json = this.itemLists.get(key);
    if (json === undefined) {
      const rows = await this.store.approvedItemsOf(username);
      json = rows.length === 0 ? false : `[${rows.map((row) => serializeItem(row, variant.config)).join(',')}]`;
      this.itemLists.set(key, json);
    }
    return json || undefined;
  }
}

export type { Serialised };
