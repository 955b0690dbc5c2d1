import formbody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';
import { createPurchaseActivity } from '../activity/purchase-activity.js';
import type { Config } from '../config.js';
import { digestApiKey } from '../keys/api-keys.js';
import { createKeyUsage } from '../keys/key-usage.js';
import type { KeyMaterial } from '../keys/server-secret.js';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import { type Store, unavailableReason } from '../store/store.js';
import { createApiAnswerer } from './api-answer.js';
import { BODY_LIMIT } from './body-limit.js';
import type { Endpoint, EndpointContext } from './endpoint.js';
import type { FastLane } from './fast-lane.js';
import { parseMultipart } from './multipart-body.js';
import { ResourceCache } from './resource-cache.js';
import { endpoints } from './routes/index.js';
import type { VariantResolver, VariantRuntime } from './variant-runtime.js';

export interface ApiRoutesOptions {
  readonly config: Config;
  readonly store: Store;
  readonly keys: KeyMaterial;
  readonly resolver: VariantResolver;
  readonly metrics: ServiceMetrics;
  /** Opened here, with the same endpoints and answerer as the routes. */
  readonly lane: FastLane;
}

/** JSON (Fastify's own), form and multipart bodies, nothing else (SPEC 2.1). */
async function registerBodyParsers(scope: FastifyInstance): Promise<void> {
  // Fastify's own text/plain parser goes: another content type is a 415.
  scope.removeContentTypeParser('text/plain');
  await scope.register(formbody, { bodyLimit: BODY_LIMIT });
  scope.addContentTypeParser('multipart/form-data', parseMultipart);
}

/**
 * The seller API (SPEC 2): each endpoint written once and registered under every variant's base,
 * behind the admission plugin's hook, and opened on the fast lane (which answers the requests it
 * takes the same way, without Fastify's lifecycle). Needs `error-handling` and `admission`
 * registered first.
 */
export default async function apiRoutes(
  app: FastifyInstance,
  { config, store, keys, resolver, metrics, lane }: ApiRoutesOptions,
): Promise<void> {
  const cache = new ResourceCache(store, (apiKey) => digestApiKey(keys, apiKey), { metrics, support: config.support });
  const { admission } = app;
  const { apiLimits } = admission;
  const keyUsage = createKeyUsage(store, (error) =>
    app.log.warn({ err: unavailableReason(error) }, 'could not record when API keys were last used'),
  );
  app.addHook('onClose', () => keyUsage.close());
  const activity = createPurchaseActivity(store, config.activity, keys, (error) =>
    app.log.warn({ err: unavailableReason(error) }, 'could not write purchase-code activity; kept for the next try'),
  );
  app.addHook('onClose', () => activity.close());
  const context: EndpointContext = { cache, limits: apiLimits, metrics, keyUsage, activity };
  const answer = createApiAnswerer(context);

  const register = (scope: FastifyInstance, prefix: string, endpoint: Endpoint) =>
    scope.route({
      method: endpoint.method,
      url: `${prefix}${endpoint.path}`,
      onRequest: admission.hookFor(prefix),
      handler: async (request, reply) => {
        request.handlerStarted = true;
        await answer(endpoint, request, reply, request.variant as VariantRuntime);
        return reply;
      },
    });

  for (const prefix of resolver.prefixes) {
    for (const endpoint of endpoints) if (endpoint.method === 'GET') register(app, prefix, endpoint);
  }
  // Body parsers live in a scope of their own with the POST routes: GET routes ignore bodies
  // (SPEC 2.1) and so skip the parsers' per-request hooks.
  const withBody = endpoints.filter((endpoint) => endpoint.method === 'POST');
  await app.register(async (scope) => {
    await registerBodyParsers(scope);
    for (const prefix of resolver.prefixes) for (const endpoint of withBody) register(scope, prefix, endpoint);
  });
  lane.open({ endpoints, resolver, trustProxy: config.trustProxy, admission, answer, metrics, log: app.log });
}
