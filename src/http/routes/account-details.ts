import { serializeAccount } from '../../domain/serialize.js';
import { authenticate } from '../authenticate.js';
import type { Endpoint } from '../endpoint.js';
import { apiKeyParam } from '../params.js';

export const accountDetails: Endpoint = {
  method: 'GET',
  path: '/api/account/details',
  async handle(request, variant, { store, keys }) {
    const apiKey = apiKeyParam(request, undefined, variant.config.texts);
    const account = await authenticate(store, keys, apiKey);
    return `"data":${serializeAccount(account, variant.config)}`;
  },
};
