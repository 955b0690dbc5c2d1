import type { KeyMaterial } from '../keys/server-secret.js';
import type { ActivityDelta, Store } from '../store/store.js';
import type { StoreLocation } from '../store/store-location.js';
import type { ActivityConfig } from './activity-config.js';
import { type ActivityCounter, createActivityCounter } from './activity-counter.js';
import type { CodeActivity, TopCode } from './activity-report.js';
import { createActivityReports } from './activity-reports.js';
import { createNetworkHasher, networkKeyOf } from './client-network.js';

/** Purchase-code activity as the API's endpoints use it: counted on validation, read by the activity endpoints. */
export interface PurchaseActivity extends ActivityCounter {
  readonly retentionDays: number;
  /** The code's activity over the retained days, this process's gathered counts of the seller written first. */
  ofCode(account: string, codeKey: string): Promise<CodeActivity>;
  /** The account's codes seen from the most networks in the last `days` days, this process's counts of it written first. */
  top(account: string, days: number, limit: number): Promise<TopCode[]>;
}

/** The reports alone, for the pages that show them (the workspace). */
export type ActivityReader = Pick<PurchaseActivity, 'ofCode' | 'top'>;

/** The accounts of a flush's deltas, read only if asked for (a flush holds them account by account, mostly). */
function* accountsOf(deltas: readonly ActivityDelta[]): Generator<string> {
  let last: string | undefined;
  for (const { account } of deltas) {
    if (account === last) continue;
    last = account;
    yield account;
  }
}

/**
 * `location` is where the reports' worker thread reads the store (see activity-reports.ts); left
 * out, the reports are made on this thread.
 */
export function createPurchaseActivity(
  store: Store,
  config: ActivityConfig,
  keys: KeyMaterial,
  onError: (error: unknown) => void,
  location?: StoreLocation,
  /** Where the gathered counts are written (a background writer); the store when left out. */
  writes: Pick<Store, 'recordActivity' | 'dropActivityBefore'> = store,
): PurchaseActivity {
  const reports = createActivityReports({ location, store });
  const counter = createActivityCounter(
    {
      // Told after the write: a report started before it is not given again.
      async recordActivity(deltas) {
        await writes.recordActivity(deltas);
        reports.wrote(accountsOf(deltas));
      },
      dropActivityBefore: (day) => writes.dropActivityBefore(day),
    },
    { ...config, networkHash: createNetworkHasher(networkKeyOf(keys)), onError },
  );
  return {
    ...counter,
    retentionDays: config.retentionDays,
    async ofCode(account, codeKey) {
      await counter.flush(account);
      return reports.ofCode(account, codeKey, config.retentionDays);
    },
    async top(account, days, limit) {
      await counter.flush(account);
      return reports.top(account, days, limit);
    },
    async close() {
      await counter.close();
      await reports.close();
    },
  };
}
