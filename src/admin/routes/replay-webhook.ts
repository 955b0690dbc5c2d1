import { Type } from '@sinclair/typebox';
import { AsGiven } from '../../web/request-parts.js';
import { replayEvents } from '../../webhooks/webhook-endpoints.js';
import { sendAdminJson } from '../admin-errors.js';
import { adminRoute } from '../admin-route.js';
import { AccountItemParams } from './admin-params.js';
import { webhookProblem } from './webhook-problem.js';

/** `{"from", "to"}`: the events' window, checked by replayEvents. */
const ReplayBody = Type.Object({ from: AsGiven, to: AsGiven });

/** `POST /accounts/{username}/webhooks/{id}/replay`: the window's events sent again. */
export const replayWebhookRoute = adminRoute({
  method: 'POST',
  url: '/accounts/:username/webhooks/:id/replay',
  schema: { params: AccountItemParams, body: ReplayBody },
  handler: async (request, reply, { webhooks }) => {
    const { from, to } = request.body;
    const result = await replayEvents(webhooks, request.params.username, request.params.id, { from, to });
    if (!result.ok) return webhookProblem(reply, result);
    return sendAdminJson(reply, 200, { replayed: result.replayed });
  },
});
