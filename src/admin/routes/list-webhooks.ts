import { listEndpoints } from '../../webhooks/webhook-endpoints.js';
import { sendAdminError, sendAdminJson } from '../admin-errors.js';
import { adminRoute } from '../admin-route.js';
import { AccountParams } from './admin-params.js';

/** `GET /accounts/{username}/webhooks`: the seller's endpoints (never their secrets). */
export const listWebhooksRoute = adminRoute({
  method: 'GET',
  url: '/accounts/:username/webhooks',
  schema: { params: AccountParams },
  handler: async (request, reply, { webhooks }) => {
    const endpoints = await listEndpoints(webhooks.store, request.params.username);
    if (endpoints === undefined) return sendAdminError(reply, 'account_not_found');
    return sendAdminJson(reply, 200, { webhooks: endpoints });
  },
});
