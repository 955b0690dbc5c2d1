import type { TProperties, TSchema } from '@sinclair/typebox';
import { VALIDATE_SCOPE_PATHS } from '../keys/key-scopes.js';
import type { ErrorKind } from '../variants/error-kinds.js';
import type { MarketbobMessageName, MarketbobOperation } from './marketbob-schemas.js';

/**
 * The types of an endpoint's contract: what it takes and answers, as the OpenAPI documents, the
 * SDK and the tests' answer checks read it. Each endpoint's own contract sits beside its handler,
 * in the endpoint's file (src/api/routes/, src/api/marketbob/).
 */

/** Where a parameter may be sent (docs/api.md 2.1); the key may also come as a header or a bearer token. */
export type ParamSource = 'query' | 'body';

/** A parameter an endpoint reads besides the key. */
export interface EndpointParam {
  readonly name: string;
  readonly description: string;
  readonly sources: readonly ParamSource[];
  readonly pattern?: string;
  /** False for a parameter that may be left out (its default is in the description). */
  readonly required?: false;
  /** A whole number's bounds, for a parameter that is one (its 400 names them; the handler reads them from here). */
  readonly range?: { readonly min: number; readonly max: number };
  /**
   * A whole number, documented as an integer (a query string's digits; `pattern` says what text the
   * API reads as one). A parameter with a `range` is one too.
   */
  readonly integer?: true;
}

/**
 * What one endpoint of the contract's shape answers (docs/api.md, section 2): its success envelope's
 * members after `status`, its parameters, and the error kinds it may answer with besides those every
 * endpoint has.
 */
export interface EndpointContract {
  readonly shape: 'contract';
  readonly operationId: string;
  readonly summary: string;
  readonly description: string;
  readonly params: readonly EndpointParam[];
  /** The success envelope's members after `status`, in order. */
  readonly success: TProperties;
  /** The 404s this endpoint answers (an unknown path's 404 aside). */
  readonly notFound: readonly ErrorKind[];
  /** The statuses its success envelope comes with; [200] when left out. */
  readonly successStatuses?: readonly number[];
  /** The 409s this endpoint answers, if any. */
  readonly conflict?: readonly ErrorKind[];
}

/**
 * What one endpoint of a variant in MarketBob's shape answers: MarketBob's own success body (from
 * marketbob-schemas.ts), and the messages it may answer by status, in the order the answers are
 * checked. Its documents, the SDK's types and the tests' answer checks are all read from here
 * (marketbobResponseSchemas).
 */
export interface MarketbobContract {
  readonly shape: 'marketbob';
  readonly operationId: MarketbobOperation;
  readonly summary: string;
  readonly description: string;
  /** The 200's body. */
  readonly success: TSchema;
  readonly messages: Readonly<Record<number, readonly MarketbobMessageName[]>>;
}

/** An endpoint as its contract is read: where it is, and what it answers. */
export interface ContractRoute {
  readonly method: 'GET' | 'POST';
  /** Relative to a variant's base. */
  readonly path: string;
  readonly contract: EndpointContract;
}

/** The error kinds a route may answer with, by status; POST routes read bodies and add 413 and 415. */
export function routeErrorKinds(route: ContractRoute): ReadonlyMap<number, readonly ErrorKind[]> {
  const { contract } = route;
  const kinds = new Map<number, readonly ErrorKind[]>([
    [400, ['badParameter', 'malformedRequest']],
    [401, ['invalidRequest']],
    // A `validate` key may call only what src/keys/key-scopes.ts lists.
    ...(VALIDATE_SCOPE_PATHS.has(route.path) ? [] : [[403, ['keyScope']] as const]),
    [404, [...contract.notFound, 'notFound']],
    [405, ['methodNotAllowed']],
    ...(contract.conflict === undefined ? [] : [[409, contract.conflict] as const]),
    // Headers or a body that do not arrive in time (config server.requestTimeoutSeconds).
    [408, ['requestTimeout']],
  ]);
  if (route.method === 'POST') {
    kinds.set(413, ['bodyTooLarge']);
    kinds.set(415, ['unsupportedContentType']);
  }
  kinds.set(429, ['tooManyRequests']);
  kinds.set(500, ['internal']);
  kinds.set(503, ['serviceUnavailable']);
  return kinds;
}

/** A path no route serves: 404, or 405 for a route's path with another method. */
export const UNROUTED_ERROR_KINDS: ReadonlyMap<number, readonly ErrorKind[]> = new Map([
  [404, ['notFound']],
  [405, ['methodNotAllowed']],
]);
