import { Type } from '@sinclair/typebox';
import { retryDelivery } from '../../webhooks/webhook-endpoints.js';
import { sendAdminJson } from '../admin-errors.js';
import { adminRoute } from '../admin-route.js';
import { webhookProblem } from './webhook-problem.js';

const DeliveryParams = Type.Object({ username: Type.String(), id: Type.String(), eventId: Type.String() });

/** `POST /accounts/{username}/webhooks/{id}/deliveries/{eventId}/retry`: the delivery queued again. */
export const retryDeliveryRoute = adminRoute({
  method: 'POST',
  url: '/accounts/:username/webhooks/:id/deliveries/:eventId/retry',
  schema: { params: DeliveryParams },
  handler: async (request, reply, { webhooks }) => {
    const { username, id, eventId } = request.params;
    const result = await retryDelivery(webhooks, username, id, eventId);
    if (!result.ok) return webhookProblem(reply, result);
    return sendAdminJson(reply, 200, { event_id: eventId, state: 'pending' });
  },
});
