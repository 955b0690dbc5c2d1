import { MAX_ACTIVATION_LIMIT } from '../domain/activation-instance.js';
import type { Store } from '../store/store.js';

/**
 * An item's activation limit as an operator or a seller gives it: a whole number from 1 to
 * MAX_ACTIVATION_LIMIT, or no limit (null; `none` in words). The admin API, the CLI and the
 * workspace share these, as the importer shares the limit's rule (src/records/item-table.ts).
 */

/** The limit as the CLI and the workspace's form take it: digits, or `none`; undefined when neither. */
export function activationLimitFromText(text: string): number | null | undefined {
  const trimmed = text.trim().toLowerCase();
  if (trimmed === 'none' || trimmed === '') return null;
  if (!/^\d{1,7}$/.test(trimmed)) return undefined;
  return activationLimitFromJson(Number(trimmed));
}

/** The limit as JSON gives it: an integer in range, or null; undefined when neither. */
export function activationLimitFromJson(value: unknown): number | null | undefined {
  if (value === null) return null;
  return Number.isInteger(value) && (value as number) >= 1 && (value as number) <= MAX_ACTIVATION_LIMIT
    ? (value as number)
    : undefined;
}

export const ACTIVATION_LIMIT_RULE = `a whole number from 1 to ${MAX_ACTIVATION_LIMIT}, or none`;

/**
 * Sets an item's activation limit; false when there is no such item. Instances activated already
 * stay under a lower limit: the code takes no new one until enough are released.
 */
export function setItemActivationLimit(store: Store, itemId: number, limit: number | null): Promise<boolean> {
  return store.activations().setActivationLimit(itemId, limit);
}
