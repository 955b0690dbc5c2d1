import { purchaseCodeKey, purchaseIsValidFor } from '../../domain/purchase-code.js';
import { ApiError, unlessRefused } from '../api-error.js';
import type { Endpoint } from '../endpoint.js';
import { after } from '../maybe-async.js';
import { apiKeyParam, requiredParam } from '../params.js';
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
    const { cache, metrics, activity } = context;
    const { texts } = variant.config;
    const apiKey = apiKeyParam(request, request.body, texts);
    const code = requiredParam('purchase_code', [request.query, request.body], texts);
    const refusal = ApiError.of('invalidPurchaseCode');
    return unlessRefused(authenticateHolder(request, context, apiKey, refusal), (account) => {
      const codeKey = account.marketbob.isAuthor ? purchaseCodeKey(code) : undefined;
      return after(codeKey === undefined ? undefined : cache.purchase(codeKey, variant), (found) => {
        const owner = found?.owner;
        if (found !== undefined && owner === account.username) {
          found.activity = activity.validated(owner, codeKey as string, request.ip, found.activity);
        }
        if (!found || owner === undefined || !purchaseIsValidFor(found.row, owner, account.username)) {
          const status = found?.row.status;
          const ownInactive = owner === account.username && status !== 'active';
          metrics.validation(ownInactive ? (status as 'refunded' | 'cancelled') : 'invalid');
          return refusal;
        }
        metrics.validation('valid');
        return found.json[variant.index] as Buffer;
      });
    });
  },
};
