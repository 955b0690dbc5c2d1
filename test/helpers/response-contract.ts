import type { TSchema } from '@sinclair/typebox';
import { Ajv, type ValidateFunction } from 'ajv';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import type { ContractEndpoint } from '../../src/api/endpoint.js';
import { contractEndpoints } from '../../src/api/routes/index.js';
import type { Config } from '../../src/config.js';
import { MAX_DECIMALS } from '../../src/schemas/resource-schemas.js';
import { routeResponseSchemas, unroutedResponseSchemas } from '../../src/schemas/response-schemas.js';
import { createVariantResolver } from '../../src/variants/variant-runtime.js';
import type { VariantTexts } from '../../src/variants/variant-texts.js';
import { injectedPath } from './injected-path.js';
import { assertMarketbobAnswer, MARKETBOB_OPERATIONS } from './marketbob-contract.js';

/**
 * Checks answers against the endpoints' contracts (src/api/routes, src/api/marketbob): every answer the HTTP suites
 * receive through `createTestApp` passes here, so the bytes the routes write and the schemas
 * (hence the OpenAPI document and the SDK's types) cannot drift apart.
 */

/**
 * Strict Ajv, as an integrator's validator would be, with our one extension keyword. Not
 * `allErrors`: the first problem is enough to fail a test, and compiling is several times faster.
 */
export function createContractAjv(): Ajv {
  const ajv = new Ajv({ strict: true });
  ajv.addKeyword({
    keyword: MAX_DECIMALS,
    type: 'number',
    schemaType: 'number',
    validate: (decimals: number, value: number) => Number(value.toFixed(decimals)) === value,
    error: { message: `must have at most the given number of decimals (${MAX_DECIMALS})` },
  });
  return ajv;
}

/** Where keys are out of the schema's order; objects nested in arrays and unions included. */
export function keyOrderProblems(value: unknown, schema: TSchema, path = ''): string[] {
  if (Array.isArray(value)) {
    const items = schema.items as TSchema | undefined;
    return items ? value.flatMap((element, index) => keyOrderProblems(element, items, `${path}/${index}`)) : [];
  }
  if (value === null || typeof value !== 'object') return [];
  if (Array.isArray(schema.anyOf)) {
    const branch = (schema.anyOf as TSchema[]).find((candidate) => fitsKeys(value, candidate));
    return branch ? keyOrderProblems(value, branch, path) : [`${path || '/'}: keys fit no variant of the schema`];
  }
  const properties = schema.properties as Record<string, TSchema> | undefined;
  if (!properties || Object.keys(properties).length === 0) return [];
  const actual = Object.keys(value);
  const expected = Object.keys(properties).filter((key) => key in value);
  const problems =
    actual.join() === expected.join()
      ? []
      : [`${path || '/'}: keys ${actual.join(',')}, expected ${expected.join(',')}`];
  for (const key of expected) {
    problems.push(
      ...keyOrderProblems((value as Record<string, unknown>)[key], properties[key] as TSchema, `${path}/${key}`),
    );
  }
  return problems;
}

/** An object schema whose properties hold all of the value's keys and its required ones, or a record. */
function fitsKeys(value: object, schema: TSchema): boolean {
  const properties = schema.properties as Record<string, unknown> | undefined;
  // A record (MarketBob's shape has some) takes any keys, in any order.
  if (!properties) return schema.type === 'object' && schema.patternProperties !== undefined;
  const required = (schema.required as string[] | undefined) ?? [];
  return Object.keys(value).every((key) => key in properties) && required.every((key) => key in value);
}

/** Paths under a variant's base that other surfaces than the API answer. */
const OTHER_SURFACES = [
  /^\/openapi\.json$/,
  /^\/docs(\/|$)/,
  /^\/(login|login\/code|logout)$/,
  /^\/workspace(\/|$)/,
  /^\/brand\//,
  /^\/\.well-known\/jwks\.json$/,
];

function withoutTrailingSlash(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

/** The contract's schema for an answer, by its variant, route and status; undefined for the non-API pages. */
export interface ContractChecker {
  /** Throws, naming what is wrong, when the answer does not match its schema or its key order. */
  check(request: InjectOptions | string, response: LightMyRequestResponse): void;
  /** Answers checked so far. */
  readonly checked: number;
}

/**
 * Validators compiled once per test file and shared by every app it builds: compiling a schema is
 * slow, and must not land inside a test's first (perhaps timed) request.
 */
let sharedAjv: Ajv | undefined;
const validators = new Map<string, { schema: TSchema; validate: ValidateFunction }>();

function validatorFor(texts: VariantTexts, route: ContractEndpoint | undefined, status: number) {
  const key = `${texts.lang}|${route?.path ?? '(unrouted)'}|${status}`;
  let entry = validators.get(key);
  if (!entry) {
    const schema = (route ? routeResponseSchemas(route, texts) : unroutedResponseSchemas(texts)).get(status);
    if (!schema) return undefined;
    sharedAjv ??= createContractAjv();
    entry = { schema, validate: sharedAjv.compile(schema) };
    validators.set(key, entry);
  }
  return entry;
}

export function createContractChecker(config: Config): ContractChecker {
  const resolver = createVariantResolver(config.variants);
  // The success envelopes, the costly ones, are compiled now (while the app is built), not mid-test.
  const endpoints = contractEndpoints(config);
  for (const variant of config.variants) for (const route of endpoints) validatorFor(variant.texts, route, 200);
  let checked = 0;

  const schemaFor = (texts: VariantTexts, method: string, path: string, status: number) => {
    const route = endpoints.find(
      (candidate) =>
        candidate.path === path && (candidate.method === method || (method === 'HEAD' && candidate.method === 'GET')),
    );
    return validatorFor(texts, route, status);
  };

  return {
    get checked() {
      return checked;
    },
    check(request, response) {
      const options = typeof request === 'string' ? { url: request } : request;
      const pathname = injectedPath(String(options.url ?? options.path ?? '/'));
      const headers = (options.headers ?? {}) as Record<string, string | undefined>;
      const host = headers.host ?? headers.Host ?? 'localhost:80';
      const { variant, rest } = resolver.forPath(pathname, host);
      const path = withoutTrailingSlash(rest);
      // The other surfaces (docs, the workspace pages, the admin API, health) are not the contract's
      // answers; their own tests check them.
      if (OTHER_SURFACES.some((surface) => surface.test(path)) || /^\/(admin\/|healthz$|readyz$)/.test(pathname)) {
        return;
      }
      // The front page a browser gets at a base (its JSON 404 for anyone else is the contract's).
      if ((path === '' || path === '/') && String(response.headers['content-type']).startsWith('text/html')) return;
      const method = String(options.method ?? 'GET').toUpperCase();
      // A variant in MarketBob's shape answers its four endpoints as MarketBob does, not as the
      // contract: checked against MarketBob's shape (the statuses it has words for; the rest, such
      // as a spent budget, are our envelope in MarketBob's words, checked by their own tests).
      if (variant.config.shape === 'marketbob') {
        const operation = MARKETBOB_OPERATIONS[path];
        if (operation !== undefined && method !== 'HEAD' && [200, 400, 401, 404].includes(response.statusCode)) {
          assertMarketbobAnswer(operation, variant.config.lang, response.statusCode, response.body);
          checked += 1;
        }
        return;
      }
      const where = `${method} ${pathname} → ${response.statusCode}`;
      if (method === 'HEAD') {
        if (response.body !== '') throw new Error(`${where}: a HEAD answer has a body`);
        checked += 1;
        return;
      }
      const entry = schemaFor(variant.config.texts, method, path, response.statusCode);
      if (!entry) throw new Error(`${where}: the contract has no answer with this status here (${response.body})`);
      let body: unknown;
      try {
        body = JSON.parse(response.body);
      } catch {
        throw new Error(`${where}: not JSON: ${response.body.slice(0, 200)}`);
      }
      const problems = entry.validate(body)
        ? []
        : (entry.validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message}`);
      problems.push(...keyOrderProblems(body, entry.schema));
      if (problems.length > 0) {
        throw new Error(
          `${where}: the answer does not match its schema:\n  ${problems.join('\n  ')}\n${response.body}`,
        );
      }
      checked += 1;
    },
  };
}
