import type { VariantRuntime } from '../../variants/variant-runtime.js';
import { ApiError, type OrRefusal } from '../api-error.js';
import type { ApiRequest } from '../api-request.js';
import { admitHolder } from '../authenticate.js';
import type { EndpointContext, MarketbobEndpoint } from '../endpoint.js';
import { after, type MaybePromise } from '../maybe-async.js';
import type { CachedAccount } from '../resource-cache.js';

/**
 * The account holding the key as MarketBob's column collation finds it, letter case ignored: the
 * key as given, then in lower case (MarketBob's own keys are lower-case hex, and so are the keys
 * the bridge brings). Only the store's digests are compared, never a key: a key imported with
 * upper-case letters opens its account only as it was imported (docs/marketbob.md).
 */
function holderOf(context: EndpointContext, apiKey: string, variant?: VariantRuntime) {
  const found = context.cache.account(apiKey, variant);
  const lower = apiKey.toLowerCase();
  if (lower === apiKey) return found;
  return after(found, (account) => account ?? context.cache.account(lower, variant));
}

/**
 * The key's holder, let in whatever its status (MarketBob checks status only for account
 * details), its budgets applied; `unknown` when no account holds the key: each of MarketBob's
 * endpoints answers an unknown key in its own words.
 */
export function authenticateHolder(
  request: ApiRequest,
  context: EndpointContext,
  apiKey: string,
  unknown: ApiError,
  variant?: VariantRuntime,
): MaybePromise<OrRefusal<CachedAccount>> {
  return after(holderOf(context, apiKey, variant), (account) =>
    // A named key is this service's, not MarketBob's: it opens an active account only, as in the
    // contract's shape (a deleted MarketBob user's account is suspended, and must stop answering).
    account === undefined || (account.keyId !== undefined && account.status !== 'active')
      ? unknown
      : admitHolder(request, context, account),
  );
}

/**
 * The endpoint behind MarketBob's `actions.api` setting: while the data's source has its API off
 * (the `api_enabled` source setting), every request answers 404 before its parameters are read,
 * as MarketBob's middleware does.
 */
export function behindApiSwitch(endpoint: MarketbobEndpoint): MarketbobEndpoint {
  return {
    method: endpoint.method,
    path: endpoint.path,
    contract: endpoint.contract,
    handle(request, variant, context) {
      const enabled = context.cache.apiEnabled();
      if (enabled === true) return endpoint.handle(request, variant, context);
      return after(enabled, (on) => (on ? endpoint.handle(request, variant, context) : ApiError.of('notFound')));
    },
  };
}
