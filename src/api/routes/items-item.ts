import { ApiError, unlessRefused } from '../api-error.js';
import { authenticate } from '../authenticate.js';
import type { Endpoint } from '../endpoint.js';
import { after } from '../maybe-async.js';
import { apiKeyParam, itemIdParam } from '../params.js';

export const itemsItem: Endpoint = {
  method: 'GET',
  path: '/api/items/item',
  handle(request, variant, context) {
    const { cache } = context;
    const { texts } = variant.config;
    const apiKey = apiKeyParam(request, undefined, texts);
    const itemId = itemIdParam([request.query], texts);
    return unlessRefused(authenticate(request, context, apiKey), (account) =>
      after(cache.item(itemId, variant), (item) => {
        // Another seller's item answers exactly like one that does not exist.
        if (item?.account !== account.username || item.status !== 'approved') {
          return ApiError.of('itemNotFound');
        }
        return item.answer[variant.index] as Buffer;
      }),
    );
  },
};
