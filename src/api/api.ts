import type { ActivityConfig } from '../activity/activity-config.js';
import type { ActivityReader } from '../activity/purchase-activity.js';
import { createPurchaseActivity } from '../activity/purchase-activity.js';
import { digestApiKey } from '../keys/api-keys.js';
import { createKeyUsage } from '../keys/key-usage.js';
import type { KeyMaterial } from '../keys/server-secret.js';
import type { Limits } from '../limits/limits.js';
import type { LimitsConfig } from '../limits/limits-config.js';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import type { LicenseIssuer } from '../signing/license-tokens.js';
import { type Store, unavailableReason } from '../store/store.js';
import type { StoreLocation } from '../store/store-location.js';
import type { ErrorKind } from '../variants/error-kinds.js';
import type { VariantResolver, VariantRuntime } from '../variants/variant-runtime.js';
import { type AnswerApiRequest, createApiAnswerer } from './api-answer.js';
import { type ApiLimits, createApiLimits } from './api-limits.js';
import type { ApiRequest } from './api-request.js';
import type { EndpointContext } from './endpoint.js';
import { endpointsUnder } from './marketbob/marketbob-endpoints.js';
import { type JsonReply, sendError } from './reply.js';
import { ResourceCache } from './resource-cache.js';
import { createRouteTable, type RouteTable } from './route-table.js';
import { contractEndpoints } from './routes/index.js';

export interface ApiOptions {
  readonly config: {
    readonly support: boolean;
    readonly limits: LimitsConfig;
    readonly activity: ActivityConfig;
    /** Where the activity reports' worker thread reads the store. */
    readonly store: StoreLocation;
  };
  readonly store: Store;
  readonly keys: KeyMaterial;
  readonly resolver: VariantResolver;
  readonly metrics: ServiceMetrics;
  /** The budgets' machinery (shared through Redis when configured). */
  readonly limits: Limits;
  /** Offline license tokens (`/api/purchases/license`). */
  readonly licenses: LicenseIssuer;
  /** Where a failure to record the keys' last use is told. */
  readonly warn: (error: unknown, message: string) => void;
  /**
   * Where the keys' last use and the codes' activity are written (the process's background
   * writer: see src/writer); the store when left out.
   */
  readonly writes?: Pick<Store, 'recordKeyUses' | 'recordNamedKeyUses' | 'recordActivity' | 'dropActivityBefore'>;
}

/**
 * The seller API (SPEC 2) as the door sees it: what is at which path, who gets in, and the answer.
 * Transport-free: the door (src/server/api-door.ts) reads requests off the socket and writes
 * answers back; everything here speaks ApiRequest and JsonReply.
 */
export interface Api {
  readonly routes: RouteTable;
  /** Purchase-code activity: counted per answer, and its reports (the workspace shows them too). */
  readonly activity: ActivityReader;
  /**
   * The client's failure budget, before the body is read: true when the client may go on (its
   * budget on the headers); else the 429 is answered and counted, and false.
   */
  admitClient(request: ApiRequest, reply: JsonReply, variant: VariantRuntime): boolean;
  readonly answer: AnswerApiRequest;
  /**
   * An admitted request answered with an error that no budget counts, before or instead of its
   * endpoint (a body that could not be read, a failure of the service's own), with its budgets' headers.
   */
  refuse(request: ApiRequest, reply: JsonReply, variant: VariantRuntime, kind: ErrorKind): void;
  /** Writes the keys' last use and the codes' activity gathered so far. */
  close(): Promise<void>;
}

export function createApi({
  config,
  store,
  keys,
  resolver,
  metrics,
  limits,
  licenses,
  warn,
  writes = store,
}: ApiOptions): Api {
  const cache = new ResourceCache(store, (apiKey) => digestApiKey(keys, apiKey), { metrics, support: config.support });
  const apiLimits: ApiLimits = createApiLimits(limits, config.limits);
  const keyUsage = createKeyUsage(writes, (error) =>
    warn(unavailableReason(error), 'could not record when API keys were last used'),
  );
  const activity = createPurchaseActivity(
    store,
    config.activity,
    keys,
    (error) => warn(unavailableReason(error), 'could not write purchase-code activity; kept for the next try'),
    config.store,
    writes,
  );
  const context: EndpointContext = {
    cache,
    limits: apiLimits,
    metrics,
    keyUsage,
    activity,
    activations: store.activations(),
    licenses,
  };
  // The contracts' config-bound parameters (the top list's `days`) bound the handlers too.
  const endpoints = contractEndpoints(config);
  const refusals = metrics.limiter('client');
  return {
    activity,
    routes: createRouteTable((prefix) => endpointsUnder(prefix, resolver.variants, endpoints), resolver.prefixes),
    admitClient(request, reply, variant) {
      const retryAfter = apiLimits.admitClient(request, reply);
      if (retryAfter === 0) return true;
      refusals.refused();
      sendError(reply.header('retry-after', retryAfter), variant, 'tooManyRequests');
      return false;
    },
    answer: createApiAnswerer(context),
    refuse(request, reply, variant, kind) {
      apiLimits.answered(request, reply);
      sendError(reply, variant, kind);
    },
    close: async () => {
      await Promise.all([keyUsage.close(), activity.close()]);
    },
  };
}
