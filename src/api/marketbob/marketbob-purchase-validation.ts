import { purchaseCodeKey } from '../../domain/purchase-code.js';
import { ApiError, unlessRefused } from '../api-error.js';
import type { Endpoint } from '../endpoint.js';
import { after } from '../maybe-async.js';
import { apiKeyParam, requiredParam } from '../params.js';
import { validationAnswer } from '../routes/purchase-validation.js';
import { authenticateHolder } from './marketbob-auth.js';

/**
 * A purchase code validated as MarketBob answers it: the purchase under a top-level `item`; 404
 * `Invalid purchase code` for any code that is not the author's and active, a key that is not an
 * author's, or an unknown key. Counted in the metrics and the code's activity as the contract's.
 */
export const marketbobPurchaseValidation: Endpoint = {
  method: 'POST',
  path: '/api/purchases/validation',
  handle(request, variant, context) {
    const { texts } = variant.config;
    const apiKey = apiKeyParam(request, request.body, texts);
    const code = requiredParam('purchase_code', [request.query, request.body], texts);
    return unlessRefused(
      authenticateHolder(request, context, apiKey, ApiError.of('invalidPurchaseCode')),
      (account) => {
        // A key that is not an author's has no purchases to validate, as in MarketBob.
        const codeKey = account.marketbob.isAuthor ? purchaseCodeKey(code) : undefined;
        return after(codeKey === undefined ? undefined : context.cache.purchase(codeKey, variant), (found) =>
          validationAnswer(found, codeKey, account.username, request, variant, context),
        );
      },
    );
  },
};
