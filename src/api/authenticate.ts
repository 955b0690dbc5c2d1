import type { VariantRuntime } from '../variants/variant-runtime.js';
import { ApiError } from './api-error.js';
import type { ApiRequest } from './api-request.js';
import type { EndpointContext } from './endpoint.js';
import type { CachedAccount } from './resource-cache.js';

/**
 * The active account that owns the key; 401 for a key that is unknown, replaced, or whose account
 * is suspended, never saying which. Accounts are found by the key's HMAC digest (in the cache, by a
 * hash of its own), so the key itself is never compared or kept (and the digest, found by
 * equality, needs no second comparison).
 * With `variant`, the account's JSON in that variant comes with it.
 * The account's budgets apply from here on: past one, a 429 (see ApiLimits.admitAccount).
 */
export async function authenticate(
  request: ApiRequest,
  { cache, limits, keyUsage }: EndpointContext,
  apiKey: string,
  variant?: VariantRuntime,
): Promise<CachedAccount> {
  const account = await cache.account(apiKey, variant);
  if (account?.status !== 'active') {
    throw ApiError.of('invalidRequest');
  }
  limits.admitAccount(request, account.username);
  keyUsage.used(account.username, request.at);
  return account;
}
