import { Type } from '@sinclair/typebox';
import { Item } from '../../schemas/resource-schemas.js';
import { ApiError, unlessRefused } from '../api-error.js';
import { authenticate } from '../authenticate.js';
import type { ContractEndpoint } from '../endpoint.js';
import { after } from '../maybe-async.js';
import { apiKeyParam } from '../params.js';

export const itemsAll: ContractEndpoint = {
  method: 'GET',
  path: '/api/items/all',
  contract: {
    shape: 'contract',
    operationId: 'itemsAll',
    summary: 'All items',
    description: "Every approved item of the key's account, newest id first; a 404 when there are none.",
    params: [],
    success: { items: Type.Array(Item, { minItems: 1 }) },
    notFound: ['noItems'],
  },
  handle(request, variant, context) {
    const apiKey = apiKeyParam(request, undefined, variant.config.texts);
    if (apiKey instanceof ApiError) return apiKey;
    return unlessRefused(authenticate(request, context, apiKey), (account) =>
      after(context.cache.approvedItems(account.username, variant), (answer) => answer ?? ApiError.of('noItems')),
    );
  },
};
