import { ApiError } from '../api-error.js';
import { authenticate } from '../authenticate.js';
import type { Endpoint } from '../endpoint.js';
import { apiKeyParam, itemIdParam } from '../params.js';

export const itemsItem: Endpoint = {
  method: 'GET',
  path: '/api/items/item',
  async handle(request, variant, context) {
    const { cache } = context;
    const { texts } = variant.config;
    const apiKey = apiKeyParam(request, undefined, texts);
    const itemId = itemIdParam([request.query], texts);
    const account = await authenticate(request, context, apiKey);
    const item = await cache.item(itemId, variant);
    // Another seller's item answers exactly like one that does not exist.
    if (item?.account !== account.username || item.status !== 'approved') {
      throw ApiError.of('itemNotFound');
    }
    return variant.okBody('"item":', item.json[variant.index] as Buffer);
  },
};
