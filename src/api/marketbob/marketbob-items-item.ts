import { MarketbobItemsItemBody } from '../../schemas/marketbob-schemas.js';
import { ApiError, unlessRefused } from '../api-error.js';
import type { MarketbobEndpoint } from '../endpoint.js';
import { after } from '../maybe-async.js';
import { apiKeyParam } from '../params.js';
import { itemsItem } from '../routes/items-item.js';
import { authenticateHolder } from './marketbob-auth.js';
import { marketbobItemIdParam } from './marketbob-params.js';

/** One of the author's approved items as MarketBob answers it; 404 `Item Not Found` otherwise, an unknown key too. */
export const marketbobItemsItem: MarketbobEndpoint = {
  method: 'GET',
  path: itemsItem.path,
  contract: {
    shape: 'marketbob',
    operationId: 'itemsItem',
    summary: itemsItem.contract.summary,
    description: "One approved item of the key's author.",
    success: MarketbobItemsItemBody,
    messages: { 400: ['apiKeyRequired', 'itemIdRequired', 'itemIdNotInteger'], 404: ['itemNotFound', 'notFound'] },
  },
  handle(request, variant, context) {
    const { texts } = variant.config;
    const apiKey = apiKeyParam(request, undefined, texts);
    if (apiKey instanceof ApiError) return apiKey;
    const itemId = marketbobItemIdParam([request.query], texts);
    if (itemId instanceof ApiError) return itemId;
    const refusal = ApiError.of('itemNotFound');
    return unlessRefused(authenticateHolder(request, context, apiKey, refusal), (account) => {
      if (!account.marketbob.isAuthor || itemId === 0) return refusal;
      return after(context.cache.item(itemId, variant), (item) =>
        item?.account !== account.username || item.status !== 'approved'
          ? refusal
          : (item.answer[variant.index] as Buffer),
      );
    });
  },
};
