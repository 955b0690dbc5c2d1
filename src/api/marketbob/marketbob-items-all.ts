import { ApiError, unlessRefused } from '../api-error.js';
import type { Endpoint } from '../endpoint.js';
import { after } from '../maybe-async.js';
import { apiKeyParam } from '../params.js';
import { authenticateHolder } from './marketbob-auth.js';

/**
 * An author's approved items, newest first, as MarketBob answers them; 404 `No items found` for
 * none, a key that is not an author's, or an unknown key (which spends the guessing budget as a
 * 401 would). One item is answered as a list of one, where MarketBob's own code answers 404.
 */
export const marketbobItemsAll: Endpoint = {
  method: 'GET',
  path: '/api/items/all',
  handle(request, variant, context) {
    const apiKey = apiKeyParam(request, undefined, variant.config.texts);
    return unlessRefused(authenticateHolder(request, context, apiKey, ApiError.guessed('noItems')), (account) =>
      account.marketbob.isAuthor
        ? after(context.cache.approvedItems(account.username, variant), (answer) => answer ?? ApiError.of('noItems'))
        : ApiError.of('noItems'),
    );
  },
};
