import { purchaseCodeKey, purchaseIsValidFor } from '../../domain/purchase-code.js';
import { serializePurchaseAroundItem } from '../../domain/serialize.js';
import { ApiError } from '../api-error.js';
import { authenticate } from '../authenticate.js';
import type { Endpoint } from '../endpoint.js';
import { apiKeyParam, requiredParam } from '../params.js';

export const purchaseValidation: Endpoint = {
  method: 'POST',
  path: '/api/purchases/validation',
  async handle(request, variant, context) {
    const { cache, support, metrics } = context;
    const { texts } = variant.config;
    const apiKey = apiKeyParam(request, request.body, texts);
    const code = requiredParam('purchase_code', [request.query, request.body], texts);
    const account = await authenticate(request, context, apiKey);
    const codeKey = purchaseCodeKey(code);
    const purchase = codeKey === undefined ? undefined : await cache.purchase(codeKey);
    const item = purchase && (await cache.item(purchase.item_id, variant));
    if (!purchase || !item || !purchaseIsValidFor(purchase, item.account, account.username)) {
      // Refunded and cancelled are told apart for the operator only when the purchase is this seller's.
      const ownInactive = purchase && item && item.account === account.username && purchase.status !== 'active';
      metrics.validation(ownInactive ? (purchase.status as 'refunded' | 'cancelled') : 'invalid');
      throw ApiError.of('invalidPurchaseCode');
    }
    metrics.validation('valid');
    const [before, after] = serializePurchaseAroundItem(purchase, item.supported, variant.config, support);
    // The last part closes the purchase's `data` object; okBody closes the envelope.
    return variant.okBody('"data":{"purchase":', before, item.json[variant.index] as Buffer, after, '}');
  },
};
