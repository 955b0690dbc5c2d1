import { ApiError, unlessRefused } from '../api-error.js';
import { authenticate } from '../authenticate.js';
import type { Endpoint } from '../endpoint.js';
import { after } from '../maybe-async.js';
import { apiKeyParam } from '../params.js';

export const itemsAll: Endpoint = {
  method: 'GET',
  path: '/api/items/all',
  handle(request, variant, context) {
    const apiKey = apiKeyParam(request, undefined, variant.config.texts);
    return unlessRefused(authenticate(request, context, apiKey), (account) =>
      after(context.cache.approvedItems(account.username, variant), (answer) => answer ?? ApiError.of('noItems')),
    );
  },
};
