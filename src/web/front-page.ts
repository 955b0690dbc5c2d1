import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Eta } from 'eta';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { VariantResolver } from '../variants/variant-runtime.js';
import { type LanguageLink, languageLinks } from './language-switch.js';
import { packageRoot } from './package-root.js';
import { workspaceLanguages } from './texts/workspace-languages.js';
import {
  type Brand,
  brandIconSvg,
  brandPaths,
  defaultBrand,
  imageSources,
  logoHref,
  PRODUCT_NAME,
} from './workspace-brand.js';

/** What every page's layout shows around its content: the brand and the language switch. */
export interface PageChrome {
  readonly brand: {
    readonly name: string;
    readonly initial: string;
    readonly logo: string | undefined;
    readonly icon: string;
    readonly css: string;
  };
  readonly languages: readonly LanguageLink[];
}

/** The layout's brand and language switch for a page under `prefix`, as this request reaches it. */
export function pageChrome(
  brand: Brand,
  resolver: VariantResolver,
  request: FastifyRequest,
  prefix: string,
): PageChrome {
  const paths = brandPaths(prefix);
  return {
    brand: {
      name: brand.name,
      initial: [...brand.name][0]?.toUpperCase() ?? '',
      logo: logoHref(brand, prefix),
      // The logo is the favicon when there is one; else the initial on the accent.
      icon: logoHref(brand, prefix) ?? paths.icon,
      css: paths.css,
    },
    languages: languageLinks(resolver, request),
  };
}

/** The headers of an HTML page of ours: as the workspace's, the logo's origin allowed when it is a URL. */
export const pageSecurityHeaders = (brand: Brand) =>
  ({
    'cache-control': 'no-store',
    'content-security-policy':
      `default-src 'none'; script-src 'self'; style-src 'self'; img-src ${imageSources(brand)}; connect-src 'self'; form-action 'self'; ` +
      "frame-ancestors 'none'; base-uri 'none'",
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
  }) as const;

/**
 * Whether the client asks for a page rather than JSON: it names `text/html` (browsers do, first)
 * and ranks it at least as high as JSON. A client that names neither (curl's `*\/*`, an API
 * client's `application/json`) keeps the contract's JSON 404.
 */
export function wantsHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  let html = -1;
  let json = -1;
  for (const part of accept.split(',')) {
    const [type = '', ...params] = part.split(';').map((piece) => piece.trim().toLowerCase());
    const qParam = params.find((param) => param.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    const weight = Number.isFinite(q) ? q : 0;
    if (type === 'text/html') html = Math.max(html, weight);
    else if (type === 'application/json') json = Math.max(json, weight);
  }
  return html > 0 && html >= json;
}

export interface FrontPageOptions {
  readonly resolver: VariantResolver;
  readonly brand: Brand | undefined;
  /** The service's version, shown under the links. */
  readonly version: string;
}

/**
 * Each variant's front page at its base (`/`, `/pt`, a host's root): the marketplace's and the
 * product's name, and the ways in (docs, OpenAPI document, workspace login), in the variant's
 * language, for a browser. Anything else asking there (no `text/html` in Accept) gets the contract's
 * JSON 404 as before; the API's paths never reach here (the API's door answers them). Also serves
 * the brand's favicon, logo file and colours under `{base}/brand/`.
 */
export async function frontPagePlugin(app: FastifyInstance, options: FrontPageOptions): Promise<void> {
  const { resolver, version } = options;
  const brand = options.brand ?? defaultBrand();
  const eta = new Eta({ views: join(packageRoot(), 'web', 'views'), cache: true });
  const headers = pageSecurityHeaders(brand);
  const icon = brandIconSvg(brand);
  // The accent in a stylesheet of its own: the pages' policy allows no inline style.
  const css = `:root{--accent:${brand.accent};--on-accent:${brand.onAccent}}\n`;
  const logoFile = brand.logo !== undefined && 'file' in brand.logo ? brand.logo : undefined;
  const logoBytes = logoFile && readFileSync(logoFile.file);

  for (const prefix of resolver.prefixes) {
    const paths = brandPaths(prefix);
    app.get(prefix || '/', (request: FastifyRequest, reply: FastifyReply) => {
      const variant = resolver.forPrefix(prefix, request.host);
      reply.header('vary', 'Accept');
      if (variant === undefined || !wantsHtml(request.headers.accept)) return reply.callNotFound();
      const t = workspaceLanguages[variant.config.lang];
      return reply
        .headers(headers)
        .type('text/html; charset=utf-8')
        .send(
          eta.render('./front', {
            t,
            base: prefix,
            title: t.site.front.title,
            front: true,
            product: PRODUCT_NAME,
            version,
            ...pageChrome(brand, resolver, request, prefix),
          }),
        );
    });
    app.get(paths.icon, (_request, reply) =>
      reply.headers(headers).type('image/svg+xml').header('cache-control', 'no-cache').send(icon),
    );
    app.get(paths.css, (_request, reply) =>
      reply.headers(headers).type('text/css; charset=utf-8').header('cache-control', 'no-cache').send(css),
    );
    if (logoFile && logoBytes) {
      app.get(paths.logo, (_request, reply) =>
        reply.headers(headers).type(logoFile.type).header('cache-control', 'no-cache').send(logoBytes),
      );
    }
  }
}
