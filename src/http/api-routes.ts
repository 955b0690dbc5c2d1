import formbody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { digestApiKey } from '../keys/api-keys.js';
import type { KeyMaterial } from '../keys/server-secret.js';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import type { Store } from '../store/store.js';
import { ApiError } from './api-error.js';
import { BODY_LIMIT } from './body-limit.js';
import type { Endpoint, EndpointContext } from './endpoint.js';
import { parseMultipart } from './multipart-body.js';
import { sendError, sendJson } from './reply.js';
import { ResourceCache } from './resource-cache.js';
import { endpoints } from './routes/index.js';
import type { VariantResolver, VariantRuntime } from './variant-runtime.js';

export interface ApiRoutesOptions {
  readonly config: Config;
  readonly store: Store;
  readonly keys: KeyMaterial;
  readonly resolver: VariantResolver;
  readonly metrics: ServiceMetrics;
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
 * behind the admission plugin's hook. Needs `error-handling` and `admission` registered first.
 */
export default async function apiRoutes(
  app: FastifyInstance,
  { config, store, keys, resolver, metrics }: ApiRoutesOptions,
): Promise<void> {
  const cache = new ResourceCache(store, (apiKey) => digestApiKey(keys, apiKey), { metrics, support: config.support });
  const { admission } = app;
  const { apiLimits } = admission;
  const context: EndpointContext = { cache, limits: apiLimits, metrics };
  const keyRefusals = metrics.limiter('key');

  const register = (scope: FastifyInstance, prefix: string, endpoint: Endpoint) =>
    scope.route({
      method: endpoint.method,
      url: `${prefix}${endpoint.path}`,
      onRequest: admission.hookFor(prefix),
      handler: async (request, reply) => {
        request.handlerStarted = true;
        const variant = request.variant as VariantRuntime;
        cache.refresh();
        try {
          const body = await endpoint.handle(request, variant, context);
          apiLimits.answered(request, reply);
          return sendJson(reply, 200, body);
        } catch (error) {
          if (!(error instanceof ApiError)) throw error;
          if (error.kind === 'tooManyRequests') keyRefusals.refused();
          await apiLimits.failed(request, reply, error);
          return sendError(reply, variant, error.kind, error.detail);
        }
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
}
