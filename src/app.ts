import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import accessLog from './http/access-log.js';
import admission from './http/admission.js';
import apiRoutes from './http/api-routes.js';
import errorHandling from './http/error-handling.js';
import { createServerOptions } from './http/server-options.js';
import { createVariantResolver } from './http/variant-runtime.js';
import type { KeyMaterial } from './keys/server-secret.js';
import { openApiPlugin } from './openapi/openapi-plugin.js';
import type { Store } from './store/store.js';
import { workspacePlugin } from './web/workspace-plugin.js';

export interface AppOptions {
  readonly config: Config;
  readonly store: Store;
  readonly keys: KeyMaterial;
  readonly logger: FastifyBaseLogger;
}

/**
 * Builds the HTTP app over an open store from its plugins: error handling and admission at the
 * root, then each surface. `main.ts` runs it; tests build it the same way.
 */
export async function buildApp({ config, store, keys, logger }: AppOptions): Promise<FastifyInstance> {
  const resolver = createVariantResolver(config.variants);
  const app = Fastify(createServerOptions(logger, resolver, config.trustProxy));
  await app.register(errorHandling, { resolver });
  await app.register(admission, { config, resolver });
  await app.register(accessLog);
  await app.register(apiRoutes, { config, store, keys, resolver });
  await app.register(openApiPlugin, { config });
  await app.register(workspacePlugin, { config, store, keys });
  return app;
}
