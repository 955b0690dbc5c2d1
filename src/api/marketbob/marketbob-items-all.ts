import { MarketbobItemsAllBody } from '../../schemas/marketbob-schemas.js';
import { ApiError, unlessRefused } from '../api-error.js';
import type { MarketbobEndpoint } from '../endpoint.js';
import { after } from '../maybe-async.js';
import { apiKeyParam } from '../params.js';
import { itemsAll } from '../routes/items-all.js';
import { authenticateHolder } from './marketbob-auth.js';

/**
 * An author's approved items, newest first, as MarketBob answers them; 404 `No items found` for
 * none, a key that is not an author's, or an unknown key (which spends the guessing budget as a
 * 401 would). One item is answered as a list of one, where MarketBob's own code answers 404.
 */
export const marketbobItemsAll: MarketbobEndpoint = {
  method: 'GET',
  path: itemsAll.path,
  contract: {
    shape: 'marketbob',
    operationId: 'itemsAll',
    summary: itemsAll.contract.summary,
    description: "The approved items of the key's author, newest id first.",
    success: MarketbobItemsAllBody,
    messages: { 400: ['apiKeyRequired'], 404: ['noItemsFound', 'notFound'] },
  },
  handle(request, variant, context) {
    const apiKey = apiKeyParam(request, undefined, variant.config.texts);
    if (apiKey instanceof ApiError) return apiKey;
    return unlessRefused(authenticateHolder(request, context, apiKey, ApiError.guessed('noItems')), (account) =>
      account.marketbob.isAuthor
        ? after(context.cache.approvedItems(account.username, variant), (answer) => answer ?? ApiError.of('noItems'))
        : ApiError.of('noItems'),
    );
  },
};
