import { Type } from '@sinclair/typebox';
import { AsGiven } from '../../web/request-parts.js';
import { createEndpoint } from '../../webhooks/webhook-endpoints.js';
import { sendAdminJson } from '../admin-errors.js';
import { adminRoute } from '../admin-route.js';
import { AccountParams } from './admin-params.js';
import { webhookProblem } from './webhook-problem.js';

/** `{"url", "events", "lang"}`, each checked by createEndpoint, which says what is wrong. */
const WebhookBody = Type.Object({ url: AsGiven, events: AsGiven, lang: AsGiven });

/**
 * `POST /accounts/{username}/webhooks`: a seller's webhook endpoint; its secret is in this answer
 * (and a rotation's) only.
 */
export const addWebhookRoute = adminRoute({
  method: 'POST',
  url: '/accounts/:username/webhooks',
  schema: { params: AccountParams, body: WebhookBody },
  handler: async (request, reply, { webhooks }) => {
    const { url, events, lang } = request.body;
    const result = await createEndpoint(webhooks, request.params.username, { url, events, lang });
    if (!result.ok) return webhookProblem(reply, result);
    request.log.info({ reqId: request.id, action: 'add webhook' }, 'admin: account changed');
    return sendAdminJson(reply, 201, { id: result.id, secret: result.secret });
  },
});
