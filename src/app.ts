import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { ADMIN_PREFIX, adminPlugin } from './admin/admin-plugin.js';
import apiRoutes from './api/api-routes.js';
import { endpoints } from './api/routes/index.js';
import type { Config } from './config.js';
import { healthPlugin } from './health/health-plugin.js';
import type { KeyMaterial } from './keys/server-secret.js';
import { requestMetricsPlugin } from './metrics/request-metrics-plugin.js';
import { createServiceMetrics, type ServiceMetrics } from './metrics/service-metrics.js';
import { openApiPlugin } from './openapi/openapi-plugin.js';
import accessLog from './server/access-log.js';
import admission from './server/admission.js';
import errorHandling from './server/error-handling.js';
import { FastLane } from './server/fast-lane.js';
import requestId from './server/request-id.js';
import { createServerOptions } from './server/server-options.js';
import type { Store } from './store/store.js';
import { createVariantResolver } from './variants/variant-runtime.js';
import { workspacePlugin } from './web/workspace-plugin.js';

export interface AppOptions {
  readonly config: Config;
  readonly store: Store;
  readonly keys: KeyMaterial;
  readonly logger: FastifyBaseLogger;
  /** The process's metrics; a registry of the app's own when left out (tests). */
  readonly metrics?: ServiceMetrics;
  /** The Prometheus text `/admin/v1/metrics` serves: every worker's, summed; this app's registry when left out. */
  readonly metricsText?: () => Promise<string>;
  /** True once the process is stopping: `/readyz` answers 503 from then on. */
  readonly isShuttingDown?: () => boolean;
}

/**
 * Builds the HTTP app over an open store from its plugins: error handling and admission at the
 * root, then each surface. `main.ts` runs it; tests build it the same way.
 */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config, store, keys, logger } = options;
  const metrics = options.metrics ?? createServiceMetrics();
  const resolver = createVariantResolver(config.variants);
  const lane = new FastLane();
  const app = Fastify(createServerOptions(logger, resolver, config.trustProxy, lane));
  app.decorate('fastLane', lane);
  await app.register(requestId);
  await app.register(errorHandling, { resolver, metrics });
  await app.register(admission, { config, resolver, metrics });
  await app.register(accessLog);
  await app.register(requestMetricsPlugin, { metrics, endpointPaths: endpoints.map((endpoint) => endpoint.path) });
  await app.register(apiRoutes, { config, store, keys, resolver, metrics, lane });
  await app.register(healthPlugin, { store, isShuttingDown: options.isShuttingDown });
  await app.register(openApiPlugin, { config, resolver });
  await app.register(workspacePlugin, { config, store, keys, resolver });
  await app.register(adminPlugin, {
    prefix: ADMIN_PREFIX,
    config,
    store,
    keys,
    metrics,
    metricsText: options.metricsText ?? (() => metrics.registry.metrics()),
  });
  return app;
}
