import { ApiError, unlessRefused } from '../api-error.js';
import type { Endpoint } from '../endpoint.js';
import { apiKeyParam } from '../params.js';
import { authenticateHolder } from './marketbob-auth.js';

/**
 * Account details as MarketBob answers them: 401 `Invalid request` for an unknown key, a banned
 * account (suspended here) or an incomplete profile (no first or last name, email or password).
 */
export const marketbobAccountDetails: Endpoint = {
  method: 'GET',
  path: '/api/account/details',
  handle(request, variant, context) {
    const apiKey = apiKeyParam(request, undefined, variant.config.texts);
    const refusal = ApiError.of('invalidRequest');
    return unlessRefused(authenticateHolder(request, context, apiKey, refusal, variant), (account) =>
      account.status === 'active' && account.marketbob.complete ? (account.json[variant.index] as Buffer) : refusal,
    );
  },
};
