import cluster from 'node:cluster';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type InjectOptions } from 'fastify';
import lightMyRequest, { type DispatchFunc } from 'light-my-request';
import { ADMIN_PREFIX, adminPlugin } from './admin/admin-plugin.js';
import { createApi } from './api/api.js';
import type { Config } from './config.js';
import { healthPlugin } from './health/health-plugin.js';
import type { KeyMaterial } from './keys/server-secret.js';
import { primaryCounters } from './limits/cluster-counters.js';
import { createLimits, type Limits } from './limits/limits.js';
import { requestMetricsPlugin } from './metrics/request-metrics-plugin.js';
import { createServiceMetrics, type ServiceMetrics } from './metrics/service-metrics.js';
import { jwksPlugin } from './openapi/jwks-plugin.js';
import { openApiPlugin } from './openapi/openapi-plugin.js';
import accessLog from './server/access-log.js';
import { ApiDoor } from './server/api-door.js';
import { closeIdleConnectionsWhileClosing } from './server/close-idle-connections.js';
import errorHandling from './server/error-handling.js';
import requestId from './server/request-id.js';
import { applyServerLimits } from './server/server-limits.js';
import { createServerOptions } from './server/server-options.js';
import { AnswerSigner } from './signing/answer-signer.js';
import { LicenseIssuer } from './signing/license-tokens.js';
import { SigningKeys } from './signing/signing-keys.js';
import { type Store, unavailableReason } from './store/store.js';
import { createVariantResolver } from './variants/variant-runtime.js';
import { packageVersion } from './version.js';
import { frontPagePlugin } from './web/front-page.js';
import { workspacePlugin } from './web/workspace-plugin.js';
import { createWebhooksService } from './webhooks/webhooks-service.js';
import { type BackgroundWriter, createBackgroundWriter } from './writer/background-writer.js';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * The budgets' machinery the API and the workspace count with (shared through Redis when
     * REDIS_URL is set): operators' tools and tests flush it.
     */
    limits: Limits;
    /** Where this process's background writes go (see src/writer): operators' tools and tests look at it. */
    backgroundWriter: BackgroundWriter;
    /** The deployment's signing keys: tools and tests read them again after a rotation. */
    signingKeys: SigningKeys;
  }
}

/** How often a running server reads the signing keys again, to sign with the one a rotation made. */
const SIGNING_KEYS_REFRESH_MS = 60_000;

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
 * `app.inject` enters the server's own request handler, as a connection's requests do: the API's
 * door first, then Fastify. (Fastify's own enters its router, past the door, where no API route
 * is.) Tests and tools that inject reach the API by the production path.
 */
function injectThroughTheDoor(app: FastifyInstance): void {
  const handler = app.server.listeners('request')[0] as DispatchFunc;
  const inject = async (options: InjectOptions | string) => {
    await app.ready();
    return lightMyRequest(handler, options);
  };
  (app as unknown as { inject: typeof inject }).inject = inject;
}

/**
 * Builds the HTTP app over an open store: the API behind its door (src/server/api-door.ts), and
 * Fastify for the other surfaces (health, docs, the workspace, the admin API). `main.ts` runs it;
 * tests build it the same way and reach it through the same server (see `app.server`).
 */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config, store, keys, logger } = options;
  const metrics = options.metrics ?? createServiceMetrics();
  const resolver = createVariantResolver(config.variants);
  const limits = createLimits({
    redisUrl: config.redis?.url,
    redisKeyPrefix: config.redis?.keyPrefix,
    logger,
    // A worker's budgets are the machine's, held by the primary, whenever Redis is not in use.
    machineCounters: cluster.isWorker ? primaryCounters() : undefined,
  });
  const writer = createBackgroundWriter(config.store, store, (error) =>
    logger.error(
      { reason: unavailableReason(error) },
      'the background writer thread stopped; another starts with the next write',
    ),
  );
  const signingKeys = await SigningKeys.open(store.signingKeys(), keys, config.licenses.tokenDays);
  const api = createApi({
    config,
    store,
    keys,
    resolver,
    metrics,
    limits,
    licenses: new LicenseIssuer(signingKeys, config.licenses.tokenDays),
    warn: (error, message) => logger.warn({ err: error }, message),
    writes: writer,
  });
  const webhooks = createWebhooksService({
    store,
    keys,
    settings: config.webhooks,
    variants: config.variants,
    support: config.support,
    observer: {
      attempted: (outcome) => metrics.webhookAttempt(outcome),
      endpointDisabled: (endpointId) => {
        metrics.webhookEndpointDisabled();
        logger.warn({ endpointId }, 'webhooks: endpoint disabled after failing for too long');
      },
      error: (error, message) => logger.warn({ err: error }, message),
    },
    bookkeeping: () => writer.deliveries(),
  });
  const signer = new AnswerSigner(signingKeys);
  const door = new ApiDoor({
    api,
    resolver,
    trustProxy: config.trustProxy,
    metrics,
    log: logger,
    signer,
  });
  const app = Fastify(createServerOptions(logger, resolver, config.trustProxy, door));
  applyServerLimits(app.server, config.server);
  closeIdleConnectionsWhileClosing(app);
  app.decorate('limits', limits);
  app.decorate('backgroundWriter', writer);
  app.decorate('signingKeys', signingKeys);
  const keysRefresh = setInterval(() => {
    signingKeys
      .refresh()
      .catch((error: unknown) => logger.warn({ err: error }, 'could not read the signing keys again'));
  }, SIGNING_KEYS_REFRESH_MS);
  keysRefresh.unref();
  app.addHook('onClose', async () => {
    clearInterval(keysRefresh);
    signer.close();
    await webhooks.close();
    await api.close();
    await limits.close();
    // Last: the flushes above hand their writes to it, and it waits for every one before stopping.
    await writer.close();
  });
  await app.register(requestId);
  await app.register(errorHandling, { resolver, metrics });
  await app.register(accessLog);
  await app.register(requestMetricsPlugin, { metrics });
  await app.register(healthPlugin, { store, isShuttingDown: options.isShuttingDown });
  await app.register(openApiPlugin, { config, resolver, signingKeys });
  await app.register(jwksPlugin, { resolver, signingKeys });
  await app.register(workspacePlugin, {
    config,
    store,
    keys,
    resolver,
    limits,
    webhooks: webhooks.deps,
    activity: api.activity,
    signingKeys,
  });
  await app.register(frontPagePlugin, { resolver, brand: config.workspace.brand, version: packageVersion() });
  injectThroughTheDoor(app);
  await app.register(adminPlugin, {
    prefix: ADMIN_PREFIX,
    config,
    store,
    keys,
    metrics,
    metricsText: options.metricsText ?? (() => metrics.registry.metrics()),
    webhooks: webhooks.deps,
  });
  // Every serving process delivers: claims keep two from sending the same attempt.
  app.addHook('onReady', async () => {
    // Its connection opened now: the first flush or claim finds it ready.
    writer.start();
    webhooks.start();
  });
  return app;
}
