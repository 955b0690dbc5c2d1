import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { EndpointSettings } from '../api/endpoint.js';
import type { SigningKeys } from '../signing/signing-keys.js';
import type { VariantConfig } from '../variants/variant-config.js';
import type { VariantResolver } from '../variants/variant-runtime.js';
import { brandPaths, logoHref, PRODUCT_NAME } from '../web/workspace-brand.js';
import type { WorkspaceSettings } from '../web/workspace-config.js';
import { docsLanguages } from './docs-languages.js';
import { DOCS_SECURITY_HEADERS, docsCss, docsHtml, docsStartScript, swaggerUiAssets } from './docs-page.js';
import { buildOpenApiDocument } from './openapi-document.js';

/** What the docs plugin needs: the variants, whether purchases show `supported_until`, the endpoints' config-bound limits. */
export interface OpenApiPluginOptions {
  readonly config: EndpointSettings & {
    readonly variants: readonly VariantConfig[];
    readonly support: boolean;
    /** The marketplace's name and favicon on the page. */
    readonly workspace?: Pick<WorkspaceSettings, 'brand'>;
  };
  /** The app's variant resolver (built once, in buildApp). */
  readonly resolver: VariantResolver;
  /** The deployment's signing keys: the served documents name the public keys published now. */
  readonly signingKeys?: SigningKeys;
}

/** What one variant serves under `{base}`: its document, its page and the page's start script. */
interface VariantDocs {
  /** The document as last built, and the key set it names (built again once a rotation changed it). */
  documentText: string;
  keysShown: Buffer | undefined;
  readonly html: string;
  readonly startScript: string;
  readonly css: string;
}

/**
 * Publishes each variant's OpenAPI document at `{base}/openapi.json` and a Swagger UI page
 * rendering it at `{base}/docs` (docs-page.ts), served from the installed packages (no CDN).
 * Registered after the API routes; it adds routes only, so the API answers as before, and any
 * other path still gets the contract's 404.
 */
export async function openApiPlugin(
  app: FastifyInstance,
  { config, resolver, signingKeys }: OpenApiPluginOptions,
): Promise<void> {
  const served = new Map<VariantConfig, VariantDocs>();
  for (const variant of config.variants) {
    const language = docsLanguages[variant.lang];
    served.set(variant, {
      documentText: JSON.stringify(buildOpenApiDocument(variant, config.support, signingKeys?.published, config)),
      keysShown: signingKeys?.jwks,
      html: docsHtml(language, variant.prefix, {
        name: config.workspace?.brand?.name === PRODUCT_NAME ? undefined : config.workspace?.brand?.name,
        icon:
          (config.workspace?.brand && logoHref(config.workspace.brand, variant.prefix)) ??
          brandPaths(variant.prefix).icon,
      }),
      startScript: docsStartScript(`${variant.prefix}/openapi.json`, language),
      css: docsCss(language),
    });
  }
  const assets = swaggerUiAssets();

  for (const prefix of resolver.prefixes) {
    // Variants may share a prefix and differ by host: each request gets its own variant's texts.
    const route = (path: string, send: (docs: VariantDocs, reply: FastifyReply) => FastifyReply) =>
      app.get(`${prefix}${path}`, (request: FastifyRequest, reply) => {
        const variant = resolver.forPrefix(prefix, request.host);
        const docs = variant && served.get(variant.config);
        if (!docs) return reply.callNotFound();
        return send(docs, reply.code(200));
      });

    route('/openapi.json', (docs, reply) => {
      if (signingKeys && docs.keysShown !== signingKeys.jwks) {
        const variant = resolver.forPrefix(prefix, reply.request.host)?.config;
        if (variant)
          docs.documentText = JSON.stringify(
            buildOpenApiDocument(variant, config.support, signingKeys.published, config),
          );
        docs.keysShown = signingKeys.jwks;
      }
      return reply.type('application/json; charset=utf-8').header('cache-control', 'no-cache').send(docs.documentText);
    });
    route('/docs', (docs, reply) =>
      reply.headers(DOCS_SECURITY_HEADERS).type('text/html; charset=utf-8').send(docs.html),
    );
    route('/docs/docs-start.js', (docs, reply) =>
      reply.type('text/javascript; charset=utf-8').header('cache-control', 'no-cache').send(docs.startScript),
    );
    route('/docs/docs.css', (docs, reply) =>
      reply.type('text/css; charset=utf-8').header('cache-control', 'no-cache').send(docs.css),
    );
    for (const [name, asset] of assets) {
      route(`/docs/${name}`, (_docs, reply) =>
        reply.type(asset.type).header('cache-control', 'public, max-age=3600').send(asset.body),
      );
    }
  }
}
