import { rotateEndpointSecret } from '../../webhooks/webhook-endpoints.js';
import { sendAdminJson } from '../admin-errors.js';
import { adminRoute } from '../admin-route.js';
import { AccountItemParams } from './admin-params.js';
import { webhookProblem } from './webhook-problem.js';

/** `POST /accounts/{username}/webhooks/{id}/secret`: a new secret, and until when the old one signs too. */
export const rotateWebhookSecretRoute = adminRoute({
  method: 'POST',
  url: '/accounts/:username/webhooks/:id/secret',
  schema: { params: AccountItemParams },
  handler: async (request, reply, { webhooks }) => {
    const result = await rotateEndpointSecret(webhooks, request.params.username, request.params.id);
    if (!result.ok) return webhookProblem(reply, result);
    request.log.info({ reqId: request.id, action: 'rotate webhook secret' }, 'admin: account changed');
    return sendAdminJson(reply, 200, {
      secret: result.secret,
      previous_secret_works_until: result.previous_secret_works_until,
    });
  },
});
