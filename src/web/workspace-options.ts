import type { ActivityConfig } from '../activity/activity-config.js';
import type { ActivityReader } from '../activity/purchase-activity.js';
import type { KeyMaterial } from '../keys/server-secret.js';
import type { Limits } from '../limits/limits.js';
import type { AppKey } from '../marketbob/laravel-encryption.js';
import type { SigningKeys } from '../signing/signing-keys.js';
import type { Store } from '../store/store.js';
import type { VariantResolver } from '../variants/variant-runtime.js';
import type { WebhookServiceDeps } from '../webhooks/webhook-endpoints.js';
import type { WorkspaceSettings } from './workspace-config.js';

/** What the workspace is built from (buildApp gives it). */
export interface WorkspaceOptions {
  readonly config: {
    readonly workspace: Readonly<WorkspaceSettings>;
    readonly keyRotationGraceSeconds: number;
    readonly activity: ActivityConfig;
    /** MarketBob's APP_KEY opens its sellers' two-factor secrets (docs/marketbob.md). */
    readonly marketbob?: { readonly appKey?: AppKey } | undefined;
  };
  readonly store: Store;
  readonly keys: KeyMaterial;
  /** The app's variant resolver (built once, in buildApp). */
  readonly resolver: VariantResolver;
  /** The limits machinery the API's budgets use: shared through Redis when REDIS_URL is set. */
  readonly limits: Limits;
  /** Sellers' webhook endpoints (src/webhooks). */
  readonly webhooks: WebhookServiceDeps;
  /** The API's purchase-code activity reports (made off the serving thread). */
  readonly activity: ActivityReader;
  /** The public keys the settings page shows (src/signing). */
  readonly signingKeys?: SigningKeys;
}
