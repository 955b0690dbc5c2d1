import type { AccountStatus } from '../records/rows.js';
import type { Store } from '../store/store.js';

/** What an operator may do to a seller's account. */
export type AccountAction = 'suspend' | 'reactivate';

const STATUS_AFTER: Record<AccountAction, AccountStatus> = { suspend: 'suspended', reactivate: 'active' };

/** An account after an action. */
export interface AccountState {
  readonly username: string;
  readonly status: AccountStatus;
}

/**
 * Suspends an account (its key answers 401 from the next request on, on every instance) or
 * makes it active again; undefined when there is no such account. The admin API and the CLI
 * both call this.
 */
export async function applyAccountAction(
  store: Store,
  username: string,
  action: AccountAction,
): Promise<AccountState | undefined> {
  const status = STATUS_AFTER[action];
  return (await store.setAccountStatus(username, status)) ? { username, status } : undefined;
}
