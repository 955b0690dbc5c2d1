import type { PurchaseActivity } from '../activity/purchase-activity.js';
import type { KeyUsage } from '../keys/key-usage.js';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import type { EndpointContract, MarketbobContract } from '../schemas/endpoint-contract.js';
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
  /** The purchase codes' activations. */
  readonly activations: ActivationStore;
  /** Offline license tokens, signed with the deployment's key. */
  readonly licenses: LicenseIssuer;
}

/** What the endpoints' contracts read of the config: the bounds that are the deployment's own. */
export interface EndpointSettings {
  /** Purchase-code activity: `days` of the top list goes back at most `retentionDays`. */
  readonly activity: { readonly retentionDays: number };
}

/**
 * What a handler answers: the whole success body (status 200) as bytes or as chunks to stream, a
 * StatusAnswer, or the ApiError to answer instead. Returned, never thrown: a refusal is a value
 * like any answer (a throw also costs more than the lookup that found it, see ApiError). At once
 * when what the handler needs is in memory, else as a promise, as the cache and the budgets
 * answer (see maybe-async.ts); a handler chains those with `unlessRefused` and `after` and never
 * awaits what may already be here.
 */
export type EndpointAnswer = MaybePromise<OrRefusal<AnswerBody>>;

/**
 * One endpoint, written once and registered under every variant base of its shape: where it is,
 * its contract (what the OpenAPI documents, the SDK and the tests' answer checks read), and its
 * handler, in one object in one file (src/api/routes/ for the contract's shape, src/api/marketbob/
 * for MarketBob's).
 */
export interface Endpoint<C extends EndpointContract | MarketbobContract = EndpointContract | MarketbobContract> {
  readonly method: 'GET' | 'POST';
  /** Relative to the variant's base, such as `/api/items/all`. */
  readonly path: string;
  readonly contract: C;
  handle(request: ApiRequest, variant: VariantRuntime, context: EndpointContext): EndpointAnswer;
}

/** An endpoint of the contract's shape (docs/api.md). */
export type ContractEndpoint = Endpoint<EndpointContract>;

/** An endpoint of MarketBob's shape (docs/marketbob.md). */
export type MarketbobEndpoint = Endpoint<MarketbobContract>;
