import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config, VariantConfig } from '../config.js';
import type { VariantResolver } from '../http/variant-runtime.js';
import { buildOpenApiDocument } from './openapi-document.js';

/** What the docs plugin needs: the variants and whether purchases show `supported_until`. */
export interface OpenApiPluginOptions {
  readonly config: Pick<Config, 'variants' | 'support'>;
  /** The app's variant resolver (built once, in buildApp). */
  readonly resolver: VariantResolver;
}

/**
 * Publishes each variant's OpenAPI document at `{base}/openapi.json` and a Swagger UI page
 * rendering it at `{base}/docs`, served from the installed @fastify/swagger-ui (no CDN).
 * Registered after the API routes; it adds routes only, so the API answers as before, and any
 * other path still gets the contract's 404.
 */
export async function openApiPlugin(app: FastifyInstance, { config, resolver }: OpenApiPluginOptions): Promise<void> {
  const documents = new Map<VariantConfig, { document: Record<string, unknown>; text: string }>();
  for (const variant of config.variants) {
    const document = buildOpenApiDocument(variant, config.support);
    documents.set(variant, { document, text: JSON.stringify(document) });
  }
  // Variants may share a prefix and differ by host: each request gets its own variant's document.
  const documentFor = (prefix: string, request: FastifyRequest) => {
    const variant = resolver.forPrefix(prefix, request.host);
    return variant && documents.get(variant.config);
  };

  for (const prefix of resolver.prefixes) {
    await app.register(async (scope) => {
      scope.get(`${prefix}/openapi.json`, (request, reply) => {
        const found = documentFor(prefix, request);
        if (!found) return reply.callNotFound();
        return reply
          .code(200)
          .type('application/json; charset=utf-8')
          .header('cache-control', 'no-cache')
          .send(found.text);
      });
      // The page asks `{base}/docs/json`, which answers through transformSpecification below;
      // @fastify/swagger only holds a document for it to start from.
      const first = [...documents].find(([variant]) => variant.prefix === prefix)?.[1].document;
      await scope.register(swagger, { mode: 'static', specification: { document: first as never } });
      await scope.register(swaggerUi, {
        routePrefix: `${prefix}/docs`,
        uiConfig: { deepLinking: true, docExpansion: 'list', tryItOutEnabled: false },
        transformSpecificationClone: false,
        transformSpecification: (fallback, request) => documentFor(prefix, request)?.document ?? fallback,
      });
    });
  }
}
