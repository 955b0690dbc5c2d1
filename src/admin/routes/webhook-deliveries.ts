import { recentDeliveries } from '../../webhooks/webhook-endpoints.js';
import { sendAdminJson } from '../admin-errors.js';
import { adminRoute } from '../admin-route.js';
import { AccountItemParams } from './admin-params.js';
import { webhookProblem } from './webhook-problem.js';

/** Deliveries the list shows, newest first. */
const DELIVERIES_LISTED = 50;

/** `GET /accounts/{username}/webhooks/{id}/deliveries`: the endpoint's last deliveries. */
export const webhookDeliveriesRoute = adminRoute({
  method: 'GET',
  url: '/accounts/:username/webhooks/:id/deliveries',
  schema: { params: AccountItemParams },
  handler: async (request, reply, { webhooks }) => {
    const result = await recentDeliveries(
      webhooks.store,
      request.params.username,
      request.params.id,
      DELIVERIES_LISTED,
    );
    if (!result.ok) return webhookProblem(reply, result);
    return sendAdminJson(reply, 200, { deliveries: result.deliveries });
  },
});
