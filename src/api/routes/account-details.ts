import { authenticate } from '../authenticate.js';
import type { Endpoint } from '../endpoint.js';
import { apiKeyParam } from '../params.js';

export const accountDetails: Endpoint = {
  method: 'GET',
  path: '/api/account/details',
  async handle(request, variant, context) {
    const apiKey = apiKeyParam(request, undefined, variant.config.texts);
    const account = await authenticate(request, context, apiKey, variant);
    return account.json[variant.index] as Buffer;
  },
};
