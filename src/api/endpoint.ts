import type { PurchaseActivity } from '../activity/purchase-activity.js';
import type { KeyUsage } from '../keys/key-usage.js';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import type { LicenseIssuer } from '../signing/license-tokens.js';
import type { ActivationStore } from '../store/activations/activation-store.js';
import type { VariantRuntime } from '../variants/variant-runtime.js';
import type { OrRefusal } from './api-error.js';
import type { ApiLimits } from './api-limits.js';
import type { ApiRequest } from './api-request.js';
import type { MaybePromise } from './maybe-async.js';
import type { AnswerBody } from './reply.js';
import type { ResourceCache } from './resource-cache.js';

/** What every endpoint may use, built once per app. */
export interface EndpointContext {
  /**
   * Accounts by key, items, sellers' lists and recent purchases by code, with their answers' bytes
   * per variant, kept in memory and fresh (see ResourceCache).
   */
  readonly cache: ResourceCache;
  /** The clients' and keys' budgets: admission, the account's requests, failures counted. */
  readonly limits: ApiLimits;
  /** Where validation outcomes are counted. */
  readonly metrics: ServiceMetrics;
  /** When each account's key was last used (gathered in memory, written once a minute). */
  readonly keyUsage: KeyUsage;
  /** How each purchase code is validated (gathered in memory, written every few seconds), and its reports. */
  readonly activity: PurchaseActivity;
  /** The purchase codes' activations (asked per call: the store may be reopened). */
  activations(): ActivationStore;
  /** Offline license tokens, signed with the deployment's key. */
  readonly licenses: LicenseIssuer;
}

/**
 * One endpoint, written once and registered under every variant's base. `handle` answers the
 * whole success body (status 200), as bytes or as chunks to stream, or the ApiError to answer
 * instead (returned on the hot paths, thrown elsewhere: both are answered alike); at once when what
 * it needs is in memory, else as a promise (see maybe-async.ts).
 */
export interface Endpoint {
  readonly method: 'GET' | 'POST';
  /** Relative to the variant's base, such as `/api/items/all`. */
  readonly path: string;
  handle(request: ApiRequest, variant: VariantRuntime, context: EndpointContext): MaybePromise<OrRefusal<AnswerBody>>;
}
