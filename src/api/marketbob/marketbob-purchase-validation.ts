import { MarketbobValidationBody } from '../../schemas/marketbob-schemas.js';
import { ApiError, unlessRefused } from '../api-error.js';
import type { MarketbobEndpoint } from '../endpoint.js';
import { apiKeyParam, requiredParam } from '../params.js';
import { purchaseValidation } from '../routes/purchase-validation.js';
import { validateCode, validationAnswer } from '../validation-answer.js';
import { authenticateHolder } from './marketbob-auth.js';

/**
 * A purchase code validated as MarketBob answers it: the purchase under a top-level `item`; 404
 * `Invalid purchase code` for any code that is not the author's and active, a key that is not an
 * author's, or an unknown key. Counted in the metrics and the code's activity as the contract's.
 */
export const marketbobPurchaseValidation: MarketbobEndpoint = {
  method: 'POST',
  path: purchaseValidation.path,
  contract: {
    shape: 'marketbob',
    operationId: 'purchaseValidation',
    summary: purchaseValidation.contract.summary,
    description:
      "The purchase whose code matches (any letter case) and is active, of one of the key's author's items; " +
      'the purchase comes under the key item.',
    success: MarketbobValidationBody,
    messages: { 400: ['apiKeyRequired', 'purchaseCodeRequired'], 404: ['invalidPurchaseCode', 'notFound'] },
  },
  handle(request, variant, context) {
    const { texts } = variant.config;
    const apiKey = apiKeyParam(request, request.body, texts);
    if (apiKey instanceof ApiError) return apiKey;
    const code = requiredParam('purchase_code', [request.query, request.body], texts);
    if (code instanceof ApiError) return code;
    return unlessRefused(authenticateHolder(request, context, apiKey, ApiError.of('invalidPurchaseCode')), (account) =>
      // A key that is not an author's has no purchases to validate, as in MarketBob.
      account.marketbob.isAuthor
        ? validateCode(account, code, request, variant, context)
        : validationAnswer(undefined, undefined, account.username, request, variant, context),
    );
  },
};
