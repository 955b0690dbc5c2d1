import { serializeItem } from '../../domain/serialize.js';
import { ApiError } from '../api-error.js';
import { authenticate } from '../authenticate.js';
import type { Endpoint } from '../endpoint.js';
import { apiKeyParam } from '../params.js';

export const itemsAll: Endpoint = {
  method: 'GET',
  path: '/api/items/all',
  async handle(request, variant, { store, keys }) {
    const apiKey = apiKeyParam(request, undefined, variant.config.texts);
    const account = await authenticate(store, keys, apiKey);
    const items = await store.approvedItemsOf(account.username);
    if (items.length === 0) throw new ApiError('noItems');
    return `"items":[${items.map((item) => serializeItem(item, variant.config)).join(',')}]`;
  },
};
