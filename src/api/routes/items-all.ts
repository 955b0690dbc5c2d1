import { ApiError } from '../api-error.js';
import { authenticate } from '../authenticate.js';
import type { Endpoint } from '../endpoint.js';
import { apiKeyParam } from '../params.js';

export const itemsAll: Endpoint = {
  method: 'GET',
  path: '/api/items/all',
  async handle(request, variant, context) {
    const { cache } = context;
    const apiKey = apiKeyParam(request, undefined, variant.config.texts);
    const account = await authenticate(request, context, apiKey);
    const answer = await cache.approvedItems(account.username, variant);
    if (answer === undefined) throw ApiError.of('noItems');
    return answer;
  },
};
