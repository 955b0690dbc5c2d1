import type { TSchema } from '@sinclair/typebox';
import { MAX_DECIMALS } from '../schemas/resource-schemas.js';
import type { VariantConfig } from '../variants/variant-config.js';

/** What the OpenAPI documents of both shapes (openapi-document.ts, marketbob-document.ts) publish alike. */

export type Json = Record<string, unknown>;
export type Translate = (english: string) => string;

export const JSON_MEDIA = 'application/json';

/**
 * Plain JSON of a schema, each resource (titled as one of `components`) replaced by a reference to
 * its component. Our extension keyword (at most two decimals) stays out: strict validators such
 * as Ajv's reject unknown keywords, and integrators validate answers with the document; the
 * money's description says it.
 */
export function published(
  schema: TSchema,
  t: Translate,
  components: ReadonlySet<string>,
  asComponent = false,
): unknown {
  const walk = (node: unknown, top: boolean): unknown => {
    if (Array.isArray(node)) return node.map((child) => walk(child, false));
    if (node === null || typeof node !== 'object') return node;
    const title = (node as Json).title;
    if (!top && typeof title === 'string' && components.has(title)) return { $ref: `#/components/schemas/${title}` };
    return Object.fromEntries(
      Object.entries(node)
        .filter(([key]) => key !== MAX_DECIMALS)
        .map(([key, value]) => [
          key,
          // A schema's description, not a property that happens to be called `description`.
          key === 'description' && typeof value === 'string' ? t(value) : walk(value, false),
        ]),
    );
  };
  return walk(schema, asComponent);
}

/** The English name of each HTTP status a document lists. */
export const STATUS_TEXT: Readonly<Record<number, string>> = {
  200: 'Success',
  201: 'Created',
  400: 'Bad request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not found',
  405: 'Method not allowed',
  408: 'Request timeout',
  409: 'Conflict',
  413: 'Payload too large',
  415: 'Unsupported media type',
  429: 'Too many requests',
  500: 'Internal server error',
  503: 'Service unavailable',
};

/** Documented: JSON first (what Swagger UI shows first), then a form. */
export const BODY_MEDIA = ['application/json', 'application/x-www-form-urlencoded'] as const;

/** The server a variant is reached at: its configured base URL, without a trailing slash. */
export function variantServerUrl(variant: VariantConfig): string {
  return variant.baseUrl.replace(/\/+$/, '') || '/';
}
