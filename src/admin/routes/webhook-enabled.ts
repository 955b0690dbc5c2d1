import { setEndpointEnabled } from '../../webhooks/webhook-endpoints.js';
import { sendAdminJson } from '../admin-errors.js';
import { adminRoute } from '../admin-route.js';
import { AccountItemParams } from './admin-params.js';
import { webhookProblem } from './webhook-problem.js';

/** `POST /accounts/{username}/webhooks/{id}/enable|disable`. */
export const webhookEnabledRoutes = (['enable', 'disable'] as const).map((action) =>
  adminRoute({
    method: 'POST',
    url: `/accounts/:username/webhooks/:id/${action}`,
    schema: { params: AccountItemParams },
    handler: async (request, reply, { webhooks }) => {
      const { username, id } = request.params;
      const result = await setEndpointEnabled(webhooks, username, id, action === 'enable');
      if (!result.ok) return webhookProblem(reply, result);
      return sendAdminJson(reply, 200, { id, enabled: action === 'enable' });
    },
  }),
);
