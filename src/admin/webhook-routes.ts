import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  createEndpoint,
  deleteEndpoint,
  type EndpointProblem,
  listEndpoints,
  recentDeliveries,
  replayEvents,
  retryDelivery,
  rotateEndpointSecret,
  sendTestEvent,
  setEndpointEnabled,
  type WebhookServiceDeps,
} from '../webhooks/webhook-endpoints.js';
import { sendAdminError, sendAdminJson } from './admin-errors.js';

type Params = { username: string; id: string; eventId: string };
type Request = FastifyRequest<{ Params: Params }>;

const bodyOf = (request: FastifyRequest): Record<string, unknown> =>
  request.body !== null && typeof request.body === 'object' ? (request.body as Record<string, unknown>) : {};

const problem = (reply: FastifyReply, result: EndpointProblem) => sendAdminError(reply, result.problem, result.message);

/**
 * `/accounts/{username}/webhooks`: a seller's webhook endpoints (issue 25). The secret is in the
 * answer of the POST that makes the endpoint (and of a secret rotation) only.
 */
export function webhookRoutes(scope: FastifyInstance, deps: WebhookServiceDeps): void {
  const base = '/accounts/:username/webhooks';

  scope.post(base, async (request: Request, reply) => {
    const body = bodyOf(request);
    const result = await createEndpoint(deps, request.params.username, {
      url: body.url,
      events: body.events,
      lang: body.lang,
    });
    if (!result.ok) return problem(reply, result);
    request.log.info({ reqId: request.id, action: 'add webhook' }, 'admin: account changed');
    return sendAdminJson(reply, 201, { id: result.id, secret: result.secret });
  });

  scope.get(base, async (request: Request, reply) => {
    const endpoints = await listEndpoints(deps.store, request.params.username);
    if (endpoints === undefined) return sendAdminError(reply, 'account_not_found');
    return sendAdminJson(reply, 200, { webhooks: endpoints });
  });

  scope.delete(`${base}/:id`, async (request: Request, reply) => {
    const result = await deleteEndpoint(deps.store, request.params.username, request.params.id);
    if (!result.ok) return problem(reply, result);
    request.log.info({ reqId: request.id, action: 'delete webhook' }, 'admin: account changed');
    return sendAdminJson(reply, 200, { id: request.params.id, deleted: true });
  });

  scope.get(`${base}/:id/deliveries`, async (request: Request, reply) => {
    const result = await recentDeliveries(deps.store, request.params.username, request.params.id, 50);
    if (!result.ok) return problem(reply, result);
    return sendAdminJson(reply, 200, { deliveries: result.deliveries });
  });

  scope.post(`${base}/:id/replay`, async (request: Request, reply) => {
    const body = bodyOf(request);
    const result = await replayEvents(deps, request.params.username, request.params.id, {
      from: body.from,
      to: body.to,
    });
    if (!result.ok) return problem(reply, result);
    return sendAdminJson(reply, 200, { replayed: result.replayed });
  });

  scope.post(`${base}/:id/deliveries/:eventId/retry`, async (request: Request, reply) => {
    const { username, id, eventId } = request.params;
    const result = await retryDelivery(deps, username, id, eventId);
    if (!result.ok) return problem(reply, result);
    return sendAdminJson(reply, 200, { event_id: eventId, state: 'pending' });
  });

  scope.post(`${base}/:id/test`, async (request: Request, reply) => {
    const result = await sendTestEvent(deps, request.params.username, request.params.id);
    if (!result.ok) return problem(reply, result);
    return sendAdminJson(reply, 202, { event_id: result.event_id });
  });

  scope.post(`${base}/:id/secret`, async (request: Request, reply) => {
    const result = await rotateEndpointSecret(deps, request.params.username, request.params.id);
    if (!result.ok) return problem(reply, result);
    request.log.info({ reqId: request.id, action: 'rotate webhook secret' }, 'admin: account changed');
    return sendAdminJson(reply, 200, {
      secret: result.secret,
      previous_secret_works_until: result.previous_secret_works_until,
    });
  });

  for (const action of ['enable', 'disable'] as const) {
    scope.post(`${base}/:id/${action}`, async (request: Request, reply) => {
      const result = await setEndpointEnabled(deps, request.params.username, request.params.id, action === 'enable');
      if (!result.ok) return problem(reply, result);
      return sendAdminJson(reply, 200, { id: request.params.id, enabled: action === 'enable' });
    });
  }
}
