import { purchaseCodeKey } from '../domain/purchase-code.js';
import type { PurchaseRow } from '../records/rows.js';
import type { Store } from '../store/store.js';

/** What the storefront may tell us about a sale after it happened. */
export type PurchaseAction = 'refund' | 'cancel' | 'downloaded';

/** A purchase after an action: what an operator needs to see it took. */
export interface PurchaseState {
  readonly purchase_code: string;
  readonly status: PurchaseRow['status'];
  readonly downloaded: boolean;
}

/** The outcome of a purchase action: the purchase as it now is, or why there is none. */
export type PurchaseActionResult =
  | { readonly ok: true; readonly purchase: PurchaseState }
  | { readonly ok: false; readonly problem: 'purchase_not_found' };

/**
 * Refunds, cancels, or marks a purchase downloaded, by its code as the storefront knows it
 * (trimmed, any letter case). Repeating an action changes nothing more. The admin API and the
 * CLI both call this; the store tells every instance's caches at once.
 */
export async function applyPurchaseAction(
  store: Store,
  code: string,
  action: PurchaseAction,
): Promise<PurchaseActionResult> {
  const codeKey = purchaseCodeKey(code.trim());
  // A code no purchase could have is simply not found: it was never stored.
  if (codeKey === undefined) return { ok: false, problem: 'purchase_not_found' };
  const row =
    action === 'downloaded'
      ? await store.markPurchaseDownloaded(codeKey)
      : await store.setPurchaseStatus(codeKey, action === 'refund' ? 'refunded' : 'cancelled');
  if (!row) return { ok: false, problem: 'purchase_not_found' };
  return { ok: true, purchase: { purchase_code: row.code, status: row.status, downloaded: row.downloaded === 1 } };
}
