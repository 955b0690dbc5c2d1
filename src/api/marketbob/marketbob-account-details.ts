import { MarketbobAccountDetailsBody } from '../../schemas/marketbob-schemas.js';
import { ApiError, unlessRefused } from '../api-error.js';
import type { MarketbobEndpoint } from '../endpoint.js';
import { apiKeyParam } from '../params.js';
import { accountDetails } from '../routes/account-details.js';
import { authenticateHolder } from './marketbob-auth.js';

/**
 * Account details as MarketBob answers them: 401 `Invalid request` for an unknown key, a banned
 * account (suspended here) or an incomplete profile (no first or last name, email or password).
 */
export const marketbobAccountDetails: MarketbobEndpoint = {
  method: 'GET',
  path: accountDetails.path,
  contract: {
    shape: 'marketbob',
    operationId: 'accountDetails',
    summary: accountDetails.contract.summary,
    description: 'The account that owns the API key.',
    success: MarketbobAccountDetailsBody,
    messages: { 400: ['apiKeyRequired'], 401: ['invalidRequest'], 404: ['notFound'] },
  },
  handle(request, variant, context) {
    const apiKey = apiKeyParam(request, undefined, variant.config.texts);
    if (apiKey instanceof ApiError) return apiKey;
    const refusal = ApiError.of('invalidRequest');
    return unlessRefused(authenticateHolder(request, context, apiKey, refusal, variant), (account) =>
      account.status === 'active' && account.marketbob.complete ? (account.json[variant.index] as Buffer) : refusal,
    );
  },
};
