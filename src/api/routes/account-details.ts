import { Account } from '../../schemas/resource-schemas.js';
import { ApiError, unlessRefused } from '../api-error.js';
import { authenticate } from '../authenticate.js';
import type { ContractEndpoint } from '../endpoint.js';
import { apiKeyParam } from '../params.js';

export const accountDetails: ContractEndpoint = {
  method: 'GET',
  path: '/api/account/details',
  contract: {
    shape: 'contract',
    operationId: 'accountDetails',
    summary: 'Account details',
    description: 'The account that owns the API key.',
    params: [],
    success: { data: Account },
    notFound: [],
  },
  handle(request, variant, context) {
    const apiKey = apiKeyParam(request, undefined, variant.config.texts);
    if (apiKey instanceof ApiError) return apiKey;
    // The account's answer in this variant comes with it from the cache.
    return unlessRefused(
      authenticate(request, context, apiKey, variant),
      (account) => account.json[variant.index] as Buffer,
    );
  },
};
