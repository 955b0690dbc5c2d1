import type { TSchema } from '@sinclair/typebox';
import type { VariantConfig } from '../config.js';
import { MAX_DECIMALS, resourceSchemas } from '../schemas/resource-schemas.js';
import { errorEnvelope, routeResponseSchemas } from '../schemas/response-schemas.js';
import { type RouteContract, routeContracts, routeErrorKinds } from '../schemas/route-contracts.js';
import type { ErrorKind } from '../variants/error-kinds.js';
import type { VariantTexts } from '../variants/variant-texts.js';
import { EXAMPLE_ITEM_ID, EXAMPLE_PURCHASE_CODE, exampleSuccessMembers } from './openapi-examples.js';

/**
 * The OpenAPI 3.1 document of one variant, built from the contract's schemas (src/schemas):
 * no shape is written here, only how the schemas are published. `npm run openapi` writes the
 * shipped variants' documents to openapi/; a test fails when those drift from this.
 */

type Json = Record<string, unknown>;

const JSON_MEDIA = 'application/json';
const COMPONENT_NAMES = new Set(Object.keys(resourceSchemas));

/**
 * Plain JSON of a schema, each resource replaced by a reference to its component. Our extension
 * keyword (at most two decimals) stays out: strict validators such as Ajv's reject unknown
 * keywords, and integrators validate answers with the document; the money's description says it.
 */
function published(schema: TSchema, asComponent = false): unknown {
  const walk = (node: unknown, top: boolean): unknown => {
    if (Array.isArray(node)) return node.map((child) => walk(child, false));
    if (node === null || typeof node !== 'object') return node;
    const title = (node as Json).title;
    if (!top && typeof title === 'string' && COMPONENT_NAMES.has(title))
      return { $ref: `#/components/schemas/${title}` };
    return Object.fromEntries(
      Object.entries(node)
        .filter(([key]) => key !== MAX_DECIMALS)
        .map(([key, value]) => [key, walk(value, false)]),
    );
  };
  return walk(schema, asComponent);
}

/** What each error kind is, in the table of SPEC 2.3. */
const CASES: Readonly<Record<ErrorKind, string>> = {
  badParameter: 'A parameter is missing, blank, malformed, or sent twice with different values',
  malformedRequest: 'The body cannot be parsed',
  invalidRequest: 'The key is unknown or revoked, or its account is suspended',
  noItems: 'The account has no approved item',
  itemNotFound: "No approved item of the key's account has this id",
  invalidPurchaseCode: 'The purchase code is not valid for this account',
  notFound: 'A path no endpoint serves',
  methodNotAllowed: 'Another method than the endpoint takes (the Allow header names it)',
  requestTimeout: 'The headers or the body did not arrive in time; the connection is closed',
  bodyTooLarge: 'The body is over 64 KiB',
  unsupportedContentType: 'A body of another type than JSON, form or multipart',
  tooManyRequests: 'A budget is spent (failed attempts, or requests per key); retry after Retry-After seconds',
  serviceUnavailable: 'The store is unavailable',
  internal: 'Anything unexpected',
};

const STATUS_TEXT: Readonly<Record<number, string>> = {
  200: 'Success',
  400: 'Bad request',
  401: 'Unauthorized',
  404: 'Not found',
  405: 'Method not allowed',
  408: 'Request timeout',
  413: 'Payload too large',
  415: 'Unsupported media type',
  429: 'Too many requests',
  500: 'Internal server error',
  503: 'Service unavailable',
};

const HEADERS = {
  cacheControl: { description: 'Always no-store', schema: { type: 'string', const: 'no-store' } },
  noSniff: { description: 'Always nosniff', schema: { type: 'string', const: 'nosniff' } },
  allow: { description: "The endpoint's methods", schema: { type: 'string', examples: ['GET, HEAD', 'POST'] } },
  retryAfter: { description: 'Seconds to wait before trying again', schema: { type: 'integer', minimum: 1 } },
  rateLimitLimit: { description: 'The budget that applies (when one does)', schema: { type: 'integer', minimum: 0 } },
  rateLimitRemaining: { description: 'What is left of it in this window', schema: { type: 'integer', minimum: 0 } },
  rateLimitReset: { description: 'Seconds until the window starts again', schema: { type: 'integer', minimum: 0 } },
};

/** Example messages of a kind: the catalogue's text, or sentences the API writes for a 400. */
function exampleMessages(kind: ErrorKind, route: RouteContract, texts: VariantTexts): Record<string, string> {
  if (kind === 'malformedRequest') {
    return route.method === 'POST' ? { malformedRequest: texts.messages.malformedRequest } : {};
  }
  if (kind !== 'badParameter') return { [kind]: texts.messages[kind] };
  const examples: Record<string, string> = { missingApiKey: texts.parameter.missing('api_key') };
  for (const param of route.params) {
    examples[`missing_${param.name}`] = texts.parameter.missing(param.name);
    if (param.pattern) {
      examples[`malformed_${param.name}`] = texts.parameter.malformed(param.name, texts.expectations.positiveInteger);
    }
  }
  examples.conflictingApiKey = texts.parameter.conflicting('api_key');
  return examples;
}

function responseHeaders(status: number): Json {
  const headers: Json = { 'Cache-Control': HEADERS.cacheControl, 'X-Content-Type-Options': HEADERS.noSniff };
  if (status === 405) headers.Allow = HEADERS.allow;
  if (status === 429) headers['Retry-After'] = HEADERS.retryAfter;
  headers['RateLimit-Limit'] = HEADERS.rateLimitLimit;
  headers['RateLimit-Remaining'] = HEADERS.rateLimitRemaining;
  headers['RateLimit-Reset'] = HEADERS.rateLimitReset;
  return headers;
}

function responses(route: RouteContract, variant: VariantConfig, support: boolean, withContent: boolean): Json {
  const { texts } = variant;
  const schemas = routeResponseSchemas(route, texts);
  const result: Json = {};
  const success = exampleSuccessMembers(variant, support)[route.operationId];
  result['200'] = {
    description: STATUS_TEXT[200],
    headers: responseHeaders(200),
    ...(withContent && {
      content: {
        [JSON_MEDIA]: {
          schema: published(schemas.get(200) as TSchema),
          example: { status: texts.statusOk, ...(success as Json) },
        },
      },
    }),
  };
  for (const [status, kinds] of routeErrorKinds(route)) {
    const examples: Json = {};
    for (const kind of kinds) {
      for (const [name, msg] of Object.entries(exampleMessages(kind, route, texts))) {
        examples[name] = { summary: CASES[kind], value: { status: texts.statusError, msg } };
      }
    }
    result[String(status)] = {
      description: `${STATUS_TEXT[status]}: ${kinds.map((kind) => CASES[kind]).join('; ')}`,
      headers: responseHeaders(status),
      ...(withContent && {
        content: { [JSON_MEDIA]: { schema: published(schemas.get(status) as TSchema), examples } },
      }),
    };
  }
  return result;
}

/** The body a POST endpoint reads: its parameters and the key, in any of the three body types. */
function requestBody(route: RouteContract): Json {
  const fields = route.params.filter((param) => param.sources.includes('body'));
  const properties: Json = {
    api_key: { type: 'string', description: 'The API key, when not sent in a header or the query string' },
  };
  for (const field of fields) properties[field.name] = { type: 'string', description: field.description };
  // Unknown fields are ignored (SPEC 2.2.1), so the body stays open.
  const schema = { type: 'object', properties };
  const example = Object.fromEntries(fields.map((field) => [field.name, EXAMPLE_PURCHASE_CODE]));
  return {
    required: false,
    description:
      'Parameters may come in the body as JSON, a form, or multipart form fields (no files); 64 KiB at most.',
    content: {
      'application/json': { schema, example },
      'application/x-www-form-urlencoded': { schema, example },
      'multipart/form-data': { schema, example },
    },
  };
}

function queryParameters(route: RouteContract): Json[] {
  return route.params
    .filter((param) => param.sources.includes('query'))
    .map((param) => ({
      name: param.name,
      in: 'query',
      // A parameter a body may carry instead is not required in the query.
      required: !param.sources.includes('body'),
      description: param.sources.includes('body') ? `${param.description} (or in the body)` : param.description,
      schema: { type: 'string', ...(param.pattern && { pattern: param.pattern }) },
      example: param.name === 'item_id' ? String(EXAMPLE_ITEM_ID) : EXAMPLE_PURCHASE_CODE,
    }));
}

function operation(route: RouteContract, variant: VariantConfig, support: boolean, method: 'get' | 'head' | 'post') {
  const head = method === 'head';
  return {
    operationId: head ? `${route.operationId}Head` : route.operationId,
    summary: head ? `${route.summary} (headers only)` : route.summary,
    description: head ? `As GET ${route.path}, without a body.` : route.description,
    tags: ['API'],
    parameters: queryParameters(route),
    ...(method === 'post' && { requestBody: requestBody(route) }),
    responses: responses(route, variant, support, !head),
  };
}

/** The server a variant is reached at: its configured base URL, without a trailing slash. */
export function variantServerUrl(variant: VariantConfig): string {
  return variant.baseUrl.replace(/\/+$/, '') || '/';
}

/**
 * Builds the OpenAPI 3.1 document of a variant: its server, status words, messages and example
 * bodies in its currency. `support` says whether purchases show `supported_until` (config `support`).
 */
export function buildOpenApiDocument(variant: VariantConfig, support: boolean): Json {
  const { texts } = variant;
  const paths: Json = {};
  for (const route of routeContracts) {
    paths[route.path] =
      route.method === 'GET'
        ? { get: operation(route, variant, support, 'get'), head: operation(route, variant, support, 'head') }
        : { post: operation(route, variant, support, 'post') };
  }
  const notFound = errorEnvelope(['notFound'], texts);
  return {
    openapi: '3.1.0',
    info: {
      title: `marketplace-api (${texts.lang})`,
      version: '1.0.0',
      description:
        `The seller API of the marketplace, variant \`${texts.lang}\`: success answers carry ` +
        `\`"status": "${texts.statusOk}"\`, errors \`{"status": "${texts.statusError}", "msg": ...}\`, ` +
        `money in ${variant.currency}. Every answer is JSON with Cache-Control: no-store and no CORS headers: ` +
        'the key must never live in a browser. A trailing slash on a path is accepted; HEAD works where GET does. ' +
        `A path no endpoint serves answers 404 ${JSON.stringify(texts.messages.notFound)}.`,
    },
    servers: [{ url: variantServerUrl(variant) }],
    security: [{ apiKeyHeader: [] }, { bearer: [] }, { apiKeyQuery: [] }],
    tags: [{ name: 'API', description: 'The four seller endpoints' }],
    paths,
    components: {
      schemas: {
        ...Object.fromEntries(Object.entries(resourceSchemas).map(([name, schema]) => [name, published(schema, true)])),
        NotFound: published(notFound),
      },
      securitySchemes: {
        apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: 'The API key in a header' },
        bearer: { type: 'http', scheme: 'bearer', description: 'The API key as a bearer token' },
        apiKeyQuery: {
          type: 'apiKey',
          in: 'query',
          name: 'api_key',
          description: 'The API key in the query string (or the body, on POST); different values in two places: 400',
        },
      },
    },
  };
}
