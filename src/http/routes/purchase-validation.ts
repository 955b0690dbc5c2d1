import { purchaseCodeKey, purchaseIsValidFor } from '../../domain/purchase-code.js';
import { serializeItem, serializePurchase } from '../../domain/serialize.js';
import { ApiError } from '../api-error.js';
import { authenticate } from '../authenticate.js';
import type { Endpoint } from '../endpoint.js';
import { apiKeyParam, requiredParam } from '../params.js';

export const purchaseValidation: Endpoint = {
  method: 'POST',
  path: '/api/purchases/validation',
  async handle(request, variant, { store, keys, support }) {
    const { texts } = variant.config;
    const apiKey = apiKeyParam(request, request.body, texts);
    const code = requiredParam('purchase_code', [request.query, request.body], texts);
    const account = await authenticate(store, keys, apiKey);
    const codeKey = purchaseCodeKey(code);
    const found = codeKey === undefined ? undefined : await store.purchaseWithItem(codeKey);
    if (!found || !purchaseIsValidFor(found, account.username)) throw new ApiError('invalidPurchaseCode');
    const itemJson = serializeItem(found.item, variant.config);
    return `"data":{"purchase":${serializePurchase(found.purchase, found.item, itemJson, variant.config, support)}}`;
  },
};
