import { purchaseCodeKey, purchaseIsValidFor } from '../../domain/purchase-code.js';
import type { VariantRuntime } from '../../variants/variant-runtime.js';
import { withActivation } from '../activation-answer.js';
import { ApiError, unlessRefused } from '../api-error.js';
import type { ApiRequest } from '../api-request.js';
import { authenticate } from '../authenticate.js';
import type { Endpoint, EndpointContext } from '../endpoint.js';
import { after } from '../maybe-async.js';
import { apiKeyParam, instanceParam, requiredParam } from '../params.js';
import type { CachedPurchase } from '../resource-cache.js';

export const purchaseValidation: Endpoint = {
  method: 'POST',
  path: '/api/purchases/validation',
  handle(request, variant, context) {
    const { texts } = variant.config;
    const apiKey = apiKeyParam(request, request.body, texts);
    const code = requiredParam('purchase_code', [request.query, request.body], texts);
    const instance = instanceParam([request.query, request.body], texts, false);
    return unlessRefused(authenticate(request, context, apiKey), (account) => {
      const codeKey = purchaseCodeKey(code);
      const answer = after(codeKey === undefined ? undefined : context.cache.purchase(codeKey, variant), (found) =>
        validationAnswer(found, codeKey, account.username, request, variant, context),
      );
      // Without an instance, the answer as it always was: no store query, no copy.
      if (instance === undefined) return answer;
      return unlessRefused(answer, (valid) =>
        after(context.activations().validated(codeKey as string, instance, request.at), (activation) =>
          withActivation(valid, activation),
        ),
      );
    });
  },
};

/**
 * A looked-up code answered to the seller `username`, in either shape: the purchase's cached answer
 * when it is valid for them, else `invalidPurchaseCode`; counted in the metrics and, when the code is
 * theirs, in its activity.
 */
export function validationAnswer(
  found: CachedPurchase | undefined,
  codeKey: string | undefined,
  username: string,
  request: ApiRequest,
  variant: VariantRuntime,
  context: EndpointContext,
): Buffer | ApiError {
  const { metrics, activity } = context;
  const owner = found?.owner;
  // The seller's own codes count, valid or not; a code of another seller's (or none) does not.
  if (found !== undefined && owner === username) {
    found.activity = activity.validated(owner, codeKey as string, request.ip, found.activity);
  }
  if (!found || owner === undefined || !purchaseIsValidFor(found.row, owner, username)) {
    // Refunded and cancelled are told apart for the operator only when the purchase is this seller's.
    const status = found?.row.status;
    const ownInactive = owner === username && status !== 'active';
    metrics.validation(ownInactive ? (status as 'refunded' | 'cancelled') : 'invalid');
    return ApiError.of('invalidPurchaseCode');
  }
  metrics.validation('valid');
  return found.json[variant.index] as Buffer;
}
