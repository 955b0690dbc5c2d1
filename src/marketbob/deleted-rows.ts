import { purchaseCodeKey } from '../domain/purchase-code.js';
import { accountLine, itemLine, purchaseLine } from '../exporter/export-lines.js';
import type { Store } from '../store/store.js';
import type { DeletionRow } from './deletion-log.js';
import type { SourceState } from './marketbob-writer.js';

/** A stored row that a deletion in MarketBob stops serving, as the line that does it. */
export interface GoneLine {
  readonly table: 'users' | 'items' | 'purchases';
  /** MarketBob's id of the row. */
  readonly id: number;
  readonly line: object;
  /** An account whose key goes with it. */
  readonly keyless?: string;
}

/** What the deletion log's rows mean for the store. */
export interface Deletions {
  readonly lines: readonly GoneLine[];
  /** MarketBob user and item ids deleted (the state forgets them once written). */
  readonly userIds: ReadonlySet<number>;
  readonly itemIds: ReadonlySet<number>;
  /** Lower-case keys of the purchase codes deleted. */
  readonly codeKeys: ReadonlyMap<string, number>;
  /** Items whose discount was deleted: read again. */
  readonly discountsGone: readonly number[];
}

/**
 * The lines that stop serving what MarketBob deleted: a deleted user's account **suspended and
 * left with no key** (no variant of ours ever answers for it, not even one that serves a banned
 * user's key as MarketBob does; its workspace sessions end at their next request, as for any
 * suspended account); a deleted item **removed**; a deleted purchase **cancelled** (a refunded one
 * stays refunded). Each from the row the store holds, so that nothing else of it changes; rows
 * the store does not hold, or that already say so, give no line.
 */
export async function deletedRows(store: Store, state: SourceState, rows: readonly DeletionRow[]): Promise<Deletions> {
  const userIds = new Set<number>();
  const itemIds = new Set<number>();
  const codeKeys = new Map<string, number>();
  const discountsGone = new Set<number>();
  for (const row of rows) {
    if (row.row_table === 'users') userIds.add(row.row_id);
    else if (row.row_table === 'items') itemIds.add(row.row_id);
    else if (row.row_table === 'item_discounts') discountsGone.add(row.row_id);
    else if (row.row_table === 'purchases' && row.code !== null) {
      const key = purchaseCodeKey(row.code.trim());
      if (key !== undefined) codeKeys.set(key, row.row_id);
    }
  }
  const lines: GoneLine[] = [];
  for (const id of userIds) {
    const username = state.usernames.get(id);
    const account = username === undefined ? undefined : await store.accountByUsername(username);
    if (username === undefined || account === undefined) continue;
    if (account.status === 'suspended' && account.key_cipher === '') continue;
    const line = { ...accountLine(account, undefined, await store.passwordHash(username)), status: 'suspended' };
    lines.push({ table: 'users', id, line, keyless: username });
  }
  for (const id of itemIds) {
    const item = await store.item(id);
    if (item === undefined || item.status === 'removed') continue;
    lines.push({ table: 'items', id, line: { ...itemLine(item), status: 'removed' } });
  }
  for (const [key, id] of codeKeys) {
    const purchase = await store.purchase(key);
    if (purchase === undefined || purchase.status !== 'active') continue;
    lines.push({ table: 'purchases', id, line: { ...purchaseLine(purchase), status: 'cancelled' } });
  }
  return { lines, userIds, itemIds, codeKeys, discountsGone: [...discountsGone].filter((id) => !itemIds.has(id)) };
}

/** Once written: the state forgets the deleted users and items (a later row that names them is skipped). */
export function forgetDeleted(state: SourceState, deletions: Deletions): void {
  for (const id of deletions.userIds) {
    state.usernames.delete(id);
    state.passwordDigests.delete(id);
  }
  for (const [key, holder] of state.keyHolders) if (deletions.userIds.has(holder)) state.keyHolders.delete(key);
  for (const id of deletions.itemIds) state.items.delete(id);
}
