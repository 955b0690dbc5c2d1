import type { KeyMaterial } from '../keys/server-secret.js';
import type { Store } from '../store/store.js';
import type { ActivityConfig } from './activity-config.js';
import { type ActivityCounter, createActivityCounter } from './activity-counter.js';
import { type CodeActivity, codeActivity, type TopCode, topCodes } from './activity-report.js';
import { createNetworkHasher, networkKeyOf } from './client-network.js';

/** Purchase-code activity as the API's endpoints use it: counted on validation, read by the activity endpoints. */
export interface PurchaseActivity extends ActivityCounter {
  readonly retentionDays: number;
  /** The code's activity over the retained days, this process's gathered counts written first. */
  ofCode(account: string, codeKey: string): Promise<CodeActivity>;
  /** The account's codes seen from the most networks in the last `days` days, this process's counts written first. */
  top(account: string, days: number, limit: number): Promise<TopCode[]>;
}

export function createPurchaseActivity(
  store: Store,
  config: ActivityConfig,
  keys: KeyMaterial,
  onError: (error: unknown) => void,
  /** Where the gathered counts are written (a background writer); the store when left out. */
  writes: Pick<Store, 'recordActivity' | 'dropActivityBefore'> = store,
): PurchaseActivity {
  const counter = createActivityCounter(writes, {
    ...config,
    networkHash: createNetworkHasher(networkKeyOf(keys)),
    onError,
  });
  return {
    ...counter,
    retentionDays: config.retentionDays,
    async ofCode(account, codeKey) {
      await counter.flush();
      return codeActivity(store, account, codeKey, config.retentionDays);
    },
    async top(account, days, limit) {
      await counter.flush();
      return topCodes(store, account, days, limit);
    },
  };
}
