import type { FastifyInstance, HTTPMethods } from 'fastify';
import { classifyError, reportFailure } from '../server/error-classifier.js';
import { pathOf } from '../server/url-path.js';
import { partsValidatorCompiler } from '../web/request-parts.js';
import { sendAdminError } from './admin-errors.js';
import type { AdminPluginOptions } from './admin-options.js';
import type { AdminRoute } from './admin-route.js';
import { createAdminTokenCheck } from './admin-token.js';
import { accountActionRoutes } from './routes/account-actions.js';
import { activationLimitRoute } from './routes/activation-limit.js';
import { addApiKeyRoute } from './routes/add-api-key.js';
import { addWebhookRoute } from './routes/add-webhook.js';
import { deleteWebhookRoute } from './routes/delete-webhook.js';
import { exportRoute } from './routes/export.js';
import { importRoute } from './routes/import.js';
import { listApiKeysRoute } from './routes/list-api-keys.js';
import { listWebhooksRoute } from './routes/list-webhooks.js';
import { metricsRoute } from './routes/metrics.js';
import { purchaseActionRoutes } from './routes/purchase-actions.js';
import { replayWebhookRoute } from './routes/replay-webhook.js';
import { retryDeliveryRoute } from './routes/retry-delivery.js';
import { revokeApiKeyRoute } from './routes/revoke-api-key.js';
import { rotateApiKeyRoute } from './routes/rotate-api-key.js';
import { rotateWebhookSecretRoute } from './routes/rotate-webhook-secret.js';
import { testWebhookRoute } from './routes/test-webhook.js';
import { webhookDeliveriesRoute } from './routes/webhook-deliveries.js';
import { webhookEnabledRoutes } from './routes/webhook-enabled.js';

export type { AdminPluginOptions } from './admin-options.js';
export { ADMIN_IMPORT_LIMIT_BYTES } from './routes/import.js';

/** Where the admin API lives. */
export const ADMIN_PREFIX = '/admin/v1';

const METHODS: HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'];

/** The admin API's routes, each a file of routes/ with the schemas of its parts. */
const ROUTES: readonly AdminRoute[] = [
  ...purchaseActionRoutes,
  ...accountActionRoutes,
  rotateApiKeyRoute,
  activationLimitRoute,
  importRoute,
  exportRoute,
  addWebhookRoute,
  listWebhooksRoute,
  deleteWebhookRoute,
  webhookDeliveriesRoute,
  replayWebhookRoute,
  retryDeliveryRoute,
  testWebhookRoute,
  rotateWebhookSecretRoute,
  ...webhookEnabledRoutes,
  addApiKeyRoute,
  listApiKeysRoute,
  revokeApiKeyRoute,
  metricsRoute,
];

/**
 * The admin API (`/admin/v1/...`) for the storefront and operators: imports, purchase and account
 * changes, key rotation, export, metrics. Every request needs `Authorization: Bearer $ADMIN_TOKEN`;
 * with no ADMIN_TOKEN configured the whole prefix answers 404. Answers and errors are JSON of its
 * own (`{code, message}`), not the seller API's envelope. Writes go through the store, whose change
 * signal clears the caches of this and every other instance. Each route is a file of routes/.
 */
export async function adminPlugin(scope: FastifyInstance, options: AdminPluginOptions): Promise<void> {
  const token = options.config.adminToken;
  if (token === undefined) {
    scope.route({ method: METHODS, url: '/*', handler: (_request, reply) => sendAdminError(reply, 'not_found') });
    scope.route({ method: METHODS, url: '/', handler: (_request, reply) => sendAdminError(reply, 'not_found') });
    return;
  }
  const tokenIsValid = createAdminTokenCheck(token);

  scope.addHook('onRequest', (request, reply, done) => {
    if (!tokenIsValid(request.headers.authorization)) {
      sendAdminError(reply.header('www-authenticate', 'Bearer'), 'unauthorized');
      return;
    }
    done();
  });

  scope.setErrorHandler((error, request, reply) => {
    const failure = classifyError(error);
    reportFailure(failure, { surface: 'admin', reqId: request.id, log: request.log, metrics: options.metrics });
    switch (failure.kind) {
      case 'serviceUnavailable':
        return sendAdminError(reply, 'service_unavailable');
      case 'internal':
        return sendAdminError(reply, 'internal');
      case 'bodyTooLarge':
        return sendAdminError(reply, 'body_too_large');
      default:
        return sendAdminError(reply, 'malformed_request');
    }
  });

  // Every route's params, query and body are TypeBox objects, checked and decoded before its handler.
  scope.setValidatorCompiler(partsValidatorCompiler);
  for (const route of ROUTES) await route(scope, options);

  // Anything else under the prefix: 405 where the path exists with another method, else 404.
  scope.route({
    method: METHODS,
    url: '/*',
    handler: (request, reply) => {
      const path = pathOf(request.url).slice(ADMIN_PREFIX.length).replace(/\/$/, '');
      const known = ADMIN_PATHS.find(({ pattern }) => pattern.test(path));
      if (!known) return sendAdminError(reply, 'not_found');
      return sendAdminError(reply.header('allow', known.allow), 'method_not_allowed');
    },
  });
}
/** The admin paths and their methods, for the 405's `Allow`. */
const ADMIN_PATHS = [
  { pattern: /^\/import$/, allow: 'POST' },
  { pattern: /^\/(export|metrics)$/, allow: 'GET, HEAD' },
  { pattern: /^\/purchases\/[^/]+\/(refund|cancel|downloaded)$/, allow: 'POST' },
  { pattern: /^\/items\/[^/]+\/activation-limit$/, allow: 'PUT' },
  { pattern: /^\/accounts\/[^/]+\/(suspend|reactivate|api-key)$/, allow: 'POST' },
  { pattern: /^\/accounts\/[^/]+\/api-keys$/, allow: 'GET, HEAD, POST' },
  { pattern: /^\/accounts\/[^/]+\/api-keys\/[^/]+$/, allow: 'DELETE' },
  { pattern: /^\/accounts\/[^/]+\/webhooks$/, allow: 'GET, HEAD, POST' },
  { pattern: /^\/accounts\/[^/]+\/webhooks\/[^/]+$/, allow: 'DELETE' },
  { pattern: /^\/accounts\/[^/]+\/webhooks\/[^/]+\/deliveries$/, allow: 'GET, HEAD' },
  {
    pattern: /^\/accounts\/[^/]+\/webhooks\/[^/]+\/(replay|test|secret|enable|disable|deliveries\/[^/]+\/retry)$/,
    allow: 'POST',
  },
] as const;
