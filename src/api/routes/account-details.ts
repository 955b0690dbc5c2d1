import type { VariantRuntime } from '../../variants/variant-runtime.js';
import { ApiError, type OrRefusal } from '../api-error.js';
import { authenticate } from '../authenticate.js';
import type { Endpoint } from '../endpoint.js';
import { apiKeyParam } from '../params.js';
import type { CachedAccount } from '../resource-cache.js';

export const accountDetails: Endpoint = {
  method: 'GET',
  path: '/api/account/details',
  handle(request, variant, context) {
    const apiKey = apiKeyParam(request, undefined, variant.config.texts);
    const account = authenticate(request, context, apiKey, variant);
    // At once, without a closure, when the account is in memory (nearly always).
    return account instanceof Promise
      ? account.then((settled) => detailsOf(settled, variant))
      : detailsOf(account, variant);
  },
};

const detailsOf = (account: OrRefusal<CachedAccount>, variant: VariantRuntime): OrRefusal<Buffer> =>
  account instanceof ApiError ? account : (account.json[variant.index] as Buffer);
