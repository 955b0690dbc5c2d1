import type { TSchema } from '@sinclair/typebox';
import type { ValidateFunction } from 'ajv';
import { marketbobEndpoints } from '../../src/api/marketbob/marketbob-endpoints.js';
import type { MarketbobContract } from '../../src/schemas/endpoint-contract.js';
import { type MarketbobOperation, marketbobResponseSchemas } from '../../src/schemas/marketbob-schemas.js';
import type { Lang } from '../../src/variants/languages.js';
import { marketbobMessages } from '../../src/variants/marketbob-texts.js';
import { createContractAjv, keyOrderProblems } from './response-contract.js';

/**
 * Checks an answer of a `marketbob` variant against MarketBob's shape (src/schemas/marketbob-schemas.ts):
 * the schema of its endpoint and status in the variant's language, and the keys' order.
 */

/** The endpoint an API path is, for a `marketbob` variant (the path after the variant's base). */
export const MARKETBOB_OPERATIONS: Readonly<Record<string, MarketbobOperation>> = Object.fromEntries(
  marketbobEndpoints.map((endpoint) => [endpoint.path, endpoint.contract.operationId]),
);

/** The contract of MarketBob's endpoint `operation`, from the endpoints' list. */
export function marketbobContractOf(operation: MarketbobOperation): MarketbobContract {
  const endpoint = marketbobEndpoints.find((candidate) => candidate.contract.operationId === operation);
  if (endpoint === undefined) throw new Error(`no MarketBob endpoint ${operation}`);
  return endpoint.contract;
}

const validators = new Map<string, { schema: TSchema; validate: ValidateFunction }>();
let ajv: ReturnType<typeof createContractAjv> | undefined;

/** What is wrong with an answer (its status and body text); [] when it is what MarketBob's shape allows. */
export function marketbobAnswerProblems(
  operation: MarketbobOperation,
  lang: Lang,
  statusCode: number,
  bodyText: string,
): string[] {
  const key = `${operation}|${lang}|${statusCode}`;
  let entry = validators.get(key);
  if (!entry) {
    const schema = marketbobResponseSchemas(marketbobContractOf(operation), marketbobMessages(lang)).get(statusCode);
    if (!schema) return [`${operation} has no ${statusCode} answer in MarketBob's shape`];
    ajv ??= createContractAjv();
    entry = { schema, validate: ajv.compile(schema) };
    validators.set(key, entry);
  }
  let body: unknown;
  try {
    body = JSON.parse(bodyText);
  } catch {
    return [`not JSON: ${bodyText.slice(0, 200)}`];
  }
  const problems = entry.validate(body)
    ? []
    : (entry.validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message}`);
  return [...problems, ...keyOrderProblems(body, entry.schema)];
}

/** Throws, naming every problem, when the answer is not what MarketBob's shape allows. */
export function assertMarketbobAnswer(
  operation: MarketbobOperation,
  lang: Lang,
  statusCode: number,
  bodyText: string,
): void {
  const problems = marketbobAnswerProblems(operation, lang, statusCode, bodyText);
  if (problems.length > 0) {
    throw new Error(`${operation} → ${statusCode}: not MarketBob's shape:\n  ${problems.join('\n  ')}\n${bodyText}`);
  }
}
