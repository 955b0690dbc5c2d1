import type { VariantRuntime } from '../variants/variant-runtime.js';
import { ApiError, type OrRefusal } from './api-error.js';
import type { ApiRequest } from './api-request.js';
import type { EndpointContext } from './endpoint.js';
import { after, type MaybePromise } from './maybe-async.js';
import type { CachedAccount } from './resource-cache.js';

/**
 * The active account that owns the key; a 401 refusal for a key that is unknown, replaced, or whose
 * account is suspended, never saying which. Accounts are found by the key's HMAC digest (in the
 * cache, by a hash of its own), so the key itself is never compared or kept (and the digest, found
 * by equality, needs no second comparison).
 * With `variant`, the account's JSON in that variant comes with it.
 * The account's budgets apply from here on: past one, a 429 refusal (see ApiLimits.admitAccount).
 * At once when the account is cached, else once the store answered.
 */
export function authenticate(
  request: ApiRequest,
  context: EndpointContext,
  apiKey: string,
  variant?: VariantRuntime,
): MaybePromise<OrRefusal<CachedAccount>> {
  return after(context.cache.account(apiKey, variant), (account) => admit(request, context, account));
}

function admit(
  request: ApiRequest,
  { limits, keyUsage }: EndpointContext,
  account: CachedAccount | undefined,
): OrRefusal<CachedAccount> {
  if (account?.status !== 'active') return ApiError.of('invalidRequest');
  const refused = limits.admitAccount(request, account.username);
  if (refused !== undefined) return refused;
  keyUsage.used(account.username, request.at);
  return account;
}
