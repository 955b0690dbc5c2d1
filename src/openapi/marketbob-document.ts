import type { TSchema } from '@sinclair/typebox';
import type { MarketbobEndpoint } from '../api/endpoint.js';
import { marketbobEndpoints } from '../api/marketbob/marketbob-endpoints.js';
import { packageVersion } from '../domain/package-version.js';
import {
  type MarketbobMessageName,
  marketbobResourceSchemas,
  marketbobResponseSchemas,
} from '../schemas/marketbob-schemas.js';
import { marketbobMessages } from '../variants/marketbob-texts.js';
import type { VariantConfig } from '../variants/variant-config.js';
import { docsLanguages, translator } from './docs-languages.js';
import { marketbobExampleMembers } from './marketbob-examples.js';
import { EXAMPLE_ITEM_ID, EXAMPLE_PURCHASE_CODE } from './openapi-examples.js';
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
 * The OpenAPI 3.1 document of a variant in MarketBob's shape: its four endpoints as MarketBob's
 * own API answers them (src/schemas/marketbob-schemas.ts), with MarketBob's messages in the
 * variant's language. MarketBob reads every parameter, the key among them, from the query string
 * or the body, so the key is the `api_key` parameter here; the endpoints the contract adds
 * (purchase activity) and the webhooks are the contract's, described in the contract variants'
 * documents.
 */

const COMPONENT_NAMES: ReadonlySet<string> = new Set(Object.keys(marketbobResourceSchemas));

/** When each message is answered. */
const CASES: Readonly<Record<MarketbobMessageName, string>> = {
  apiKeyRequired: 'The api_key parameter is missing or blank',
  invalidRequest:
    'The key is unknown, its user is not active, or the profile lacks a first name, last name, username, email or password',
  noItemsFound: "The key is no author's, or the author has no approved item",
  itemIdRequired: 'The item_id parameter is missing or blank',
  itemIdNotInteger: 'The item_id parameter is not an integer',
  itemNotFound: "The key is no author's, or the author has no approved item with this id",
  purchaseCodeRequired: 'The purchase_code parameter is missing or blank',
  invalidPurchaseCode: "The key is no author's, or the code is not an active purchase of the author's items",
  notFound: "The marketplace has switched its API off (MarketBob's actions.api setting)",
};

function responses(endpoint: MarketbobEndpoint, variant: VariantConfig, support: boolean, t: Translate): Json {
  const { operationId: operation, messages: answered } = endpoint.contract;
  const messages = marketbobMessages(variant.lang);
  const schemas = marketbobResponseSchemas(endpoint.contract, messages);
  const success = marketbobExampleMembers(variant, support, t)[operation];
  const result: Json = {
    '200': {
      description: t(STATUS_TEXT[200] as string),
      content: {
        [JSON_MEDIA]: {
          schema: published(schemas.get(200) as TSchema, t, COMPONENT_NAMES),
          example: { status: messages.statusOk, ...success },
        },
      },
    },
  };
  for (const [status, names] of Object.entries(answered)) {
    const examples = Object.fromEntries(
      names.map((name) => [
        name,
        { summary: t(CASES[name]), value: { status: messages.statusError, msg: messages[name] } },
      ]),
    );
    result[status] = {
      description: `${t(STATUS_TEXT[Number(status)] as string)}: ${names.map((name) => t(CASES[name])).join('; ')}`,
      content: {
        [JSON_MEDIA]: { schema: published(schemas.get(Number(status)) as TSchema, t, COMPONENT_NAMES), examples },
      },
    };
  }
  return result;
}

function operationOf(endpoint: MarketbobEndpoint, variant: VariantConfig, support: boolean, t: Translate): Json {
  const { operationId: operation, summary, description } = endpoint.contract;
  const common = { operationId: operation, summary: t(summary), description: t(description), tags: ['API'] };
  const responseList = responses(endpoint, variant, support, t);
  if (endpoint.method === 'POST') {
    const properties = {
      purchase_code: {
        type: 'string',
        description: t("The buyer's purchase code"),
        examples: [EXAMPLE_PURCHASE_CODE],
      },
    };
    const schema = { type: 'object', required: ['purchase_code'], properties };
    const example = { purchase_code: EXAMPLE_PURCHASE_CODE };
    return {
      ...common,
      requestBody: {
        required: true,
        description: t(
          'Parameters come in the body as JSON or a form, or in the query string; each is trimmed, and a blank one ' +
            'counts as missing. The key may come in the body as api_key too.',
        ),
        content: Object.fromEntries(BODY_MEDIA.map((media) => [media, { schema, example }])),
      },
      responses: responseList,
    };
  }
  const parameters =
    operation === 'itemsItem'
      ? [
          {
            name: 'item_id',
            in: 'query',
            required: true,
            description: t("The item's id, an integer"),
            schema: { type: 'integer', minimum: 1 },
            example: EXAMPLE_ITEM_ID,
          },
        ]
      : [];
  return { ...common, parameters, responses: responseList };
}

/** Builds the OpenAPI 3.1 document of a variant in MarketBob's shape. */
export function buildMarketbobDocument(variant: VariantConfig, support: boolean): Json {
  const language = docsLanguages[variant.lang];
  const t = translator(language);
  const messages = marketbobMessages(variant.lang);
  const paths: Json = {};
  for (const endpoint of marketbobEndpoints) {
    paths[endpoint.path] = { [endpoint.method.toLowerCase()]: operationOf(endpoint, variant, support, t) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: `marketplace-api (${variant.lang}, MarketBob)`,
      version: packageVersion(),
      description: language.marketbobInfoDescription({
        lang: variant.lang,
        statusOk: messages.statusOk,
        statusError: messages.statusError,
        currency: variant.currency,
        missingKey: messages.apiKeyRequired,
      }),
    },
    servers: [{ url: variantServerUrl(variant) }],
    security: [{ apiKey: [] }],
    tags: [{ name: 'API', description: t('The seller endpoints') }],
    paths,
    components: {
      schemas: Object.fromEntries(
        Object.entries(marketbobResourceSchemas).map(([name, schema]) => [
          name,
          published(schema, t, COMPONENT_NAMES, true),
        ]),
      ),
      securitySchemes: {
        apiKey: {
          type: 'apiKey',
          in: 'query',
          name: 'api_key',
          description: t('The API key as the api_key parameter: in the query string, or in the body on POST'),
        },
      },
    },
  };
}
