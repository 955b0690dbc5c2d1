import { scopeAllows } from '../keys/key-scopes.js';
import type { VariantRuntime } from '../variants/variant-runtime.js';
import { ApiError, type OrRefusal, unlessRefused } from './api-error.js';
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
  const account = context.cache.account(apiKey, variant);
  // Not `after`: no closure is made for the account that is nearly always here already.
  return account instanceof Promise
    ? account.then((found) => admit(request, context, found))
    : admit(request, context, account);
}

/**
 * As authenticate, for an activity report: the key let in, then one report taken from its report
 * budget (ApiLimits.admitReport), before anything is read or asked of the report thread.
 */
export function authenticateReport(
  request: ApiRequest,
  context: EndpointContext,
  apiKey: string,
): MaybePromise<OrRefusal<CachedAccount>> {
  return unlessRefused(authenticate(request, context, apiKey), (account) =>
    after(context.limits.admitReport(request, account), (refused) => refused ?? account),
  );
}

/** How stale the key's last use given to KeyUsage may be (it is written once a minute). */
const KEY_USE_RESOLUTION_MS = 10_000;

function admit(
  request: ApiRequest,
  context: EndpointContext,
  account: CachedAccount | undefined,
): MaybePromise<OrRefusal<CachedAccount>> {
  if (account?.status !== 'active') return ApiError.of('invalidRequest');
  return admitHolder(request, context, account);
}

/**
 * The key's holder let in, whatever its status (MarketBob's shape checks it only for account
 * details): its budgets apply from here on, and its key's use is noted. A key whose scope does not
 * cover the endpoint is refused (403 `keyScope`) after its key was found, before any resource is read.
 */
export function admitHolder(
  request: ApiRequest,
  { limits, keyUsage }: EndpointContext,
  account: CachedAccount,
): MaybePromise<OrRefusal<CachedAccount>> {
  const refused = limits.admitAccount(request, account);
  // Not `after`: no closure is made for the admission nearly always answered at once.
  return refused instanceof Promise
    ? refused.then((refusal) => noteUse(request, keyUsage, account, refusal))
    : noteUse(request, keyUsage, account, refused);
}

/** The account let in, its key's use noted; or the budget's refusal. */
function noteUse(
  request: ApiRequest,
  keyUsage: EndpointContext['keyUsage'],
  account: CachedAccount,
  refused: ApiError | undefined,
): OrRefusal<CachedAccount> {
  if (refused !== undefined) return refused;
  // "Last used" is shown to the minute: a key calling many times a second is noted once in ten.
  if (request.at - account.state.keyUseNoted >= KEY_USE_RESOLUTION_MS) {
    account.state.keyUseNoted = request.at;
    if (account.keyId === undefined) keyUsage.used(account.username, request.at);
    else keyUsage.usedNamed(account.keyId, request.at);
  }
  // A `validate` key opens its account for validation and activations only (src/keys/key-scopes.ts).
  if (account.scope !== 'full' && !scopeAllows(account.scope, request.endpointPath ?? '')) {
    return ApiError.of('keyScope');
  }
  return account;
}
