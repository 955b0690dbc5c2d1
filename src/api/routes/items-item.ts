import { Item } from '../../schemas/resource-schemas.js';
import { ApiError, unlessRefused } from '../api-error.js';
import { authenticate } from '../authenticate.js';
import type { ContractEndpoint } from '../endpoint.js';
import { after } from '../maybe-async.js';
import { apiKeyParam, itemIdParam } from '../params.js';

export const itemsItem: ContractEndpoint = {
  method: 'GET',
  path: '/api/items/item',
  contract: {
    shape: 'contract',
    operationId: 'itemsItem',
    summary: 'One item',
    description: "One approved item of the key's account; another seller's item is a 404 like a missing one.",
    params: [
      {
        name: 'item_id',
        description: 'A positive integer: digits only, at most 15 (007 is item 7)',
        sources: ['query'],
        pattern: '^\\s*\\d{1,15}\\s*$',
        integer: true,
      },
    ],
    success: { item: Item },
    notFound: ['itemNotFound'],
  },
  handle(request, variant, context) {
    const { texts } = variant.config;
    const apiKey = apiKeyParam(request, undefined, texts);
    if (apiKey instanceof ApiError) return apiKey;
    const itemId = itemIdParam([request.query], texts);
    if (itemId instanceof ApiError) return itemId;
    return unlessRefused(authenticate(request, context, apiKey), (account) =>
      after(context.cache.item(itemId, variant), (item) => {
        // Another seller's item answers exactly like one that does not exist.
        if (item?.account !== account.username || item.status !== 'approved') {
          return ApiError.of('itemNotFound');
        }
        return item.answer[variant.index] as Buffer;
      }),
    );
  },
};
