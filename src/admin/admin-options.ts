import type { KeyMaterial } from '../keys/server-secret.js';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import type { Store } from '../store/store.js';
import type { StoreLocation } from '../store/store-location.js';
import type { WebhookServiceDeps } from '../webhooks/webhook-endpoints.js';

/** What the admin API is built from (buildApp gives it); each route is handed it. */
export interface AdminPluginOptions {
  readonly config: {
    readonly adminToken: string | undefined;
    readonly keyRotationGraceSeconds: number;
    readonly store: StoreLocation;
  };
  readonly store: Store;
  readonly keys: KeyMaterial;
  readonly metrics: ServiceMetrics;
  /** The Prometheus text of every process serving (summed over `WORKERS`). */
  readonly metricsText: () => Promise<string>;
  /** Sellers' webhook endpoints (src/webhooks). */
  readonly webhooks: WebhookServiceDeps;
}
