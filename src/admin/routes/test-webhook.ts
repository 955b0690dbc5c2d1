import { sendTestEvent } from '../../webhooks/webhook-endpoints.js';
import { sendAdminJson } from '../admin-errors.js';
import { adminRoute } from '../admin-route.js';
import { AccountItemParams } from './admin-params.js';
import { webhookProblem } from './webhook-problem.js';

/** `POST /accounts/{username}/webhooks/{id}/test`: a test event queued for the endpoint. */
export const testWebhookRoute = adminRoute({
  method: 'POST',
  url: '/accounts/:username/webhooks/:id/test',
  schema: { params: AccountItemParams },
  handler: async (request, reply, { webhooks }) => {
    const result = await sendTestEvent(webhooks, request.params.username, request.params.id);
    if (!result.ok) return webhookProblem(reply, result);
    return sendAdminJson(reply, 202, { event_id: result.event_id });
  },
});
