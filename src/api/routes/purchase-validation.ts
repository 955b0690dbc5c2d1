import { purchaseCodeKey, purchaseIsValidFor } from '../../domain/purchase-code.js';
import { ApiError, unlessRefused } from '../api-error.js';
import { authenticate } from '../authenticate.js';
import type { Endpoint } from '../endpoint.js';
import { after } from '../maybe-async.js';
import { apiKeyParam, requiredParam } from '../params.js';

export const purchaseValidation: Endpoint = {
  method: 'POST',
  path: '/api/purchases/validation',
  handle(request, variant, context) {
    const { cache, metrics, activity } = context;
    const { texts } = variant.config;
    const apiKey = apiKeyParam(request, request.body, texts);
    const code = requiredParam('purchase_code', [request.query, request.body], texts);
    return unlessRefused(authenticate(request, context, apiKey), (account) => {
      const codeKey = purchaseCodeKey(code);
      return after(codeKey === undefined ? undefined : cache.purchase(codeKey, variant), (found) => {
        const owner = found?.owner;
        // The seller's own codes count, valid or not; a code of another seller's (or none) does not.
        if (found !== undefined && owner === account.username) {
          found.activity = activity.validated(owner, codeKey as string, request.ip, found.activity);
        }
        if (!found || owner === undefined || !purchaseIsValidFor(found.row, owner, account.username)) {
          // Refunded and cancelled are told apart for the operator only when the purchase is this seller's.
          const status = found?.row.status;
          const ownInactive = owner === account.username && status !== 'active';
          metrics.validation(ownInactive ? (status as 'refunded' | 'cancelled') : 'invalid');
          return ApiError.of('invalidPurchaseCode');
        }
        metrics.validation('valid');
        return found.json[variant.index] as Buffer;
      });
    });
  },
};
