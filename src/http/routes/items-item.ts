import { serializeItem } from '../../domain/serialize.js';
import { ApiError } from '../api-error.js';
import { authenticate } from '../authenticate.js';
import type { Endpoint } from '../endpoint.js';
import { apiKeyParam, itemIdParam } from '../params.js';

export const itemsItem: Endpoint = {
  method: 'GET',
  path: '/api/items/item',
  async handle(request, variant, { store, keys }) {
    const { texts } = variant.config;
    const apiKey = apiKeyParam(request, undefined, texts);
    const itemId = itemIdParam([request.query], texts);
    const account = await authenticate(store, keys, apiKey);
    const item = await store.item(itemId);
    // Another seller's item answers exactly like one that does not exist.
    if (!item || item.account !== account.username || item.status !== 'approved') throw new ApiError('itemNotFound');
    return `"item":${serializeItem(item, variant.config)}`;
  },
};
