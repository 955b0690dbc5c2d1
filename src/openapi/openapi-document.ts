import type { TSchema } from '@sinclair/typebox';
import { ACTIVITY_DEFAULTS } from '../activity/activity-config.js';
import type { ContractEndpoint, EndpointSettings } from '../api/endpoint.js';
import { contractEndpoints } from '../api/routes/index.js';
import { packageVersion } from '../domain/package-version.js';
import { type EndpointParam, routeErrorKinds } from '../schemas/endpoint-contract.js';
import { resourceSchemas } from '../schemas/resource-schemas.js';
import { errorEnvelope, routeResponseSchemas } from '../schemas/response-schemas.js';
import { WEBHOOK_BODY_TYPES, webhookEventSchemas } from '../schemas/webhook-schemas.js';
import type { PublicJwk } from '../signing/signing-keys.js';
import type { ErrorKind } from '../variants/error-kinds.js';
import type { VariantConfig } from '../variants/variant-config.js';
import type { VariantTexts } from '../variants/variant-texts.js';
import { docsLanguages, translator } from './docs-languages.js';
import { buildMarketbobDocument } from './marketbob-document.js';
import { EXAMPLE_INSTANCE, EXAMPLE_ITEM_ID, EXAMPLE_PURCHASE_CODE, exampleSuccessMembers } from './openapi-examples.js';
import {
  BODY_MEDIA,
  JSON_MEDIA,
  type Json,
  published,
  STATUS_TEXT,
  type Translate,
  variantServerUrl,
} from './published-schema.js';

/**
 * The OpenAPI 3.1 document of one variant, built from the contract's schemas (src/schemas):
 * no shape is written here, only how the schemas are published, in the variant's language
 * (docs-languages.ts translates every English text below). `npm run openapi` writes the
 * shipped variants' documents to openapi/; a test fails when those drift from this.
 *
 * Each parameter has one place, so that a reader (and Swagger UI's "Try it out") sends it once:
 * GET parameters in the query, the POST's in its body (JSON or form); the key in the security
 * schemes. The other places the API accepts (docs/api.md 2.1) are said in words. HEAD is a sentence of
 * the introduction rather than four more operations.
 */

const COMPONENT_NAMES: ReadonlySet<string> = new Set(Object.keys(resourceSchemas));

/** What each error kind is, in the table of docs/api.md 2.3. */
const CASES: Readonly<Record<ErrorKind, string>> = {
  badParameter: 'A parameter is missing, blank, malformed, or sent twice with different values',
  malformedRequest: 'The body cannot be parsed',
  invalidRequest: 'The key is unknown or revoked, or its account is suspended',
  keyScope: 'The key is a validate key, which may call only purchase validation, activations and license tokens',
  noItems: 'The account has no approved item',
  itemNotFound: "No approved item of the key's account has this id",
  invalidPurchaseCode: 'The purchase code is not valid for this account',
  notFound: 'A path no endpoint serves',
  activationNotFound: 'The instance holds no activation of this code',
  activationLimit: 'The code holds as many instances as its item allows',
  methodNotAllowed: 'Another method than the endpoint takes (the Allow header names it)',
  requestTimeout: 'The headers or the body did not arrive in time; the connection is closed',
  bodyTooLarge: 'The body is over 64 KiB',
  unsupportedContentType: 'A body of another type than JSON, form or multipart',
  tooManyRequests:
    'A budget is spent (failed attempts, requests per key and client, or activity reports per key); retry after Retry-After seconds',
  serviceUnavailable: 'The store is unavailable',
  internal: 'Anything unexpected',
};

const SIGNATURE_INPUT_EXAMPLE =
  'sig1=("@status" "content-digest" "@method";req "@path";req "@query";req "signature-nonce";req);' +
  'created=1714564800;keyid="NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs";alg="ed25519";nonce="4f1c2e"';

const HEADERS = {
  cacheControl: { description: 'Always no-store', schema: { type: 'string', const: 'no-store' } },
  noSniff: { description: 'Always nosniff', schema: { type: 'string', const: 'nosniff' } },
  allow: { description: "The endpoint's methods", schema: { type: 'string', examples: ['GET, HEAD', 'POST'] } },
  retryAfter: { description: 'Seconds to wait before trying again', schema: { type: 'integer', minimum: 1 } },
  rateLimitLimit: {
    description: 'The budget closest to running out (when one applies)',
    schema: { type: 'integer', minimum: 0 },
  },
  rateLimitRemaining: { description: 'What is left of it in this window', schema: { type: 'integer', minimum: 0 } },
  rateLimitReset: { description: 'Seconds until the window starts again', schema: { type: 'integer', minimum: 0 } },
  contentDigest: {
    description: "The body's SHA-256 (RFC 9530), covered by the signature",
    schema: { type: 'string', pattern: '^sha-256=:[A-Za-z0-9+/]+={0,2}:$' },
  },
  signatureInput: {
    description:
      'What the signature covers (RFC 9421): "@status" "content-digest" "@method";req "@path";req "@query";req, ' +
      'and "signature-nonce";req when the request sent one; created, keyid, alg="ed25519" and nonce',
    schema: { type: 'string', examples: [SIGNATURE_INPUT_EXAMPLE] },
  },
  signature: {
    description: 'The Ed25519 signature (RFC 9421), verified with the key of its keyid at {base}/.well-known/jwks.json',
    schema: { type: 'string', pattern: '^sig1=:[A-Za-z0-9+/]+={0,2}:$' },
  },
};

/** Example messages of a kind: the catalogue's text, or sentences the API writes for a 400. */
function exampleMessages(kind: ErrorKind, route: ContractEndpoint, texts: VariantTexts): Record<string, string> {
  if (kind === 'malformedRequest') {
    return route.method === 'POST' ? { malformedRequest: texts.messages.malformedRequest } : {};
  }
  if (kind !== 'badParameter') return { [kind]: texts.messages[kind] };
  const examples: Record<string, string> = { missingApiKey: texts.parameter.missing('api_key') };
  for (const param of route.contract.params) {
    if (param.required !== false) examples[`missing_${param.name}`] = texts.parameter.missing(param.name);
    if (param.pattern) {
      const expectation = param.range
        ? texts.expectations.wholeNumber(param.range.min, param.range.max)
        : texts.expectations.positiveInteger;
      examples[`malformed_${param.name}`] = texts.parameter.malformed(param.name, expectation);
    }
  }
  examples.conflictingApiKey = texts.parameter.conflicting('api_key');
  return examples;
}

function responseHeaders(status: number, t: Translate): Json {
  const header = ({ description, schema }: { description: string; schema: unknown }) => ({
    description: t(description),
    schema,
  });
  const headers: Json = {
    'Cache-Control': header(HEADERS.cacheControl),
    'X-Content-Type-Options': header(HEADERS.noSniff),
  };
  if (status === 405) headers.Allow = header(HEADERS.allow);
  if (status === 429) headers['Retry-After'] = header(HEADERS.retryAfter);
  headers['RateLimit-Limit'] = header(HEADERS.rateLimitLimit);
  headers['RateLimit-Remaining'] = header(HEADERS.rateLimitRemaining);
  headers['RateLimit-Reset'] = header(HEADERS.rateLimitReset);
  headers['Content-Digest'] = header(HEADERS.contentDigest);
  headers['Signature-Input'] = header(HEADERS.signatureInput);
  headers.Signature = header(HEADERS.signature);
  return headers;
}

function responses(route: ContractEndpoint, variant: VariantConfig, support: boolean, t: Translate): Json {
  const { texts } = variant;
  const schemas = routeResponseSchemas(route, texts);
  const result: Json = {};
  const success = exampleSuccessMembers(variant, support, t)[route.contract.operationId];
  for (const status of route.contract.successStatuses ?? [200]) {
    result[String(status)] = {
      description: t(STATUS_TEXT[status] as string),
      headers: responseHeaders(status, t),
      content: {
        [JSON_MEDIA]: {
          schema: published(schemas.get(status) as TSchema, t, COMPONENT_NAMES),
          example: { status: texts.statusOk, ...(success as Json) },
        },
      },
    };
  }
  for (const [status, kinds] of routeErrorKinds(route)) {
    const examples: Json = {};
    for (const kind of kinds) {
      for (const [name, msg] of Object.entries(exampleMessages(kind, route, texts))) {
        examples[name] = { summary: t(CASES[kind]), value: { status: texts.statusError, msg } };
      }
    }
    result[String(status)] = {
      description: `${t(STATUS_TEXT[status] as string)}: ${kinds.map((kind) => t(CASES[kind])).join('; ')}`,
      headers: responseHeaders(status, t),
      content: { [JSON_MEDIA]: { schema: published(schemas.get(status) as TSchema, t, COMPONENT_NAMES), examples } },
    };
  }
  return result;
}

/** The body a POST endpoint reads: its parameters, as JSON or a form (multipart is said in words). */
function requestBody(route: ContractEndpoint, t: Translate): Json {
  const fields = route.contract.params.filter((param) => param.sources.includes('body'));
  const properties = Object.fromEntries(
    fields.map((field) => [
      field.name,
      { type: 'string', description: t(field.description), examples: [exampleOf(field)] },
    ]),
  );
  // Unknown fields are ignored (docs/api.md 2.2.1), so the body stays open.
  const required = fields.filter((field) => field.required !== false).map((field) => field.name);
  const schema = { type: 'object', required, properties };
  const example = Object.fromEntries(
    fields.filter((field) => field.required !== false).map((field) => [field.name, exampleOf(field)]),
  );
  return {
    required: true,
    description: t(
      'Parameters come in the body as JSON or a form (multipart form fields work too, no files); 64 KiB at most. ' +
        'The key may come in the body as api_key too.',
    ),
    content: Object.fromEntries(BODY_MEDIA.map((media) => [media, { schema, example }])),
  };
}

/** A parameter's example: the demo data's, so "Try it out" answers 200 on a store with the demo data. */
function exampleOf(param: EndpointParam): string | number {
  if (param.name === 'item_id') return EXAMPLE_ITEM_ID;
  if (param.name === 'days') return 30;
  if (param.name === 'limit') return 50;
  if (param.name === 'instance') return EXAMPLE_INSTANCE;
  return EXAMPLE_PURCHASE_CODE;
}

/** The largest whole number of `pattern`'s digits a parameter with no `range` may have (15 of them). */
const LARGEST_ID = 999_999_999_999_999;

/**
 * A query parameter's schema. A whole number is an integer, as a client should send it (its digits);
 * the API reads the query string's text, so `pattern` (blanks around the digits, leading zeros)
 * is said for the strings it accepts only.
 */
function parameterSchema(param: EndpointParam): Json {
  if (param.range) return { type: 'integer', minimum: param.range.min, maximum: param.range.max };
  if (param.integer) return { type: 'integer', minimum: 1, maximum: LARGEST_ID };
  return { type: 'string', ...(param.pattern && { pattern: param.pattern }) };
}

function queryParameters(route: ContractEndpoint, t: Translate): Json[] {
  return route.contract.params.map((param) => ({
    name: param.name,
    in: 'query',
    required: param.required !== false,
    description: t(param.description),
    schema: parameterSchema(param),
    example: exampleOf(param),
  }));
}

/** The header a client sends to have the answer's signature bound to its request. */
function nonceParameter(t: Translate): Json {
  return {
    name: 'Signature-Nonce',
    in: 'header',
    required: false,
    description: t(
      "A value of the client's (1 to 255 visible ASCII characters, no quotes or backslashes), covered by the answer's " +
        'signature and echoed in its nonce parameter: a recorded answer cannot be replayed to another request',
    ),
    schema: { type: 'string', minLength: 1, maxLength: 255 },
    example: '4f1c2e',
  };
}

function operation(route: ContractEndpoint, variant: VariantConfig, support: boolean, t: Translate) {
  const post = route.method === 'POST';
  return {
    operationId: route.contract.operationId,
    summary: t(route.contract.summary),
    description: t(route.contract.description),
    tags: ['API'],
    parameters: [...(post ? [] : queryParameters(route, t)), nonceParameter(t)],
    ...(post ? { requestBody: requestBody(route, t) } : {}),
    responses: responses(route, variant, support, t),
  };
}

const SIGNATURE_HEADERS: readonly [string, string][] = [
  ['webhook-id', 'The event id: the same on every retry of the event'],
  ['webhook-timestamp', 'When this attempt was signed, in seconds since the epoch: refuse one too far from now'],
  [
    'webhook-signature',
    'v1, then a comma and the base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}" keyed by the secret after whsec_; ' +
      'two of them, separated by a space, while a rotated secret still signs',
  ],
];

/**
 * The `webhooks` section (OpenAPI 3.1): what a seller's endpoint receives, one entry per event
 * type, with the Standard Webhooks signature headers. Money is in the endpoint's chosen variant,
 * as this document's examples are in its own.
 */
function webhooks(t: Translate): Json {
  return Object.fromEntries(
    WEBHOOK_BODY_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: `webhook_${type.replace('.', '_')}`,
          summary: t(webhookEventSchemas[type]?.description as string),
          description: t(
            'Sent by the service to each endpoint of the seller subscribed to this event, signed by the Standard Webhooks ' +
              'scheme: verify the signature (the SDK has verifyWebhook) before trusting the body. Answer 2xx within 10 s; ' +
              'any other answer, or none, is retried with exponential back-off for about 3 days, so an event may arrive ' +
              'more than once and in any order: use the event id to skip one seen before.',
          ),
          security: [],
          parameters: SIGNATURE_HEADERS.map(([name, description]) => ({
            name,
            in: 'header',
            required: true,
            description: t(description),
            schema: { type: 'string' },
          })),
          requestBody: {
            required: true,
            content: { [JSON_MEDIA]: { schema: published(webhookEventSchemas[type] as TSchema, t, COMPONENT_NAMES) } },
          },
          responses: { '2XX': { description: t('Received: the event is not sent again') } },
        },
      },
    ]),
  );
}

/**
 * Builds the OpenAPI 3.1 document of a variant: its server, status words, messages and example
 * bodies in its currency. `support` says whether purchases show `supported_until` (config `support`).
 * A variant in MarketBob's shape gets the document of its own answers (marketbob-document.ts).
 * `settings` are the config's bounds that the contracts state (the top list's `days`): the
 * shipped defaults when left out.
 */
export function buildOpenApiDocument(
  variant: VariantConfig,
  support: boolean,
  publishedKeys?: readonly PublicJwk[],
  settings: EndpointSettings = { activity: ACTIVITY_DEFAULTS },
): Json {
  if (variant.shape === 'marketbob') return buildMarketbobDocument(variant, support);
  const { texts } = variant;
  const language = docsLanguages[variant.lang];
  const t = translator(language);
  const paths: Json = {};
  for (const route of contractEndpoints(settings)) {
    paths[route.path] = { [route.method.toLowerCase()]: operation(route, variant, support, t) };
  }
  const notFound = errorEnvelope(['notFound'], texts);
  return {
    openapi: '3.1.0',
    info: {
      title: `marketplace-api (${texts.lang})`,
      version: packageVersion(),
      description: `${language.infoDescription({
        lang: texts.lang,
        statusOk: texts.statusOk,
        statusError: texts.statusError,
        currency: variant.currency,
        notFound: texts.messages.notFound,
      })}\n\n${language.signingDescription(variant.prefix, publishedKeys)}`,
    },
    servers: [{ url: variantServerUrl(variant) }],
    security: [{ apiKeyHeader: [] }, { bearer: [] }, { apiKeyQuery: [] }],
    // Swagger UI shows the webhooks in a section of their own, headed "Webhooks": a tag of that name
    // would add a second, empty section.
    tags: [{ name: 'API', description: t('The seller endpoints') }],
    paths,
    webhooks: webhooks(t),
    components: {
      schemas: {
        ...Object.fromEntries(
          Object.entries(resourceSchemas).map(([name, schema]) => [name, published(schema, t, COMPONENT_NAMES, true)]),
        ),
        NotFound: published(notFound, t, COMPONENT_NAMES),
      },
      securitySchemes: {
        apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: t('The API key in a header') },
        bearer: { type: 'http', scheme: 'bearer', description: t('The API key as a bearer token') },
        apiKeyQuery: {
          type: 'apiKey',
          in: 'query',
          name: 'api_key',
          description: t('The API key in the query string (or the body, on POST); different values in two places: 400'),
        },
      },
    },
  };
}
