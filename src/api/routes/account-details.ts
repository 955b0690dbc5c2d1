import { unlessRefused } from '../api-error.js';
import { authenticate } from '../authenticate.js';
import type { Endpoint } from '../endpoint.js';
import { apiKeyParam } from '../params.js';

export const accountDetails: Endpoint = {
  method: 'GET',
  path: '/api/account/details',
  handle(request, variant, context) {
    const apiKey = apiKeyParam(request, undefined, variant.config.texts);
    return unlessRefused(
      authenticate(request, context, apiKey, variant),
      (account) => account.json[variant.index] as Buffer,
    );
  },
};
