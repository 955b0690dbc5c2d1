import { deleteEndpoint } from '../../webhooks/webhook-endpoints.js';
import { sendAdminJson } from '../admin-errors.js';
import { adminRoute } from '../admin-route.js';
import { AccountItemParams } from './admin-params.js';
import { webhookProblem } from './webhook-problem.js';

/** `DELETE /accounts/{username}/webhooks/{id}`. */
export const deleteWebhookRoute = adminRoute({
  method: 'DELETE',
  url: '/accounts/:username/webhooks/:id',
  schema: { params: AccountItemParams },
  handler: async (request, reply, { webhooks }) => {
    const result = await deleteEndpoint(webhooks.store, request.params.username, request.params.id);
    if (!result.ok) return webhookProblem(reply, result);
    request.log.info({ reqId: request.id, action: 'delete webhook' }, 'admin: account changed');
    return sendAdminJson(reply, 200, { id: request.params.id, deleted: true });
  },
});
